"""The persisted side of HardwareRag: files, chunks and postings in SQLite, kept in step with the
datasheet directory.

A load or :meth:`IndexStore.refresh` compares each file's size and mtime with the index; only changed
files are read again, and only those whose content hash changed are re-chunked. Chunk ids are never
reused. The stored postings cover the chunks indexed when they were written; chunks indexed since
(the delta) are kept in memory and removed ones masked, until the delta passes a fifth of the index
and the postings are rewritten (see :mod:`edge_agent.rag.postings`). An ``index_gen`` counter tells a
process that another one (``edge-agent rag index`` beside a daemon) changed the shared index.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import marshal
import sqlite3
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from edge_agent.errors import DatasheetError
from edge_agent.paths import private_file
from edge_agent.pins.datasheet import PIN_RULES
from edge_agent.rag import parse as _parse
from edge_agent.rag import shards as _shards
from edge_agent.rag import termfilter as _termfilter
from edge_agent.rag import text as _text
from edge_agent.rag.chunker import CHUNK_RULES, MAX_CHARS
from edge_agent.rag.chunktable import ChunkTable, id_mask, mask_diff, stored_ids
from edge_agent.rag.codec import TermStore
from edge_agent.rag.files import MAX_FILE_BYTES, DocFile, Problem, scan, scan_paths
from edge_agent.rag.parse import ParsedFile, chunk_tf, parse_many, stem_words
from edge_agent.rag.postings import Postings, SnapshotBuilder, _numpy
from edge_agent.rag.shards import _FILES_COLUMNS, ShardedBuild, file_row

log = logging.getLogger("edge_agent.rag")

_SCHEMA = 8  # 5: postings rows in the compact format (edge_agent.rag.codec); 6: document frequencies from them;
#              7: a file's host-board flag (files.host); 8: alias entries as compact rows (rag.aliasrows)
_BUSY_TIMEOUT_S = 30.0  # a daemon and `edge-agent rag index` may refresh the same index at once

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    rel TEXT PRIMARY KEY, board TEXT, host INTEGER NOT NULL, kind TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL, problems TEXT NOT NULL, aliases TEXT NOT NULL,
    nchunks INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, rel TEXT NOT NULL, idx INTEGER NOT NULL, board TEXT,
    heading TEXT NOT NULL, text TEXT NOT NULL, dl REAL NOT NULL, tf BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_rel ON chunks (rel);
CREATE INDEX IF NOT EXISTS files_host ON files (rel) WHERE host = 1;
CREATE TABLE IF NOT EXISTS postings (term TEXT PRIMARY KEY, n INTEGER NOT NULL, ids BLOB NOT NULL,
                                     tfs BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS postings_run (term TEXT NOT NULL, run INTEGER NOT NULL, cids BLOB NOT NULL,
                                         tfs BLOB NOT NULL);
"""


#: SQLite's page cache of a loaded index, in KiB (SQLite's default is 2,000): at 10,000 files the bench's
#: questions took the same CPU with 250 KiB as with 2,000.
SERVING_CACHE_KIB = 512

#: Files indexed in one pass from which the heap the pass freed is handed back to the system afterwards.
TRIM_FROM_FILES = 200


def give_back_memory() -> None:
    """Hand the heap a large build freed back to the system. glibc keeps freed memory for the process's
    next allocations, so a daemon that built its index would otherwise stay at the build's size (about
    twice the index it keeps). Nothing happens on C libraries without ``malloc_trim`` (musl, macOS)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def _same_stat(old: tuple[Any, ...] | None, f: DocFile) -> bool:
    """Whether the index holds `f` with its current size and mtime (so it is not read again)."""
    return old is not None and old[0] == f.size and old[1] == f.mtime_ns


def _stored_tf(rel: str, heading: str, body: str, tf: bytes) -> dict[str, float]:
    """A stored chunk's term frequencies: kept for chunks indexed after the postings were written, and
    computed again from the text (as indexing did) for those of a cold build."""
    return marshal.loads(tf) if tf else chunk_tf(stem_words(rel), heading, body)[0]


#: The hardware vocabulary is data the tokens depend on: an edit to it rebuilds persisted indexes.
_VOCABULARY_DIGEST = hashlib.sha256(json.dumps(_text.VOCABULARY, sort_keys=True).encode()).hexdigest()[:16]


def _meta_signature(max_file_bytes: int) -> str:
    return json.dumps({"schema": _SCHEMA, "tokenizer": _text.TOKENIZER_VERSION, "chunk": MAX_CHARS,
                       "rules": CHUNK_RULES, "pins": PIN_RULES, "vocabulary": _VOCABULARY_DIGEST,
                       "cap": max_file_bytes})


class IndexStore:
    """Files, chunks and postings of one datasheet directory, persisted in SQLite (or in memory)."""

    def __init__(self, root: Path | None, conn: sqlite3.Connection, *, db_path: Path | None) -> None:
        self.root = root
        self.db_path = db_path
        self._conn = conn
        self._lock = threading.RLock()
        self._problems: list[Problem] = []
        # A term's document frequency is its stored postings row's count plus this: +1 for each chunk holding
        # it indexed since the rows were written, -1 for each chunk of theirs removed since (only the terms of
        # changed files are here; the 70,000 terms of a large library are not held in memory)
        self._df_adjust: Counter[str] = Counter()
        self._postings = Postings(TermStore(None), bytearray(), {}, ChunkTable(), Counter())
        self._fresh: dict[int, dict[str, float]] = {}  # postings of chunks indexed in this pass
        self._next_id = 1
        self._builder: SnapshotBuilder | None = None
        self._meta: ChunkTable | None = None  # live chunks, kept in step
        self._meta_read = False  # whether this pass read the live chunks from every chunk row
        self._base_ids: bytearray | None = None  # chunks the stored postings cover (a byte per chunk id)
        self._rows: tuple[bytearray, TermStore] | None = None  # the stored rows read so far, and for which ids
        self._seen_gen: Any = None  # the index generation this process last saw or wrote
        self._max_file_bytes = MAX_FILE_BYTES
        self.stats: dict[str, int] = {}

    def _after_sync(self) -> None:
        """Called after every sync: drop what was derived from the previous index state."""

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
            # another version's index (or none yet): its tables go and are made again as this version writes
            # them (a column may differ), then every file is indexed again
            with conn:
                conn.execute("BEGIN")
                for table in ("files", "chunks", "meta", "postings", "postings_run"):
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
                for statement in _DDL.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('signature', ?)", (signature,))
        if db_path:
            conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def _prefer_wal(self) -> None:
        """Once the index is built, switch it to write-ahead logging: a refresh then commits without waiting
        for the disk (a power cut can lose the last refreshes, never leave a half one; their files are read
        again on the next start). The build itself ran with the rollback journal, which writes a new
        database's pages once instead of twice. The mode stays with the database file."""
        if self.db_path is None:
            return
        with self._lock:
            if self._conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                self._conn.execute("PRAGMA journal_mode = WAL")

    def _serving_cache(self) -> None:
        """Once the index is built, bound SQLite's page cache to :data:`SERVING_CACHE_KIB`: a question reads a few
        postings rows (kept in memory once read, see :class:`.codec.TermStore`) and its candidates' chunk rows, which
        the system's file cache serves as fast, so the default 2 MB of pages held for the build's writes only
        add to what a serving process keeps. (An index in memory lives in its page cache, which is left as is.)"""
        if self.db_path is None:
            return
        with self._lock:
            self._conn.execute(f"PRAGMA cache_size = -{SERVING_CACHE_KIB}")

    def _sync(self, max_file_bytes: int, progress: Callable[[int, int], None] | None,
              only: set[str] | None = None) -> None:
        if only is None:
            files, problems = scan(self.root) if self.root else ([], [])
        else:  # the caller knows what changed: look at those paths only, not the whole tree
            files, problems = scan_paths(self.root, only) if self.root else ([], [])
        current = {f.rel for f in files}
        stats = {"files": len(files), "reused": 0, "indexed": 0, "removed": 0}
        with self._lock:
            self._conn.execute("BEGIN")  # reads and writes below see one consistent index
            if only is None:
                known = {r[0]: r[1:] for r in
                         self._conn.execute("SELECT rel, size, mtime_ns, sha256, problems FROM files")}
            else:
                known = {r[0]: r[1:] for rel in sorted(only) for r in self._conn.execute(
                    "SELECT rel, size, mtime_ns, sha256, problems FROM files WHERE rel = ?", (rel,))}
            nid = self._conn.execute("SELECT value FROM meta WHERE key = 'next_id'").fetchone()
            self._next_id = int(nid[0]) if nid else 1
            gen = self._conn.execute("SELECT value FROM meta WHERE key = 'index_gen'").fetchone()
            ours = gen is not None and gen[0] == self._seen_gen and self._meta is not None
            if not ours:  # first load, or another process changed the index: forget our copies
                self._meta = self._base_ids = None
                if self._conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None:
                    self._meta = ChunkTable()  # nothing indexed yet: the build fills it, nothing is read back
            # the frequency adjustments this process holds are current unless another process wrote since
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'df_adjust'").fetchone()
            if not ours:
                self._df_adjust = Counter(marshal.loads(row[0])) if row else Counter()
            has_snapshot = self._conn.execute("SELECT 1 FROM meta WHERE key = 'snapshot_ids'").fetchone()
            # A cold build streams postings straight into the postings table instead of keeping per-chunk dicts.
            self._builder = None if has_snapshot else SnapshotBuilder(self._conn)
            shards: ShardedBuild | None = None
            try:
                for rel in sorted(set(known) - current):
                    self._delete(rel)
                    stats["removed"] += 1
                if self._builder is not None and not known:  # a cold build: in shards when workers pay
                    shards = self._build_in_shards(files, problems, stats, progress, max_file_bytes)
                if shards is None:
                    stale = [f for f in files if not _same_stat(known.get(f.rel), f)]
                    parsed = parse_many(stale, [known[f.rel][2] if f.rel in known else None for f in stale],
                                        max_file_bytes)
                    with closing(parsed):
                        self._store_all(files, known, parsed, problems, stats, progress)
                if self._builder is not None:  # one posting per chunk and term: its rows count the df of each term
                    self._builder.write(self._conn)
                    self._base_ids = id_mask(self._builder.ids)
                    self._builder = None
                changed = bool(stats["indexed"] or stats["removed"] or row is None)
                if changed:  # (a term whose frequency is its row's count again is dropped)
                    self._write_df_adjust()
                    self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('next_id', ?)", (self._next_id,))
                    self._seen_gen = (int(gen[0]) if gen else 0) + 1
                    self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('index_gen', ?)", (self._seen_gen,))
                else:
                    self._seen_gen = gen[0] if gen else None
                self._meta_read = False
                if changed or self._meta is None or not self._postings.n:
                    self._postings = self._load_postings()
                if self._meta_read or stats["indexed"] >= TRIM_FROM_FILES:
                    # the next restart reads the live-chunk table in one record, not every chunk's row; a small
                    # refresh leaves the record behind (its generation) and the next restart that reads the rows
                    # writes it again
                    self._write_chunk_record()
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                self._meta = self._base_ids = None  # what this pass added to them was not committed
                raise
            finally:
                if shards is not None:
                    shards.close(self._conn)
        if stats["indexed"] or stats["removed"]:
            log.info("datasheet index: %(indexed)d file(s) indexed, %(reused)d reused, %(removed)d removed", stats)
        if stats["indexed"] >= TRIM_FROM_FILES:
            _text.forget_spellings()
            give_back_memory()
        elif not ours and stats["files"] >= TRIM_FROM_FILES:
            # opening a large index read every file's stat row and walked the directory: that heap is free now
            give_back_memory()
        self.stats = stats
        if only is None:
            self._problems = problems + self._duplicate_boards(files)
        else:  # the other files' warnings still stand
            self._problems = [p for p in self._problems if p.source not in only] + problems
        self._after_sync()

    def _store_all(self, files: list[DocFile], known: dict[str, tuple[Any, ...]], parsed: Iterator[ParsedFile],
                   problems: list[Problem], stats: dict[str, int],
                   progress: Callable[[int, int], None] | None) -> None:
        for n, f in enumerate(files, 1):
            old = known.get(f.rel)
            if _same_stat(old, f):
                assert old is not None
                # still wrong: report again, the file was not re-read
                for p in json.loads(old[3]) if old[3] != "[]" else ():
                    log.warning("datasheet %s: %s", p["source"], p["message"])
                    problems.append(Problem(**p))
                stats["reused"] += 1
            else:
                reused = self._index_file(f, old, next(parsed), problems)
                stats["reused" if reused else "indexed"] += 1
            if progress and (n % 25 == 0 or n == len(files)):
                progress(n, len(files))

    def _build_in_shards(self, files: list[DocFile], problems: list[Problem], stats: dict[str, int],
                         progress: Callable[[int, int], None] | None, max_file_bytes: int) -> ShardedBuild | None:
        """Index every file of a cold build in worker processes, a contiguous shard each (see
        :mod:`edge_agent.rag.shards`), and join the shards into this index. None (nothing written) when the
        build is too small for workers to pay or a worker failed: the caller then builds as usual."""
        n_workers = _parse._workers(len(files))
        if n_workers < 2 or len(files) < max(_parse.PARALLEL_FROM_FILES, _shards.SHARDED_FROM_FILES):
            return None
        build = ShardedBuild(files, n_workers, max_file_bytes, self.db_path.parent if self.db_path else None)
        try:
            if not build.run(progress, len(files)):
                build.close()
                return None
            first = self._next_id
            df = build.join_into(self._conn, first)[0]  # its rows count each term's chunks: no df adjusting
        except BaseException:
            build.close()
            raise
        at = first
        for shard in build.shards:
            dl_at = 0
            for i, f in enumerate(shard.files):
                file_problems, alias_problems = shard.problems.get(i, ([], []))
                for p in (*file_problems, *alias_problems):  # read in a worker: logged here
                    log.warning("datasheet %s: %s", p.source, p.message)
                problems.extend(file_problems)
                problems.extend(alias_problems)
                n = shard.counts[i]
                if self._meta is not None:
                    self._meta.add_file(at, f.rel, f.board, shard.dls[dl_at:dl_at + n].tolist())
                at += n
                dl_at += n
                stats["indexed"] += 1
        self._next_id = at
        ids = array("i", range(first, at))
        self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('snapshot_ids', ?)", (ids.tobytes(),))
        _termfilter.write(self._conn, df, ids.tobytes(), _numpy())
        self._base_ids = id_mask(ids)
        self._builder = None
        if progress:
            progress(len(files), len(files))
        return build

    def refresh(self, paths: Iterable[str | Path] | None = None,
                progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Bring this loaded index up to date with its directory, in place: only files whose size or mtime
        changed are read again, and the postings of unchanged files stay in memory (no snapshot re-read).
        With `paths` (absolute, or relative to the datasheet directory; what a file watcher reports),
        only those are looked at, new, changed or deleted, without walking the directory.
        Returns the counts of the pass (files looked at, reused, indexed, removed).

        Raises:
            DatasheetError: a path outside the datasheet directory, or the index database is busy beyond
                the timeout or not writable.
        """
        only = None if paths is None else {self._rel(p) for p in paths}
        try:
            self._sync(self._max_file_bytes, progress, only)
        except sqlite3.OperationalError as exc:
            raise DatasheetError(f"datasheet index {self.db_path} is busy or not writable ({exc}); retry") from exc
        return dict(self.stats)

    def _rel(self, path: str | Path) -> str:
        p = Path(path)
        if not p.is_absolute():
            return p.as_posix()
        if self.root is not None:
            for root in (self.root.absolute(), self.root.resolve()):
                if p.is_relative_to(root):
                    return p.relative_to(root).as_posix()
        raise DatasheetError(f"{path} is not under the datasheet directory {self.root}; pass a path inside it")

    def _write_df_adjust(self) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('df_adjust', ?)",
                           (marshal.dumps(dict(self._df_adjust)),))

    def _live_meta(self) -> ChunkTable:
        """(source, position, board, weighted length) of every live chunk: read once, then kept in step. A
        restart reads the table's stored record when it belongs to the index as it is now (the generation
        this pass saw), else every chunk row."""
        if self._meta is None:
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'chunk_table'").fetchone()
            table = None if row is None or self._seen_gen is None else ChunkTable.from_record(row[0], self._seen_gen)
            if table is None:
                table = ChunkTable()
                # a file's chunks are added at once, not 165,000 chunks one by one
                table.add_rows(self._conn.execute("SELECT id, rel, idx, board, dl FROM chunks ORDER BY id"))
                self._meta_read = True
            self._meta = table
        return self._meta

    def _write_chunk_record(self) -> None:
        """Store the live-chunk table as one record naming this pass's index generation, inside the pass's
        transaction (so it commits with the rows it describes). A pass that could only read (another process
        is writing, or the file is read-only) goes on without it: waiting for the lock is not worth it."""
        if self.db_path is None or self._meta is None or self._seen_gen is None:
            return
        parts = self._meta.record_parts(self._seen_gen)
        self._conn.execute("PRAGMA busy_timeout = 0")
        try:  # written part by part into a blob of the record's size: no copy of the whole record is made
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('chunk_table', zeroblob(?))",
                               (sum(p.nbytes for p in parts),))
            rowid = self._conn.execute("SELECT rowid FROM meta WHERE key = 'chunk_table'").fetchone()[0]
            with self._conn.blobopen("meta", "value", rowid) as blob:
                for part in parts:
                    blob.write(part)
        except sqlite3.OperationalError as exc:
            log.debug("datasheet index: chunk table record not stored (%s)", exc)
        finally:
            self._conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")

    def _load_postings(self) -> Postings:
        """Stored postings + delta + tombstones; rewrites the stored postings when the delta grows past a fifth."""
        live = self._live_meta()
        if self._base_ids is None:
            self._base_ids = stored_ids(self._conn)
        base_ids = self._base_ids
        new_ids = mask_diff(live.live_flags(), base_ids) if base_ids is not None else []
        tomb = mask_diff(base_ids, live.live_flags()) if base_ids is not None else []
        if base_ids is None or len(new_ids) + len(tomb) > max(50, len(live) // 5):
            builder = SnapshotBuilder(self._conn)
            for cid, rel, heading, body, tf in self._conn.execute(
                    "SELECT id, rel, heading, text, tf FROM chunks ORDER BY id"):
                builder.add(cid, _stored_tf(rel, heading, body, tf))
            builder.write(self._conn)
            base_ids = self._base_ids = id_mask(builder.ids)
            new_ids, tomb = [], []
            self._df_adjust = Counter()  # the rows now count every live chunk
            self._write_df_adjust()
            del builder
        fresh = self._fresh
        delta: dict[int, dict[str, float]] = {}
        for cid in new_ids:
            if cid in fresh:
                delta[cid] = fresh[cid]
            else:
                r = self._conn.execute("SELECT rel, heading, text, tf FROM chunks WHERE id = ?", (cid,)).fetchone()
                delta[cid] = _stored_tf(*r)
        self._fresh = {}
        # the stored rows kept in memory stay valid until the rows are rewritten (a new id mask): a refresh
        # keeps them, so the questions after it do not read every term's row again
        rows = (self._rows[1] if self._rows is not None and self._rows[0] is base_ids
                else TermStore(self._conn, held=_termfilter.read(self._conn)))
        self._rows = (base_ids, rows)
        return Postings(rows, base_ids, delta, live, self._df_adjust, set(tomb))

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
        adjust = self._df_adjust
        for cid, heading, body, tf in self._conn.execute(
                "SELECT id, heading, text, tf FROM chunks WHERE rel = ?", (rel,)).fetchall():
            terms = _stored_tf(rel, heading, body, tf).keys()
            adjust.subtract(terms)
            for t in terms:
                if not adjust[t]:
                    del adjust[t]
            if self._meta is not None:
                self._meta.pop(cid, None)
        self._conn.execute("DELETE FROM chunks WHERE rel = ?", (rel,))
        self._conn.execute("DELETE FROM files WHERE rel = ?", (rel,))

    def _index_file(self, f: DocFile, old: tuple[Any, ...] | None, pf: ParsedFile, problems: list[Problem]) -> bool:
        """Store one parsed file; returns True when its content hash was unchanged (only stat data updated)."""
        file_problems = pf.file_problems
        if not pf.logged:  # parsed in a worker process: log here what reading it found
            for p in (*file_problems, *pf.alias_problems):
                log.warning("datasheet %s: %s", p.source, p.message)
        problems.extend(file_problems)
        if pf.unchanged:
            pjson = json.dumps([p.__dict__ for p in file_problems])
            self._conn.execute("UPDATE files SET size = ?, mtime_ns = ?, problems = ? WHERE rel = ?",
                               (f.size, f.mtime_ns, pjson, f.rel))
            return True
        if old is not None:
            self._delete(f.rel)
        problems.extend(pf.alias_problems)
        first = self._next_id  # ids are never reused: the snapshot may still hold a removed chunk's id
        self._next_id += len(pf.sections)
        if self._builder is not None:
            # a cold build: postings go to the builder, which also counts document frequencies at the end;
            # the chunk's tf is not stored (the postings hold it; a removal tokenises the chunk again)
            if pf.counted is not None:  # parsed here: the counts as they are
                for k, tf in enumerate(pf.counted):
                    self._builder.add(first + k, tf)
            else:
                self._builder.add_file(first, pf)
            tf_blobs: list[bytes] = [b""] * len(pf.sections)
        else:
            tf_blobs = []
            for k, tfd in enumerate(pf.chunk_tfs()):
                self._df_adjust.update(tfd.keys())
                self._fresh[first + k] = tfd
                tf_blobs.append(marshal.dumps(tfd))
        if self._meta is not None:
            self._meta.add_file(first, f.rel, f.board, [dl for _heading, _body, dl in pf.sections])
        self._conn.executemany("INSERT INTO chunks (id, rel, idx, board, heading, text, dl, tf) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                               [(first + i, f.rel, i, f.board, heading, body, dl, blob)
                                for i, ((heading, body, dl), blob)
                                in enumerate(zip(pf.sections, tf_blobs, strict=True))])
        self._conn.execute(
            f"INSERT OR REPLACE INTO files ({_FILES_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            file_row(f, pf.sha256, [*file_problems, *pf.alias_problems], pf.aliases_json, len(pf.sections),
                     pf.host))
        return False

    def close(self) -> None:
        """Close the index database and let go of what was held in memory for it (for a large library the
        freed heap goes back to the system: a daemon that reopens its index does not keep two)."""
        with self._lock:
            self._conn.close()
            large = self.stats.get("files", 0) >= TRIM_FROM_FILES
            self._postings = Postings(TermStore(None), bytearray(), {}, ChunkTable(), Counter())
            self._meta = self._base_ids = self._rows = None
            self._fresh = {}
            self._after_sync()
        if large:
            give_back_memory()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
