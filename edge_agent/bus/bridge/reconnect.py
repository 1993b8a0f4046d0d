"""The link's reconnect policy: whether a lost port is reopened, and how long to wait between tries.

A board that is unplugged, reset by its watchdog or re-enumerated comes back on the same path after a
while; the reader retries the open with a delay that doubles from ``first_s`` up to ``max_s``, so a
board that is gone for good costs a few opens a second at most, and one that is back is found quickly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

BACKOFF_FIRST_S = 0.1
BACKOFF_MAX_S = 2.0


@dataclass(frozen=True)
class ReconnectPolicy:
    """``enabled`` False: a lost port stays lost and requests fail at once (until the adapter is reopened)."""

    enabled: bool = True
    first_s: float = BACKOFF_FIRST_S
    max_s: float = BACKOFF_MAX_S

    def delays(self) -> Iterator[float]:
        """The waits before each reopen attempt of one outage: first_s, doubling, capped at max_s."""
        delay = self.first_s
        while True:
            yield delay
            delay = min(delay * 2, self.max_s)
