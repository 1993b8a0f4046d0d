"""Background work: the sync worker, the watches and the periodic jobs, each in its own thread.

Each thread runs ``target(stop)`` with a stop event of its own, so one job can be restarted (on a
reload) without touching the others. A job that dies shows in ``runtime_status`` instead of
vanishing; each periodic job's last outcome is kept in ``jobs``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from edge_agent.runtime.components import describe_exc

log = logging.getLogger(__name__)
T = TypeVar("T")

REINDEX_CHECK_S = 10.0  # how often the datasheet directory is checked for changed files
HYGIENE_EVERY_S = 6 * 3600.0  # memory hygiene and response-cache pruning period
JOIN_TIMEOUT_S = 10.0


class BackgroundJobs:
    """The runtime's background threads and the record of its periodic jobs."""

    def __init__(self, on_failure: Callable[[str, str], None]) -> None:
        self._on_failure = on_failure  # (job name, why) when a thread's target raises
        self.threads: dict[str, threading.Thread] = {}
        self._stops: dict[str, threading.Event] = {}
        self.stop: threading.Event | None = None  # the daemon's stop, once started
        self.results: dict[str, dict[str, Any]] = {}

    @property
    def started(self) -> bool:
        return self.stop is not None

    def spawn(self, name: str, target: Callable[[threading.Event], None]) -> None:
        """Run `target(stop)` in a thread with its own stop event (set by close() or a restart)."""
        stop = threading.Event()
        self._stops[name] = stop

        def guarded() -> None:
            try:
                target(stop)
            except Exception as exc:  # a job dying must show in status, not vanish
                log.exception("background job %s stopped", name)
                self._on_failure(name, f"background job stopped: {describe_exc(exc)}")

        thread = threading.Thread(target=guarded, name=f"edge-agent-{name}", daemon=True)
        thread.start()
        self.threads[name] = thread

    def halt(self, name: str) -> None:
        """Stop one background thread and wait for it (bounded)."""
        stop, thread = self._stops.pop(name, None), self.threads.pop(name, None)
        if stop is not None:
            stop.set()
        if thread is not None:
            thread.join(JOIN_TIMEOUT_S)
            if thread.is_alive():
                log.warning("background job %s did not stop in time", name)

    def signal_all(self) -> None:
        """Ask every thread to stop (without waiting)."""
        if self.stop is not None:
            self.stop.set()
        for stop in self._stops.values():
            stop.set()

    def halt_all(self) -> None:
        for name in list(self.threads):
            self.halt(name)

    def run(self, name: str, fn: Callable[[], T]) -> T | None:
        """Run one periodic job now and record its outcome (a failure is logged and recorded, not raised)."""
        started = time.monotonic()
        try:
            result = fn()
        except Exception as exc:
            self.results[name] = {"ok": False, "at": time.time(), "detail": describe_exc(exc)}
            log.warning("job %s failed: %s", name, describe_exc(exc))
            return None
        self.results[name] = {"ok": True, "at": time.time(), "took_s": round(time.monotonic() - started, 3),
                              "result": result if isinstance(result, int | dict | str | None) else str(result)}
        return result

    def periodic(self, reindex: Callable[[], Any], hygiene: Callable[[], Any]) -> Callable[[threading.Event], None]:
        """The loop of the ``jobs`` thread: re-index changed datasheets often, memory hygiene every 6 h."""

        def loop(stop: threading.Event) -> None:
            last_hygiene = 0.0
            while not stop.wait(REINDEX_CHECK_S if last_hygiene else 0.0):
                if self.stop is not None and self.stop.is_set():
                    return
                reindex()
                now = time.monotonic()
                if not last_hygiene or now - last_hygiene >= HYGIENE_EVERY_S:
                    last_hygiene = now
                    hygiene()

        return loop
