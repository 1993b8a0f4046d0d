"""`edge-agent agent` (the on-device agent): one message with -m, or a chat on the terminal.

Exit status: 0 answered, 1 error, 2 usage, 3 no model provider answered (the offline answer, the
best datasheet chunk and the pins the message names, is printed all the same).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from typing import Any

EXIT_PROVIDER_DOWN = 3


def register(sub: Any) -> None:
    p = sub.add_parser("agent", help="ask the on-device agent (a local or remote model with the hardware tools)",
                       description="Engage memory, add the hardware context, ask the model, run the tools it "
                       "calls, answer and remember. Without -m: a chat (/quit to leave).")
    p.add_argument("-m", "--message", help="the message; without it, an interactive chat")
    p.add_argument("--json", action="store_true", help="print the turn as JSON (response, tool_calls, cached, "
                   "provider, usage)")
    p.add_argument("--session", metavar="ID", help="continue this chat history (kept in the state directory)")
    p.add_argument("--board", metavar="B", help="scope the hardware context to this board id")
    p.set_defaults(handler=run, _agent_parser=p)


def _usage(args: argparse.Namespace, message: str) -> int:
    parser = getattr(args, "_agent_parser", None)
    if parser is not None:
        parser.print_usage(sys.stderr)
    print(f"edge-agent agent: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    if args.message is not None and not args.message.strip():
        return _usage(args, "the message is empty; pass the question with -m \"...\" (or leave -m out to chat)")
    if args.message is None and args.json:
        return _usage(args, "--json needs a message: -m \"...\"")
    if args.session is not None:
        from edge_agent.agent.state import check_session

        check_session(args.session)
    from edge_agent.agent.assemble import open_agent
    from edge_agent.cli._common import settings_from, state_from

    with open_agent(settings_from(args), state_from(args)) as agent:
        if args.message is not None:
            return _one(agent, args)
        return _chat(agent, args)


def _show_tool(stream: Any) -> Any:
    def show(phase: str, rec: Any) -> None:
        if phase == "start":
            print(f"  [tool] {rec.name} {json.dumps(rec.arguments, ensure_ascii=False, default=str)}", file=stream,
                  flush=True)
        elif rec.error is not None:
            print(f"  [tool] {rec.name} refused or failed: {rec.error}", file=stream, flush=True)
        else:
            print(f"  [tool] {rec.name} ok", file=stream, flush=True)

    return show


def _provider_down(agent: Any, exc: Any, message: str, board: str | None) -> str:
    tried = "; ".join(f"{url} ({why})" for url, why in exc.attempts) or str(exc)
    print(f"edge-agent: no model provider answered: {tried}", file=sys.stderr, flush=True)
    return str(agent.offline_answer(message, board))


def _one(agent: Any, args: argparse.Namespace) -> int:
    from edge_agent.errors import ProviderError

    try:
        result = agent.turn(args.message, session=args.session, board=args.board,
                            on_tool=None if args.json else _show_tool(sys.stderr))
    except ProviderError as exc:
        offline = _provider_down(agent, exc, args.message, args.board)
        if args.json:
            _print_json({"response": offline, "tool_calls": [], "cached": False, "provider": None, "usage": {},
                         "tool_rounds": 0, "limit_reached": False, "source_krefs": [],
                         "offline": True, "error": str(exc),
                         "providers_tried": [{"url": u, "error": why} for u, why in exc.attempts]})
        else:
            print(offline)
        return EXIT_PROVIDER_DOWN
    if args.json:
        # The same keys as the offline answer above, so a script reads one shape either way.
        _print_json({**result.as_dict(), "offline": False, "error": None, "providers_tried": []})
    else:
        print(result.response)
    return 0


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def _chat(agent: Any, args: argparse.Namespace) -> int:
    from edge_agent.errors import ProviderError

    session = args.session or f"chat-{os.getpid()}"
    print(f"edge-agent chat: {agent.chain.model} via {agent.chain.providers[0].spec}. /quit to leave.", flush=True)
    # The SDK import takes a good second on a small board: do it while the first message is typed.
    threading.Thread(target=agent.chain.warm, name="edge-agent-warm", daemon=True).start()
    status = 0
    try:
        while True:
            try:
                line = input("you> ")
            except EOFError:
                print()
                break
            text = line.strip()
            if text in ("/quit", "/exit", "/q"):
                break
            if not text:
                continue
            print("agent> ", end="", flush=True)

            def token(t: str) -> None:
                sys.stdout.write(t)
                sys.stdout.flush()

            def tool(phase: str, rec: Any) -> None:
                if phase == "start":
                    print()
                _show_tool(sys.stdout)(phase, rec)

            try:
                result = agent.turn(text, session=session, board=args.board, on_token=token, on_tool=tool)
            except ProviderError as exc:
                print()
                print(_provider_down(agent, exc, text, args.board))
                status = EXIT_PROVIDER_DOWN
                continue
            status = 0
            print(" (cached)" if result.cached else "", flush=True)
    finally:
        if args.session is None and agent.state is not None:
            agent.state.drop(session)
    return status
