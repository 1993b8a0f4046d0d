"""`edge-agent watch list|run-once NAME`: the configured sensor watches from the command line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from edge_agent.cli._common import print_json, run_op
from edge_agent.paths import find_config


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `watch` subcommands."""
    p = sub.add_parser("watch", help="sensor watches: sampling, on-device inference, captures")
    wsub = p.add_subparsers(dest="watch_command", metavar="ACTION", required=True)

    ls = wsub.add_parser("list", help="list [[watch]] entries and check that their models load")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(handler=_list)

    ro = wsub.add_parser("run-once", help="sample one window of watch NAME, evaluate it, store a capture if "
                         "its rule fires")
    ro.add_argument("name", help="the [[watch]] name")
    ro.add_argument("--interval", type=float, metavar="S",
                    help="seconds between samples for this run (default: the watch's interval_s; 0 = back to back)")
    ro.add_argument("--dry-run", action="store_true", help="print the capture instead of storing it")
    ro.add_argument("--json", action="store_true", help="print the result as JSON")
    ro.set_defaults(handler=_run_once)


def _list(args: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = run_op(args, "watch_list", {})["watches"]
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        demo = ""
        if find_config(getattr(args, "config", None)) is None:
            from edge_agent.watch.demo import DEMO_NAME

            # Without a config file the daemon adds a demo watch; said here so the answer of a stopped
            # daemon does not contradict what `edge-agent run` showed.
            demo = f" (the demo watch {DEMO_NAME} runs only inside `edge-agent run` on the embedded defaults)"
        print(f"no watches configured{demo}; add a [[watch]] table to edge-agent.toml (see docs/watches.md)")
        return 0
    for r in rows:
        flag = "" if r["enabled"] else "  [disabled]"
        print(f"{r['name']}{flag}")
        print(f"  {r['sensor']} at {r['address']} on {r['adapter']}, every {r['interval_s']:g} s, "
              f"window {r['window']}")
        print(f"  rule:  {r['rule']} (at most {r['rate_limit']})")
        print(f"  model: {r['model'] + ': ' if r['model'] else ''}{r['model_check']}")
    return 1 if any(r["model_check"].startswith("ERROR") for r in rows) else 0


def _run_once(args: argparse.Namespace) -> int:
    if not args.json:
        print(f"sampling one window of {args.name}...", file=sys.stderr)
    result = run_op(args, "watch_run_once", {"name": args.name, "interval": args.interval,
                                             "dry_run": args.dry_run}, timeout=None)
    window = result.pop("window", "?")
    capture, status = result["capture"], result["status"]
    if args.json:
        print_json(result)
    else:
        if result["evaluated"]:
            score = status["last_score"]
            print(f"{args.name}: window of {window} evaluated" + (f", model score {score:.4f}" if score is not None
                                                                 else ""))
            if capture is None:
                why = "rate-limited" if status["rate_limited"] else "rule did not fire"
                print(f"no capture ({why})")
            else:
                print(f"{'stored' if result['stored'] else 'would store'} {capture['type']} capture {capture['id']}:")
                print(capture["content"])
        dropped = sum(status["dropped"].values())
        if dropped:
            print(f"dropped readings: {status['dropped']}")
    if not result["evaluated"]:
        print(f"edge-agent: error: watch {args.name} did not fill a window: {status['last_error'] or 'no samples'}",
              file=sys.stderr)
        return 1
    return 0
