"""engage(exclude_ids=...): excluded entries are left out as if they did not exist."""

from __future__ import annotations

from pathlib import Path

from edge_agent.config import Settings
from edge_agent.memory import MemoryStore


def test_excluded_entries_leave_the_context_unchanged(state: Path) -> None:
    with MemoryStore.open(state, Settings()) as store:
        for i in range(3):
            store.store(f"led note {i}", f"the user led is on PA5, note {i}", category="fact")
        before = store.search.engage("user led PA5", limit=3)
        extra = store.store("led exchange", "user led PA5 user led PA5 asked and answered", category="conversation")
        with_extra = store.search.engage("user led PA5", limit=3)
        without = store.search.engage("user led PA5", limit=3, exclude_ids=[extra.id])
    assert extra.source_ref in with_extra["source_refs"]
    assert without["context"] == before["context"] and without["source_refs"] == before["source_refs"]


def test_an_excluded_entry_with_a_new_word_does_not_change_the_weights_for_the_rest(state: Path) -> None:
    # The question's word "temperature" is in no entry yet, so it carries no weight and the pressure note
    # matches every term that counts. The stored exchange brings the word in; excluded, it must not.
    question = "what is the bme280 temperature range"
    with MemoryStore.open(state, Settings()) as store:
        store.store("bme280 note", "the bme280 pressure range is 300 to 1100 hPa", category="fact")
        before = store.search.engage(question, limit=3)
        extra = store.store("exchange", f"{question}? The temperature range is -40 to 85 C.",
                            category="conversation")
        without = store.search.engage(question, limit=3, exclude_ids=[extra.id])
    assert before["results"], "the pressure note is relevant before the exchange is stored"
    assert without["context"] == before["context"] and without["source_refs"] == before["source_refs"]


def test_an_excluded_entry_holding_two_forms_of_a_word_takes_both_out_of_the_count(state: Path) -> None:
    # "stand" and "stands" are two index tokens; the document count of the term "stand" sums both, so an
    # excluded entry holding both forms added two to it, and leaving it out must take two away. The
    # second engage runs in a fresh store (as the next process would), with counts read from the index.
    question = "stand for the scope"
    with MemoryStore.open(state, Settings()) as store:
        store.store("mount", "the scope stands on the shelf", category="fact")
        store.store("stand", "the soldering stand is in the drawer", category="fact")
        store.store("probe", "the scope probe is 10x", category="fact")
        before = store.search.engage(question, limit=3)
        extra = store.store("exchange", f"{question}? It stands on the shelf; a stand is not needed.",
                            category="conversation")
    with MemoryStore.open(state, Settings()) as store:
        without = store.search.engage(question, limit=3, exclude_ids=[extra.id])
    assert len(before["results"]) == 3
    assert without["context"] == before["context"] and without["source_refs"] == before["source_refs"]
    assert [r["score"] for r in without["results"]] == [r["score"] for r in before["results"]]

