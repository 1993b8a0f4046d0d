"""Misspelt question words, read as the word the library writes ("adress" is "address", "recieve" "receive").

A word of the question that no datasheet holds (nor a word it inflects), five letters or longer and all letters,
is replaced by the word one slip away (:func:`_edits`) that the most chunks hold. Only such a word is looked at: a
known word is never changed, however rare, and a word with digits (a part or pin name) is never guessed at. The
edits of one word are a few hundred lookups in the term counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

__all__ = ["corrected"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _neighbours() -> dict[str, str]:
    """Each letter's neighbouring keys on a QWERTY keyboard: beside it in its row, and the keys of the rows above
    and below that touch it (each row sits about half a key right of the one above)."""
    near: dict[str, str] = {}
    for r, row in enumerate(_ROWS):
        for i, key in enumerate(row):
            keys = [row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)]
            if r > 0:
                keys += [_ROWS[r - 1][j] for j in (i, i + 1) if j < len(_ROWS[r - 1])]
            if r + 1 < len(_ROWS):
                keys += [_ROWS[r + 1][j] for j in (i - 1, i) if 0 <= j < len(_ROWS[r + 1])]
            near[key] = "".join(keys)
    return near


_NEAR = _neighbours()
#: The shortest word in which a mistyped letter is looked for.
_CHANGE_FROM = 7
_WORD = re.compile(r"(?<![\w.-])[A-Za-z]{5,}(?![\w.-])")  # five letters or more: shorter words have
# too many neighbours one edit away to pick one


def corrected(query: str, held: Callable[[str], int]) -> str:
    """`query` with each misspelt word replaced (see the module); `held` gives how many chunks hold a word as
    the search normalises it (0 for none)."""
    out: list[str] = []
    at = 0
    for m in _WORD.finditer(query):
        word = m.group(0).lower()
        if held(word) > 0 or any(held(base) > 0 for base in _bases(word)):
            continue
        best = max(_edits(word), key=lambda w: (held(w), w), default=None)
        if best is None or held(best) <= 0:
            continue
        out += [query[at:m.start()], best]
        at = m.end()
    return "".join(out) + query[at:] if out else query


def _bases(word: str) -> Iterator[str]:
    """The words `word` may inflect ("writing" of "write", "updated" of "update", "boards" of "board"): a word
    whose base the library holds is known, however the light stemming of the index wrote it."""
    for ending, base in (("s", ""), ("es", ""), ("d", ""), ("ed", ""), ("ing", ""), ("ing", "e")):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            yield word[: -len(ending)] + base


def _edits(word: str) -> Iterator[str]:
    """The words one typing slip away from `word`, after its first letter (rarely the slip): a letter left out,
    two neighbours swapped, a letter struck twice or beside its key's neighbour, and in a word of seven letters or
    more a letter mistyped as a neighbouring key before its last. Slips land on neighbouring keys; another letter
    in a short word, or at a word's end, is as likely another word or an inflection ("stuck" and "stack",
    "missing" and "misoing", "assumed" and "assumes")."""
    change = len(word) >= _CHANGE_FROM
    for i in range(1, len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            if tail[0] == head[-1] or tail[0] in _NEAR.get(head[-1], "") or (
                    len(tail) > 1 and tail[0] in _NEAR.get(tail[1], "")):
                yield head + tail[1:]  # a letter struck by mistake
            if len(tail) > 1:
                yield head + tail[1] + tail[0] + tail[2:]  # two neighbours swapped
                if change:
                    for c in _NEAR.get(tail[0], ""):
                        yield head + c + tail[1:]  # a neighbouring key struck instead
        for c in _LETTERS:
            yield head + c + tail  # a letter left out
