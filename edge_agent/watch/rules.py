"""Rules that turn a window (and a model score) into a capture, and the per-watch rate limit.

A rule proposes a :class:`Trigger`; the runner stores it and only then calls :meth:`Rule.committed`,
so a change or summary that could not be stored (or was rate-limited) is proposed again next window.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from edge_agent.config import ChangeRule, RateLimit, SummaryRule, ThresholdRule
from edge_agent.watch.window import WindowSummary

RuleConfig = ThresholdRule | ChangeRule | SummaryRule


def num(v: float) -> str:
    """A reading or score for people: up to 3 decimals, no trailing zeros (1009.234, 22.5, 0.997)."""
    return f"{v:.3f}".rstrip("0").rstrip(".") if abs(v) < 1e6 else f"{v:.4g}"


@dataclass(frozen=True)
class Trigger:
    """What a rule found: the capture type and importance to use, and why, in one phrase."""

    rule: str
    capture_type: str
    importance: float
    reason: str
    value: float | None = None


class Rule:
    """Base: evaluate a window, remember what was reported."""

    def __init__(self, config: RuleConfig) -> None:
        self.config = config

    def evaluate(self, summary: WindowSummary, score: float | None, now: float) -> Trigger | None:
        """Return a Trigger when this window should become a capture."""
        raise NotImplementedError

    def committed(self, trigger: Trigger, now: float) -> None:
        """The trigger was stored as a capture at monotonic time `now`."""

    def _value(self, on: str, stat: str, summary: WindowSummary, score: float | None) -> float | None:
        if on == "score":
            return score
        return summary.channels[on].stat(stat)

    @staticmethod
    def _label(on: str, stat: str) -> str:
        return "model score" if on == "score" else f"{on} {stat}"


class ThresholdRuleEngine(Rule):
    """Fires when the value passes `above`/`below`; by default only on entering that state."""

    config: ThresholdRule

    def __init__(self, config: ThresholdRule) -> None:
        super().__init__(config)
        self.active = False

    def evaluate(self, summary: WindowSummary, score: float | None, now: float) -> Trigger | None:
        c = self.config
        value = self._value(c.on, c.stat, summary, score)
        if value is None:
            return None
        parts = []
        if c.above is not None and value > c.above:
            parts.append(f"above {c.above:g}")
        if c.below is not None and value < c.below:
            parts.append(f"below {c.below:g}")
        was, self.active = self.active, bool(parts)
        if not parts or (was and not c.repeat):
            return None
        return Trigger("threshold", c.capture_type, c.importance,
                       f"{self._label(c.on, c.stat)} {num(value)} {' and '.join(parts)}", value)


class ChangeRuleEngine(Rule):
    """Fires when the value moved by at least `delta` from the last reported (or first seen) value."""

    config: ChangeRule

    def __init__(self, config: ChangeRule) -> None:
        super().__init__(config)
        self.reference: float | None = None

    def evaluate(self, summary: WindowSummary, score: float | None, now: float) -> Trigger | None:
        c = self.config
        value = self._value(c.on, c.stat, summary, score)
        if value is None:
            return None
        if self.reference is None:
            self.reference = value
            return None
        if abs(value - self.reference) < c.delta:
            return None
        return Trigger("change", c.capture_type, c.importance,
                       f"{self._label(c.on, c.stat)} changed from {num(self.reference)} to {num(value)} "
                       f"(at least {c.delta:g})", value)

    def committed(self, trigger: Trigger, now: float) -> None:
        self.reference = trigger.value


class SummaryRuleEngine(Rule):
    """Fires on the first full window, then at most every `every_s` seconds."""

    config: SummaryRule

    def __init__(self, config: SummaryRule) -> None:
        super().__init__(config)
        self.last: float | None = None

    def evaluate(self, summary: WindowSummary, score: float | None, now: float) -> Trigger | None:
        c = self.config
        if self.last is not None and now - self.last < c.every_s:
            return None
        extra = f", model score {num(score)}" if score is not None else ""
        return Trigger("summary", c.capture_type, c.importance,
                       f"periodic summary of {summary.count} samples{extra}", score)

    def committed(self, trigger: Trigger, now: float) -> None:
        self.last = now


def make_rule(config: RuleConfig) -> Rule:
    """The engine for a validated rule config."""
    if isinstance(config, ThresholdRule):
        return ThresholdRuleEngine(config)
    if isinstance(config, ChangeRule):
        return ChangeRuleEngine(config)
    return SummaryRuleEngine(config)


class RateLimiter:
    """Sliding window: at most `max_captures` allowed in any `per_s` seconds (monotonic time)."""

    def __init__(self, config: RateLimit) -> None:
        self.max, self.per_s = config.max_captures, config.per_s
        self._times: deque[float] = deque()
        self.suppressed = 0

    def allow(self, now: float) -> bool:
        """Take a slot at `now` if one is free; otherwise count the suppression and return False."""
        while self._times and now - self._times[0] >= self.per_s:
            self._times.popleft()
        if len(self._times) >= self.max:
            self.suppressed += 1
            return False
        self._times.append(now)
        return True
