"""The operations behind the CLI commands, run where the hardware and the databases are owned.

Each operation takes a :class:`Context` and the command's arguments as plain data and returns the JSON
the command prints with ``--json`` (text output is rendered from the same result). The CLI runs an
operation in its own process through :class:`DirectContext` when no daemon serves the state
directory, and otherwise sends it to the daemon, which runs it through :class:`DaemonContext` on its
own adapters (under each adapter's lock) and its own open store. The same code runs on both paths, so
the results cannot drift apart.
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from edge_agent.errors import ConfigError, EdgeAgentError, SyncError, UnknownActionError
from edge_agent.services.resources import DirectResources, RuntimeResources, open_memory_store, open_url

if TYPE_CHECKING:
    from edge_agent.bus.base import Adapter
    from edge_agent.bus.bridge.adapter import BridgeAdapter
    from edge_agent.config import Settings
    from edge_agent.runtime import Runtime

__all__ = ["DaemonContext", "DirectContext", "open_memory_store", "run"]


UnknownOperationError = UnknownActionError  # the name this module used before the service actions


def _jsonable(obj: Any) -> Any:
    """``obj`` as JSON data, converted as the service actions convert their results."""
    from edge_agent.services.jsondata import jsonable

    return jsonable(obj)


# --- contexts: the service resources, plus what the remaining operations use ------------------------------


class DirectContext(DirectResources):
    """This process opens what the operation needs and closes it afterwards (no daemon is running)."""

    runtime: Runtime | None = None

    @contextlib.contextmanager
    def adapter(self, url: str | None, name: str | None, board: str | None) -> Iterator[Adapter]:
        with self.hardware(name, board, url) as slot:
            yield slot.require()

    def open_adapter(self, url: str, name: str | None, board: str | None) -> Adapter:
        return open_url(self.settings, self.state_dir, url, name, board)


class DaemonContext(RuntimeResources):
    """Operations inside the daemon: its adapter slots (one transaction at a time each) and its store."""

    runtime: Runtime

    def __init__(self, runtime: Runtime) -> None:
        super().__init__(runtime)

    @contextlib.contextmanager
    def adapter(self, url: str | None, name: str | None, board: str | None) -> Iterator[Adapter]:
        with self.hardware(name, board, url) as slot:
            yield slot.require()

    def open_adapter(self, url: str, name: str | None, board: str | None) -> Adapter:
        return open_url(self.settings, self.state_dir, url, name, board)


Context = DirectContext | DaemonContext


def _bridge_url(ctx: Context, url: str | None) -> str:
    if not url:
        url = next((b.adapter_url() for b in ctx.settings.peripherals.boards if b.transport in ("serial", "bridge")),
                   "bridge://auto")
    if not url.startswith("bridge://"):
        raise ConfigError(f"--url {url!r} is not a bridge:// URL; use `edge-agent bus info --url` for other adapters")
    return url


@contextlib.contextmanager
def _bridge(ctx: Context, url: str | None) -> Iterator[BridgeAdapter]:
    from edge_agent.bus.bridge.adapter import BridgeAdapter

    with ctx.adapter(_bridge_url(ctx, url), None, None) as adapter:
        assert isinstance(adapter, BridgeAdapter)  # a bridge:// URL opens one
        yield adapter


def op_bridge_ping(ctx: Context, args: dict[str, Any]) -> Any:
    with _bridge(ctx, args.get("url")) as adapter:
        rtts = []
        for _ in range(max(1, int(args.get("count") or 1))):
            t0 = time.perf_counter()
            adapter.ping()
            rtts.append((time.perf_counter() - t0) * 1000)
        return {"url": adapter.url, "protocol": adapter.link.protocol, "board": adapter.board,
                "firmware": adapter.link.hello.get("firmware"), "rtt_ms": [round(r, 3) for r in rtts]}


def op_bridge_capabilities(ctx: Context, args: dict[str, Any]) -> Any:
    with _bridge(ctx, args.get("url")) as adapter:
        return _jsonable({"adapter": adapter.capabilities(), "firmware": adapter.firmware_capabilities(),
                          "hello": adapter.link.hello, "url": str(adapter.url), "protocol": adapter.link.protocol,
                          "board": adapter.board})


# --- memory and cache -------------------------------------------------------------------------------------


def _ws(args: dict[str, Any]) -> str | None:
    return args.get("workspace")


def op_memory_store(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        entry = store.store(args["key"], args["content"], args["category"], args.get("namespace"),
                            args.get("session"), args["importance"], timestamp=args.get("timestamp"),
                            title=args.get("title") or "")
        return entry.to_dict()


def op_memory_get(ctx: Context, args: dict[str, Any]) -> Any:
    from edge_agent.memory import EntryNotFoundError

    with ctx.store(_ws(args)) as store:
        entry = store.get(args["key"], args.get("namespace"))
        if entry is None:
            raise EntryNotFoundError(args["key"], args.get("namespace") or store.default_namespace)
        return entry.to_dict()


def op_memory_list(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        entries = store.list(category=args.get("category"), namespace=args.get("namespace"),
                             session_id=args.get("session"), limit=args["limit"],
                             include_superseded=bool(args.get("all")))
        return [e.to_dict() for e in entries]


def op_memory_recall(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        entries = store.recall(args["query"], args["limit"], namespaces=args.get("namespace"),
                               categories=args.get("category"), min_score=args.get("min_score"),
                               workspaces=args.get("other_workspace"))
        return {"entries": [e.to_dict() for e in entries], "workspace": store.workspace}


def op_memory_engage(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        return _jsonable(store.engage(args["query"], args["limit"], categories=args.get("category"),
                                      namespaces=args.get("namespace"), min_score=args.get("min_score") or 0,
                                      exclude_ids=args.get("exclude_ids") or ()))


def op_memory_reflect(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        return _jsonable(store.reflect(args["session_id"], args["response"], captures=args.get("captures") or [],
                                       source_refs=args.get("source_refs") or []))


def op_memory_forget(ctx: Context, args: dict[str, Any]) -> Any:
    from edge_agent.memory import EntryNotFoundError

    with ctx.store(_ws(args)) as store:
        n = store.forget(args["key"], args.get("namespace"))
        if n == 0:
            raise EntryNotFoundError(args["key"], args.get("namespace") or store.default_namespace)
    return {"forgotten": n, "key": args["key"]}


def _store_call(method: str, *call_args: Any, **call_kwargs: Any) -> Callable[[Context, dict[str, Any]], Any]:
    def op(ctx: Context, args: dict[str, Any]) -> Any:
        with ctx.store(_ws(args)) as store:
            return _jsonable(getattr(store, method)(*call_args, **call_kwargs))

    return op


def op_memory_hygiene(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        return _jsonable(store.hygiene(force=bool(args.get("force"))))


def op_memory_snapshot(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        return {"snapshot": str(store.snapshot())}


def op_memory_provenance(ctx: Context, args: dict[str, Any]) -> Any:
    from edge_agent.memory import EntryNotFoundError

    with ctx.store(_ws(args)) as store:
        if store.get_by_id(args["entry_id"]) is None:
            raise EntryNotFoundError(args["entry_id"], "(any; looked up by id)")
        return _jsonable(store.provenance(args["entry_id"]))


def op_memory_audit(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        return _jsonable(store.audit_log(args["limit"]))


def op_memory_export(ctx: Context, args: dict[str, Any]) -> Any:
    out = io.StringIO()
    with ctx.store(_ws(args)) as store:
        n = store.export_jsonl(out, namespace=args.get("namespace"), session_id=args.get("session"),
                               category=args.get("category"), since=args.get("since"), until=args.get("until"),
                               include_superseded=not args.get("live_only"))
    return {"text": out.getvalue(), "count": n}


def op_memory_import(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.store(_ws(args)) as store:
        return _jsonable(store.import_jsonl(str(args["text"]).split("\n")))


def op_cache_stats(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.cache(_ws(args)) as cache:
        return {"enabled": ctx.settings.memory.response_cache_enabled, **cache.stats()}


def op_cache_get(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.cache(_ws(args)) as cache:
        return {"response": cache.get(args["model"], args["system"], args["prompt"])}


def op_cache_put(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.cache(_ws(args)) as cache:
        return {"key": cache.put(args["model"], args["system"], args["prompt"], args["response"],
                                 tokens=args.get("tokens"))}


def op_cache_clear(ctx: Context, args: dict[str, Any]) -> Any:
    with ctx.cache(_ws(args)) as cache:
        return {"cleared": cache.clear()}


# --- agent context ----------------------------------------------------------------------------------------


def hardware_context(rag: Any, query: str, boards: Any, *, offline: bool = False) -> dict[str, Any]:
    """An agent turn's hardware context from ``rag``: ``{"hardware"}`` (pin aliases and datasheet chunks for
    ``query``, scoped to ``boards``); with ``offline``, ``{"pins", "chunk"}``: the pins the query names and
    the single best chunk, what the device can answer with no model. Empty when there is no index."""
    boards = [str(b) for b in boards or []]
    if not offline:
        return {"hardware": str(rag.context(query, boards)) if rag is not None and boards else ""}
    if rag is None:
        return {"pins": "", "chunk": None, "index": False}
    pins = rag.pin_context(query, boards) if boards else ""
    chunks = rag.search(query, boards, limit=1)
    chunk = None
    if chunks:
        c = chunks[0]
        chunk = {"source": c.source, "heading": c.heading, "text": c.text}
    return {"pins": pins, "chunk": chunk, "index": True}


def op_agent_context(ctx: Context, args: dict[str, Any]) -> Any:
    """The hardware context of an agent turn (see :func:`hardware_context`), from the owner's index."""
    from edge_agent.errors import ComponentUnavailable

    try:
        with ctx.datasheets() as rag:
            return hardware_context(rag, str(args["query"]), args.get("boards") or [],
                                    offline=bool(args.get("offline")))
    except ComponentUnavailable:  # answered without an index
        return hardware_context(None, str(args["query"]), args.get("boards") or [],
                                offline=bool(args.get("offline")))


# --- sync -----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _sync_worker(ctx: Context, args: dict[str, Any], *, check_endpoint: bool) -> Iterator[Any]:
    from edge_agent.memory import MemoryStore
    from edge_agent.sync import SyncWorker

    shared = ctx.runtime.memory if ctx.runtime is not None else None
    if shared is not None and not (args.get("workspace") and args["workspace"] != shared.workspace):
        store, own_store = shared, False
    else:
        store, own_store = MemoryStore.open(ctx.state_dir, ctx.settings, workspace=args.get("workspace")), True
    try:
        worker = SyncWorker(store, ctx.settings, ctx.state_dir, args.get("kumiho_endpoint"),
                            check_endpoint=check_endpoint)
        try:
            yield worker
        finally:
            worker.close()
    finally:
        if own_store:
            store.close()


def op_sync_status(ctx: Context, args: dict[str, Any]) -> Any:
    with _sync_worker(ctx, args, check_endpoint=False) as worker:
        return _jsonable(worker.status())


def op_sync_now(ctx: Context, args: dict[str, Any]) -> Any:
    with _sync_worker(ctx, args, check_endpoint=True) as worker:
        enabled = bool(worker.settings.kumiho.enabled)
        before = worker.pending()
        ok = worker.sync_until_empty(deadline_s=args["timeout"])
        status = worker.status()
    synced = before - status["queued"] - status["in_flight"]
    if not ok:
        err = status["last_error"] or {}
        raise SyncError(
            f"outbox not empty after {args['timeout']:g}s: {status['queued']} queued, {status['in_flight']} in "
            f"flight; last error {err.get('code', '-')}: {err.get('message', '-')}. Captures stay queued; retry later")
    return {"enabled": enabled, "synced": max(synced, 0), "dead_letters": status["dead_letters"]}


def op_sync_retry_dead(ctx: Context, args: dict[str, Any]) -> Any:
    with _sync_worker(ctx, args, check_endpoint=False) as worker:
        return {"moved": worker.retry_dead(args.get("capture_ids") or None)}


# --- watches --------------------------------------------------------------------------------------------


def _rule_text(cfg: Any) -> str:
    r = cfg.rule
    if r.kind == "threshold":
        bounds = " ".join(f"{k} {v:g}" for k, v in (("above", r.above), ("below", r.below)) if v is not None)
        stat = "" if r.on == "score" else f" {r.stat}"
        return f"threshold {r.on}{stat} {bounds} -> {r.capture_type}"
    if r.kind == "change":
        return f"change {r.on} {r.stat} by {r.delta:g} -> {r.capture_type}"
    return f"summary every {r.every_s:g} s -> {r.capture_type}"


def _model_check(cfg: Any, settings: Settings) -> str:
    if not cfg.model.path:
        return "none (rule only)"
    from edge_agent.watch.runner import load_watch_model

    try:
        model = load_watch_model(cfg, settings.source.parent if settings.source else None)
    except EdgeAgentError as exc:
        return f"ERROR: {exc}"
    assert model is not None
    return f"ok ({model.backend}, input {list(model.input.shape)} {model.input.dtype})"


def op_watch_list(ctx: Context, args: dict[str, Any]) -> Any:
    """The configured watches (the daemon's, the demo watch included, when a daemon runs)."""
    settings = ctx.settings
    return [{
        "name": cfg.name, "enabled": cfg.enabled, "sensor": cfg.sensor,
        "adapter": cfg.adapter or "(first board)", "address": f"0x{cfg.address:02X}",
        "interval_s": cfg.interval_s, "window": cfg.window, "rule": _rule_text(cfg),
        "rate_limit": f"{cfg.rate_limit.max_captures} per {cfg.rate_limit.per_s:g} s",
        "model": cfg.model.path or "", "model_check": _model_check(cfg, settings),
    } for cfg in settings.watch]


@contextlib.contextmanager
def _watch_adapters(ctx: Context, cfg: Any) -> Iterator[dict[str, Any]]:
    """Only the board the watch samples (a URL adapter is opened by the runner itself)."""
    if ctx.runtime is not None:
        yield dict(ctx.runtime.adapters)  # slots: the runner holds each slot's lock around a sample
        return
    boards = ctx.settings.peripherals.boards
    if "://" in cfg.adapter:
        yield {}
        return
    entry = next((b for b in boards if b.adapter_name == cfg.adapter), None) if cfg.adapter else \
        (boards[0] if boards else None)
    if entry is None:
        names = ", ".join(b.adapter_name for b in boards) or "(none)"
        raise ConfigError(f"watch {cfg.name!r}: adapter {cfg.adapter!r} is not a configured board ({names}); "
                          "set the watch's adapter to a board name or an adapter URL")
    adapter = ctx.open_adapter(entry.adapter_url(), entry.adapter_name, entry.board)
    try:
        yield {entry.adapter_name: adapter}
    finally:
        adapter.close()


def op_watch_run_once(ctx: Context, args: dict[str, Any]) -> Any:
    """Sample one window of a watch, evaluate it, store the capture if its rule fires (unless dry_run)."""
    settings = ctx.settings
    cfg = next((w for w in settings.watch if w.name == args["name"]), None)
    if cfg is None:
        known = ", ".join(w.name for w in settings.watch) or "(none)"
        raise ConfigError(f"no watch named {args['name']!r}; configured: {known}")
    from edge_agent.watch import WatchRunner

    keep = not args.get("dry_run") and settings.memory.backend != "none"
    with _watch_adapters(ctx, cfg) as adapters, \
            (ctx.store(None) if keep else contextlib.nullcontext()) as store:
        runner = WatchRunner(settings, adapters, store, names=[cfg.name])
        try:
            outcome = runner.run_once(cfg.name, interval_s=args.get("interval"))
        finally:
            runner.close()
    capture = outcome["capture"]
    return {"watch": cfg.name, "evaluated": outcome["evaluated"], "stored": capture is not None and store is not None,
            "capture": capture.to_dict() if capture is not None else None, "status": _jsonable(outcome["status"]),
            "window": cfg.window}


# --- status ---------------------------------------------------------------------------------------------


def op_status(ctx: Context, args: dict[str, Any]) -> Any:
    import os

    rt = ctx.runtime
    assert rt is not None, "status is only asked of a running daemon"
    from edge_agent.hub.status import status_report

    http = rt.components.get("mcp_http")
    sock = rt.components.get("socket")
    daemon = {"pid": os.getpid(), "url": http.extra.get("url") if http is not None and http.ok else None,
              "socket": sock.extra.get("path") if sock is not None else None, "written_at": time.time()}
    return status_report(_jsonable(rt.status()), daemon=daemon)


OPS: dict[str, Callable[[Context, dict[str, Any]], Any]] = {
    "bridge_ping": op_bridge_ping, "bridge_capabilities": op_bridge_capabilities,
    "memory_store": op_memory_store, "memory_get": op_memory_get, "memory_list": op_memory_list,
    "memory_recall": op_memory_recall, "memory_engage": op_memory_engage, "memory_reflect": op_memory_reflect,
    "memory_forget": op_memory_forget, "memory_stats": _store_call("stats"),
    "memory_health": _store_call("health_check"), "memory_hygiene": op_memory_hygiene,
    "memory_snapshot": op_memory_snapshot, "memory_provenance": op_memory_provenance,
    "memory_audit": op_memory_audit, "memory_export": op_memory_export, "memory_import": op_memory_import,
    "cache_stats": op_cache_stats, "cache_get": op_cache_get, "cache_put": op_cache_put,
    "cache_clear": op_cache_clear, "agent_context": op_agent_context,
    "sync_status": op_sync_status, "sync_now": op_sync_now, "sync_retry_dead": op_sync_retry_dead,
    "watch_list": op_watch_list, "watch_run_once": op_watch_run_once, "status": op_status,
}


def run(ctx: Context, name: str, args: dict[str, Any]) -> Any:
    """Run service action or operation ``name``; errors from the edge_agent tree propagate with their sentences."""
    op = OPS.get(name)
    if op is not None:  # looked up first: the actions' registry imports the hardware services
        return op(ctx, args)
    from edge_agent.services.core import LocalServices, actions

    if name in actions():
        return LocalServices(ctx).call(name, args)
    raise UnknownOperationError(f"this edge-agent daemon has no operation {name!r}; the CLI and the daemon "
                                "are probably different versions: restart the service after an upgrade")
