"""`edge-agent watch list|run-once NAME`: the configured sensor watches from the command line."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from edge_agent.cli._common import open_memory_store, print_json, settings_from, state_from
from edge_agent.errors import ConfigError, EdgeAgentError

if TYPE_CHECKING:  # the pydantic models cost most of `--help`'s import time
    from edge_agent.config import Settings, WatchConfig


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `watch` subcommands."""
    p = sub.add_parser("watch", help="sensor watches: sampling, on-device inference, captures")
    wsub = p.add_subparsers(dest="watch_command", metavar="ACTION", required=True)

    ls = wsub.add_parser("list", help="list [[watch]] entries and check that their models load")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)

    ro = wsub.add_parser("run-once", help="sample one window of watch NAME, evaluate it, store a capture if "
                         "its rule fires")
    ro.add_argument("name")
    ro.add_argument("--interval", type=float, metavar="S",
                    help="seconds between samples for this run (default: the watch's interval_s; 0 = back to back)")
    ro.add_argument("--dry-run", action="store_true", help="print the capture instead of storing it")
    ro.add_argument("--json", action="store_true")
    ro.set_defaults(handler=_run_once)


def _rule_text(cfg: WatchConfig) -> str:
    r = cfg.rule
    if r.kind == "threshold":
        bounds = " ".join(f"{k} {v:g}" for k, v in (("above", r.above), ("below", r.below)) if v is not None)
        stat = "" if r.on == "score" else f" {r.stat}"
        return f"threshold {r.on}{stat} {bounds} -> {r.capture_type}"
    if r.kind == "change":
        return f"change {r.on} {r.stat} by {r.delta:g} -> {r.capture_type}"
    return f"summary every {r.every_s:g} s -> {r.capture_type}"


def _model_check(cfg: WatchConfig, settings: Settings) -> str:
    if not cfg.model.path:
        return "none (rule only)"
    from edge_agent.watch.runner import load_watch_model

    try:
        model = load_watch_model(cfg, settings.source.parent if settings.source else None)
    except EdgeAgentError as exc:
        return f"ERROR: {exc}"
    assert model is not None
    return f"ok ({model.backend}, input {list(model.input.shape)} {model.input.dtype})"


def _list(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    rows: list[dict[str, Any]] = []
    for cfg in settings.watch:
        rows.append({
            "name": cfg.name, "enabled": cfg.enabled, "sensor": cfg.sensor,
            "adapter": cfg.adapter or "(first board)", "address": f"0x{cfg.address:02X}",
            "interval_s": cfg.interval_s, "window": cfg.window, "rule": _rule_text(cfg),
            "rate_limit": f"{cfg.rate_limit.max_captures} per {cfg.rate_limit.per_s:g} s",
            "model": cfg.model.path or "", "model_check": _model_check(cfg, settings),
        })
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("no watches configured; add a [[watch]] table to edge-agent.toml (see docs/watches.md)")
        return 0
    for r in rows:
        flag = "" if r["enabled"] else "  [disabled]"
        print(f"{r['name']}{flag}")
        print(f"  {r['sensor']} at {r['address']} on {r['adapter']}, every {r['interval_s']:g} s, "
              f"window {r['window']}")
        print(f"  rule:  {r['rule']} (at most {r['rate_limit']})")
        print(f"  model: {r['model'] + ': ' if r['model'] else ''}{r['model_check']}")
    return 1 if any(r["model_check"].startswith("ERROR") for r in rows) else 0


@contextlib.contextmanager
def _adapter_for(settings: Settings, cfg: WatchConfig) -> Iterator[dict[str, Any]]:
    """Open only the board the watch samples (a URL adapter is opened by the runner itself)."""
    boards = settings.peripherals.boards
    if "://" in cfg.adapter:
        yield {}
        return
    entry = next((b for b in boards if b.adapter_name == cfg.adapter), None) if cfg.adapter else \
        (boards[0] if boards else None)
    if entry is None:
        names = ", ".join(b.adapter_name for b in boards) or "(none)"
        raise ConfigError(f"watch {cfg.name!r}: adapter {cfg.adapter!r} is not a configured board ({names}); "
                          "set the watch's adapter to a board name or an adapter URL")
    from edge_agent.bus import open_adapter

    adapter = open_adapter(entry.adapter_url(), name=entry.adapter_name, board=entry.board,
                           safety=settings.hardware.safety)
    try:
        yield {entry.adapter_name: adapter}
    finally:
        adapter.close()


@contextlib.contextmanager
def _store(args: argparse.Namespace, settings: Settings) -> Iterator[Any]:
    if args.dry_run or settings.memory.backend == "none":
        yield None
        return
    store = open_memory_store(state_from(args), settings)
    try:
        yield store
    finally:
        close = getattr(store, "close", None)
        if callable(close):
            close()


def _run_once(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    cfg = next((w for w in settings.watch if w.name == args.name), None)
    if cfg is None:
        known = ", ".join(w.name for w in settings.watch) or "(none)"
        raise ConfigError(f"no watch named {args.name!r}; configured: {known}")
    from edge_agent.watch import WatchRunner

    with _adapter_for(settings, cfg) as adapters, _store(args, settings) as store:
        runner = WatchRunner(settings, adapters, store, names=[cfg.name])
        try:
            if not args.json:
                secs = (args.interval if args.interval is not None else cfg.interval_s) * cfg.window
                print(f"sampling {cfg.window} readings for {cfg.name} (about {secs:.3g} s)...", file=sys.stderr)
            outcome = runner.run_once(cfg.name, interval_s=args.interval)
        finally:
            runner.close()
    capture = outcome["capture"]
    status = outcome["status"]
    if args.json:
        stored = capture is not None and store is not None
        print_json({"watch": cfg.name, "evaluated": outcome["evaluated"], "stored": stored,
                    "capture": capture.to_dict() if capture is not None else None, "status": status})
    else:
        if outcome["evaluated"]:
            score = status["last_score"]
            print(f"{cfg.name}: window of {cfg.window} evaluated" + (f", model score {score:.4f}" if score is not None
                                                                   else ""))
            if capture is None:
                why = "rate-limited" if status["rate_limited"] else "rule did not fire"
                print(f"no capture ({why})")
            else:
                print(f"{'stored' if store is not None else 'would store'} {capture.type} capture {capture.id}:")
                print(capture.content)
        dropped = sum(status["dropped"].values())
        if dropped:
            print(f"dropped readings: {status['dropped']}")
    if not outcome["evaluated"]:
        print(f"edge-agent: error: watch {cfg.name} did not fill a window: {status['last_error'] or 'no samples'}",
              file=sys.stderr)
        return 1
    return 0
