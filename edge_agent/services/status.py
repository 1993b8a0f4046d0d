"""The object `edge-agent status` prints: the same keys whether the daemon answered or the files did.

The running daemon fills it from its live runtime; without a daemon the CLI fills it from a runtime built
over the files only (no adapter is opened: a serial port may belong to another process). Both go through
``status_report`` so a script reading ``status --json`` never meets a key that exists on one path only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from edge_agent.jsontypes import JsonObject, JsonValue

# Components only a running daemon has, with the fields each carries (None when not running).
DAEMON_COMPONENTS: dict[str, JsonObject] = {
    "watch": {"count": 0},
    "socket": {"path": None},
    "mcp_http": {"url": None, "token_file": None},
}
ADAPTER_FIELDS = ("name", "url", "board", "ok", "detail")
NOT_HERE = "not running here"


def _object(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}


def status_report(data: JsonObject, *, daemon: Mapping[str, JsonValue] | None,
                  boards: Sequence[Mapping[str, JsonValue]] | None = None,
                  watches: Sequence[str] | None = None) -> JsonObject:
    """Shape a runtime status (``Runtime.status()``, JSON-ready) into the `status` object.

    ``daemon`` is the running daemon's own record (pid, MCP url, socket path, time written), or None when the
    status was computed without it; then ``boards`` (name, url, board) and ``watches`` (names) are what the
    configuration declares, since that runtime opened none of them.
    """
    running = daemon is not None
    out = dict(data)
    components: dict[str, JsonObject] = {name: dict(_object(comp))
                                         for name, comp in _object(data.get("components")).items()}
    for name, fields in DAEMON_COMPONENTS.items():
        comp = components.get(name)
        if comp is None or not running:
            detail = NOT_HERE if name == "watch" else ("daemon not running" if not running else "not started")
            comp = {"ok": None, "detail": detail}
        components[name] = {"ok": comp.get("ok"), "detail": comp.get("detail", ""), **fields,
                            **{k: v for k, v in comp.items() if k not in ("ok", "detail")}}
    entries: list[JsonObject]
    if not running:
        components["watch"]["count"] = len(watches or [])
        n = len(boards or [])
        components["adapters"] = {"ok": None, "detail": f"0/{n} open (daemon not running)"}
        entries = [{"name": b.get("name"), "url": b.get("url"), "board": b.get("board"), "ok": None,
                    "detail": "daemon not running"} for b in boards or []]
        out["watches"] = [{"name": w, "state": NOT_HERE} for w in watches or []]
    else:
        adapters = data.get("adapters")
        entries = [_object(e) for e in adapters] if isinstance(adapters, list) else []
    out["components"] = dict(components)
    out["adapters"] = [_adapter_entry(e) for e in entries]
    record = daemon or {}
    out["daemon"] = {k: record.get(k) for k in ("pid", "url", "socket", "written_at")}
    out["running"] = running
    out.setdefault("status_age_s", 0.0 if running else None)
    if not running:
        out["pid"] = out["uptime_s"] = out["status_age_s"] = None
    return out


def _adapter_entry(entry: JsonObject) -> JsonObject:
    """Name, URL, board, ok and detail, with the backend's own health fields under ``health``.

    The fields an adapter reports vary by backend (a simulator counts transactions, the bridge link reports
    its firmware and counters), so they are kept apart: the entry's keys are the same for every adapter.
    """
    health: JsonObject = {k: v for k, v in entry.items() if k not in ADAPTER_FIELDS}
    return {"name": entry.get("name"), "url": entry.get("url"), "board": entry.get("board"), "ok": entry.get("ok"),
            "detail": entry.get("detail") or "", "health": health if entry.get("ok") else None}
