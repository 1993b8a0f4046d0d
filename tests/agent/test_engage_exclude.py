"""engage(exclude_ids=...): excluded entries are left out as if they did not exist."""

from __future__ import annotations

from pathlib import Path

from edge_agent.config import Settings
from edge_agent.memory import MemoryStore


def test_excluded_entries_leave_the_context_unchanged(state: Path) -> None:
    with MemoryStore.open(state, Settings()) as store:
        for i in range(3):
            store.store(f"led note {i}", f"the user led is on PA5, note {i}", category="fact")
        before = store.engage("user led PA5", limit=3)
        extra = store.store("led exchange", "user led PA5 user led PA5 asked and answered", category="conversation")
        with_extra = store.engage("user led PA5", limit=3)
        without = store.engage("user led PA5", limit=3, exclude_ids=[extra.id])
    assert extra.source_ref in with_extra["source_refs"]
    assert without["context"] == before["context"] and without["source_refs"] == before["source_refs"]
