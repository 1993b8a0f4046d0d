"""HardwareRag: the datasheet index behind hardware questions.

``HardwareRag.load(datasheet_dir, index_dir=state/"rag")`` walks the directory (``.md``/``.txt`` in any
letter case, ``.pdf`` with the ``pdf`` extra), chunks each file on its Markdown headings and ranks
chunks with BM25 over normalised tokens (see :mod:`edge_agent.rag.text` and
:mod:`edge_agent.rag.postings`); heading words weigh three times body words and chunks covering more
of the query's distinct terms rank higher. The index (chunks, files and per-term postings in SQLite)
is persisted in ``index_dir`` and reused on the next start: only files whose size/mtime changed are
re-read, and only those whose content hash changed are re-chunked; :meth:`HardwareRag.refresh` does
the same for a loaded index in place. Without ``index_dir`` it lives in an in-memory database.

Board tag = file stem, lowercased; ``generic``/``generic_*``/``generic-*`` stems and files under
``_generic/`` have no board and answer every query. Naming boards in a query multiplies the score of
their chunks (and of files tagged with a ``datasheet_tags`` entry of the board) by
:data:`BOARD_BOOST`: a board's chunk wins a close race but never hides a clearly better answer from
another file. Ties break on source path, then chunk position.
"""

from __future__ import annotations

import hashlib
import json
import logging
import marshal
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edge_agent.errors import DatasheetError, UnknownBoardError
from edge_agent.paths import private_dir, private_file
from edge_agent.pins import PinIndex, get_board, list_boards
from edge_agent.pins.datasheet import AliasEntry, parse_aliases
from edge_agent.rag import query as _query
from edge_agent.rag import text as _text
from edge_agent.rag.chunker import MAX_CHARS, chunk_markdown, chunk_pages
from edge_agent.rag.files import MAX_FILE_BYTES, DocFile, Problem, read_pdf, read_text, scan
from edge_agent.rag.postings import Postings, SnapshotBuilder, TermStore, stored_ids

__all__ = ["BOARD_BOOST", "Chunk", "FileInfo", "HardwareRag", "Problem", "pin_index_for"]

log = logging.getLogger(__name__)

BOARD_BOOST = 1.5
#: Boost of a board or part the question itself names (stronger evidence than a configured board).
DETECTED_BOOST = 2.0
HEADING_WEIGHT = 3.0
DEFAULT_LIMIT = 5
COMPACT_LIMIT = 2
COMPACT_CHARS = 600
_SCHEMA = 4
_BUSY_TIMEOUT_S = 30.0  # a daemon and `edge-agent rag index` may refresh the same index at once


@dataclass(frozen=True)
class Chunk:
    """One ranked piece of a datasheet."""

    source: str  # path relative to the datasheet directory
    board: str | None
    heading: str
    text: str
    score: float
    page: int | None = None  # PDF page the text comes from


@dataclass(frozen=True)
class FileInfo:
    """An indexed (or skipped) datasheet file."""

    source: str
    board: str | None
    kind: str
    size: int
    chunks: int
    aliases: int


_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    rel TEXT PRIMARY KEY, board TEXT, kind TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL, problems TEXT NOT NULL, aliases TEXT NOT NULL, nchunks INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, rel TEXT NOT NULL, idx INTEGER NOT NULL, board TEXT,
    heading TEXT NOT NULL, text TEXT NOT NULL, dl REAL NOT NULL, tf BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_rel ON chunks (rel);
CREATE TABLE IF NOT EXISTS postings (term TEXT PRIMARY KEY, cids BLOB NOT NULL, tfs BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS postings_run (term TEXT NOT NULL, run INTEGER NOT NULL, cids BLOB NOT NULL,
                                         tfs BLOB NOT NULL);
"""


def _meta_signature(max_file_bytes: int) -> str:
    return json.dumps({"schema": _SCHEMA, "tokenizer": _text.TOKENIZER_VERSION, "chunk": MAX_CHARS,
                       "cap": max_file_bytes})


class HardwareRag:
    """Datasheet index: search, agent context, pin aliases."""

    def __init__(self, root: Path | None, conn: sqlite3.Connection, *, compact: bool, db_path: Path | None) -> None:
        self.root = root
        self.compact = compact
        self.db_path = db_path
        self._conn = conn
        self._lock = threading.RLock()
        self._problems: list[Problem] = []
        self._alias_entries: list[AliasEntry] | None = None
        self._pin_index: PinIndex | None = None
        self._df: Counter[str] = Counter()  # chunks containing each term, kept in step with the index
        self._postings = Postings(TermStore(None), set(), {}, {}, Counter())
        self._boost_cache: dict[tuple[str, ...], dict[str, float]] = {}
        self._nicknames: dict[str, set[str]] | None = None
        self._tag_term_cache: frozenset[str] | None = None
        self._pin_owner_cache: dict[str, frozenset[str]] | None = None
        self._file_term_cache: dict[str, frozenset[str]] = {}
        self._fresh: dict[int, dict[str, float]] = {}  # postings of chunks indexed in this pass
        self._next_id = 1
        self._builder: SnapshotBuilder | None = None
        self._meta: dict[int, tuple[str, int, str | None, float]] | None = None  # live chunks, kept in step
        self._base_ids: set[int] | None = None  # chunks the stored postings cover
        self._seen_gen: Any = None  # the index generation this process last saw or wrote
        self._max_file_bytes = MAX_FILE_BYTES
        self.stats: dict[str, int] = {}

    # --- loading --------------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        path: str | Path | None,
        *,
        index_dir: Path | None = None,
        compact: bool = False,
        max_file_bytes: int = MAX_FILE_BYTES,
        progress: Callable[[int, int], None] | None = None,
    ) -> HardwareRag:
        """Index the datasheets under `path` (reusing a persisted index in `index_dir` when present).

        A missing or empty directory gives an empty index, never an error.
        """
        root = Path(path) if path else None
        db_path: Path | None = None
        if index_dir is not None:
            private_dir(index_dir)
            key = str(root.resolve()) if root else "-"
            db_path = Path(index_dir) / f"rag-{hashlib.sha256(key.encode()).hexdigest()[:12]}.sqlite"
        conn = cls._open(db_path, max_file_bytes)
        rag = cls(root, conn, compact=compact, db_path=db_path)
        rag._max_file_bytes = max_file_bytes
        try:
            rag._sync(max_file_bytes, progress)
        except sqlite3.OperationalError as exc:  # e.g. another process holds the index longer than the timeout
            conn.close()
            raise DatasheetError(f"datasheet index {db_path} is busy or not writable ({exc}); "
                                 "retry, or point --state at a writable directory") from exc
        return rag

    @staticmethod
    def _open(db_path: Path | None, max_file_bytes: int) -> sqlite3.Connection:
        target = str(db_path) if db_path else ":memory:"
        try:
            if db_path is not None:
                private_file(db_path)
            conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=_BUSY_TIMEOUT_S)
            conn.executescript(_DDL)
            row = conn.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()
        except sqlite3.DatabaseError as exc:
            if db_path is None:
                raise DatasheetError(f"SQLite cannot build the datasheet index: {exc}") from exc
            log.warning("datasheet index %s is unreadable (%s); rebuilding it", db_path, exc)
            db_path.unlink(missing_ok=True)
            private_file(db_path)
            conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=_BUSY_TIMEOUT_S)
            conn.executescript(_DDL)
            row = None
        signature = _meta_signature(max_file_bytes)
        if row is None or row[0] != signature:
            with conn:
                conn.execute("BEGIN")
                for table in ("files", "chunks", "meta", "postings", "postings_run"):
                    conn.execute(f"DELETE FROM {table}")
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('signature', ?)", (signature,))
        if db_path:
            conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def _sync(self, max_file_bytes: int, progress: Callable[[int, int], None] | None) -> None:
        files, problems = scan(self.root) if self.root else ([], [])
        current = {f.rel for f in files}
        stats = {"files": len(files), "reused": 0, "indexed": 0, "removed": 0}
        with self._lock:
            self._conn.execute("BEGIN")  # reads and writes below see one consistent index
            known = {r[0]: r[1:] for r in
                     self._conn.execute("SELECT rel, size, mtime_ns, sha256, problems FROM files")}
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'df'").fetchone()
            self._df = Counter(marshal.loads(row[0])) if row else Counter()
            nid = self._conn.execute("SELECT value FROM meta WHERE key = 'next_id'").fetchone()
            self._next_id = int(nid[0]) if nid else 1
            gen = self._conn.execute("SELECT value FROM meta WHERE key = 'index_gen'").fetchone()
            if gen is None or gen[0] != self._seen_gen:  # another process changed the index: forget our copies
                self._meta = self._base_ids = None
            has_snapshot = self._conn.execute("SELECT 1 FROM meta WHERE key = 'snapshot_ids'").fetchone()
            # A cold build streams postings straight into the postings table instead of keeping per-chunk dicts.
            self._builder = None if has_snapshot else SnapshotBuilder(self._conn)
            try:
                for rel in sorted(set(known) - current):
                    self._delete(rel)
                    stats["removed"] += 1
                for n, f in enumerate(files, 1):
                    old = known.get(f.rel)
                    if old is not None and old[0] == f.size and old[1] == f.mtime_ns:
                        # still wrong: report again, the file was not re-read
                        for p in json.loads(old[3]) if old[3] != "[]" else ():
                            log.warning("datasheet %s: %s", p["source"], p["message"])
                            problems.append(Problem(**p))
                        stats["reused"] += 1
                    else:
                        reused = self._index_file(f, old, max_file_bytes, problems)
                        stats["reused" if reused else "indexed"] += 1
                    if progress and (n % 25 == 0 or n == len(files)):
                        progress(n, len(files))
                if self._builder is not None:  # one posting per chunk and term: the df of each term
                    self._builder.write(self._conn)
                    self._df.update(self._builder.df)
                    self._base_ids = set(self._builder.ids)
                    self._builder = None
                changed = bool(stats["indexed"] or stats["removed"] or row is None)
                if changed:
                    self._df = +self._df  # drop zero counts
                    self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('df', ?)",
                                       (marshal.dumps(dict(self._df)),))
                    self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('next_id', ?)", (self._next_id,))
                    self._seen_gen = (int(gen[0]) if gen else 0) + 1
                    self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('index_gen', ?)", (self._seen_gen,))
                else:
                    self._seen_gen = gen[0] if gen else None
                if changed or self._meta is None or not self._postings.n:
                    self._postings = self._load_postings()
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        if stats["indexed"] or stats["removed"]:
            log.info("datasheet index: %(indexed)d file(s) indexed, %(reused)d reused, %(removed)d removed", stats)
        self.stats = stats
        self._problems = problems + self._duplicate_boards(files)
        self._boost_cache = {}
        self._nicknames = None
        self._tag_term_cache = None
        self._pin_owner_cache = None
        self._alias_entries = None
        self._pin_index = None

    def refresh(self, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Bring this loaded index up to date with its directory, in place: only files whose size or mtime
        changed are read again, and the postings of unchanged files stay in memory (no snapshot re-read).
        Returns the counts of the pass (files, reused, indexed, removed).

        Raises:
            DatasheetError: the index database is busy beyond the timeout or not writable.
        """
        try:
            self._sync(self._max_file_bytes, progress)
        except sqlite3.OperationalError as exc:
            raise DatasheetError(f"datasheet index {self.db_path} is busy or not writable ({exc}); retry") from exc
        return dict(self.stats)

    def _live_meta(self) -> dict[int, tuple[str, int, str | None, float]]:
        """(source, position, board, weighted length) of every live chunk: read once, then kept in step."""
        if self._meta is None:
            self._meta = {r[0]: (r[1], r[2], r[3], r[4]) for r in
                          self._conn.execute("SELECT id, rel, idx, board, dl FROM chunks")}
        return self._meta

    def _load_postings(self) -> Postings:
        """Stored postings + delta + tombstones; rewrites the stored postings when the delta grows past a fifth."""
        live = self._live_meta()
        if self._base_ids is None:
            self._base_ids = stored_ids(self._conn)
        base_ids = self._base_ids
        stale = (len(live.keys() - base_ids) + len(base_ids - live.keys())) if base_ids is not None else 0
        if base_ids is None or stale > max(50, len(live) // 5):
            builder = SnapshotBuilder(self._conn)
            for cid, tf in self._conn.execute("SELECT id, tf FROM chunks ORDER BY id"):
                builder.add(cid, marshal.loads(tf))
            builder.write(self._conn)
            base_ids = self._base_ids = set(builder.ids)
            del builder
        fresh = self._fresh
        delta: dict[int, dict[str, float]] = {}
        for cid in sorted(live.keys() - base_ids):
            if cid in fresh:
                delta[cid] = fresh[cid]
            else:
                r = self._conn.execute("SELECT tf FROM chunks WHERE id = ?", (cid,)).fetchone()
                delta[cid] = marshal.loads(r[0])
        self._fresh = {}
        return Postings(TermStore(self._conn), base_ids, delta, live, self._df)

    @staticmethod
    def _duplicate_boards(files: list[DocFile]) -> list[Problem]:
        by_board: dict[str, list[str]] = {}
        for f in files:
            if f.board:
                by_board.setdefault(f.board, []).append(f.rel)
        out = []
        for board, rels in sorted(by_board.items()):
            if len(rels) > 1:
                msg = (f"board {board!r} is described by {len(rels)} files ({', '.join(rels)}); all are indexed and "
                       "their pin aliases merged, the first path winning conflicts")
                log.warning("datasheet %s", msg)
                out.append(Problem(rels[1], "duplicate_board", msg))
        return out

    def _delete(self, rel: str) -> None:
        for cid, tf in self._conn.execute("SELECT id, tf FROM chunks WHERE rel = ?", (rel,)).fetchall():
            self._df.subtract(marshal.loads(tf).keys())
            if self._meta is not None:
                self._meta.pop(cid, None)
        self._conn.execute("DELETE FROM chunks WHERE rel = ?", (rel,))
        self._conn.execute("DELETE FROM files WHERE rel = ?", (rel,))

    def _index_file(self, f: DocFile, old: tuple[Any, ...] | None, max_file_bytes: int,
                    problems: list[Problem]) -> bool:
        """(Re)index one file; returns True when its content hash was unchanged (only stat data updated)."""
        file_problems: list[Problem] = []
        if f.kind == "pdf":
            pages, file_problems = read_pdf(f)
            text = "\n\n".join(t for _, t in pages) if pages else None
        else:
            pages = None
            text, file_problems = read_text(f, max_file_bytes)
        sha = hashlib.sha256((text or "").encode("utf-8", "surrogatepass")).hexdigest()
        problems.extend(file_problems)
        pjson = json.dumps([p.__dict__ for p in file_problems])
        if old is not None and old[2] == sha:
            self._conn.execute("UPDATE files SET size = ?, mtime_ns = ?, problems = ? WHERE rel = ?",
                               (f.size, f.mtime_ns, pjson, f.rel))
            return True
        if old is not None:
            self._delete(f.rel)
        sections = [] if text is None else (chunk_pages(pages) if pages else chunk_markdown(text))
        entries, parsed = parse_aliases(text, f.rel, f.board) if text else ([], [])
        alias_problems = [Problem(p.source, p.kind, p.message) for p in parsed]
        problems.extend(alias_problems)
        all_problems = json.dumps([p.__dict__ for p in (*file_problems, *alias_problems)])
        stem_words = _text.tokens(f.rel.rsplit(".", 1)[0].replace("/", " "))
        rows = []
        fresh = self._fresh
        for i, s in enumerate(sections):
            heading_tokens = stem_words + _text.tokens(s.heading)
            body_tokens = _text.tokens(s.text)
            tf: dict[str, float] = dict(Counter(body_tokens))
            for t in heading_tokens:
                tf[t] = tf.get(t, 0) + HEADING_WEIGHT
            if self._builder is None:  # a cold build counts document frequencies from the builder at the end
                self._df.update(tf.keys())
            dl = len(body_tokens) + HEADING_WEIGHT * len(heading_tokens)
            tfd = tf
            cid = self._next_id  # ids are never reused: the snapshot may still hold a removed chunk's id
            self._next_id += 1
            if self._builder is not None:
                self._builder.add(cid, tfd)
            else:
                fresh[cid] = tfd
            if self._meta is not None:
                self._meta[cid] = (f.rel, i, f.board, dl)
            rows.append((cid, f.rel, i, f.board, s.heading, s.text, dl, marshal.dumps(tfd)))
        self._conn.executemany("INSERT INTO chunks (id, rel, idx, board, heading, text, dl, tf) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self._conn.execute(
            "INSERT OR REPLACE INTO files (rel, board, kind, size, mtime_ns, sha256, problems, aliases, nchunks) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (f.rel, f.board, f.kind, f.size, f.mtime_ns, sha, all_problems,
             json.dumps([e.__dict__ for e in entries]), len(sections)))
        return False

    def close(self) -> None:
        """Close the index database."""
        with self._lock:
            self._conn.close()

    # --- health ---------------------------------------------------------------------------------

    @property
    def problems(self) -> list[Problem]:
        """Warnings from the last load (bad files, malformed alias lines, duplicate boards)."""
        return list(self._problems)

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def files(self) -> list[FileInfo]:
        """Every file in the index, sorted by path (skipped files appear with zero chunks)."""
        with self._lock:
            rows = self._conn.execute("SELECT rel, board, kind, size, nchunks, aliases FROM files ORDER BY rel")
            return [FileInfo(r[0], r[1], r[2], r[3], r[4], len(json.loads(r[5]))) for r in rows]

    def boards(self) -> list[str]:
        """Board tags present in the index, sorted."""
        return sorted(self._postings.boards())

    # --- retrieval -------------------------------------------------------------------------------

    def _board_boosts(self, boards: Sequence[str], base: float = BOARD_BOOST) -> dict[str, float]:
        """Boost per board tag: the named boards, then the datasheet tags they answer to (shared files).

        Raises UnknownBoardError for a name that is neither a board file nor a datasheet tag.
        """
        present = self._postings.boards()
        boosts: dict[str, float] = {}
        for b in boards:
            key = b.strip().lower()
            try:
                board = get_board(key)
            except UnknownBoardError:
                owners = [o for o in list_boards() if key in get_board(o).datasheet_tags]
                if key not in present and not owners:
                    raise UnknownBoardError(b, sorted(set(list_boards()) | present | _shared_tags())) from None
                boosts[key] = base  # a datasheet-only board, or a tag several boards share (each 40-pin Pi)
                for o in owners:
                    boosts.setdefault(o, base)
                continue
            boosts[board.id] = base
            for tag in board.datasheet_tags:
                boosts.setdefault(tag, base)  # shared files (rpi-gpio) count as the board's own
        return boosts

    def search(self, query: str, boards: Sequence[str] = (), limit: int | None = None) -> list[Chunk]:
        """Best chunks for `query`, best first; chunks of `boards` get the board boost.

        Raises:
            UnknownBoardError: a board is neither a board file nor a datasheet tag.
        """
        if limit is None:
            limit = DEFAULT_LIMIT
        if self.compact:
            limit = min(limit, COMPACT_LIMIT)
        terms = _text.query_terms(query)
        if limit <= 0 or not terms:
            return []
        named = tuple(boards)
        detected = tuple(b for b in self.detect_boards(query) if b not in named)
        # With no board named, a chip-specific pin name (PA5, GP17, P0.13) points at the boards that have it.
        pinned = () if named or detected else tuple(self.pin_boards(query))
        key = (*named, "|", *detected, "|", *pinned)
        boosts = self._boost_cache.get(key)
        if boosts is None:  # board files do not change while the process runs; the index is checked on sync
            # boards the question itself names weigh more than the configured ones
            boosts = {**self._board_boosts(named), **self._board_boosts(detected, DETECTED_BOOST),
                      **self._board_boosts(pinned, DETECTED_BOOST)}
            self._boost_cache[key] = boosts
        with self._lock:
            postings = self._postings
            wanted = max(limit * _query.CANDIDATES_PER_RESULT, _query.MIN_CANDIDATES)
            candidates = postings.top(terms, boosts, wanted)
            ids = [cid for _, _, _, cid in candidates]
            headings = self._conn.execute(
                f"SELECT id, heading FROM chunks WHERE id IN ({', '.join('?' * len(ids))})", ids).fetchall()
            top = _query.rerank(candidates, {cid: postings.meta[cid][2] for _, _, _, cid in candidates}, limit,
                                scoped=boosts, other_boards=_board_file_tags(),
                                exact=_query.exact_terms(terms, self._tag_terms()),
                                has_term=postings.has, file_terms=self._file_terms,
                                alias_lists={cid for cid, h in headings if _query.is_alias_list(h)})
            ids = [cid for _, _, _, cid in top]
            rows = {r[0]: r[1:] for r in self._conn.execute(
                f"SELECT id, rel, board, heading, text FROM chunks WHERE id IN ({', '.join('?' * len(ids))})", ids)}
            out = []
            for score, _rel, _idx, cid in top:
                rel, board, heading, body = rows[cid]
                page = int(heading[5:]) if rel.lower().endswith(".pdf") and heading[5:].isdigit() else None
                out.append(Chunk(rel, board, heading, self._shorten(body) if self.compact else body, score, page))
        return out

    def detect_boards(self, query: str) -> list[str]:
        """Boards and parts a question names informally ("the f401", "pi 4", "bme280"), as datasheet tags."""
        if self._nicknames is None:
            self._nicknames = _query.nicknames(self._postings.boards())
        return _query.detect(query, self._nicknames)

    def pin_boards(self, query: str) -> list[str]:
        """Boards and parts that have a chip-specific pin the question names, as datasheet tags."""
        if self._pin_owner_cache is None:
            self._pin_owner_cache = _query.pin_owners(self.pin_index())
        present = self._postings.boards()
        return [t for t in _query.pin_boards(query, self._pin_owner_cache) if t in present or t in _board_file_tags()]

    def _tag_terms(self) -> frozenset[str]:
        """Tokens of every datasheet tag: a board or part name in a question, not a pin or register."""
        if self._tag_term_cache is None:
            self._tag_term_cache = frozenset(t for tag in self._postings.boards() for t in _text.tokens(tag))
        return self._tag_term_cache

    def _file_terms(self, rel: str) -> frozenset[str]:
        got = self._file_term_cache.get(rel)
        if got is None:
            got = self._file_term_cache[rel] = frozenset(_text.tokens(rel.rsplit(".", 1)[0].replace("/", " ")))
        return got

    @staticmethod
    def _shorten(body: str) -> str:
        if len(body) <= COMPACT_CHARS:
            return body
        cut = body.rfind("\n", 0, COMPACT_CHARS)
        if cut < COMPACT_CHARS // 3:
            cut = body.rfind(" ", 0, COMPACT_CHARS)
        return body[: max(cut, 1)].rstrip() + "\n…"

    def context(self, query: str, boards: Sequence[str] = (), pins: PinIndex | None = None) -> str:
        """The agent context block: `[Pin aliases for query]` then `[Hardware documentation]`.

        `pins` is the pin index to name pins with (default: the one built from this index's datasheets).
        """
        pin_lines = self.pin_context(query, boards, pins)
        chunks = self.search(query, boards)
        docs = ""
        if chunks:
            docs = "[Hardware documentation]\n" + "".join(
                f"--- {c.source}{f' page {c.page}' if c.page else ''} ({c.board or 'generic'}) ---\n"
                + (f"# {c.heading}\n" if c.heading else "") + f"{c.text}\n\n" for c in chunks)
        block = (f"[Pin aliases for query]\n{pin_lines}\n\n" if pin_lines else "") + docs
        return block + "\n" if block else ""

    def pin_context(self, query: str, boards: Sequence[str], pins: PinIndex | None = None) -> str:
        """Lines `board: alias = pin NAME (...)` for aliases and labels whose every word appears in the query."""
        from edge_agent.pins import name_key

        index = pins or self.pin_index()
        words = {w.lower() for w in _text.tokens(query)} | {name_key(w) for w in query.split()}
        words |= {w.lower().strip("?,.;:!'\"()") for w in query.split()}
        lines: list[str] = []
        for b in boards:
            try:
                amap = index.aliases_for(b)
                board = index.board(b)
            except UnknownBoardError:
                continue
            labels = {} if board is None else {**{k: board.pin(v) for k, v in board.leds.items()},
                                               **{k: board.pin(v) for k, v in board.buttons.items()}}
            seen: set[tuple[str, str]] = set()
            for alias, pin in [*labels.items(), *amap.items()]:
                parts = [p for p in alias.lower().replace("-", "_").split("_") if p]
                if not parts:
                    continue
                whole = alias.lower() in words or name_key(alias) in words
                if not whole and not (len(parts) > 1 and all(_match_word(p, words) for p in parts)):
                    continue
                if (alias.lower(), pin.name) in seen:
                    continue
                seen.add((alias.lower(), pin.name))
                detail = ", ".join([*pin.headers, *pin.functions])
                raw = f"; datasheet value {pin.raw}" if pin.raw and pin.raw != pin.name else ""
                lines.append(f"{b}: {alias} = pin {pin.name}" + (f" ({detail}{raw})" if detail or raw else ""))
        return "\n".join(lines)

    def alias_entries(self) -> list[AliasEntry]:
        """Every pin-alias line parsed from the datasheets, in path order."""
        if self._alias_entries is None:
            with self._lock:
                rows = self._conn.execute("SELECT aliases FROM files ORDER BY rel").fetchall()
            self._alias_entries = [AliasEntry(**e) for r in rows for e in json.loads(r[0])]
        return list(self._alias_entries)

    def pin_index(self) -> PinIndex:
        """The pin index of the board files and these datasheets' names (built once per load)."""
        with self._lock:
            if self._pin_index is None:
                self._pin_index = PinIndex(self.alias_entries())
            return self._pin_index

    def aliases(self, board: str) -> dict[str, str]:
        """A board's merged datasheet names: name -> value as written (conflicts resolved, see edge_agent.pins)."""
        return {alias: pin.raw or pin.name for alias, pin in self.pin_index().aliases_for(board).items()}

    def _find_source(self, source: str) -> str:
        """The indexed path `source` names: exact, else the one path (or file name) equal ignoring case."""
        with self._lock:
            rels = [r[0] for r in self._conn.execute("SELECT rel FROM files ORDER BY rel")]
        if source in rels:
            return source
        want = source.strip().lstrip("./").lower()
        hits = [r for r in rels if r.lower() == want] or [r for r in rels if r.rsplit("/", 1)[-1].lower() == want]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise DatasheetError(f"{source!r} matches several datasheets ({', '.join(hits)}); pass the full path")
        return source

    def read(self, source: str, heading: str | None = None) -> str:
        """The text of one indexed file, or of its section(s) whose heading path ends with `heading`.

        `source` is matched exactly, else ignoring letter case (and by file name alone when one file fits).
        """
        source = self._find_source(source)
        with self._lock:
            rows = self._conn.execute("SELECT heading, text FROM chunks WHERE rel = ? ORDER BY idx",
                                      (source,)).fetchall()
            exists = self._conn.execute("SELECT 1 FROM files WHERE rel = ?", (source,)).fetchone()
        if not exists:
            names = [f.source for f in self.files()]
            raise DatasheetError(f"no datasheet {source!r} in the index; known: {', '.join(names) or '(none)'}")
        if heading is None:
            return _join_sections(rows)
        want = heading.strip().lower()
        picked = [r for r in rows if r[0].lower().endswith(want) or r[0].lower().split(" > ")[-1] == want]
        if not picked:
            headings = sorted({r[0].split(" > ")[-1] for r in rows if r[0]})
            raise DatasheetError(f"{source} has no section {heading!r}; sections: {', '.join(headings)}")
        return _join_sections(picked)


_BOARD_FILE_TAGS: frozenset[str] | None = None


def _board_file_tags() -> frozenset[str]:
    """Tags of the boards with a board file (their ids and the datasheet tags they answer to)."""
    global _BOARD_FILE_TAGS
    if _BOARD_FILE_TAGS is None:
        _BOARD_FILE_TAGS = frozenset(t for b in list_boards() for t in (b, *get_board(b).datasheet_tags))
    return _BOARD_FILE_TAGS


def _shared_tags() -> set[str]:
    """Datasheet tags several board files answer to (rpi-gpio: the header of every 40-pin Pi)."""
    tags = [t for b in list_boards() for t in get_board(b).datasheet_tags]
    return {t for t in tags if tags.count(t) > 1}


def _match_word(part: str, words: set[str]) -> bool:
    return part in words or _text._norm(part) in words


def _join_sections(rows: list[tuple[str, str]]) -> str:
    out: list[str] = []
    last = None
    for heading, body in rows:
        if heading != last and heading:
            out.append(f"# {heading}")
        last = heading
        out.append(body)
    return "\n\n".join(out).strip() + "\n"


def pin_index_for(root: Path | str) -> PinIndex:
    """A pin index of the board files and the datasheet names under `root`, without building a search index."""
    entries: list[AliasEntry] = []
    files, _ = scan(Path(root))
    for f in files:
        if f.kind == "pdf":
            pages, _ = read_pdf(f)
            text = "\n".join(t for _, t in pages or [])
        else:
            text = read_text(f)[0] or ""
        entries.extend(parse_aliases(text, f.rel, f.board)[0])
    return PinIndex(entries)
