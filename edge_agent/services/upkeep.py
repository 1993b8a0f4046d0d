"""The actions that look after the device rather than drive it: sync, watches, the daemon's status and
the bridge link.

``sync_status`` answers from the daemon's running sync worker when it has one (its live back-off and
link state), else from a worker opened on the store for the call; either way with the same keys.
``status`` is the running daemon's own report; without a daemon there is nobody to ask, and the
command computes a report from the files instead (``edge-agent status``).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from edge_agent.errors import ComponentUnavailable, ConfigError, EdgeAgentError, SyncError
from edge_agent.jsontypes import JsonObject
from edge_agent.services.core import ActionInput, Resources, action
from edge_agent.services.jsondata import json_object, jsonable
from edge_agent.services.results import (
    BridgeCapabilities,
    BridgePing,
    RuntimeStatus,
    SyncNow,
    SyncRetried,
    SyncStatus,
    WatchList,
    WatchRun,
)
from edge_agent.services.status import status_report

if TYPE_CHECKING:
    from edge_agent.bus.base import Adapter
    from edge_agent.bus.bridge.adapter import BridgeAdapter
    from edge_agent.bus.pool import AdapterSlot
    from edge_agent.config import BoardConfig, Settings, WatchConfig
    from edge_agent.sync import SyncWorker

Workspace = Annotated[str | None, Field(description="Workspace whose memory and outbox to use.", max_length=200)]
Endpoint = Annotated[str | None, Field(description="Kumiho endpoint instead of [kumiho] endpoint (command line).",
                                       max_length=500)]


# --- sync ------------------------------------------------------------------------------------------


class SyncIn(ActionInput):
    workspace: Workspace = None
    kumiho_endpoint: Endpoint = None


class SyncNowIn(SyncIn):
    timeout: Annotated[float, Field(gt=0, le=86_400, description="Seconds to wait for an empty outbox.")] = 60.0


class SyncRetryIn(SyncIn):
    capture_ids: Annotated[list[Annotated[str, Field(max_length=200)]] | None, Field(
        max_length=10_000, description="Dead letters to move back; omit for all.")] = None


@contextlib.contextmanager
def _sync_worker(res: Resources, a: SyncIn, *, check_endpoint: bool) -> Iterator[SyncWorker]:
    from edge_agent.sync import SyncWorker

    with res.store(a.workspace) as store:
        worker = SyncWorker(store, res.settings, res.state_dir, a.kumiho_endpoint, check_endpoint=check_endpoint)
        try:
            yield worker
        finally:
            worker.close()


@action("sync_status", SyncIn, SyncStatus)
def sync_status(res: Resources, a: SyncIn) -> SyncStatus:
    """Upstream sync to Kumiho: enabled, outbox depth, last success, last error."""
    rt = res.runtime
    live = rt is not None and rt.sync is not None and not a.kumiho_endpoint and (
        a.workspace is None or rt.memory is None or a.workspace == rt.memory.workspace)
    if live and rt is not None:
        return SyncStatus.model_validate(jsonable(rt.sync_status()))
    with _sync_worker(res, a, check_endpoint=False) as worker:
        data = json_object(worker.status())
    depth = sum(n for n in (data.get("queued"), data.get("in_flight")) if isinstance(n, int))
    return SyncStatus.model_validate({"running": False, "outbox_depth": depth, **data})


@action("sync_now", SyncNowIn, SyncNow, writes=True)
def sync_now(res: Resources, a: SyncNowIn) -> SyncNow:
    """Send what the outbox holds now and wait until it is empty (or the timeout)."""
    with _sync_worker(res, a, check_endpoint=True) as worker:
        enabled = bool(worker.settings.kumiho.enabled)
        before = worker.pending()
        ok = worker.sync_until_empty(deadline_s=a.timeout)
        status = json_object(worker.status())
    queued, in_flight, dead = (n if isinstance(n := status.get(k), int) else 0
                               for k in ("queued", "in_flight", "dead_letters"))
    synced = before - queued - in_flight
    if not ok:
        last = status.get("last_error")
        err = last if isinstance(last, dict) else {}
        raise SyncError(
            f"outbox not empty after {a.timeout:g}s: {queued} queued, {in_flight} in "
            f"flight; last error {err.get('code', '-')}: {err.get('message', '-')}. Captures stay queued; retry later")
    return SyncNow(enabled=enabled, synced=max(synced, 0), dead_letters=dead)


@action("sync_retry_dead", SyncRetryIn, SyncRetried, writes=True)
def sync_retry_dead(res: Resources, a: SyncRetryIn) -> SyncRetried:
    """Move dead letters back to the outbox."""
    with _sync_worker(res, a, check_endpoint=False) as worker:
        return SyncRetried(moved=worker.retry_dead(a.capture_ids or None))


# --- watches ---------------------------------------------------------------------------------------


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


class WatchListIn(ActionInput):
    pass


@action("watch_list", WatchListIn, WatchList)
def watch_list(res: Resources, a: WatchListIn) -> WatchList:
    """The configured watches (the daemon's, the demo watch included, when a daemon runs)."""
    settings = res.settings
    return WatchList(watches=[{
        "name": cfg.name, "enabled": cfg.enabled, "sensor": cfg.sensor,
        "adapter": cfg.adapter or "(first board)", "address": f"0x{cfg.address:02X}",
        "interval_s": cfg.interval_s, "window": cfg.window, "rule": _rule_text(cfg),
        "rate_limit": f"{cfg.rate_limit.max_captures} per {cfg.rate_limit.per_s:g} s",
        "model": cfg.model.path or "", "model_check": _model_check(cfg, settings),
    } for cfg in settings.watch])


@contextlib.contextmanager
def _watch_adapters(res: Resources, cfg: WatchConfig) -> Iterator[dict[str, AdapterSlot | Adapter | None]]:
    """Only the board the watch samples (a URL adapter is opened by the runner itself)."""
    if res.runtime is not None:
        yield dict(res.runtime.adapters)  # slots: the runner holds each slot's lock around a sample
        return
    from edge_agent.services.resources import open_url

    boards = res.settings.peripherals.boards
    if "://" in cfg.adapter:
        yield {}
        return
    entry = next((b for b in boards if b.adapter_name == cfg.adapter), None) if cfg.adapter else \
        (boards[0] if boards else None)
    if entry is None:
        names = ", ".join(b.adapter_name for b in boards) or "(none)"
        raise ConfigError(f"watch {cfg.name!r}: adapter {cfg.adapter!r} is not a configured board ({names}); "
                          "set the watch's adapter to a board name or an adapter URL")
    with open_url(res.settings, res.state_dir, entry.adapter_url(), entry.adapter_name, entry.board) as adapter:
        yield {entry.adapter_name: adapter}


class WatchRunIn(ActionInput):
    name: Annotated[str, Field(min_length=1, max_length=200)]
    interval: Annotated[float | None, Field(ge=0, le=3600)] = None
    dry_run: bool = False


@action("watch_run_once", WatchRunIn, WatchRun, writes=True)
def watch_run_once(res: Resources, a: WatchRunIn) -> WatchRun:
    """Sample one window of a watch, evaluate it, store the capture if its rule fires (unless dry_run)."""
    settings = res.settings
    cfg = next((w for w in settings.watch if w.name == a.name), None)
    if cfg is None:
        known = ", ".join(w.name for w in settings.watch) or "(none)"
        raise ConfigError(f"no watch named {a.name!r}; configured: {known}")
    from edge_agent.watch import WatchRunner

    keep = not a.dry_run and settings.memory.backend != "none"
    with _watch_adapters(res, cfg) as adapters, \
            (res.store(None) if keep else contextlib.nullcontext()) as store:
        runner = WatchRunner(settings, adapters, store, names=[cfg.name])
        try:
            outcome = runner.run_once(cfg.name, interval_s=a.interval)
        finally:
            runner.close()
    capture = outcome["capture"]
    return WatchRun(watch=cfg.name, evaluated=bool(outcome["evaluated"]), stored=capture is not None and keep,
                    capture=capture.to_dict() if capture is not None else None,
                    status=jsonable(outcome["status"]), window=cfg.window)


# --- the runtime's status ---------------------------------------------------------------------------


class StatusIn(ActionInput):
    pass


@action("runtime_status", StatusIn, RuntimeStatus)
def runtime_status(res: Resources, a: StatusIn) -> RuntimeStatus:
    """Adapters and their health, datasheet index, memory counts, sync, background jobs and watches.

    A live runtime (the daemon, or an MCP server's own) reports what it has open. A runtime built over the
    files only (`edge-agent status` while no daemon runs: no adapter opened, a serial port may belong to
    another process) reports the boards and watches the configuration declares, as not running.
    """
    rt = res.runtime
    if rt is None:
        raise ComponentUnavailable("the runtime's status", "no runtime runs in this process; `edge-agent status` "
                                   "reports from the daemon, or from the files when none runs")
    data = json_object(rt.status())
    if rt.files_only:
        boards: list[JsonObject] = [{"name": b.adapter_name, "url": _safe_url(b), "board": b.board}
                                    for b in rt.settings.peripherals.boards]
        report = status_report(data, daemon=None, boards=boards, watches=[w.name for w in rt.settings.watch])
    else:
        http = rt.components.get("mcp_http")
        sock = rt.components.get("socket")
        daemon: JsonObject = {"pid": os.getpid(), "url": http.extra.get("url") if http is not None and http.ok
                              else None, "socket": sock.extra.get("path") if sock is not None else None,
                              "written_at": time.time()}
        report = status_report(data, daemon=daemon)
    return RuntimeStatus.model_validate(report)


def _safe_url(board: BoardConfig) -> str:
    """A configured board's adapter URL, or why it has none (the status still reports the rest)."""
    try:
        return str(board.adapter_url())
    except EdgeAgentError as exc:
        return f"(invalid: {exc})"


# --- the bridge link -----------------------------------------------------------------------------------


class BridgeIn(ActionInput):
    url: Annotated[str | None, Field(description="bridge:// URL; omit for the configured bridge board.",
                                     max_length=500)] = None


class BridgePingIn(BridgeIn):
    count: Annotated[int, Field(ge=1, le=10_000)] = 1


def _bridge_url(res: Resources, url: str | None) -> str:
    if not url:
        url = next((b.adapter_url() for b in res.settings.peripherals.boards if b.transport in ("serial", "bridge")),
                   "bridge://auto")
    if not url.startswith("bridge://"):
        raise ConfigError(f"--url {url!r} is not a bridge:// URL; use `edge-agent bus info --url` for other adapters")
    return url


@contextlib.contextmanager
def _bridge(res: Resources, url: str | None) -> Iterator[BridgeAdapter]:
    from edge_agent.bus.bridge.adapter import BridgeAdapter

    with res.hardware(url=_bridge_url(res, url)) as slot:
        adapter = slot.require()
        assert isinstance(adapter, BridgeAdapter)  # a bridge:// URL opens one
        yield adapter


@action("bridge_ping", BridgePingIn, BridgePing)
def bridge_ping(res: Resources, a: BridgePingIn) -> BridgePing:
    """Round trips to the bridge firmware, with its protocol, board and firmware version."""
    with _bridge(res, a.url) as adapter:
        rtts = []
        for _ in range(a.count):
            t0 = time.perf_counter()
            adapter.ping()
            rtts.append((time.perf_counter() - t0) * 1000)
        return BridgePing(url=str(adapter.url), protocol=adapter.link.protocol, board=adapter.board,
                          firmware=jsonable(adapter.link.hello.get("firmware")), rtt_ms=[round(r, 3) for r in rtts])


@action("bridge_capabilities", BridgeIn, BridgeCapabilities)
def bridge_capabilities(res: Resources, a: BridgeIn) -> BridgeCapabilities:
    """What the bridge adapter and its firmware offer, and the firmware's hello."""
    with _bridge(res, a.url) as adapter:
        return BridgeCapabilities.model_validate(jsonable({
            "adapter": adapter.capabilities(), "firmware": adapter.firmware_capabilities(),
            "hello": adapter.link.hello, "url": str(adapter.url), "protocol": adapter.link.protocol,
            "board": adapter.board}))
