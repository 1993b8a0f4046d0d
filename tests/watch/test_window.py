"""Windows keep the last N good readings, summarise them per channel, and drop bogus readings with a count."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edge_agent.watch.sensors import SENSORS
from edge_agent.watch.window import Window

CH = SENSORS["bme280"].channels


def _r(t: float, h: float = 45.0, p: float = 1010.0) -> dict[str, float]:
    return {"temperature_c": t, "humidity_pct": h, "pressure_hpa": p}


def test_summary_gives_min_max_mean_and_last_per_channel_over_the_window() -> None:
    w = Window(CH, 4)
    for i, t in enumerate([20.0, 21.0, 25.0, 22.0, 23.0]):  # the first falls out of a 4-sample window
        w.add(_r(t, p=1000.0 + i), at=100.0 + i)
    s = w.summary()
    assert (s.count, s.started_at, s.ended_at) == (4, 101.0, 104.0)
    t = s.channels["temperature_c"]
    assert (t.min, t.max, t.mean, t.first, t.last) == (21.0, 25.0, 22.75, 21.0, 23.0)
    assert s.channels["pressure_hpa"].mean == 1002.5
    assert s.as_dict()["channels"]["temperature_c"] == {"min": 21.0, "max": 25.0, "mean": 22.75, "last": 23.0}
    assert s.as_dict()["started_at"] == "1970-01-01T00:01:41.000Z"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_readings_are_dropped_and_counted_as_nan(bad: float) -> None:
    w = Window(CH, 2)
    assert not w.add(_r(22.0, h=bad), at=1.0)
    assert len(w) == 0 and w.screen.nan == 1 and w.screen.dropped == 1


@pytest.mark.parametrize(("reading", "channel"), [
    (_r(85.01), "temperature_c"), (_r(-40.5), "temperature_c"), (_r(22.0, h=100.2), "humidity_pct"),
    (_r(22.0, p=299.0), "pressure_hpa"), (_r(22.0, p=1100.5), "pressure_hpa"),
])
def test_readings_outside_the_bme280_operating_range_are_dropped_and_counted(reading: dict[str, float],
                                                                             channel: str) -> None:
    w = Window(CH, 2)
    assert not w.add(reading, at=1.0)
    assert w.screen.out_of_range == 1 and channel in w.screen.last_reason


def test_range_limits_themselves_are_accepted() -> None:
    w = Window(CH, 2)
    assert w.add({"temperature_c": -40.0, "humidity_pct": 0.0, "pressure_hpa": 300.0}, at=1.0)
    assert w.add({"temperature_c": 85.0, "humidity_pct": 100.0, "pressure_hpa": 1100.0}, at=2.0)


def test_a_reading_missing_a_channel_is_dropped() -> None:
    w = Window(CH, 2)
    assert not w.add({"temperature_c": 22.0, "humidity_pct": 40.0}, at=1.0)
    assert w.screen.missing == 1


def test_a_dropped_reading_does_not_count_toward_the_next_evaluation() -> None:
    w = Window(CH, 3)
    w.add(_r(20), 1)
    w.add(_r(20), 2)
    w.add(_r(math.nan), 3)
    assert not w.ready()
    w.add(_r(20), 4)
    assert w.ready()


def test_step_sets_how_many_new_samples_trigger_the_next_evaluation() -> None:
    w = Window(CH, 4, step=2)
    ready_at = []
    for i in range(10):
        w.add(_r(20 + i), float(i))
        if w.ready():
            ready_at.append(i)
            w.mark_evaluated()
    assert ready_at == [3, 5, 7, 9]


def test_default_step_evaluates_non_overlapping_windows() -> None:
    w = Window(CH, 4)
    ready_at = []
    for i in range(12):
        w.add(_r(20), float(i))
        if w.ready():
            ready_at.append(i)
            w.mark_evaluated()
    assert ready_at == [3, 7, 11]


def test_rows_follow_the_requested_channel_order() -> None:
    w = Window(CH, 2)
    w.add(_r(20.0, 40.0, 1000.0), 1)
    assert w.rows() == [[20.0, 40.0, 1000.0]]
    assert w.rows(["pressure_hpa", "temperature_c"]) == [[1000.0, 20.0]]


def test_clear_empties_the_window_after_a_gap() -> None:
    w = Window(CH, 2)
    w.add(_r(20), 1)
    w.add(_r(20), 2)
    w.clear()
    assert len(w) == 0 and not w.ready()


@given(st.lists(st.tuples(st.floats(allow_nan=True, allow_infinity=True, width=32),
                          st.floats(-5, 105), st.floats(250, 1150)), min_size=1, max_size=40),
       st.integers(1, 8))
def test_summary_matches_the_accepted_readings_and_every_reading_is_kept_or_counted(
    readings: list[tuple[float, float, float]], size: int
) -> None:
    w = Window(CH, size)
    kept = [r for r in readings if w.add(_r(*r), at=0.0)]
    assert len(kept) + w.screen.dropped == len(readings)
    for t, h, p in kept:
        assert -40 <= t <= 85 and 0 <= h <= 100 and 300 <= p <= 1100
    if kept:
        tail = kept[-size:]
        s = w.summary()
        assert s.count == len(tail)
        temps = [r[0] for r in tail]
        assert (s.channels["temperature_c"].min, s.channels["temperature_c"].max) == (min(temps), max(temps))
        assert s.channels["pressure_hpa"].mean == pytest.approx(sum(r[2] for r in tail) / len(tail))
