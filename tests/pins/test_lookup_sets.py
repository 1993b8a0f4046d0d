"""The pin lookups of bench/_pin_lookups.py (names as datasheets and silkscreens write them, on board files,
datasheet-only boards and the tag every 40-pin Pi shares) each resolve to the pin the datasheet gives."""

from __future__ import annotations

import sys
from pathlib import Path

from edge_agent.paths import bundled_datasheets_dir
from edge_agent.rag import pin_index_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._pin_lookups import PIN_LOOKUPS, PIN_LOOKUPS_HELD_OUT, PIN_LOOKUPS_HELD_OUT_2  # noqa: E402


def test_every_pin_lookup_resolves_to_the_datasheets_pin(shared_corpus: Path) -> None:
    index = {"shared": pin_index_for(shared_corpus), "bundled": pin_index_for(bundled_datasheets_dir())}
    wrong = []
    for lk in (*PIN_LOOKUPS, *PIN_LOOKUPS_HELD_OUT):
        got = index[lk.corpus].resolve(lk.board, lk.name).name
        if got not in lk.pin.split("|"):
            wrong.append((lk, got))
    assert not wrong


def test_the_lookup_sets_are_distinct() -> None:
    tuning = {(lk.board, lk.name.lower()) for lk in PIN_LOOKUPS}
    held_out = {(lk.board, lk.name.lower()) for lk in PIN_LOOKUPS_HELD_OUT}
    assert not tuning & held_out
    # the second held-out set (measured by bench/rag.py only, once) asks nothing the others ask
    assert not (tuning | held_out) & {(lk.board, lk.name.lower()) for lk in PIN_LOOKUPS_HELD_OUT_2}
