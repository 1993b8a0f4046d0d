"""Sibling parts a datasheet's title names: "TI ADS1115 / ADS1015" makes a question about the ADS1015 a question
about that file (one register map, one file, two part numbers).

Read lazily, one part word at a time, from the first chunk of each file holding the word (a file's first chunk
carries its title), and kept until the index changes.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from edge_agent.rag.boards import titles_sibling

if TYPE_CHECKING:
    from edge_agent.rag.postings import Postings

__all__ = ["TITLE_WORD_CHUNKS", "TitleSiblings"]

#: A part word held by more files' first chunks than this is not looked up as a sibling part in their titles.
TITLE_WORD_CHUNKS = 256


class TitleSiblings:
    """Part word -> the one tag whose file's title gives it beside the tag's own part number, for one index state
    (make a new one when the index changes)."""

    def __init__(self, postings: Postings, conn: sqlite3.Connection) -> None:
        self._postings = postings
        self._conn = conn
        self._tags: dict[str, str | None] = {}

    def tag(self, word: str) -> str | None:
        """The one tag whose title names `word` as a sibling part, None when no title or several do."""
        if word not in self._tags:
            meta = self._postings.meta
            ids = [cid for cid in self._postings.chunks_holding(word) if meta[cid][1] == 0 and meta.board_of(cid)]
            if len(ids) > TITLE_WORD_CHUNKS:  # a word that common is no sibling part's name; its titles are not read
                ids = []
            rows = self._conn.execute(f"SELECT board, heading FROM chunks WHERE id IN ({', '.join('?' * len(ids))})",
                                      ids).fetchall() if ids else []
            tags = {board for board, heading in rows if titles_sibling(heading.split(" > ")[0], board, word)}
            self._tags[word] = tags.pop() if len(tags) == 1 else None
        return self._tags[word]
