"""Rules decide which windows become captures; the rate limit caps how many per period."""

from __future__ import annotations

from typing import Any

from edge_agent.config import ChangeRule, RateLimit, SummaryRule, ThresholdRule
from edge_agent.watch.rules import RateLimiter, make_rule
from edge_agent.watch.sensors import SENSORS
from edge_agent.watch.window import Window, WindowSummary


def _summary(*temps: float) -> WindowSummary:
    w = Window(SENSORS["bme280"].channels, len(temps))
    for i, t in enumerate(temps):
        w.add({"temperature_c": t, "humidity_pct": 45.0, "pressure_hpa": 1010.0}, at=float(i))
    return w.summary()


def _threshold(**kw: Any) -> ThresholdRule:
    return ThresholdRule.model_validate({"kind": "threshold", **kw})


def test_threshold_on_score_fires_once_when_entering_the_alarm_state() -> None:
    rule = make_rule(_threshold(above=0.5))
    s = _summary(22, 22)
    fired = [rule.evaluate(s, score, now=i) for i, score in enumerate([0.1, 0.9, 0.95, 0.2, 0.8])]
    assert [t is not None for t in fired] == [False, True, False, False, True]
    first = fired[1]
    assert first is not None and (first.capture_type, first.importance, first.value) == ("anomaly", 0.8, 0.9)


def test_threshold_with_repeat_fires_on_every_window_past_it() -> None:
    rule = make_rule(_threshold(above=0.5, repeat=True))
    s = _summary(22)
    assert [rule.evaluate(s, 0.9, now=i) is not None for i in range(3)] == [True, True, True]


def test_threshold_below_on_a_channel_statistic() -> None:
    rule = make_rule(_threshold(on="temperature_c", stat="min", below=5.0, capture_type="frost"))
    assert rule.evaluate(_summary(6, 7), None, 0) is None
    t = rule.evaluate(_summary(6, 4.5), None, 1)
    assert t is not None and t.capture_type == "frost" and t.value == 4.5


def test_threshold_on_score_does_nothing_when_there_is_no_score() -> None:
    rule = make_rule(_threshold(above=0.5))
    assert rule.evaluate(_summary(22), None, 0) is None


def test_change_rule_compares_with_the_last_reported_value_not_the_previous_window() -> None:
    rule = make_rule(ChangeRule(kind="change", on="temperature_c", delta=1.0))
    assert rule.evaluate(_summary(20), None, 0) is None  # first window sets the reference
    assert rule.evaluate(_summary(20.6), None, 1) is None
    t = rule.evaluate(_summary(21.2), None, 2)  # slow drift adds up to the delta
    assert t is not None and t.capture_type == "state_change" and t.value == 21.2
    rule.committed(t, 2)
    assert rule.evaluate(_summary(21.9), None, 3) is None
    assert rule.evaluate(_summary(20.1), None, 4) is not None  # a drop counts too


def test_change_that_was_not_stored_is_proposed_again() -> None:
    rule = make_rule(ChangeRule(kind="change", on="temperature_c", delta=1.0))
    rule.evaluate(_summary(20), None, 0)
    assert rule.evaluate(_summary(25), None, 1) is not None
    assert rule.evaluate(_summary(25), None, 2) is not None  # not committed: still a change


def test_summary_rule_fires_on_the_first_window_then_every_period() -> None:
    rule = make_rule(SummaryRule(kind="summary", every_s=60))
    s = _summary(22)
    out = []
    for now in (0.0, 30.0, 59.0, 61.0, 90.0, 125.0):
        t = rule.evaluate(s, None, now)
        out.append(t is not None)
        if t is not None:
            rule.committed(t, now)
    assert out == [True, False, False, True, False, True]


def test_summary_capture_type_defaults_to_fact() -> None:
    t = make_rule(SummaryRule(kind="summary")).evaluate(_summary(22), 0.01, 0)
    assert t is not None and t.capture_type == "fact" and t.value == 0.01


def test_rate_limiter_allows_max_captures_per_sliding_period_and_counts_the_rest() -> None:
    rl = RateLimiter(RateLimit(max_captures=2, per_s=10))
    allowed = [rl.allow(t) for t in (0.0, 1.0, 2.0, 9.9, 10.0, 10.5, 11.0, 12.0)]
    assert allowed == [True, True, False, False, True, False, True, False]
    assert rl.suppressed == 4
