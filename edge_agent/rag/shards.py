"""A cold build in shards: each worker process indexes a contiguous run of the files on its own.

A worker parses its files (:func:`edge_agent.rag.parse.parse_file`), writes their chunk and file rows to
a database of its own with chunk ids counted from 1, and groups and encodes its postings there in the
compact format (:mod:`edge_agent.rag.codec`), as a build in one process does for the whole library. The
indexing process then only joins the shards: chunk rows are copied by SQLite with their ids moved past
the previous shards' chunks (nothing crosses Python), and each term's postings rows are concatenated in
shard order, which is chunk-id order, so only the first chunk-id gap of each later shard's part changes.
What lands in the index is row for row what a build in one process writes.

The indexing process is then no longer the bottleneck of a large build (before, it received every
parsed file, inserted its rows and grouped every posting itself, while the workers parsed).
"""

from __future__ import annotations

import bisect
import heapq
import json
import logging
import pickle
import queue
import sqlite3
import subprocess
import sys
import tempfile
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from itertools import accumulate, groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from edge_agent.rag.codec import encode_joined
from edge_agent.rag.files import DocFile, Problem
from edge_agent.rag.parse import HEADING_WEIGHT, RawCounted, stop_worker
from edge_agent.rag.rowjoin import Packed, join_runs, joined_rows, packed_joined, packed_part, packed_rows
from edge_agent.rag.text import raw_numbers

log = logging.getLogger("edge_agent.rag")

#: The tables of a shard's database: the index's own chunk, file and postings tables (no secondary index: the
#: indexing process copies the rows in id order, the order of the paths scanned, so its index of chunk paths takes
#: each row at its end: kept through the copy, it costs less than made again after it (0.30 against 0.34 s of CPU
#: for the bench's 165,000 chunks).
SHARD_DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE files (
    rel TEXT PRIMARY KEY, board TEXT, host INTEGER NOT NULL, kind TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL, problems TEXT NOT NULL, aliases TEXT NOT NULL,
    nchunks INTEGER NOT NULL
);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY, rel TEXT NOT NULL, idx INTEGER NOT NULL, board TEXT,
    heading TEXT NOT NULL, text TEXT NOT NULL, dl REAL NOT NULL, tf BLOB NOT NULL
);
CREATE TABLE postings (term TEXT PRIMARY KEY, n INTEGER NOT NULL, ids BLOB NOT NULL, tfs BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE postings_run (term TEXT NOT NULL, run INTEGER NOT NULL, cids BLOB NOT NULL, tfs BLOB NOT NULL);
CREATE TABLE postings_part (terms TEXT NOT NULL, ns BLOB NOT NULL, id_ends BLOB NOT NULL, tf_ends BLOB NOT NULL,
                            ids BLOB NOT NULL, tfs BLOB NOT NULL);
CREATE TABLE postings_joined (terms TEXT NOT NULL, ns BLOB NOT NULL, id_ends BLOB NOT NULL, tf_ends BLOB NOT NULL,
                              ids BLOB NOT NULL, tfs BLOB NOT NULL);
"""

#: Files from which a first build with workers is indexed in shards. Below it the workers only parse and
#: this process writes: at 1,000 files shards took about a tenth more CPU in all (each worker's
#: interpreter, numpy and its own grouping) for no shorter build.
SHARDED_FROM_FILES = 2000

#: Page size of the scratch databases (the shards and the joined postings). Their rows are written once, in order,
#: and copied once: with SQLite's largest page a shard's pages go to the file in a sixteenth of the writes, and its
#: chunks were written in about 0.7 and copied into the index in about 0.8 times the CPU of the default 4 KB pages
#: (82,000 rows of a kilobyte). The index itself keeps its pages: its rows are read a few at a time.
SCRATCH_PAGE_SIZE = 65536

_FILES_COLUMNS = "rel, board, host, kind, size, mtime_ns, sha256, problems, aliases, nchunks"
_CHUNK_COLUMNS = "rel, idx, board, heading, text, dl, tf"
#: Progress messages a worker sends at most (each a few bytes: the pipe never fills while the indexing
#: process waits on another worker).
_MESSAGES = 200


def file_row(f: DocFile, sha256: str, problems: Sequence[Problem], aliases_json: str,
             nchunks: int, host: bool) -> tuple[Any, ...]:
    """A ``files`` row (its columns in table order). `host`: whether the file is a host board's datasheet
    (:func:`edge_agent.rag.boards.is_host_board` of its entries' names), decided where the alias entries are in hand,
    so a search reads the flag instead of the entries (thousands for a pin table's file)."""
    return (f.rel, f.board, int(host), f.kind, f.size, f.mtime_ns, sha256,
            json.dumps([p.__dict__ for p in problems]), aliases_json, nchunks)


def split(files: Sequence[DocFile], n: int) -> list[list[DocFile]]:
    """`files` in `n` contiguous runs of about equal bytes (the parse time follows the size)."""
    total = sum(f.size for f in files) or 1
    runs: list[list[DocFile]] = [[] for _ in range(n)]
    seen = 0
    for f in files:
        runs[min(n - 1, seen * n // total)].append(f)
        seen += f.size
    return [r for r in runs if r]


@dataclass
class Shard:
    """One worker's part of the build: its files, its database, and what it reported."""

    files: list[DocFile]
    path: Path
    proc: Any = None
    counts: list[int] = field(default_factory=list)  # chunks of each file
    dls: array[float] = field(default_factory=lambda: array("d"))  # weighted length of each chunk
    problems: dict[int, tuple[list[Problem], list[Problem]]] = field(default_factory=dict)  # by file position
    done: int = 0  # files parsed so far


class ShardedBuild:
    """Starts one worker per shard, waits for them (reporting progress), then joins their databases
    into the index's connection. :meth:`close` removes the shard databases whatever happened."""

    def __init__(self, files: Sequence[DocFile], n_workers: int, max_file_bytes: int, near: Path | None) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="edge-agent-rag-shards-", dir=near))
        self.shards = [Shard(run, self._dir / f"shard-{k}.sqlite") for k, run in enumerate(split(files, n_workers))]
        self._max_file_bytes = max_file_bytes
        self._attached: list[str] = []

    def run(self, progress: Callable[[int, int], None] | None, total: int) -> bool:
        """Parse every shard in its worker; False when a worker could not start or stopped early."""
        from edge_agent.rag.parse import worker_command, worker_env

        env = worker_env()
        try:
            for shard in self.shards:  # every worker starts (and imports) at once, then gets its files
                shard.proc = subprocess.Popen(worker_command("edge_agent.rag.shards"), stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            for shard in self.shards:
                assert shard.proc.stdin is not None
                every = max(8, len(shard.files) // _MESSAGES)
                pickle.dump((self._max_file_bytes, shard.files, str(shard.path), every), shard.proc.stdin,
                            protocol=pickle.HIGHEST_PROTOCOL)
                shard.proc.stdin.close()
        except OSError as exc:
            log.info("datasheet index: building in this process (worker process not started: %s)", exc)
            return False
        events: queue.Queue[tuple[int, Any]] = queue.Queue()
        readers = [threading.Thread(target=_pump, args=(k, s.proc, events), daemon=True)
                   for k, s in enumerate(self.shards)]
        for r in readers:
            r.start()
        pending = len(self.shards)
        ok = True
        reported = 0
        while pending:
            k, msg = events.get()
            shard = self.shards[k]
            if msg is None:
                log.info("datasheet index: a building worker stopped (exit status %s); building in this process",
                         shard.proc.poll())
                ok = False
                pending -= 1
                for s in self.shards:  # the others' work is thrown away too: stop them
                    stop_worker(s.proc)
                continue
            if msg[0] == "progress":
                shard.done = msg[1]
            else:  # done
                _, shard.counts, dls, shard.problems = msg
                shard.dls.frombytes(dls)
                shard.done = len(shard.files)
                pending -= 1
            now = sum(s.done for s in self.shards)
            if progress and now // 25 > reported // 25 and now < total:
                progress(now - now % 25, total)
                reported = now
        for r in readers:
            r.join()
        for s in self.shards:
            stop_worker(s.proc)
        return ok

    def join_into(self, conn: sqlite3.Connection, first_id: int) -> tuple[dict[str, int], int]:
        """Copy the shards' rows into `conn` (inside its open transaction), chunk ids from `first_id`.
        Returns (chunks holding each term, chunks copied).

        The postings rows are joined term by term (:mod:`edge_agent.rag.rowjoin`) while SQLite copies the chunk
        rows in C: a thread reads the shards through connections of its own and writes the joined rows to a
        database beside them, which `conn` then copies in one statement. Both cores work where one waited."""
        # each shard's chunk ids move past the chunks of the shards before it
        *offsets, end = accumulate((sum(s.counts) for s in self.shards), initial=first_id - 1)
        merged = self._dir / "joined.sqlite"
        df: dict[str, int] = {}
        failed: list[BaseException] = []
        joiner = threading.Thread(target=_join_postings, args=([s.path for s in self.shards], offsets, merged, df,
                                                               failed), name="rag-join", daemon=True)
        joiner.start()
        try:
            for k, (shard, at) in enumerate(zip(self.shards, offsets, strict=True)):
                name = f"shard{k}"
                conn.execute("ATTACH DATABASE ? AS " + name, (str(shard.path),))
                self._attached.append(name)
                conn.execute(f"INSERT INTO chunks (id, {_CHUNK_COLUMNS}) SELECT id + ?, {_CHUNK_COLUMNS} "
                             f"FROM {name}.chunks ORDER BY id", (at,))
                conn.execute(f"INSERT OR REPLACE INTO files ({_FILES_COLUMNS}) SELECT {_FILES_COLUMNS} "
                             f"FROM {name}.files ORDER BY rel")
        finally:
            joiner.join()
        if failed:
            raise failed[0]
        conn.execute("ATTACH DATABASE ? AS joined", (str(merged),))
        self._attached.append("joined")
        conn.execute("INSERT INTO postings (term, n, ids, tfs) SELECT term, n, ids, tfs FROM joined.postings "
                     "ORDER BY rowid")
        return df, end - first_id + 1

    def close(self, conn: sqlite3.Connection | None = None) -> None:
        """Detach the shard databases (after the transaction that copied them ended) and remove them."""
        for s in self.shards:
            if s.proc is not None:
                stop_worker(s.proc)
        if conn is not None:
            for name in self._attached:
                try:
                    conn.execute("DETACH DATABASE " + name)
                except sqlite3.Error:
                    pass
        self._attached = []
        for p in self._dir.glob("*"):
            p.unlink(missing_ok=True)
        try:
            self._dir.rmdir()
        except OSError:
            pass


def _join_postings(paths: list[Path], offsets: list[int], out: Path, df: dict[str, int],
                   failed: list[BaseException]) -> None:
    """The shards' postings joined term by term (:func:`edge_agent.rag.rowjoin.join_runs`, or :func:`_joined` without
    numpy; chunk ids moved by each shard's offset) into a ``postings`` table of a new database at `out`, in term
    order; `df` gets each term's chunk count. Runs in a thread, with its own connections: an error is put in
    `failed` for the caller to raise."""
    from edge_agent.rag.postings import _numpy

    try:
        with ExitStack() as opened:
            writer = opened.enter_context(closing(sqlite3.connect(str(out), isolation_level=None)))
            writer.executescript(f"PRAGMA page_size = {SCRATCH_PAGE_SIZE}; PRAGMA journal_mode = OFF; "
                                 "PRAGMA synchronous = OFF; CREATE TABLE postings "
                                 "(term TEXT NOT NULL, n INTEGER NOT NULL, ids BLOB NOT NULL, tfs BLOB NOT NULL)")
            readers = [opened.enter_context(closing(sqlite3.connect(str(p)))) for p in paths]
            np = _numpy()
            rows: Iterable[tuple[str, int, bytes, bytes]]
            if np is None:  # joined one row at a time
                rows = _joined([(at, _shard_rows(r)) for at, r in zip(offsets, readers, strict=True)], df)
            else:
                rows = joined_rows(join_runs(np, [(at, _shard_batches(np, r))
                                                  for at, r in zip(offsets, readers, strict=True)]), df)
            writer.execute("BEGIN")
            writer.executemany("INSERT INTO postings VALUES (?, ?, ?, ?)", rows)
            writer.execute("COMMIT")
    except BaseException as exc:  # noqa: BLE001 - handed to the indexing thread, which raises it
        failed.append(exc)


#: Rows of a shard read into a batch of the numpy join, from a worker that wrote rows (a few MB of blobs).
JOIN_ROWS = 4096


def _shard_batches(np: Any, conn: sqlite3.Connection) -> Iterator[Packed]:
    """A shard's postings as :data:`edge_agent.rag.rowjoin.Packed` batches in term order: its packed rows, or, from
    a worker that wrote a row per term (without numpy), those rows JOIN_ROWS at a time."""
    packed = conn.execute("SELECT * FROM postings_joined ORDER BY rowid")
    first = packed.fetchone()
    if first is not None:
        yield packed_part(np, *first)
        del first  # (held here, the first row would stay in memory to the end)
        for row in packed:
            yield packed_part(np, *row)
        return
    rows = conn.execute("SELECT term, n, ids, tfs FROM postings ORDER BY term")
    while batch := rows.fetchmany(JOIN_ROWS):
        yield packed_rows(np, batch)


def _shard_rows(conn: sqlite3.Connection) -> Iterator[tuple[str, int, bytes, bytes]]:
    """A shard's postings rows in term order, in pure Python: unpacked from its packed rows, or as a worker without
    numpy wrote them."""
    if conn.execute("SELECT 1 FROM postings_joined LIMIT 1").fetchone() is None:
        yield from conn.execute("SELECT term, n, ids, tfs FROM postings ORDER BY term")
        return
    for terms, ns, id_ends, tf_ends, ids, tfs in conn.execute("SELECT * FROM postings_joined ORDER BY rowid"):
        counts, id_at, tf_at = array("i"), array("q", [0]), array("q", [0])
        counts.frombytes(ns)
        id_at.frombytes(id_ends)
        tf_at.frombytes(tf_ends)
        yield from zip(terms.split("\n"), counts, map(ids.__getitem__, map(slice, id_at, id_at[1:])),
                       map(tfs.__getitem__, map(slice, tf_at, tf_at[1:])), strict=True)


def _joined(parts: list[tuple[int, Iterable[tuple[str, int, bytes, bytes]]]], df: dict[str, int]
            ) -> Iterator[tuple[str, int, bytes, bytes]]:
    """Each term's rows of every shard as one row, in term order. A shard's chunk ids are its own (from 1):
    moved by the shard's offset, only the first gap of its part changes (to the distance from the term's
    last chunk id in the shards before); the other gaps and every frequency are copied as they are."""
    # (term, shard, ...) tuples: ordered by term, then shard, and never compared further (a term is once
    # in a shard)
    merged = heapq.merge(*(_tagged(k, off, rows) for k, (off, rows) in enumerate(parts)))
    for term, group in groupby(merged, key=itemgetter(0)):
        got = list(group)
        if len(got) == 1 and got[0][2] == 0:  # in the first shard only: as it is
            _t, _k, _off, n, ids, tfs = got[0]
            df[term] = n
            yield term, n, ids, tfs
            continue
        gaps: list[bytes] = []
        gap_exc: list[bytes] = []
        freqs: list[bytes] = []
        freq_exc: list[bytes] = []
        total = 0
        last = 0  # the term's largest chunk id in the parts so far
        for at, (_t, _k, off, n, ids, tfs) in enumerate(got):
            exc = ids[n:]
            first = ids[0]
            if first == 0:  # escaped: the value is the first of the 4-byte exceptions
                first = int.from_bytes(exc[:4], sys.byteorder, signed=True)
                exc = exc[4:]
            gap = first + off - last
            if gap < 256:
                gaps.append(bytes((gap,)) + ids[1:n])
            else:
                gaps.append(b"\0" + ids[1:n])
                exc = gap.to_bytes(4, sys.byteorder, signed=True) + exc
            gap_exc.append(exc)
            freqs.append(tfs[:n])
            freq_exc.append(tfs[n:])
            total += n
            if at + 1 < len(got):  # this part's last id: its gaps summed (an escaped gap is a 0 byte and its value)
                spans = array("i")
                spans.frombytes(ids[n:])
                last = off + sum(ids[:n]) + sum(spans)
        df[term] = total
        yield term, total, b"".join(gaps + gap_exc), b"".join(freqs + freq_exc)


#: Tokens a building worker holds (9 bytes each) before it counts them into postings (about two thirds as many: a
#: chunk repeats its words). Counting takes about 30 bytes a token for a moment, beside the postings held: small
#: batches keep a worker's peak near what it was when it held postings only (a worker of the bench's 10,000
#: files: about 125 MB, 145 MB with batches of a million tokens, and no CPU to speak of either way).
BATCH_TOKENS = 300_000
#: Postings a building worker holds (12 bytes each) before it groups and encodes them as one part of its shard's
#: rows; the parts are joined term by term at the end, as the indexing process joins shards (each part adds a row
#: for most terms to that join: parts of a worker's counted batches, not one part a batch).
PART_POSTINGS = 1_500_000
#: Terms of a part up to which their ranks are sorted as 16-bit keys: numpy sorts those stably by radix, about
#: five times faster than 32-bit keys and in the same order (a part of the bench's 10,000 files holds about
#: 40,000 terms).
KEYS_16_BIT = 1 << 16
#: Postings encoded at a time (the compact encoder works on arrays of 8 bytes a posting).
ENCODE_BATCH = 1 << 18


class ShardPostings:
    """A building worker's postings, added a file at a time as its raw tokens (the arrays of
    :func:`edge_agent.rag.parse.count_raw`: a token is one number, looked up once; no term string and no count
    per chunk). Past BATCH_TOKENS they are turned into terms and counted with one stable sort (a chunk's
    occurrences of a term then stand together, summed with their heading weight); past PART_POSTINGS the counted
    postings are grouped by term with another, encoded in the compact format in one batch and written as a part
    (rows in term order, each encoded batch packed in one row: :data:`PackedRows`); :meth:`write` joins the parts
    (:func:`edge_agent.rag.rowjoin.join_runs`) into packed rows of ``postings_joined``, whose rows are those of the
    whole list, so the shard's rows are the ones a build in one process writes."""

    def __init__(self, np: Any, conn: sqlite3.Connection, names: list[str], batch_tokens: int | None = None,
                 part_postings: int | None = None) -> None:
        self._np = np
        self._conn = conn
        self._names = names  # term number -> term (grows as files are tokenised)
        self._batch = BATCH_TOKENS if batch_tokens is None else batch_tokens
        self._limit = PART_POSTINGS if part_postings is None else part_postings
        self._rids, self._cids, self._heads = array("i"), array("i"), array("B")
        # counted batches, in chunk-id order: (term numbers, chunk ids, weighted frequencies), each by term then chunk
        self._held: list[tuple[Any, Any, Any]] = []
        self._held_postings = 0
        self._parts: list[int] = []  # the first rowid of each part written to postings_part

    def add(self, first: int, counted: RawCounted) -> None:
        """Add one file's tokens, its chunks numbered from `first`."""
        np = self._np
        rids, runs = counted
        if not rids:
            return
        run = np.frombuffer(runs, dtype=np.int32)
        self._rids.extend(rids)
        self._cids.frombytes(np.repeat(np.arange(first, first + len(run) // 2, dtype=np.int32),
                                       run[0::2] + run[1::2]).tobytes())
        heading = np.zeros(len(run), dtype=np.uint8)  # 1 for the runs of heading words
        heading[1::2] = 1
        self._heads.frombytes(np.repeat(heading, run).tobytes())
        if len(self._rids) >= self._batch:  # (a file's chunks are in one batch: a batch ends between files)
            self._count()
            if self._held_postings >= self._limit:
                self._write_part()

    def _occurrences(self) -> tuple[Any, Any, Any]:
        """The held tokens as term occurrences (term numbers, chunk ids, heading flags), chunk ids ascending, and
        the held arrays emptied."""
        np = self._np
        raws = raw_numbers()
        rids = np.frombuffer(self._rids, dtype=np.int32)
        starts = np.frombuffer(raws.starts, dtype=np.int32)
        first = starts[rids]
        sizes = starts[rids + 1] - first  # terms of each token (none for a stop word)
        del starts, rids
        # a token's k-th term stands at first + k in the flat terms: each occurrence's place is its token's first
        # place, less the occurrences before its token, plus its own position
        first -= np.cumsum(sizes, dtype=np.int32) - sizes
        at = np.repeat(first, sizes)
        del first
        at += np.arange(len(at), dtype=np.int32)
        gids = np.frombuffer(raws.terms, dtype=np.int32)[at]
        del at
        cids = np.repeat(np.frombuffer(self._cids, dtype=np.int32), sizes)
        heads = np.repeat(np.frombuffer(self._heads, dtype=np.uint8), sizes)
        self._rids, self._cids, self._heads = array("i"), array("i"), array("B")  # (the views above keep theirs)
        return gids, cids, heads

    def _count(self) -> None:
        """Count the held tokens into postings, one per term and chunk, and hold those."""
        np = self._np
        if not len(self._rids):
            return
        gids, cids, heads = self._occurrences()
        if not len(gids):
            return
        present = np.flatnonzero(np.bincount(gids))  # the batch's terms, by number
        small = np.uint16 if len(present) <= KEYS_16_BIT else np.int32
        rank = np.zeros(int(present[-1]) + 1, dtype=small)
        rank[present] = np.arange(len(present), dtype=small)
        keys = rank[gids]
        del gids, rank
        order = np.argsort(keys, kind="stable")  # stable: chunk ids stay ascending within a term
        keys = keys[order]
        cids = cids[order]
        heads = heads[order]
        del order
        # a chunk's occurrences of a term now stand together: one posting each, their weights summed
        new = np.empty(len(keys), dtype=bool)
        new[0] = True
        np.not_equal(keys[1:], keys[:-1], out=new[1:])
        new[1:] |= cids[1:] != cids[:-1]
        at = np.flatnonzero(new)
        del new
        weights = heads.astype(np.float32)  # an occurrence weighs 1, or HEADING_WEIGHT in a heading
        del heads
        weights *= HEADING_WEIGHT - 1
        weights += 1
        self._held.append((present[keys[at]].astype(np.int32), cids[at], np.add.reduceat(weights, at)))
        self._held_postings += len(at)

    def _batches(self) -> Iterator[tuple[list[str], Any, Any, list[int]]]:
        """The held postings grouped by term, in term order, about ENCODE_BATCH postings at a time (so the encoder's
        temporary arrays stay small): the batch's terms, their chunk ids (ascending within a term) and weighted
        frequencies one term after another, and where each term's postings begin."""
        np = self._np
        self._count()
        if not self._held:
            return
        held, self._held, self._held_postings = self._held, [], 0
        gids = np.concatenate([h[0] for h in held])
        cids = np.concatenate([h[1] for h in held])
        tfs = np.concatenate([h[2] for h in held])
        del held
        total = len(gids)
        present = np.flatnonzero(np.bincount(gids, minlength=len(self._names)))
        by_name = sorted(present.tolist(), key=self._names.__getitem__)
        small = np.uint16 if len(by_name) <= KEYS_16_BIT else np.int32
        rank = np.zeros(len(self._names), dtype=small)
        rank[np.asarray(by_name, dtype=np.int64)] = np.arange(len(by_name), dtype=small)
        keys = rank[gids]
        del gids, rank
        # stable: within a term, the batches' postings stay in batch order and each batch's in chunk order, so
        # chunk ids stay ascending
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]).tolist()
        del keys
        cids = cids[order]
        tfs = tfs[order]
        del order
        term = 0
        while term < len(starts):
            lo = starts[term]
            upto = bisect.bisect_left(starts, lo + ENCODE_BATCH, term + 1)  # at least one term a batch
            hi = starts[upto] if upto < len(starts) else total
            yield ([self._names[gid] for gid in by_name[term:upto]], cids[lo:hi], tfs[lo:hi],
                   [at - lo for at in starts[term:upto]])
            term = upto

    def _write_part(self) -> None:
        at = self._conn.execute("SELECT coalesce(max(rowid), 0) + 1 FROM postings_part").fetchone()[0]
        self._parts.append(at)
        self._conn.executemany("INSERT INTO postings_part VALUES (?, ?, ?, ?, ?, ?)", self._packed())

    def _packed(self) -> Iterator[PackedRows]:
        """The held postings as packed rows (:data:`PackedRows`), a batch of terms each."""
        for names, cids, tfs, starts in self._batches():
            yield ("\n".join(names), *encode_joined(self._np, cids, tfs, starts))

    def write(self) -> None:
        """Write the postings, parts joined term by term, as packed rows to ``postings_joined``, which the indexing
        process reads: a few hundred rows to write and read instead of a row per term."""
        np = self._np
        packed: Iterable[PackedRows]
        if not self._parts:
            packed = self._packed()
        else:
            if len(self._rids) or self._held:
                self._write_part()
            ends = [*self._parts[1:], None]
            runs = [(0, (packed_part(np, *row) for row in self._conn.cursor().execute(
                        "SELECT * FROM postings_part WHERE rowid >= ?" + (" AND rowid < ?" if end else ""),
                        (start, end) if end else (start,))))
                    for start, end in zip(self._parts, ends, strict=True)]  # ids are the shard's own: no offset
            packed = map(packed_joined, join_runs(np, runs))
        self._conn.executemany("INSERT INTO postings_joined VALUES (?, ?, ?, ?, ?, ?)", packed)


#: A batch of a part's rows packed in one row of ``postings_part`` (:func:`edge_agent.rag.codec.encode_joined`): the
#: terms joined by newlines (a term holds no whitespace), each row's postings count (4-byte ints), where each row's
#: ids and tfs blobs end (8-byte ints), and those blobs joined. A row per term took about a fifteenth of a worker's
#: CPU time to encode, write and read back; packed, a part is a few rows, and the join holds one of each part's.
PackedRows = tuple[str, bytes, bytes, bytes, bytes, bytes]


def _tagged(k: int, off: int, rows: Iterable[tuple[str, int, bytes, bytes]]
            ) -> Iterator[tuple[str, int, int, int, bytes, bytes]]:
    for term, n, ids, tfs in rows:
        yield term, k, off, n, ids, tfs


def _pump(k: int, proc: Any, events: queue.Queue[tuple[int, Any]]) -> None:
    """Hand a worker's messages to the indexing process's thread, ending with ("done", ...) or None."""
    try:
        while True:
            msg = pickle.load(proc.stdout)
            events.put((k, msg))
            if msg[0] == "done":
                return
    except (EOFError, pickle.UnpicklingError, OSError, ValueError):
        events.put((k, None))


def _worker_main() -> None:
    """A building worker: reads (size cap, files, shard database path, progress step) from stdin, indexes
    the files into the shard database, and reports progress, then each file's chunk count, chunk lengths
    and problems."""
    from edge_agent.rag.parse import parse_counts, parse_raw
    from edge_agent.rag.postings import SnapshotBuilder, _numpy
    from edge_agent.rag.text import term_numbers

    logging.disable(logging.CRITICAL)  # problems travel with the results and are logged by the indexing process
    max_file_bytes, files, path, every = pickle.load(sys.stdin.buffer)
    out = sys.stdout.buffer
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA page_size = {SCRATCH_PAGE_SIZE}")  # (before the first table: it fixes the size)
    conn.execute("PRAGMA journal_mode = OFF")  # a scratch file: thrown away if anything fails
    conn.execute("PRAGMA synchronous = OFF")
    conn.executescript(SHARD_DDL)
    conn.execute("BEGIN")
    np = _numpy()
    # with numpy, a file's tokens go in as the tokeniser numbered them; without, chunk by chunk as dicts
    postings = ShardPostings(np, conn, term_numbers().names) if np is not None else None
    builder = SnapshotBuilder(conn)
    counts: list[int] = []
    dls = array("d")
    problems: dict[int, tuple[list[Problem], list[Problem]]] = {}
    next_id = 1
    for i, f in enumerate(files):
        if postings is not None:
            pf, counted_raw = parse_raw(np, f, max_file_bytes)
            if counted_raw is not None:
                postings.add(next_id, counted_raw)
        else:
            pf, counted = parse_counts(f, max_file_bytes)
            for k, tf in enumerate(counted):  # numbered by the shard's own term numbers as they come
                builder.add(next_id + k, tf)
        n = len(pf.sections)
        conn.executemany(f"INSERT INTO chunks (id, {_CHUNK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         [(next_id + k, f.rel, k, f.board, heading, body, dl, b"")
                          for k, (heading, body, dl) in enumerate(pf.sections)])
        conn.execute(f"INSERT INTO files ({_FILES_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     file_row(f, pf.sha256, [*pf.file_problems, *pf.alias_problems], pf.aliases_json, n, pf.host))
        next_id += n
        counts.append(n)
        dls.extend(dl for _heading, _body, dl in pf.sections)
        if pf.file_problems or pf.alias_problems:
            problems[i] = (pf.file_problems, pf.alias_problems)
        if (i + 1) % every == 0:
            pickle.dump(("progress", i + 1), out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
    if postings is not None:
        postings.write()
    else:
        builder.write(conn)
    conn.execute("COMMIT")
    conn.close()
    pickle.dump(("done", counts, dls.tobytes(), problems), out, protocol=pickle.HIGHEST_PROTOCOL)
    out.flush()


if __name__ == "__main__":  # run as `python -m`: work through the module's real name, so results unpickle
    from edge_agent.rag.shards import _worker_main as _run

    _run()
