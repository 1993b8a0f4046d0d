"""What the status page shows, read from a running Runtime as plain JSON-able data.

Nothing here writes to a bus, a pin or a database. Pin levels come from what the adapter last drove
or read (plus what a simulator can observe), never from reading the line: on Linux, reading a GPIO
requests it as an input and would release an output the agent is driving. The one bus operation is
the I2C scan, the same probe i2cdetect makes; it is repeated at most every ``I2C_SCAN_EVERY_S`` and
only while a page is polling. Several open pages share one snapshot per ``SNAPSHOT_MIN_S``.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from edge_agent import __version__
from edge_agent.dashboard.chart import format_value, line_chart
from edge_agent.errors import EdgeAgentError
from edge_agent.runtime import AdapterSlot, Runtime

log = logging.getLogger(__name__)

SNAPSHOT_MIN_S = 0.5
I2C_SCAN_EVERY_S = 30.0
LOCK_WAIT_S = 0.5  # a bus transaction in flight: show the previous scan rather than wait for it
_CONNECTOR = re.compile(r"^([A-Za-z]+\d*)-(\d+)$")  # "CN10-11", "J8-3", "pin-7"


class Collector:
    """Builds snapshots of one runtime for the status page (thread-safe; call from worker threads)."""

    def __init__(self, runtime: Runtime, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.rt = runtime
        self._clock = clock
        self._lock = threading.Lock()
        self._last: tuple[float, dict[str, Any]] | None = None
        self._scans: dict[str, tuple[float, list[dict[str, Any]]]] = {}
        self._tables: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
        self._device_id = ""

    def snapshot(self) -> dict[str, Any]:
        """The page's data now (reused for SNAPSHOT_MIN_S, so many pages cost one collection)."""
        with self._lock:
            now = self._clock()
            if self._last is not None and now - self._last[0] < SNAPSHOT_MIN_S:
                return self._last[1]
            data = self._collect()
            self._last = (now, data)
            return data

    def _collect(self) -> dict[str, Any]:
        rt = self.rt
        return {
            "at": time.time(),
            "device": self._device(),
            "components": {k: _plain(v.as_dict()) for k, v in list(rt.components.items())},
            "boards": [self._board(slot) for slot in list(rt.adapters.values())],
            "watches": self._watches(),
            "sync": _plain(_safe(rt.sync_status, {})),
            "memory": self._memory(),
            "cache": self._cache(),
        }

    # device ----------------------------------------------------------------------------------------

    def _device(self) -> dict[str, Any]:
        if not self._device_id:
            try:
                from edge_agent.identity import device_id

                self._device_id = device_id(self.rt.settings, self.rt.state_dir)
            except EdgeAgentError as exc:
                self._device_id = f"(unknown: {exc})"
        return {"id": self._device_id, "version": __version__, "hostname": socket.gethostname(),
                "pid": os.getpid(), "uptime_s": round(time.time() - self.rt.started_at, 1)}

    # boards, pins, I2C -----------------------------------------------------------------------------

    def _board(self, slot: AdapterSlot) -> dict[str, Any]:
        info = _plain(slot.describe())
        out: dict[str, Any] = {"name": slot.name, "url": slot.url, "board": slot.board,
                               "ok": bool(info.get("ok")), "detail": info.get("detail", ""),
                               "headers": [], "i2c": []}
        adapter = slot.adapter
        if adapter is None or slot.closed or getattr(adapter, "closed", False):
            return out
        states = _safe(adapter.gpio_states, {})
        pins = []
        for row in self._pin_table(slot):
            state = states.get(row["name"], {})
            pins.append({**row, "mode": state.get("mode"), "level": state.get("level"),
                         "pull": state.get("pull")})
        known = {p["name"] for p in pins}
        pins += [{"name": name, "connector": "", "position": None, "labels": [], "aliases": [], "role": "",
                  "writable": _writable(adapter, name), "mode": st.get("mode"), "level": st.get("level"),
                  "pull": st.get("pull")}
                 for name, st in sorted(states.items()) if name not in known]
        out["headers"] = _by_connector(pins)
        out["i2c"] = self._scan(slot)
        return out

    def _pin_table(self, slot: AdapterSlot) -> list[dict[str, Any]]:
        """The board's pins with header positions, aliases and writability (per adapter and pin index)."""
        key = (slot.name, id(slot.adapter), id(self.rt.pins))
        table = self._tables.get(key)
        if table is not None:
            return table
        table = []
        if slot.board:
            try:
                from edge_agent.pins import aliases_for, get_board

                board = get_board(slot.board)
                aliases: dict[str, list[str]] = {}
                names = _safe(lambda: aliases_for(slot.board or "", self.rt.pins), {})
                for alias, pin in sorted(names.items()):
                    aliases.setdefault(pin.name, []).append(alias)
                roles = {pin: "led" for pin in board.leds.values()}
                roles.update({pin: "button" for pin in board.buttons.values()})
                named = {**board.leds, **board.buttons}  # "LD2", "B1": board labels of LED and button pins
                for pin in board.pins:
                    connector, position = _connector_of(pin.headers)
                    labels = [h for h in pin.headers if not _CONNECTOR.match(h)]
                    labels += [label for label, target in named.items() if target == pin.name]
                    writable = roles.get(pin.name) != "button" and _writable(slot.adapter, pin.name)
                    names = [a for a in aliases.get(pin.name, []) if a not in labels]
                    table.append({"name": pin.name, "connector": connector, "position": position,
                                  "labels": labels, "aliases": names,
                                  "role": roles.get(pin.name, ""), "writable": writable})
            except EdgeAgentError as exc:
                log.warning("status page: pins of board %s unavailable: %s", slot.board, exc)
        self._tables = {k: v for k, v in self._tables.items() if k[0] != slot.name}
        self._tables[key] = table
        return table

    def _scan(self, slot: AdapterSlot) -> list[dict[str, Any]]:
        now = self._clock()
        cached = self._scans.get(slot.name)
        if cached is not None and now - cached[0] < I2C_SCAN_EVERY_S:
            return cached[1]
        if not slot.lock.acquire(timeout=LOCK_WAIT_S):
            return cached[1] if cached else []
        results = []
        try:
            adapter = slot.adapter
            if slot.closed or adapter is None:
                return []
            buses = _safe(lambda: adapter.capabilities().get("i2c", []), [])
            for number in buses:
                entry: dict[str, Any] = {"bus": number, "found": [], "busy": [], "error": ""}
                try:
                    report = adapter.i2c(number).scan_report()
                    entry["found"], entry["busy"] = list(report.found), list(report.busy)
                except EdgeAgentError as exc:
                    entry["error"] = str(exc)
                entry["grid"] = scan_grid(entry["found"], entry["busy"])
                results.append(entry)
        finally:
            slot.lock.release()
        self._scans[slot.name] = (now, results)
        return results

    # watches, memory, cache ------------------------------------------------------------------------

    def _watches(self) -> list[dict[str, Any]]:
        runner = self.rt.watch
        if runner is None:
            return []
        out = []
        for status in _safe(runner.status, []):
            status = _plain(status)
            watch = getattr(runner, "watches", {}).get(status.get("name"))
            if watch is not None and hasattr(watch, "history"):
                hist = watch.history()
                marks = [c["at"] for c in hist["captures"]]
                status["charts"] = [line_chart(hist["t"], hist["values"][ch["name"]], label=ch["name"],
                                               unit=ch["unit"], marks=marks) for ch in hist["channels"]]
                if hist["scores"]:  # a watch with a model: its score at each evaluation
                    at, scores = zip(*hist["scores"], strict=True)
                    status["charts"].append(line_chart(at, scores, label="model score", marks=marks))
                status["scores"] = hist["scores"][-20:]
                status["recent_captures"] = _plain(hist["captures"][-10:])
                status["readings"] = len(hist["t"])
            score = status.get("last_score")
            # The page shows this text, formatted as the chart's labels are (a tiny score is not "0.0000").
            status["last_score_text"] = format_value(float(score)) if isinstance(score, int | float) else None
            out.append(status)
        return out

    def _memory(self) -> dict[str, Any]:
        counts = _plain(_safe(self.rt.memory_counts, {}))
        keep = ("live", "entries", "archived", "superseded", "captures", "with_kref", "by_category",
                "by_namespace", "workspace", "error")
        return {k: counts[k] for k in keep if k in counts}

    def _cache(self) -> dict[str, Any]:
        store = self.rt.memory
        if store is None:
            return {"enabled": False}
        # A property on the store (None unless [memory] response_cache_enabled).
        cache = _safe(lambda: getattr(store, "response_cache", None), None)
        if cache is None:
            return {"enabled": False}
        stats = _plain(_safe(cache.stats, {}))
        return {"enabled": True, **{k: stats[k] for k in ("entries", "hits", "misses", "hit_rate", "tokens_saved")
                                    if k in stats}}


def scan_grid(found: Sequence[int], busy: Sequence[int] = ()) -> list[list[str]]:
    """The i2cdetect table as rows of 16 cells: "76" answered, "UU" owned by a kernel driver, "--" no answer.

    Rows are 0x00-0x70; addresses outside the scanned range 0x08-0x77 are "" (not probed).
    """
    from edge_agent.bus.base import scan_grid_cells

    return scan_grid_cells(found, busy)


def _writable(adapter: Any, pin: str) -> bool:
    try:
        return bool(adapter.gpio_writable(pin))
    except Exception:  # a backend that cannot tell: show it as not writable
        return False


def _connector_of(headers: tuple[str, ...]) -> tuple[str, int | None]:
    for h in headers:
        m = _CONNECTOR.match(h)
        if m:
            return m.group(1), int(m.group(2))
    return "", None


def _by_connector(pins: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pins grouped by their first connector (CN7, J8...), in position order; the rest under "other"."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for pin in pins:
        groups.setdefault(pin["connector"] or "other", []).append(pin)
    order = sorted(groups, key=lambda c: (c == "other", _natural(c)))
    return [{"connector": c, "pins": sorted(groups[c], key=lambda p: (p["position"] is None, p["position"] or 0,
                                                                     _natural(p["name"])))}
            for c in order]


def _natural(text: str) -> tuple[Any, ...]:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def _safe(fn: Callable[[], Any], default: Any) -> Any:
    try:
        return fn()
    except Exception as exc:  # one broken part must not blank the whole page
        log.debug("status page: %s failed: %s", getattr(fn, "__name__", "call"), exc)
        return default


def _plain(obj: Any) -> Any:
    """JSON-able copy: mappings and sequences recursively, bytes as hex, anything else as str."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [_plain(v) for v in obj]
    if isinstance(obj, bytes):
        return obj.hex()
    if isinstance(obj, int | float | str | bool) or obj is None:
        return obj
    return str(obj)
