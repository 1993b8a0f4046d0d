"""Recall (FTS5 relevance, decay, importance, superseded, min score) and engage (token budget)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from edge_agent.config import parse_settings
from edge_agent.memory import Entry, MemoryStore, apply_decay
from edge_agent.memory.model import decay_factor, estimate_tokens, fts_match_expression, query_terms

from .conftest import make_settings

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _ts(days_ago: float) -> str:
    return (NOW - timedelta(days=days_ago)).isoformat()


def _entry(category: str, score: float | None, timestamp: str) -> Entry:
    return Entry(id="x", key="k", content="c", category=category, timestamp=timestamp, namespace="n", score=score)


# --- decay as a function ------------------------------------------------------------------------


def test_decay_halves_the_score_every_half_life() -> None:
    """score x 2^(-age_days / half_life): 14 days at a 7-day half-life is a quarter."""
    e = apply_decay([_entry("daily", 0.8, _ts(14))], NOW, 7.0)[0]
    assert e.score == pytest.approx(0.2)


@pytest.mark.parametrize("half_life", [0, -3, None, float("nan")])
def test_a_half_life_at_or_below_zero_falls_back_to_seven_days(half_life: float | None) -> None:
    assert decay_factor(_ts(7), NOW, half_life) == pytest.approx(0.5)


def test_core_entries_never_decay() -> None:
    assert apply_decay([_entry("core", 0.9, _ts(365))], NOW, 7.0)[0].score == 0.9


def test_entries_without_a_score_or_with_an_unparseable_timestamp_are_left_unchanged() -> None:
    no_score, bad_ts, naive = _entry("daily", None, _ts(30)), _entry("daily", 0.7, "last tuesday"), \
        _entry("daily", 0.7, "2026-01-01T00:00:00")
    apply_decay([no_score, bad_ts, naive], NOW, 7.0)
    assert (no_score.score, bad_ts.score, naive.score) == (None, 0.7, 0.7)


def test_future_timestamps_do_not_inflate_the_score() -> None:
    assert apply_decay([_entry("daily", 0.5, _ts(-3))], NOW, 7.0)[0].score == 0.5


# --- query escaping -------------------------------------------------------------------------------


@pytest.mark.parametrize("query", [
    '"', "'", "NEAR(a b)", "a AND OR NOT b", "content:secret", "^start", "prefix*", "(unbalanced", "a - b",
    "\x00", "-- comment", "'; DROP TABLE entries; --", "{key content}: x", "💥 emoji", "col:  \"x\"",
])
def test_user_text_never_reaches_match_as_fts_syntax(store: MemoryStore, query: str) -> None:
    store.store("k", "a secret start prefix comment emoji x b")
    results = store.search.recall(query, min_score=0)
    assert isinstance(results, list)
    assert store.count() == 1


def test_match_expression_quotes_every_term() -> None:
    expr = fts_match_expression(query_terms('PA5 NOT "x" NEAR" gpio1'))
    assert expr == '"pa5" OR ("not" OR "nots" OR "notes") OR "x" OR "near"* OR "gpio1"'


def test_pin_names_with_digits_match_exactly_and_words_match_their_plurals(store: MemoryStore) -> None:
    store.store("a", "GPIO17 drives the fans")
    store.store("b", "GPIO1 is the relay")
    assert [e.key for e in store.search.recall("gpio1", min_score=0)] == ["b"]
    assert [e.key for e in store.search.recall("fan", min_score=0)] == ["a"]


# --- recall ---------------------------------------------------------------------------------------


def test_recall_ranks_the_entry_matching_more_terms_first(store: MemoryStore) -> None:
    store.store("a", "The BME280 humidity sensor sits on bus i2c1 at address 0x76")
    store.store("b", "The SSD1306 display also sits on bus i2c1")
    store.store("c", "Grocery list: eggs, milk")
    found = store.search.recall("BME280 address on i2c1", min_score=0)
    assert [e.key for e in found] == ["a", "b"]
    assert found[0].score > found[1].score


def test_recall_finds_word_forms_through_stemming(store: MemoryStore) -> None:
    store.store("a", "Sensors were calibrated yesterday")
    assert [e.key for e in store.search.recall("sensor calibration", min_score=0)] == ["a"]


def test_recall_returns_final_decayed_scores_and_old_daily_entries_sink(store: MemoryStore) -> None:
    store.store("old", "pump pressure reading nominal", category="daily", timestamp=_ts(14))
    store.store("new", "pump pressure reading high", category="daily", timestamp=_ts(0))
    store.store("core", "pump pressure limit is 3 bar", category="core", timestamp=_ts(400))
    found = {e.key: e for e in store.search.recall("pump pressure", limit=5, min_score=0, now=NOW)}
    assert found["old"].score == pytest.approx(found["new"].score * 0.25, rel=1e-6)
    assert found["core"].score > found["old"].score  # core never decays, however old


def test_importance_boosts_an_otherwise_equal_match(store: MemoryStore) -> None:
    store.store("low", "valve two is stuck open", importance=0.0)
    store.store("high", "valve one is stuck open", importance=1.0)
    found = store.search.recall("valve stuck open", min_score=0)
    assert [e.key for e in found] == ["high", "low"]


def test_superseded_entries_are_excluded_from_recall(store: MemoryStore) -> None:
    store.store("led", "the status LED is on PB0")
    store.store("led", "the status LED is on PA5")
    assert [e.content for e in store.search.recall("status LED", min_score=0)] == ["the status LED is on PA5"]


def test_min_relevance_score_drops_weak_matches(state: Path) -> None:
    with MemoryStore.open(state, make_settings(min_relevance_score=0.6)) as s:
        s.store("a", "relay one drives the coolant pump motor")
        s.store("b", "the pump")
        s.store("c", "old relay note", category="daily", timestamp="2020-01-01T00:00:00Z")
        keys = [e.key for e in s.search.recall("relay coolant pump motor")]
        assert keys == ["a"]
        assert all(e.score >= 0.6 for e in s.search.recall("relay coolant pump motor"))  # type: ignore[operator]
        assert "b" in [e.key for e in s.search.recall("relay coolant pump motor", min_score=0)]


def test_recall_filters_by_namespace_and_category(store: MemoryStore) -> None:
    store.store("a", "fan speed 1200 rpm", namespace="lab", category="daily")
    store.store("b", "fan speed 900 rpm", namespace="home", category="core")
    assert [e.key for e in store.search.recall_namespaced("lab", "fan speed", min_score=0)] == ["a"]
    assert [e.key for e in store.search.recall("fan speed", categories=["core"], min_score=0)] == ["b"]


def test_archived_entries_are_not_recalled_unless_asked(store: MemoryStore) -> None:
    ten_days_ago = datetime.now(UTC) - timedelta(days=10)  # past archive_after_days (7), not purge (30)
    store.store("a", "heater relay toggled", category="daily", timestamp=ten_days_ago)
    assert store.maintenance.hygiene()["archived"] == 1
    assert store.search.recall("heater relay", min_score=0) == []
    assert [e.key for e in store.search.recall("heater relay", min_score=0, include_archived=True)] == ["a"]


def test_empty_and_stopword_only_queries(store: MemoryStore) -> None:
    store.store("a", "what is it")
    assert store.search.recall("", min_score=0) == []
    assert store.search.recall("   ?!  ", min_score=0) == []
    assert [e.key for e in store.search.recall("what is it", min_score=0)] == ["a"]
    assert store.search.recall("what", limit=0) == []


# --- engage ---------------------------------------------------------------------------------------


def test_engage_returns_context_results_and_source_refs_most_relevant_first(state: Path) -> None:
    store = MemoryStore.open(state, make_settings(min_relevance_score=0))
    a = store.store("a", "LD2 user LED is on PA5, also Arduino D13")
    b = store.store("b", "LD2 blinks at 1 Hz in the demo firmware")
    out = store.search.engage("LD2 LED PA5")
    store.close()
    assert set(out) >= {"context", "results", "source_refs"}
    assert [r["id"] for r in out["results"]] == [a.id, b.id]
    assert out["source_refs"] == [f"mem://{a.id}", f"mem://{b.id}"]
    assert out["context"].index("PA5, also Arduino D13") < out["context"].index("1 Hz")


def test_engage_fits_the_budget_and_never_cuts_an_entry(store: MemoryStore) -> None:
    for i in range(20):
        store.store(f"k{i}", f"motor controller note {i}: " + "torque ramp detail " * (i + 1))
    out = store.search.engage("motor controller torque", limit=20, budget_tokens=200)
    assert 0 < out["tokens"] <= 200
    assert estimate_tokens(out["context"]) <= 200
    for r in out["results"]:
        assert r["content"] in out["context"]  # whole entries only
    assert out["omitted"] > 0
    assert len(out["results"]) + out["omitted"] == len(store.search.recall("motor controller torque", limit=20))


def test_compact_context_mode_uses_a_smaller_budget(state: Path) -> None:
    normal = parse_settings({"memory": {"context_budget_tokens": 900}})
    compact = parse_settings({"memory": {"context_budget_tokens": 900}, "agent": {"compact_context": True}})
    with MemoryStore.open(state, normal) as s:
        for i in range(30):
            s.store(f"k{i}", f"gpio pin note {i}: " + "pull-up resistor detail " * 8)
        big = s.search.engage("gpio pin pull-up", limit=30)
    with MemoryStore.open(state, compact) as s:
        small = s.search.engage("gpio pin pull-up", limit=30)
    assert small["budget_tokens"] < big["budget_tokens"] == 900
    assert small["tokens"] <= small["budget_tokens"]
    assert 0 < len(small["results"]) < len(big["results"])


def test_engage_with_nothing_relevant_returns_an_empty_context(store: MemoryStore) -> None:
    store.store("a", "unrelated")
    assert store.search.engage("spectrometer") == {"context": "", "results": [], "source_refs": [], "tokens": 0,
                                                   "budget_tokens": 1200, "omitted": 0}


def test_recall_updates_access_counts(state: Path) -> None:
    with MemoryStore.open(state, make_settings()) as s:
        e = s.store("a", "brake sensor wiring")
        s.search.recall("brake sensor")
        s.search.engage("brake sensor")
    with MemoryStore.open(state, make_settings()) as s:
        assert s.get_by_id(e.id).access_count == 2  # type: ignore[union-attr]


def test_a_rare_word_outweighs_a_common_one(store: MemoryStore) -> None:
    for i in range(30):
        store.store(f"log{i}", f"pump cycle {i} logged")
    store.store("seal", "the pump shaft seal leaks")
    found = store.search.recall("pump seal", limit=3, min_score=0)
    assert found[0].key == "seal"
    assert found[0].score > 2 * found[1].score


def test_a_rare_word_finds_an_old_entry_behind_many_newer_matches(store: MemoryStore) -> None:
    store.store("old", "replaced the pump gasket with a viton one", category="core",
                timestamp="2025-01-01T00:00:00Z")
    store.store_many({"key": f"n{i}", "content": f"pump status ok, cycle {i}"} for i in range(300))
    found = store.search.recall("viton pump gasket supplier", min_score=0)
    assert found[0].key == "old"


def test_a_large_limit_returns_that_many_matches(store: MemoryStore) -> None:
    store.store_many({"key": f"k{i}", "content": f"relay event number {i}"} for i in range(150))
    assert len(store.search.recall("relay", limit=100, min_score=0)) == 100
