"""Device drivers written only against the port API of :mod:`edge_agent.bus.base`."""

from __future__ import annotations

import time
from collections.abc import Callable

from edge_agent.errors import BusError


class UnexpectedDeviceError(BusError):
    """The target answered, but it is not the part the driver expects (wrong chip id)."""


def wait_until(done: Callable[[], bool], *, polls: int, interval_s: float) -> bool:
    """Call ``done`` up to ``polls`` times, sleeping ``interval_s`` between misses; True once it holds."""
    for i in range(polls):
        if done():
            return True
        if i + 1 < polls:
            time.sleep(interval_s)
    return False


__all__ = ["UnexpectedDeviceError", "wait_until"]
