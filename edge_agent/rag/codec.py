"""The compact format of a term's postings, as stored in the index database and kept in memory.

A term's row holds its postings' count ``n`` and two blobs:

* ``ids``: the chunk ids, ascending, as gaps (the first gap is the first id; ids start at 1, so no gap
  is 0), one unsigned byte each; a gap of 256 or more is written as the byte 0 and its value follows,
  in posting order, as 4-byte integers after the ``n`` gap bytes;
* ``tfs``: the weighted term frequencies, one unsigned byte each (a heading word counts 3 times a body
  word, so frequencies are whole numbers, nearly always below 256); a frequency that is not a whole
  number from 1 to 255 is written as the byte 0 and its value follows as a 4-byte float after the
  ``n`` bytes.

A dense term (a word in most chunks) costs 2 bytes a posting instead of 8 as raw 4-byte ids and floats,
so the postings of every term questions use stay in memory (:class:`TermStore`), and decoding is a
few array operations (numpy when it is installed). Decoded frequencies are the 4-byte floats the raw
format held, so BM25 weights computed from them are bit for bit the same.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections import OrderedDict
from collections.abc import Container, Iterable, Iterator, Mapping
from itertools import accumulate, compress
from operator import eq
from typing import Any

#: A row as stored and kept: (postings count, ids blob, tfs blob).
Row = tuple[int, bytes, bytes]

#: Bytes of compact postings rows kept in memory between queries (frequent terms stay, rare ones are read
#: again from the database): at about 2 bytes a posting, the terms of a few thousand questions. At 10,000 files
#: the bench's 300 questions keep 9 MB of rows; a bound below that (8 MB was tried) reads their rows again on
#: each pass over the same questions (about 6% more query CPU), since the least recent row is the next one asked.
KEPT_BYTES = 16 * 1024 * 1024

#: Terms whose document frequency is remembered after their rows are let go (about 100 bytes each).
FREQUENCIES_KEPT = 20_000

_ESC = 0  # the byte marking a value written in full after the bytes


def encode_batch(np: Any, cids: Any, tfs: Any, starts: list[int]) -> Iterator[tuple[int, bytes, bytes]]:
    """Rows of several terms at once with numpy: `cids` (ids, ascending within each term) and `tfs`
    (float32) are every term's postings one term after another, `starts` where each term begins.
    Yields (n, ids blob, tfs blob) per term, in order."""
    total = len(cids)
    if not total:
        return
    first = np.asarray(starts, dtype=np.int64)
    gap_bytes, big, gap_exc, tf_bytes, whole, tf_exc = _compact(np, cids, tfs, first)
    gap_bytes, gap_exc, tf_bytes, tf_exc = gap_bytes.tobytes(), gap_exc.tobytes(), tf_bytes.tobytes(), tf_exc.tobytes()
    bounds = [*starts, total]
    # exceptions before each term's start, as byte offsets into the exception blobs
    gap_at = [0, *(4 * int(x) for x in np.cumsum(np.add.reduceat(big.astype(np.int64), first)))]
    tf_at = [0, *(4 * int(x) for x in np.cumsum(np.add.reduceat((~whole).astype(np.int64), first)))]
    for k in range(len(starts)):
        lo, hi = bounds[k], bounds[k + 1]
        yield (hi - lo, gap_bytes[lo:hi] + gap_exc[gap_at[k]:gap_at[k + 1]],
               tf_bytes[lo:hi] + tf_exc[tf_at[k]:tf_at[k + 1]])


def encode_joined(np: Any, cids: Any, tfs: Any, starts: list[int]) -> tuple[bytes, bytes, bytes, bytes, bytes]:
    """The rows of :func:`encode_batch` joined, without a Python step per row: each row's postings count (4-byte
    ints), where each row's ids blob and tfs blob end (8-byte ints), and the ids blobs and tfs blobs one after
    another. `cids` holds at least one posting."""
    total = len(cids)
    first = np.asarray(starts, dtype=np.int64)
    ends = np.append(first[1:], total)
    term_of = np.repeat(np.arange(len(first)), ends - first)  # the row of each posting
    gap_bytes, big, gap_exc, tf_bytes, whole, tf_exc = _compact(np, cids, tfs, first)
    ids, id_ends = _interleaved(np, gap_bytes, big, gap_exc, term_of, ends)
    freqs, tf_ends = _interleaved(np, tf_bytes, ~whole, tf_exc, term_of, ends)
    return (ends - first).astype(np.int32).tobytes(), id_ends, tf_ends, ids, freqs


def _compact(np: Any, cids: Any, tfs: Any, first: Any) -> tuple[Any, Any, Any, Any, Any, Any]:
    """The compact format of every posting of a batch of terms (each term's ids beginning at `first`): the gap
    bytes, which of them are escaped and their values (4-byte ints), and the same of the frequencies."""
    ids = np.asarray(cids, dtype=np.int64)
    gaps = np.empty(len(ids), dtype=np.int64)
    gaps[0] = ids[0]
    np.subtract(ids[1:], ids[:-1], out=gaps[1:])
    gaps[first] = ids[first]  # a term's first gap is its first id
    big = gaps >= 256
    f32 = np.asarray(tfs, dtype=np.float32)
    whole = (f32 >= 1) & (f32 <= 255) & (f32 == np.floor(f32))
    return (np.where(big, _ESC, gaps).astype(np.uint8), big, gaps[big].astype(np.int32),
            np.where(whole, f32, _ESC).astype(np.uint8), whole, f32[~whole])


def _interleaved(np: Any, body: Any, escaped: Any, values: Any, term_of: Any, ends: Any) -> tuple[bytes, bytes]:
    """Each row's blob, rows one after another: its postings' bytes (`body`), then the 4-byte `values` of its
    escaped postings; and where each row's blob ends (8-byte ints). A row's bytes start past the values of the rows
    before it, so the j-th value of all (counted over every row) lands 4 j bytes past the place where its row's
    postings end in `body`."""
    per_row = np.bincount(term_of[escaped], minlength=len(ends))
    before = np.cumsum(per_row) - per_row
    out = np.empty(len(body) + 4 * len(values), dtype=np.uint8)
    out[np.arange(len(body)) + 4 * before[term_of]] = body
    if len(values):
        at = ends[term_of[escaped]] + 4 * np.arange(len(values))
        out[at[:, None] + np.arange(4)] = values.view(np.uint8).reshape(-1, 4)
    return out.tobytes(), (ends + 4 * (before + per_row)).astype(np.int64).tobytes()


def encode_rows(np: Any, rows: Iterable[tuple[str, bytes, bytes]], batch: int = 1 << 20
                ) -> Iterator[tuple[str, int, bytes, bytes]]:
    """(term, n, ids blob, tfs blob) of raw rows (term, ids as 4-byte ints, tfs as 4-byte floats), in
    their order: with numpy, terms are encoded together in batches of about `batch` postings."""
    if np is None:
        for term, raw_ids, raw_tfs in rows:
            ids, tfs = array("i"), array("f")
            ids.frombytes(raw_ids)
            tfs.frombytes(raw_tfs)
            yield (term, *encode(ids, tfs))
        return
    names: list[str] = []
    id_parts: list[bytes] = []
    tf_parts: list[bytes] = []
    starts: list[int] = []
    held = 0

    def flush() -> Iterator[tuple[str, int, bytes, bytes]]:
        cids = np.frombuffer(b"".join(id_parts), dtype=np.int32)
        tfs = np.frombuffer(b"".join(tf_parts), dtype=np.float32)
        for name, row in zip(names, encode_batch(np, cids, tfs, starts), strict=True):
            yield (name, *row)

    for term, raw_ids, raw_tfs in rows:
        names.append(term)
        id_parts.append(raw_ids)
        tf_parts.append(raw_tfs)
        starts.append(held)
        held += len(raw_ids) >> 2
        if held >= batch:
            yield from flush()
            names, id_parts, tf_parts, starts, held = [], [], [], [], 0
    if names:
        yield from flush()


def encode(cids: Iterable[int], tfs: Iterable[float]) -> tuple[int, bytes, bytes]:
    """One term's row in pure Python (ids ascending)."""
    gap_bytes, gap_exc = bytearray(), array("i")
    prev = 0
    for cid in cids:
        gap = cid - prev
        prev = cid
        if gap < 256:
            gap_bytes.append(gap)
        else:
            gap_bytes.append(_ESC)
            gap_exc.append(gap)
    tf_bytes, tf_exc = bytearray(), array("f")
    for tf in array("f", tfs):  # as the 4-byte floats the index holds
        if 1 <= tf <= 255 and tf == int(tf):
            tf_bytes.append(int(tf))
        else:
            tf_bytes.append(_ESC)
            tf_exc.append(tf)
    return len(gap_bytes), bytes(gap_bytes) + gap_exc.tobytes(), bytes(tf_bytes) + tf_exc.tobytes()


def decode_np(np: Any, row: Row, ids_dtype: Any = None) -> tuple[Any, Any]:
    """(chunk ids as int32, or `ids_dtype`, frequencies) of a row, with numpy. The frequencies are the row's
    bytes (uint8) when each is a whole number below 256, as nearly always, else float64: either way arithmetic
    with floats gives the float64 results the stored 4-byte floats give."""
    n, ids, tfs = row
    gaps = np.frombuffer(ids, dtype=np.uint8, count=n)
    freq = np.frombuffer(tfs, dtype=np.uint8, count=n)
    if len(tfs) > n:
        freq = freq.astype(np.float64)
        freq[freq == _ESC] = np.frombuffer(tfs[n:], dtype=np.float32)
    # widened first, then summed in place: a running sum that widens as it goes takes a buffered path about
    # ten times slower on a long list (60,000 ids: 0.38 ms against 0.04); the gaps too long for a byte are put
    # in once widened, found among the bytes (one pass over a byte each, no table of 4-byte gaps in between)
    cids = gaps.astype(np.int32 if ids_dtype is None else ids_dtype)
    if len(ids) > n:
        cids[gaps == _ESC] = np.frombuffer(ids[n:], dtype=np.int32)
    return np.cumsum(cids, out=cids), freq


def decode_py(row: Row) -> tuple[list[int], list[float]]:
    """(chunk ids, frequencies) of a row, in pure Python (the frequencies as the 4-byte floats stored)."""
    n, ids, tfs = row
    gaps: list[int] = list(ids[:n])
    if len(ids) > n:
        exc = array("i")
        exc.frombytes(ids[n:])
        for at, value in zip(compress(range(n), map(eq, gaps, [_ESC] * n)), exc, strict=True):
            gaps[at] = value
    freq: list[float] = list(map(float, tfs[:n]))
    if len(tfs) > n:
        fexc = array("f")
        fexc.frombytes(tfs[n:])
        for at, fvalue in zip(compress(range(n), map(eq, tfs[:n], [_ESC] * n)), fexc, strict=True):
            freq[at] = fvalue
    return list(accumulate(gaps)), freq


class TermStore:
    """The stored postings, read one term at a time and kept in their compact form, most recent terms
    first, up to `kept_bytes` (the caller holds the connection's lock). `held`, when given, tells the terms
    without a row without reading the table (:class:`edge_agent.rag.termfilter.TermFilter`)."""

    def __init__(self, conn: sqlite3.Connection | None, kept_bytes: int = KEPT_BYTES,
                 held: Container[str] | None = None) -> None:
        self._conn = conn
        self._kept: OrderedDict[str, Row | None] = OrderedDict()
        self._bytes = 0
        self._limit = kept_bytes
        self._held = held

    def get(self, term: str) -> Row | None:
        kept = self._kept
        if term in kept:
            kept.move_to_end(term)
            return kept[term]
        if self._conn is None or (self._held is not None and term not in self._held):
            return None
        got: Row | None = self._conn.execute("SELECT n, ids, tfs FROM postings WHERE term = ?", (term,)).fetchone()
        size = len(got[1]) + len(got[2]) + 100 if got else 100  # with the entry's own overhead
        while kept and self._bytes + size > self._limit:
            _, old = kept.popitem(last=False)
            self._bytes -= len(old[1]) + len(old[2]) + 100 if old else 100
        kept[term] = got
        self._bytes += size
        return got

    @property
    def kept_bytes(self) -> int:
        return self._bytes


class Frequencies(dict[str, int]):
    """term -> chunks holding it, read on first use: the count of the term's stored row (read with the row,
    which scoring then finds kept) plus `adjust`'s entry for it (chunks indexed since the rows were written
    less those of theirs removed since). Remembers up to FREQUENCIES_KEPT terms; ``freq[term]`` is a
    C-level lookup for those."""

    def __init__(self, store: TermStore, adjust: Mapping[str, int]) -> None:
        super().__init__()
        self._store = store
        self._adjust = adjust

    def __missing__(self, term: str) -> int:
        row = self._store.get(term)
        if len(self) >= FREQUENCIES_KEPT:  # bounded: a long-running daemon sees many distinct terms
            self.clear()
        n = self[term] = (row[0] if row is not None else 0) + self._adjust.get(term, 0)
        return n


class Decoded:
    """A term's decoded postings: chunk ids (the platform's index integer), frequencies (uint8 or float64)
    and, once computed, BM25 weights (float64)."""

    __slots__ = ("cids", "tfs", "weights")

    def __init__(self, cids: Any, tfs: Any) -> None:
        self.cids = cids
        self.tfs = tfs
        self.weights: Any = None

    def nbytes(self) -> int:
        return int(self.cids.nbytes + self.tfs.nbytes + (0 if self.weights is None else self.weights.nbytes))
