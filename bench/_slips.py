"""Questions with one typing slip each, for the misspelling rows of bench/rag.py.

A slip is what a finger does on a QWERTY keyboard: a letter left out, two neighbours swapped, a neighbouring
key struck instead of the right one, or a letter struck twice or beside its key's neighbour. One word of six
letters or more (not the first letter of it, nor a word joined to digits) gets one slip, chosen with a fixed
seed, so every run asks the same misspelt questions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from bench._rag_questions import Question
from edge_agent.rag.spelling import NEIGHBOURS

_WORD = re.compile(r"(?<![\w.-])[A-Za-z]{6,}(?![\w.-])")
#: Each letter's neighbouring keys on a QWERTY keyboard, as the search's spelling reads slips.
_NEAR = {key: list(keys) for key, keys in NEIGHBOURS.items()}


def _slip(word: str, rnd: random.Random) -> str:
    while (slip := _one(word, rnd)) == word:  # swapping the two s of "address" slips nothing
        pass
    return slip


def _one(word: str, rnd: random.Random) -> str:
    i = rnd.randrange(1, len(word))
    key = word[i].lower()
    kind = rnd.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1:]
    if kind == 1 and i < len(word) - 1:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == 2:
        return word[:i] + rnd.choice(_NEAR.get(key, [key])) + word[i + 1:]
    return word[:i] + rnd.choice([*_NEAR.get(key, []), key]) + word[i:]


def slipped(questions: Iterable[Question], seed: int = 7) -> list[tuple[Question, Question]]:
    """(question, the same question with one slip) for each question holding a word of six letters or more."""
    rnd = random.Random(seed)
    out = []
    for q in questions:
        words = list(_WORD.finditer(q.text))
        if not words:
            continue
        m = rnd.choice(words)
        out.append((q, q._replace(text=q.text[:m.start()] + _slip(m.group(0), rnd) + q.text[m.end():])))
    return out
