"""Sample windows: a bounded buffer of readings, their per-channel summary, and reading screening.

Pure Python (no numpy) so rule-only watches run on the base install.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from edge_agent.jsontypes import JsonObject
from edge_agent.watch.sensors import Channel


def iso_utc(ts: float) -> str:
    """UNIX time as RFC 3339 UTC with milliseconds."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass(frozen=True)
class ChannelStats:
    """Summary of one channel over a window."""

    min: float
    max: float
    mean: float
    first: float
    last: float

    def stat(self, name: str) -> float:
        """One of last/mean/min/max/first by name."""
        return float(getattr(self, name))

    def as_dict(self, digits: int = 4) -> JsonObject:
        """Rounded values for captures and JSON."""
        return {k: round(v, digits) for k, v in (("min", self.min), ("max", self.max), ("mean", self.mean),
                                                 ("last", self.last))}


@dataclass(frozen=True)
class WindowSummary:
    """Per-channel statistics of one full window, with the wall-clock span it covers."""

    channels: Mapping[str, ChannelStats]
    count: int
    started_at: float  # UNIX time of the first sample
    ended_at: float  # UNIX time of the last sample

    def as_dict(self) -> JsonObject:
        """JSON-ready form: {channel: {min, max, mean, last}}, count and the span as RFC 3339 UTC."""
        return {"count": self.count, "started_at": iso_utc(self.started_at), "ended_at": iso_utc(self.ended_at),
                "channels": {k: v.as_dict() for k, v in self.channels.items()}}


@dataclass
class Screen:
    """Counts of readings dropped before they reach a window."""

    nan: int = 0
    out_of_range: int = 0
    missing: int = 0
    last_reason: str = ""

    @property
    def dropped(self) -> int:
        """All dropped readings."""
        return self.nan + self.out_of_range + self.missing


@dataclass
class Window:
    """The last `size` accepted readings of `channels`, evaluated every `step` new samples."""

    channels: Sequence[Channel]
    size: int
    step: int = 0
    screen: Screen = field(default_factory=Screen)

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError("window size must be at least 1")
        self.step = self.step or self.size
        self._rows: deque[tuple[float, tuple[float, ...]]] = deque(maxlen=self.size)
        self._since_eval = 0

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, values: Mapping[str, float], at: float) -> bool:
        """Append a reading taken at UNIX time `at`; False (and counted) when it is NaN, missing or out of range.

        A NaN or a value outside the part's operating range is a bus glitch, a half-written data
        register or an uncompensated word, not a measurement: feeding it to a model or a threshold
        would raise a false alarm, so the whole reading is dropped.
        """
        row = []
        for ch in self.channels:
            v = values.get(ch.name)
            if v is None:
                self.screen.missing += 1
                self.screen.last_reason = f"{ch.name} missing"
                return False
            try:
                v = float(v)
            except (TypeError, ValueError):
                self.screen.nan += 1
                self.screen.last_reason = f"{ch.name} is not a number ({v!r})"
                return False
            if math.isnan(v) or math.isinf(v):
                self.screen.nan += 1
                self.screen.last_reason = f"{ch.name} is {v}"
                return False
            if not ch.low <= v <= ch.high:
                self.screen.out_of_range += 1
                self.screen.last_reason = f"{ch.name} = {v} outside {ch.low}..{ch.high} {ch.unit}"
                return False
            row.append(v)
        self._rows.append((at, tuple(row)))
        self._since_eval += 1
        return True

    def ready(self) -> bool:
        """True when the window is full and `step` samples arrived since the last evaluation."""
        return len(self._rows) == self.size and self._since_eval >= self.step

    def mark_evaluated(self) -> None:
        """Start counting toward the next evaluation."""
        self._since_eval = 0

    def clear(self) -> None:
        """Forget every sample (after a sensor gap the window is no longer contiguous)."""
        self._rows.clear()
        self._since_eval = 0

    def rows(self, channels: Sequence[str] | None = None) -> list[list[float]]:
        """Samples oldest first, as rows of values in `channels` order (default: the window's order)."""
        names = [c.name for c in self.channels]
        idx = [names.index(n) for n in channels] if channels else list(range(len(names)))
        return [[r[i] for i in idx] for _, r in self._rows]

    def summary(self) -> WindowSummary:
        """Per-channel min/max/mean/first/last of the current samples."""
        if not self._rows:
            raise ValueError("empty window")
        stats = {}
        n = len(self._rows)
        for i, ch in enumerate(self.channels):
            col = [r[i] for _, r in self._rows]
            stats[ch.name] = ChannelStats(min=min(col), max=max(col), mean=math.fsum(col) / n, first=col[0],
                                          last=col[-1])
        return WindowSummary(channels=stats, count=n, started_at=self._rows[0][0], ended_at=self._rows[-1][0])
