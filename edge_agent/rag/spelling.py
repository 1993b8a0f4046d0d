"""Misspelt question words, read as the word the library writes ("adress" is "address", "recieve" "receive").

A word of the question that no datasheet holds (nor a word it inflects), five letters or longer and all letters,
is replaced by the word one slip away (:func:`_edits`) that the most chunks hold. Only such a word is looked at: a
known word is never changed, however rare, and a word with digits (a part or pin name) is never guessed at. The
edits of one word are a few hundred lookups in the term counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterator, Mapping

from edge_agent.rag.text import is_stop_word, norm

__all__ = ["NEIGHBOURS", "corrected", "read_as"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: The shortest typed word read as a board's or part's name.
_NAME_FROM = 7
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


#: Each letter's neighbouring keys on a QWERTY keyboard (:func:`_neighbours`).
NEIGHBOURS: dict[str, str] = _neighbours()
_WORD = re.compile(r"(?<![\w.-])[A-Za-z]{5,}(?![\w.-])")  # five letters or more: shorter words have
# too many neighbours one edit away to pick one


def read_as(query: str, df: Mapping[str, int], names: Container[str]) -> str:
    """`query` as an index reads it (:func:`corrected`): `df` counts the chunks holding each normalised term, `names`
    are the words naming a board or part informally, known even when no chunk writes them."""

    def held(word: str) -> int:  # chunks holding a word, as written or as the index normalises it
        if df[word]:
            return df[word]
        base = norm(word)  # (a stem of three letters is too short to stand for a word: "plling", "pll")
        return df[base] if len(base) > 3 else 0

    def known(word: str) -> bool:
        return word in names or is_stop_word(word) or held(word) > 0

    def count(word: str) -> int:  # a word the index holds as written comes before one held through its stem
        if is_stop_word(word):
            return 0
        return 2 * df[word] + 1 if df[word] else 2 * held(word) or int(word in names)

    return corrected(query, known, count, _Named(names))


class _Named:
    """The words that name a board or part, as written or through the stem the index reads them by ("picos")."""

    def __init__(self, names: Container[str]) -> None:
        self._names = names

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and (word in self._names or norm(word) in self._names)


def corrected(query: str, known: Callable[[str], bool], count: Callable[[str], int],
              names: Container[str] = ()) -> str:
    """`query` with each misspelt word replaced (see the module): `known` tells whether a word is the library's
    (or one it need not hold), `count` how many chunks hold a word it may be read as. A word in `names` (a board's
    or part's informal name, as written or as `known` reads it) scopes a search: a word is read as one only when two
    of its neighbouring letters are swapped ("nulceo" is "nucleo"), or when it has seven letters or more and is not
    the name short of its last letter ("blinky" is no "blinkt", "raspbery" is "raspberry")."""
    out: list[str] = []
    at = 0
    for m in _WORD.finditer(query):
        word = m.group(0).lower()
        if known(word) or any(known(base) for base in _bases(word)):
            continue

        def weight(w: str, word: str = word) -> int:
            if w in names and not _swapped(w, word) and (len(word) < _NAME_FROM or w[:-1] == word):
                return 0
            return count(w)

        best = max(((weight(w), w) for w in _edits(word)), default=None)
        if best is None or best[0] <= 0:
            continue
        out += [query[at:m.start()], best[1]]
        at = m.end()
    return "".join(out) + query[at:] if out else query


def _swapped(a: str, b: str) -> bool:
    """Whether `a` is `b` with two neighbouring letters swapped ("nucleo" and "nulceo")."""
    if len(a) != len(b):
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def _bases(word: str) -> Iterator[str]:
    """The words `word` may inflect ("writing" of "write", "updated" of "update", "boards" of "board"): a word
    whose base the library holds is known, however the light stemming of the index wrote it."""
    for ending, base in (("s", ""), ("es", ""), ("d", ""), ("ed", ""), ("ing", ""), ("ing", "e")):
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            yield word[: -len(ending)] + base


def _edits(word: str) -> Iterator[str]:
    """The words one typing slip away from `word`, after its first letter (rarely the slip): a letter left out,
    two neighbours swapped, a letter struck twice or beside its key's neighbour, a neighbouring key struck
    instead. Slips land on neighbouring keys: another letter is as likely another word ("stuck" and "stack")."""
    for i in range(1, len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            if tail[0] == head[-1] or tail[0] in NEIGHBOURS.get(head[-1], "") or (
                    len(tail) > 1 and tail[0] in NEIGHBOURS.get(tail[1], "")):
                yield head + tail[1:]  # a letter struck by mistake
            if len(tail) > 1:
                yield head + tail[1] + tail[0] + tail[2:]  # two neighbours swapped
            for c in NEIGHBOURS.get(tail[0], ""):
                yield head + c + tail[1:]  # a neighbouring key struck instead
        for c in _LETTERS:
            yield head + c + tail  # a letter left out
