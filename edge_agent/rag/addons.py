"""Add-on boards for another kind of host: a Pi HAT's GPIO table when a Nucleo is configured.

An add-on names the host pins it uses (a HAT's `GPIO17`), so the families of its pins (:func:`.boards.pin_families`)
tell which hosts it fits. With a board configured and none named in the question, an add-on's or part's chunk whose
pins are named as none of the configured board's files name theirs ranks after the configured board's sections
(rule 1 of :mod:`.query`), unless it holds a word of the question none of those sections holds: a relay question
still gets the only relay board there is.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Container, Sequence

from edge_agent.rag import aliasrows
from edge_agent.rag.boards import pin_families
from edge_agent.rag.memo import keep
from edge_agent.rag.query import Candidate

__all__ = ["Families"]

_FILE_ALIASES = "SELECT aliases FROM files WHERE rel = ?"


class Families:
    """The pin families of the index's files and of the configured boards, read when first asked and kept until the
    index changes (make a new one then)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._files: dict[str, frozenset[str]] = {}
        self._boards: dict[tuple[str, ...], frozenset[str]] = {}

    def mark_foreign(self, found: Sequence[Candidate], boosts: dict[str, float],
                     board_tags: Container[str], words: list[str], holds: Callable[[str, int], bool]) -> None:
        """Set :attr:`.query.Candidate.foreign` on the add-ons' and parts' candidates of another kind of host (see the
        module); `boosts` are the configured boards and the files they answer to, `board_tags` the boards' tags,
        `words` the question's words and `holds` whether a chunk holds one."""
        mine = [c.cid for c in found if c.board in boosts]
        if not mine:
            return
        own = self._of_boards(tuple(sorted(boosts)))
        if not own:
            return
        lacking = [w for w in words if not any(holds(w, cid) for cid in mine)]
        for c in found:
            if (c.board is not None and c.board not in boosts and c.board not in board_tags
                    and not any(holds(w, c.cid) for w in lacking)):
                theirs = self._of_file(c.source)
                c.foreign = bool(theirs) and theirs.isdisjoint(own)

    def _of_boards(self, tags: tuple[str, ...]) -> frozenset[str]:
        got = self._boards.get(tags)
        if got is None:
            rels = [rel for (rel,) in self._conn.execute(
                f"SELECT rel FROM files WHERE board IN ({', '.join('?' * len(tags))})", tags)]
            got = keep(self._boards, tags, frozenset().union(*(self._of_file(rel) for rel in rels)))
        return got

    def _of_file(self, rel: str) -> frozenset[str]:
        got = self._files.get(rel)
        if got is None:
            row = self._conn.execute(_FILE_ALIASES, (rel,)).fetchone()
            got = keep(self._files, rel, pin_families(aliasrows.values(row[0]) if row else ()))
        return got
