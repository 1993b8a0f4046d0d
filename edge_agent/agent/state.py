"""The agent's own small state: chat history per session, and which memory entries record which message.

One SQLite file, ``<state>/agent/agent.db`` (0600, in a 0700 directory whatever the umask or the state
directory's own mode, since a group may be let through the state directory to reach the socket); it
also counts the state-changing tool calls of the last hour (``[autonomy] max_actions_per_hour``) and
keeps each provider's probed tool-call mode and the tool set of each installed package version
(:mod:`edge_agent.agent.toolset`). History is what a ``--session`` continues from (user
messages and final answers, oldest dropped beyond ``max_history_messages``), screened for credentials
exactly as memory writes are (``[kumiho] secret_policy``, the device's redaction key): redacted, or
under ``reject`` left out of the history. The exchange index
lets a turn leave its own earlier exchanges of the very same message out of the memory context, so
asking the same thing twice builds the same prompt (and the response cache can answer it).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import threading
import time
from pathlib import Path

from edge_agent.credentials import Policy, Screen
from edge_agent.errors import ConfigError, SecretRejectedError
from edge_agent.paths import PRIVATE_FILE_MODE, own_private_dir, private_file

log = logging.getLogger(__name__)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, "
    "role TEXT NOT NULL, content TEXT NOT NULL, at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS history_session ON history(session, seq)",
    "CREATE TABLE IF NOT EXISTS exchanges (message TEXT NOT NULL, entry_id TEXT NOT NULL, at REAL NOT NULL, "
    "PRIMARY KEY (message, entry_id))",
    "CREATE TABLE IF NOT EXISTS actions (at REAL NOT NULL, tool TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS probes (url TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL, "
    "at REAL NOT NULL, PRIMARY KEY (url, model))",
    "CREATE TABLE IF NOT EXISTS tool_sets (fingerprint TEXT NOT NULL, variant TEXT NOT NULL, record TEXT NOT NULL, "
    "at REAL NOT NULL, PRIMARY KEY (fingerprint, variant))",
)
KEEP_TOOL_SETS = 16  # records of package versions and modes; older ones are dropped
_SESSION = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
MAX_EXCHANGES = 10_000


def check_session(session: str) -> str:
    """Session ids are short names: letters, digits and _ . : - (up to 64)."""
    if not _SESSION.match(session):
        raise ConfigError(f"session id {session!r} is invalid: use up to 64 letters, digits, '_', '.', ':' or '-'")
    return session


def message_key(message: str) -> str:
    """The same message, however it is spaced or cased, has the same key."""
    return hashlib.sha256(" ".join(message.lower().split()).encode()).hexdigest()[:32]


class AgentState:
    """History and exchange index in ``<state>/agent/agent.db``. Thread-safe."""

    def __init__(self, state_dir: Path, policy: Policy = "redact") -> None:
        path = own_private_dir(Path(state_dir) / "agent") / "agent.db"
        private_file(path)  # 0600 before SQLite opens it; its -wal and -shm files take the same mode
        for older in (path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")):
            try:
                if older.stat().st_mode & 0o777 != PRIVATE_FILE_MODE and older.stat().st_uid == os.geteuid():
                    older.chmod(PRIVATE_FILE_MODE)  # left wider by an older version
            except OSError:
                pass
        self.path = path
        self.screen = Screen(state_dir, policy)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=5.0)
        self._conn.execute("PRAGMA journal_mode = WAL").fetchone()
        self._conn.execute("PRAGMA synchronous = NORMAL")
        for stmt in _SCHEMA:
            self._conn.execute(stmt)

    def history(self, session: str, limit: int) -> list[dict[str, str]]:
        """The last `limit` messages of a session, oldest first, as chat messages."""
        if limit <= 0:
            return []
        with self._lock:
            rows = self._conn.execute("SELECT role, content FROM history WHERE session = ? ORDER BY seq DESC LIMIT ?",
                                      (check_session(session), limit)).fetchall()
        return [{"role": r, "content": c} for r, c in reversed(rows)]

    def append(self, session: str, user: str, assistant: str, keep: int) -> bool:
        """Add one exchange to a session and drop what is beyond the newest `keep` messages.

        Both messages are screened for credentials first; False when the ``reject`` policy kept the
        exchange out of the history (counted with the other refused writes).
        """
        check_session(session)
        try:
            changed, _ = self.screen.fields({"message": user, "answer": assistant})
        except SecretRejectedError as exc:
            log.warning("chat history: this exchange was not kept: %s", exc)
            return False
        user, assistant = changed.get("message", user), changed.get("answer", assistant)
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany("INSERT INTO history (session, role, content, at) VALUES (?, ?, ?, ?)",
                                       [(check_session(session), "user", user, now),
                                        (session, "assistant", assistant, now)])
                self._conn.execute("DELETE FROM history WHERE session = ? AND seq NOT IN (SELECT seq FROM history "
                                   "WHERE session = ? ORDER BY seq DESC LIMIT ?)", (session, session, max(keep, 0)))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return True

    def drop(self, session: str) -> None:
        """Forget a session's history."""
        with self._lock:
            self._conn.execute("DELETE FROM history WHERE session = ?", (check_session(session),))

    def exchanges_of(self, message: str) -> list[str]:
        """Memory entry ids that record earlier exchanges of this message."""
        with self._lock:
            rows = self._conn.execute("SELECT entry_id FROM exchanges WHERE message = ?",
                                      (message_key(message),)).fetchall()
        return [r[0] for r in rows]

    def note_exchange(self, message: str, entry_id: str) -> None:
        with self._lock:
            self._conn.execute("INSERT OR IGNORE INTO exchanges (message, entry_id, at) VALUES (?, ?, ?)",
                               (message_key(message), entry_id, time.time()))
            self._conn.execute("DELETE FROM exchanges WHERE rowid NOT IN "
                               "(SELECT rowid FROM exchanges ORDER BY at DESC LIMIT ?)", (MAX_EXCHANGES,))

    def actions_since(self, seconds: float) -> int:
        """State-changing tool calls the agent ran in the last `seconds`."""
        with self._lock:
            (n,) = self._conn.execute("SELECT count(*) FROM actions WHERE at >= ?",
                                      (time.time() - seconds,)).fetchone()
        return int(n)

    def note_action(self, tool: str) -> None:
        now = time.time()
        with self._lock:
            self._conn.execute("INSERT INTO actions (at, tool) VALUES (?, ?)", (now, tool))
            self._conn.execute("DELETE FROM actions WHERE at < ?", (now - 86400,))

    def probed_mode(self, url: str, model: str) -> str | None:
        """The tool-call mode a probe found for this server and model, if one ran."""
        with self._lock:
            row = self._conn.execute("SELECT mode FROM probes WHERE url = ? AND model = ?", (url, model)).fetchone()
        return None if row is None else str(row[0])

    def note_probe(self, url: str, model: str, mode: str) -> None:
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO probes (url, model, mode, at) VALUES (?, ?, ?, ?)",
                               (url, model, mode, time.time()))

    def tool_set(self, fingerprint: str, variant: str) -> str | None:
        """The tool-set record kept for this package fingerprint and variant."""
        with self._lock:
            row = self._conn.execute("SELECT record FROM tool_sets WHERE fingerprint = ? AND variant = ?",
                                     (fingerprint, variant)).fetchone()
        return None if row is None else str(row[0])

    def note_tool_set(self, fingerprint: str, variant: str, record: str) -> None:
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO tool_sets (fingerprint, variant, record, at) "
                               "VALUES (?, ?, ?, ?)", (fingerprint, variant, record, time.time()))
            self._conn.execute("DELETE FROM tool_sets WHERE rowid NOT IN "
                               "(SELECT rowid FROM tool_sets ORDER BY at DESC LIMIT ?)", (KEEP_TOOL_SETS,))

    def close(self) -> None:
        with self._lock:
            self._conn.close()
