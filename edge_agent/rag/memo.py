"""Bounded memos: what a search derives once per board, file or set of boards it meets (boosts, a file's name
tokens, a board's chunk ids) is kept in a dict that starts again empty once it holds :data:`MEMO_ENTRIES`
entries. A daemon answering questions about a library of 10,000 part files meets new boards and files for as
long as it runs; without a bound each of these memos would grow until it held every one of them."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: Entries a memo holds before it starts again (each entry is computed again when next asked: a few
#: microseconds to a fraction of a millisecond).
MEMO_ENTRIES = 4096


def keep(memo: dict[K, V], key: K, value: V) -> V:
    """Store `value` under `key` in `memo`, emptied first when it holds :data:`MEMO_ENTRIES` entries; `value`."""
    if len(memo) >= MEMO_ENTRIES:
        memo.clear()
    memo[key] = value
    return value
