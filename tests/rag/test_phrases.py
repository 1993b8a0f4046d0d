"""The vocabulary's phrases are found with one pattern grouped by first word; it replaces exactly what a
plain alternation of every phrase, longest first, replaces, whatever the words, separators and case
around them, and a first word that is a phrase of its own still gives way to its longer phrases."""

from __future__ import annotations

import random
import re

import pytest

from edge_agent.rag import text
from edge_agent.rag.text import _PHRASES, _phrase_pattern

_SEP = r"[\s_\-]+"


def _plain(phrases: list[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(_SEP.join(map(re.escape, p.split()))
                                           for p in sorted(phrases, key=len, reverse=True)) + r")\b")


@pytest.mark.parametrize("seed", range(4))
def test_the_grouped_pattern_replaces_what_one_branch_per_phrase_replaces(seed: int) -> None:
    rng = random.Random(seed)
    phrases = list(_PHRASES)
    words = sorted({w for p in phrases for w in p.split()} | {"tactiles", "analogs", "pin", "x1", "bit_clock"})
    grouped, plain = re.compile(_phrase_pattern(phrases)), _plain(phrases)
    for _ in range(400):
        parts = [rng.choice([*words, rng.choice(phrases)]) for _ in range(rng.randint(1, 12))]
        line = "".join(p + rng.choice([" ", "  ", "_", "-", "\n", ", ", ".", ""]) for p in parts)
        assert grouped.sub("#", line) == plain.sub("#", line), line
    assert text._PHRASE is not None and text._PHRASE.pattern == _phrase_pattern(phrases)


def test_a_first_word_that_is_a_phrase_alone_gives_way_to_its_longer_phrases() -> None:
    phrases = ["push", "push button", "push pull output", "pushbutton switch"]
    grouped, plain = re.compile(_phrase_pattern(phrases)), _plain(phrases)
    for line in ("push", "push button", "a push-pull output", "push pull", "pushbutton switch", "pushing"):
        assert grouped.sub("#", line) == plain.sub("#", line), line
    assert grouped.sub("#", "push pull output, push") == "#, #"
