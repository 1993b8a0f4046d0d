"""`edge-agent agent` (the on-device agent): one message with -m, or a chat on the terminal.

Exit status: 0 answered, 1 error, 2 usage, 3 no model provider answered (the offline answer, the
best datasheet chunk and the pins the message names, is printed all the same).

In the chat, lines starting with ``/`` are commands handled here and never sent to the model
(``/help``, ``/tools``, ``/reset``, ``/quit``); Ctrl-C during a turn cancels that turn and keeps the
chat; with ``[autonomy] level = "supervised"`` each state-changing call is shown and asked about.
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
    p.add_argument("--provider", metavar="P", help="use this model server instead of default_provider (ollama, "
                   "llamacpp, lmstudio, vllm, openai or custom:<base URL>)")
    p.add_argument("--model", metavar="NAME", help="use this model instead of default_model")
    p.add_argument("--compact", action="store_true", help="small-model mode for this run ([agent] compact_context)")
    p.add_argument("--yes", action="store_true", help="approve the state-changing tool calls of this one-shot "
                   "(with [autonomy] level = \"supervised\" they are refused otherwise)")
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
    from edge_agent.cli._common import state_from

    with open_agent(_settings(args), state_from(args)) as agent:
        if args.message is not None:
            agent.autonomy.approved = bool(args.yes)
            return _one(agent, args)
        agent.autonomy.confirm = _ask_operator
        return _chat(agent, args)


def _settings(args: argparse.Namespace) -> Any:
    """The configuration with --provider, --model and --compact applied (checked as the file's keys are)."""
    from edge_agent.cli._common import settings_from
    from edge_agent.config import resolve_provider

    settings = settings_from(args)
    update: dict[str, Any] = {}
    if args.provider:
        resolve_provider(args.provider, settings.providers)  # ConfigError naming the forms when it is none
        update["default_provider"] = args.provider.strip()
    if args.model is not None:
        if not args.model.strip():
            from edge_agent.errors import ConfigError

            raise ConfigError("--model is empty; name the model the provider serves, e.g. --model qwen2.5:3b")
        update["default_model"] = args.model.strip()
    if args.compact:
        update["agent"] = settings.agent.model_copy(update={"compact_context": True})
    return settings.model_copy(update=update) if update else settings


def _ask_operator(request: Any) -> bool:
    """Show the exact write and ask; anything but yes is no (EOF and Ctrl-C too)."""
    print(f"\n  [approve] {request.description}", flush=True)
    try:
        answer = input("  run it? [y/N] ")
    except (EOFError, KeyboardInterrupt):
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


RESULT_CHARS = 300  # of a tool result shown on the terminal
# How a call that did not return a result ended, by its outcome (edge_agent.agent.records.Outcome).
_ENDED = {"refused": "refused", "needs_approval": "needs the operator's approval", "malformed": "malformed call",
          "not_offered": "not offered", "failed": "failed"}


def _show_tool(stream: Any) -> Any:
    def show(phase: str, rec: Any) -> None:
        if phase == "start":
            print(f"  [tool] {rec.name} {json.dumps(rec.arguments, ensure_ascii=False, default=str)}", file=stream,
                  flush=True)
            return
        for note in rec.notes:
            print(f"  [note] {note}", file=stream, flush=True)
        if rec.repeat:
            print(f"  [tool] {rec.name}: the same call already ran; not run again", file=stream, flush=True)
        elif rec.error is not None:
            print(f"  [tool] {rec.name} {_ENDED.get(str(rec.outcome), 'failed')}: {rec.error}", file=stream, flush=True)
        else:
            text = json.dumps(rec.result, ensure_ascii=False, default=str)
            cut = text[:RESULT_CHARS] + ("..." if len(text) > RESULT_CHARS else "")
            print(f"  [tool] {rec.name} -> {cut}", file=stream, flush=True)

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
                         "tool_rounds": 0, "limit_reached": False, "source_krefs": [], "tools_offered": [],
                         "notes": [], "offline": True, "error": str(exc),
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


HELP = """Commands (handled here, never sent to the model):
  /help    this list
  /tools   the tools the model can be offered, and the autonomy level
  /reset   forget this chat's history (memory and the response cache stay)
  /quit    leave (also /exit, /q, Ctrl-D)
Ctrl-C during an answer cancels that turn; the chat goes on."""


def _local_command(agent: Any, text: str, session: str) -> bool | None:
    """Handle a /command: True to go on, False to leave, None when `text` is a message for the model."""
    if not text.startswith("/"):
        return None
    cmd = text.split()[0].lower()
    if cmd in ("/quit", "/exit", "/q"):
        return False
    if cmd == "/help":
        print(HELP)
    elif cmd == "/tools":
        level = agent.settings.autonomy.level
        choice = agent.settings.agent.tool_choice
        print(f"Tools ({'compact' if agent.compact else 'full'} mode; offered per message: {choice == 'question'}; "
              f"autonomy: {level}):")
        for name in agent.available:
            print(f"  {name}")
    elif cmd == "/reset":
        if agent.state is not None:
            agent.state.drop(session)
        print("Chat history cleared.")
    else:
        print(f"Unknown command {cmd}; /help lists the commands. (To ask the model something starting with '/', "
              "put a space before it.)")
    return True


class _Thinking:
    """A 'thinking...' mark on the terminal until the first answer text or tool line arrives."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.on = stream, False

    def show(self) -> None:
        if self.stream.isatty():
            self.stream.write("thinking...")
            self.stream.flush()
            self.on = True

    def clear(self) -> None:
        if self.on:
            self.stream.write("\b" * len("thinking...") + " " * len("thinking...") + "\b" * len("thinking..."))
            self.stream.flush()
            self.on = False


def _chat(agent: Any, args: argparse.Namespace) -> int:
    from edge_agent.errors import ProviderError

    session = args.session or f"chat-{os.getpid()}"
    print(f"edge-agent chat: {agent.chain.model} via {agent.chain.providers[0].shown}. /help for commands, "
          "/quit to leave.", flush=True)
    # The SDK import takes a good second on a small board: do it while the first message is typed.
    threading.Thread(target=agent.chain.warm, name="edge-agent-warm", daemon=True).start()
    status = 0
    thinking = _Thinking(sys.stdout)
    try:
        while True:
            try:
                line = input("you> ")
            except EOFError:
                print()
                break
            except KeyboardInterrupt:  # Ctrl-C at the prompt leaves, as in a shell
                print()
                break
            text = line.strip()
            if not text:
                continue
            if line.startswith("/"):
                handled = _local_command(agent, text, session)
                if handled is False:
                    break
                if handled:
                    continue
            print("agent> ", end="", flush=True)
            thinking.show()

            def token(t: str) -> None:
                thinking.clear()
                sys.stdout.write(t)
                sys.stdout.flush()

            def tool(phase: str, rec: Any) -> None:
                thinking.clear()
                if phase == "start":
                    print()
                _show_tool(sys.stdout)(phase, rec)

            try:
                result = agent.turn(text, session=session, board=args.board, on_token=token, on_tool=tool)
            except KeyboardInterrupt:
                thinking.clear()
                print("\n[cancelled: this turn was stopped; the chat goes on]", flush=True)
                continue
            except ProviderError as exc:
                thinking.clear()
                print()
                print(_provider_down(agent, exc, text, args.board))
                status = EXIT_PROVIDER_DOWN
                continue
            thinking.clear()
            status = 0
            print(" (cached)" if result.cached else "", flush=True)
    finally:
        if args.session is None and agent.state is not None:
            agent.state.drop(session)
    return status
