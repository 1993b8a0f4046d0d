"""One write transaction on the state database, lent by the memory store to a package with tables there.

The sync outbox lives in the memory database so that a capture and its outbox row commit together. The
uploader works on its tables inside a :class:`UnitOfWork` the store opens on its own connection (under
its lock, with its retries and error mapping) and records the krefs of uploaded captures through it, so
"the row left the outbox" and "the entry knows its kref" are one commit, and no second connection to
the file exists in the process.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from edge_agent.memory.entries import EntryRepository


class UnitOfWork:
    """An open write transaction: ``conn`` for the borrowing package's own tables, methods for memory's."""

    def __init__(self, conn: sqlite3.Connection, entries: EntryRepository) -> None:
        self._conn = conn
        self._entries = entries

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection with the transaction open; for the borrowing package's own tables only."""
        return self._conn

    def record_krefs(self, krefs: Iterable[tuple[str, str]]) -> int:
        """Record the Kumiho kref of each ``(entry_id, kref)`` in this transaction; returns the entries updated.

        An entry deleted meanwhile is skipped; with ``[memory] audit_enabled`` each gets its audit row.
        """
        return self._entries.record_krefs(self._conn, krefs)
