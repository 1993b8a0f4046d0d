"""BM25 postings for HardwareRag, stored in the index database and read one query term at a time.

The ``postings`` table holds, per term, the chunk ids and weighted term frequencies of every chunk
indexed when it was written, in the compact format of :mod:`edge_agent.rag.codec` (about 2 bytes a
posting); a query reads only its own terms' rows, and the rows of recent terms stay in memory in that
form, so the resident index is the chunk metadata and the postings questions use, not every posting.
Chunks indexed later (the delta) are kept in memory and chunks removed since (tombstones) are masked,
so changing one file costs one file, not a rebuild; the stored postings are rewritten when the delta
and tombstones pass a fifth of the index. A cold build writes its postings in runs past a fixed size
and merges them term by term, so its memory stays bounded too.

Scoring is BM25 (k1 = 1.2, b = 0.75) with heading tokens counted HEADING_WEIGHT times, multiplied by
the squared share of distinct query terms a chunk contains (coverage), and by the board boost. With
numpy importable and a large index the accumulation is vectorised; otherwise the same arithmetic
runs in Python, skipping (MaxScore-style) the chunks whose weight bounds show they cannot reach the top.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from functools import lru_cache
from itertools import compress, repeat
from operator import add, itemgetter, mul, truediv
from typing import TYPE_CHECKING, Any

from edge_agent.rag import termfilter
from edge_agent.rag.chunktable import ChunkTable, mask_diff
from edge_agent.rag.codec import Decoded, Frequencies, TermStore, decode_np, decode_py, encode_rows
from edge_agent.rag.memo import keep

if TYPE_CHECKING:
    from edge_agent.rag.parse import ParsedFile

K1 = 1.2
B = 0.75
COVERAGE_EXPONENT = 2.0
WEIGHT_CACHE_POSTINGS = 500_000  # pure-Python path: weights kept as dicts for recent query terms
SEED_CHUNKS = 64  # pure-Python path: chunks scored first to set the pruning threshold
FULL_SEED_CHUNKS = 256  # pure-Python path: chunks holding every query term are all seeded up to this many

#: numpy (optional, from the `ml` extra) is used only for indexes this large: below it pure Python is
#: fast enough and importing numpy would cost the runtime ~100 ms and ~25 MB for nothing.
NUMPY_FROM_CHUNKS = 2000
#: The numpy scorer skips the postings that cannot reach the top (edge_agent.rag.prune) from this many chunks.
PRUNE_FROM_CHUNKS = 50_000
_UNSET: Any = object()
_np: Any = _UNSET


@lru_cache(maxsize=64)
def _coverage(np: Any, held: int, nterms: int) -> Any:
    """The coverage factor of a chunk holding 0..`held` of a question's `nterms` terms, by count (read only)."""
    got = (np.arange(held + 1) / nterms) ** COVERAGE_EXPONENT
    got.flags.writeable = False  # shared by every question with these counts
    return got


def sorted_unique(np: Any, values: Any) -> Any:
    """The distinct elements of the 1-d array `values`, ascending, as ``np.unique`` gives them, found without it:
    ``np.unique`` imports ``numpy.ma`` on its first call (to refuse masked arrays), 1.6 MB a process keeps for
    nothing here."""
    got = np.sort(values)
    if len(got) < 2:
        return got
    first = np.empty(len(got), dtype=bool)  # each value's first place in the sorted array
    first[0] = True
    np.not_equal(got[1:], got[:-1], out=first[1:])
    return got.compress(first)


def _numpy() -> Any:
    """The numpy module, or None when it is not installed (imported on first need)."""
    global _np
    if _np is _UNSET:
        try:
            import numpy
        except ImportError:  # the base install
            _np = None
        else:
            _np = numpy
    return _np


#: Postings a cold build holds in memory before it writes them to the database as a run (8 bytes each).
SPILL_POSTINGS = 1_500_000
#: Bytes of postings kept decoded (ids and BM25 weights) between queries, for the most recent terms;
#: the compact rows of many more stay in memory (:data:`edge_agent.rag.codec.KEPT_BYTES`). A term missing
#: here is decoded again from its compact row, which costs little next to scoring it: at 10,000 files, 4 MB
#: instead of 8 kept the query CPU of 300 questions the same and the index's memory growth 4 MiB lower.
TERM_CACHE_BYTES = 4 * 1024 * 1024
#: Postings up to which a term's BM25 weights are kept with its decoded postings (8 bytes each) in an index
#: the pruned scorer answers for; a longer list's weights are computed where needed, so the budget holds the
#: ids of more terms.
KEEP_WEIGHTS_UPTO = 2048


class _TermIds(dict[str, int]):
    """term -> small int, numbering new terms as they come (C-level lookups for the known ones)."""

    def __missing__(self, term: str) -> int:
        n = self[term] = len(self)
        return n


class SnapshotBuilder:
    """Accumulates postings chunk by chunk and writes them to the ``postings`` table (one row per term in
    the compact format of :mod:`edge_agent.rag.codec`). Each chunk appends its term numbers, tfs and id
    to three flat arrays at C speed; grouping by term happens once per run (with numpy when it is
    installed). Past ``spill`` postings a run is written out and the arrays emptied, so a 10,000-file
    build never holds its whole index in memory; :meth:`write` merges the runs term by term."""

    def __init__(self, conn: sqlite3.Connection | None = None, spill: int | None = None) -> None:
        self.ids = array("i")
        self.df: Counter[str] = Counter()  # chunks holding each term, known after write()
        self._terms = _TermIds()
        self._tids = array("i")
        self._cids = array("i")
        self._tfs = array("f")
        self._conn = conn
        self._spill = SPILL_POSTINGS if spill is None else spill
        self._runs = 0
        self._run_rows: list[int] = []  # the first rowid of each run written to postings_run

    def add(self, cid: int, tfs: dict[str, float]) -> None:
        self.ids.append(cid)
        # (from lists: an array filled from a list is sized once, from an iterator item by item)
        self._tids.fromlist(list(map(self._terms.__getitem__, tfs)))
        self._tfs.fromlist(list(tfs.values()))
        self._cids.fromlist([cid] * len(tfs))
        if self._conn is not None and len(self._tids) >= self._spill:
            self._write_run(self._conn, "postings_run")

    def add_file(self, first: int, parsed: ParsedFile) -> None:
        """Add the chunks of one parsed file, numbered from `first`."""
        n = len(parsed.sections)
        self.ids.extend(range(first, first + n))
        gids = array("i", map(self._terms.__getitem__, parsed.terms))  # the file's term numbers -> the build's
        self._tfs.frombytes(parsed.tfs)
        np = _numpy()
        if np is not None:
            local = np.frombuffer(parsed.tids, dtype=np.int32)
            self._tids.frombytes(np.frombuffer(gids, dtype=np.int32)[local].tobytes())
            sizes = np.frombuffer(parsed.sizes, dtype=np.int32)
            self._cids.frombytes(np.repeat(np.arange(first, first + n, dtype=np.int32), sizes).tobytes())
        else:
            local_ids = array("i")
            local_ids.frombytes(parsed.tids)
            self._tids.extend(map(gids.__getitem__, local_ids))
            sizes_list = array("i")
            sizes_list.frombytes(parsed.sizes)
            for k, size in enumerate(sizes_list):
                self._cids.extend(repeat(first + k, size))
        if self._conn is not None and len(self._tids) >= self._spill:
            self._write_run(self._conn, "postings_run")

    def _grouped(self) -> Iterator[tuple[str, bytes, bytes]]:
        """(term, chunk ids, tfs) of the held postings in term order (so the rows append to the table's
        B-tree instead of splitting pages all over it), chunk ids ascending within a term."""
        names = list(self._terms)
        by_name = sorted(range(len(names)), key=names.__getitem__)
        np = _numpy()
        if np is not None:
            rank = np.empty(len(names), dtype=np.int32)
            rank[np.asarray(by_name, dtype=np.int64)] = np.arange(len(names), dtype=np.int32)
            keys = rank[np.frombuffer(self._tids, dtype=np.int32)]
            order = np.argsort(keys, kind="stable")  # stable: chunk ids stay in the order they were added
            total = len(order)
            cids = np.frombuffer(self._cids, dtype=np.int32)[order].tobytes()
            tfs = np.frombuffer(self._tfs, dtype=np.float32)[order].tobytes()
            sorted_keys = keys[order]
            del keys, order
            starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]) if total else []
            bounds = [*(4 * int(x) for x in starts), 4 * total]  # byte offsets: 4 bytes per id and per tf
            term_at = [names[by_name[k]] for k in sorted_keys[starts].tolist()] if total else []
            df = self.df
            for name, lo, hi in zip(term_at, bounds, bounds[1:], strict=False):
                df[name] += (hi - lo) >> 2
                yield name, cids[lo:hi], tfs[lo:hi]
            return
        by_term: dict[int, tuple[array[int], array[float]]] = {}
        for tid, cid, tf in zip(self._tids, self._cids, self._tfs, strict=True):
            got = by_term.get(tid)
            if got is None:
                got = by_term[tid] = (array("i"), array("f"))
            got[0].append(cid)
            got[1].append(tf)
        for tid in by_name:
            if tid in by_term:
                c, f = by_term[tid]
                self.df[names[tid]] += len(c)
                yield names[tid], c.tobytes(), f.tobytes()

    def _write_run(self, conn: sqlite3.Connection, table: str) -> None:
        if table == "postings":
            conn.executemany("INSERT INTO postings VALUES (?, ?, ?, ?)", encode_rows(_numpy(), self._grouped()))
        else:  # runs stay raw until they are merged
            self._run_rows.append(conn.execute("SELECT coalesce(max(rowid), 0) + 1 FROM postings_run").fetchone()[0])
            conn.executemany("INSERT INTO postings_run VALUES (?, ?, ?, ?)",
                             ((t, self._runs, c, f) for t, c, f in self._grouped()))
            self._runs += 1
        self._tids, self._cids, self._tfs = array("i"), array("i"), array("f")

    def write(self, conn: sqlite3.Connection) -> None:
        """Replace the stored postings with these; :attr:`df` then holds every term's chunk count."""
        conn.execute("DELETE FROM postings")
        if not self._runs:
            self._write_run(conn, "postings")
        else:
            self._write_run(conn, "postings_run")
            # each run's rows are in term order, one rowid range per run: merged as they are read, instead
            # of SQLite sorting every raw posting of the build by term
            ends = [*self._run_rows[1:], None]
            rows = heapq.merge(*(conn.cursor().execute(
                "SELECT term, cids, tfs FROM postings_run WHERE rowid >= ?" + (" AND rowid < ?" if end else ""),
                (start, end) if end else (start,)) for start, end in zip(self._run_rows, ends, strict=True)),
                key=itemgetter(0))  # equal terms come in run order (the order of the iterables): ids ascending

            def merged() -> Iterator[tuple[str, bytes, bytes]]:
                term, cids, tfs = None, [], []
                for t, c, f in rows:
                    if t != term and term is not None:
                        yield term, b"".join(cids), b"".join(tfs)
                        cids, tfs = [], []
                    term = t
                    cids.append(c)
                    tfs.append(f)
                if term is not None:
                    yield term, b"".join(cids), b"".join(tfs)

            conn.executemany("INSERT INTO postings (term, n, ids, tfs) VALUES (?, ?, ?, ?)",
                             encode_rows(_numpy(), merged()))
            conn.execute("DELETE FROM postings_run")
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('snapshot_ids', ?)", (self.ids.tobytes(),))
        termfilter.write(conn, self.df, self.ids.tobytes(), _numpy())
        self._terms = _TermIds()


class Postings:
    """Term -> (chunk ids, weighted tf) with chunk metadata; answers top-k BM25 queries."""

    def __init__(self, base: TermStore, base_ids: bytearray, delta: dict[int, dict[str, float]], live: ChunkTable,
                 df_adjust: Mapping[str, int], tomb: set[int] | None = None) -> None:
        """`base_ids`: the chunks the stored postings cover (see :func:`id_mask`); `df_adjust`: see
        :class:`Frequencies`; `tomb`: those no longer live, when the caller knows them already."""
        self._base = base
        self._w_cache: dict[str, tuple[dict[int, float], float]] = {}
        self._w_cached = 0
        self.meta = live  # cid -> (rel, idx, board, dl)
        self.tomb = set(mask_diff(base_ids, live.live_flags())) if tomb is None else tomb
        self.df = Frequencies(base, df_adjust)  # chunks holding each term, read with its row
        self.n = len(live)
        # term -> (chunk ids, frequencies) of the delta, as two flat arrays: a library's refreshed files hold
        # thousands of postings each, which as a (chunk id, frequency) tuple apiece cost about 90 bytes instead of 12
        self._delta: dict[str, tuple[array[int], array[float]]] = {}
        for cid, tfs in delta.items():
            for term, tf in tfs.items():
                got = self._delta.get(term)
                if got is None:
                    got = self._delta[term] = (array("i"), array("d"))
                got[0].append(cid)
                got[1].append(tf)
        files, board_nos, dls = live.arrays()
        self._avgdl = (sum(compress(dls, live.live_flags())) / self.n) if self.n else 1.0
        self._size = max(len(files), len(base_ids), 1)
        self._board_tags = live.boards()
        self._board_ids: dict[str, list[int]] = {}
        self._py: tuple[dict[int, float], list[float], list[int]] | None = None
        self._np_norm: Any = None
        np = _numpy() if self.n >= NUMPY_FROM_CHUNKS else None
        if np is not None:
            # the pure-Python formula K1 * (1 - B + B * dl / avgdl), element-wise in the same order
            dl = np.zeros(self._size, dtype=np.float64)
            dl[:len(dls)] = np.frombuffer(dls, dtype=np.float64)
            alive = np.zeros(self._size, dtype=bool)
            alive[:len(files)] = np.frombuffer(files, dtype=np.int32) >= 0
            self._np_norm = np.where(alive, K1 * (1 - B + B * dl / self._avgdl), K1)
            self._np_tomb = np.fromiter(self.tomb, dtype=np.int64, count=len(self.tomb))
            self._np_board_nos = np.frombuffer(board_nos, dtype=np.int32).copy()  # the table must stay growable
            self._np_alive = alive[:len(files)]
            self._np_live = alive  # by chunk id, up to the largest id the stored postings hold
            self._board_np: dict[str, Any] = {}
            self._np_terms: OrderedDict[str, Decoded] = OrderedDict()  # decoded postings, recent first
            self._np_bytes = 0
            self._bounds: dict[str, float] = {}  # each term's largest weight (a float per term: kept longer)
            self._min_norm: float | None = None
            self._cache_limit = TERM_CACHE_BYTES
            self._npmod = np

    def boards(self) -> frozenset[str]:
        """Board tags of the indexed chunks (the set these postings hold, not a copy: at 10,000 part files a copy
        for each caller took 0.13 ms, and one kept by the search 0.5 MB)."""
        return self._board_tags

    def _norms(self) -> tuple[dict[int, float], list[float], list[int]]:
        """The pure-Python path's per-chunk length norms (dict and list by chunk id) and shared int keys,
        built on first use: an index scored with numpy never holds them."""
        if self._py is None:
            avgdl = self._avgdl
            norm = {cid: K1 * (1 - B + B * m[3] / avgdl) for cid in self.meta.ids() for m in (self.meta[cid],)}
            norm_list = [K1] * self._size
            for cid, value in norm.items():
                norm_list[cid] = value
            self._py = (norm, norm_list, list(range(self._size)))
        return self._py

    def board_chunk_ids(self, board: str) -> list[int]:
        """Live chunk ids of one board, ascending (cached per board)."""
        return self._chunks_of(board)

    def _chunks_of(self, board: str) -> list[int]:
        """Live chunk ids of one board (cached per board: queries name few)."""
        got = self._board_ids.get(board)
        if got is None:
            n = self.meta.board_number(board)
            files, board_nos, _ = self.meta.arrays()
            got = [] if n is None else list(compress(range(len(files)), (
                f >= 0 and b == n for f, b in zip(files, board_nos, strict=True))))
            keep(self._board_ids, board, got)
        return got

    # --- querying ---------------------------------------------------------------------------------

    def _term(self, term: str) -> tuple[list[int], list[float]]:
        """A term's stored chunk ids and frequencies, decoded from its kept compact row."""
        row = self._base.get(term)
        return decode_py(row) if row is not None else ([], [])

    def top(self, terms: list[str], boosts: dict[str, float], limit: int) -> list[tuple[float, str, int, int]]:
        """Best `limit` chunks as (score, rel, idx, chunk id), best first; ties by path, then position."""
        return self.top_with_own(terms, boosts, limit)[0]

    def top_with_own(self, terms: list[str], boosts: dict[str, float], limit: int, own: int = 0,
                     of: Collection[str] | None = None
                     ) -> tuple[list[tuple[float, str, int, int]], list[tuple[float, str, int, int]]]:
        """:meth:`top`, and when fewer than `own` of those are chunks of the boosted boards `of` (all of them when
        None), the best `own` of their chunks holding a query term that are not among them, scored and ordered
        the same way: a board's own sections, however many chunks of other boards rank above them. The pruned
        scorer has scored every boosted chunk already; the others score only the boosted boards' chunks again."""
        live_terms = [t for t in terms if self.df[t] > 0]
        if not live_terms or limit <= 0:
            return [], []
        boards = {b: f for b, f in boosts.items() if f != 1.0}
        mine: list[tuple[int, float]] | None = None
        scored_own: Callable[[], list[tuple[int, float]]] | None = None
        if self._np_norm is not None:
            from edge_agent.rag.prune import top_pruned_own

            # below PRUNE_FROM_CHUNKS, adding up every posting costs less than finding what can be skipped
            got = (top_pruned_own(self, live_terms, len(terms), boards, limit, own + limit, of)
                   if self.n >= PRUNE_FROM_CHUNKS else None)
            if got is None:
                scored, scored_own = self._scores_np_own(live_terms, len(terms), boards, limit)
            else:
                scored, mine = got
        else:
            scored = self._scores_py(live_terms, len(terms), boards, limit)
        meta = self.meta
        picked = [(-s, m[0], m[1], cid) for cid, s in scored for m in (meta[cid],)]
        picked.sort()
        best = [(-neg, rel, idx, cid) for neg, rel, idx, cid in picked[:limit]]
        wanted = boards.keys() if of is None else boards.keys() & set(of)
        if own <= 0 or not wanted:
            return best, []
        board_of = meta.board_of
        if sum(1 for *_, cid in best if board_of(cid) in wanted) >= own:
            return best, []
        if mine is None:
            mine = scored_own() if scored_own is not None else self._scores_of(live_terms, len(terms), boards)
        taken = {cid for *_, cid in best}
        more = heapq.nsmallest(own, ((-s, m[0], m[1], cid) for cid, s in mine
                                     if cid not in taken and board_of(cid) in wanted for m in (meta[cid],)))
        return best, [(-neg, rel, idx, cid) for neg, rel, idx, cid in more]

    def _scores_of(self, terms: list[str], nterms: int, boards: dict[str, float]) -> list[tuple[int, float]]:
        """(chunk id, rounded score) of every chunk of `boards` holding one of `terms`, as :meth:`top` scores it."""
        if self._np_norm is not None:
            from edge_agent.rag.prune import exact_scores

            np = self._npmod
            ids = self._boards_chunks_np(boards)
            raw, cnt = exact_scores(self, ids, terms, [self.term_postings(t) for t in terms], nterms, boards)
            held = cnt > 0
            return list(zip(ids[held].tolist(), np.round(raw[held], 9).tolist(), strict=True))
        from edge_agent.rag.maxscore import scores_of

        return scores_of(self, terms, nterms, boards, sorted({cid for b in boards for cid in self._chunks_of(b)}))

    def has(self, term: str, cid: int) -> bool:
        """Whether chunk `cid` holds `term`."""
        if self.df[term] <= 0:
            return False
        if self._np_norm is not None:  # binary search in the term's chunk ids (ascending, delta included)
            ids = self.term_postings(term)[0]
            at = int(ids.searchsorted(cid))
            return at < len(ids) and int(ids[at]) == cid and cid not in self.tomb
        return cid in self._term_weights(term)[0]

    def holding(self, term: str, cids: list[int]) -> set[int]:
        """The chunks among `cids` that hold `term` (as :meth:`has` for each, in one search of the term's ids)."""
        if self.df[term] <= 0:
            return set()
        if self._np_norm is not None:
            ids = self.term_postings(term)[0]
            if not len(ids):
                return set()
            want = self._npmod.asarray(cids, dtype=ids.dtype)
            # a chunk past the last id is read at the last one (`clip`), which differs from it
            found = want[ids.take(ids.searchsorted(want), mode="clip") == want].tolist()
            tomb = self.tomb
            return {cid for cid in found if cid not in tomb} if tomb else set(found)
        weights = self._term_weights(term)[0]
        return {cid for cid in cids if cid in weights}

    def chunks_holding(self, term: str) -> list[int]:
        """The live chunks that hold `term`, ascending."""
        if self.df[term] <= 0:
            return []
        ids = self.term_postings(term)[0].tolist() if self._np_norm is not None else sorted(self._term_weights(term)[0])
        return [cid for cid in ids if cid not in self.tomb]

    def _idf(self, term: str, n: int) -> float:
        df = self.df[term]
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def _term_weights(self, term: str) -> tuple[dict[int, float], float]:
        """Chunk id -> BM25 weight of `term` (snapshot and delta) and its largest weight; cached for this
        index state, bounded by the postings held."""
        got = self._w_cache.get(term)
        if got is None:
            cids, tfs = self._term(term)
            norm, norm_list, ints = self._norms()
            idfk = self._idf(term, self.n) * (K1 + 1.0)
            # idfk * tf / (tf + norm): the numpy path's operations in its order (identical scores), as C-level maps
            weights = map(truediv, map(mul, repeat(idfk), tfs), map(add, tfs, map(norm_list.__getitem__, cids)))
            # keys through the shared int objects of `ints`: no fresh int per cached posting
            wd = dict(zip(map(ints.__getitem__, cids), weights, strict=True))
            for cid, tf in zip(*self._delta.get(term, ((), ())), strict=True):
                wd[cid] = idfk * tf / (tf + norm[cid])
            if self._w_cached + len(wd) > WEIGHT_CACHE_POSTINGS:
                self._w_cache.clear()
                self._w_cached = 0
            self._w_cached += len(wd)
            got = self._w_cache[term] = (wd, max(wd.values(), default=0.0))
        return got

    def _scores_py(self, terms: list[str], nterms: int, boards: dict[str, float], limit: int
                   ) -> list[tuple[int, float]]:
        from edge_agent.rag.maxscore import top_python

        return top_python(self, terms, nterms, boards, limit)

    # --- numpy helpers of the pruned scorer (edge_agent.rag.prune) -----------------------------------

    def _entry(self, term: str) -> Decoded:
        cache = self._np_terms
        got = cache.get(term)
        if got is not None:
            cache.move_to_end(term)
            return got
        np = self._npmod
        row = self._base.get(term)
        # ids as the index integer (intp): numpy converts any other integer array to it each time one indexes an
        # array, and the scorers index by chunk id and by position all the time
        cids, tfs = decode_np(np, row, np.intp) if row is not None else (np.zeros(0, dtype=np.intp), np.zeros(0))
        delta = self._delta.get(term)
        if delta:
            cids = np.concatenate([cids, np.asarray(delta[0], dtype=np.intp)])
            tfs = np.concatenate([tfs, np.asarray(delta[1], dtype=np.float64)])
            if len(cids) > 1 and not bool((cids[1:] > cids[:-1]).all()):
                order = np.argsort(cids, kind="stable")
                cids, tfs = cids[order], tfs[order]
        got = Decoded(cids, tfs)
        self._keep(term, got, got.nbytes())
        return got

    def _keep(self, term: str, entry: Decoded, size: int) -> None:
        """Keep (or grow) a decoded entry, dropping the least recent ones past TERM_CACHE_BYTES."""
        cache = self._np_terms
        while cache and self._np_bytes + size > self._cache_limit:
            _, old = cache.popitem(last=False)
            self._np_bytes -= old.nbytes()
        cache[term] = entry
        self._np_bytes += size

    def term_postings(self, term: str) -> tuple[Any, Any]:
        """A term's chunk ids (ascending, tombstones included: the stored postings, then the delta, whose
        chunks have larger ids) and weighted frequencies. Kept decoded for recent terms up to
        TERM_CACHE_BYTES, and in the compact stored form for many more (see :class:`TermStore`)."""
        got = self._entry(term)
        return got.cids, got.tfs

    def term_weights(self, term: str) -> tuple[Any, Any]:
        """A term's chunk ids (as :meth:`term_postings`) and its BM25 weight in each, computed with the
        exhaustive scorer's operations (kept with the decoded postings once computed)."""
        got = self._entry(term)
        if got.weights is not None:
            return got.cids, got.weights
        weights = self.idf_k(term) * got.tfs / (got.tfs + self._np_norm[got.cids])
        if self.n >= PRUNE_FROM_CHUNKS:  # the largest weight bounds what the term adds, for the pruned scorer only
            self._bound(term, weights)
        if len(weights) <= KEEP_WEIGHTS_UPTO or self.n < PRUNE_FROM_CHUNKS:  # the exhaustive scorer adds them all
            got.weights = weights
            if self._np_terms.get(term) is got:
                self._np_bytes += weights.nbytes
        return got.cids, weights

    def weights_at(self, term: str, pos: Any, norms: Any = None) -> Any:
        """The BM25 weights of a term's postings at positions `pos`, each computed as :meth:`term_weights`
        computes it (the same operations element by element, so the same values). `norms`, when given, are the
        length norms of the chunks at `pos`, read once by a caller that scores the same chunks against every
        term."""
        got = self._entry(term)
        if got.weights is not None:
            return got.weights[pos]
        tfs = got.tfs[pos]
        return self.idf_k(term) * tfs / (tfs + (self._np_norm[got.cids[pos]] if norms is None else norms))

    def _bound(self, term: str, weights: Any) -> float:
        if term not in self._bounds:
            if len(self._bounds) > 200_000:  # bounded: a long-running daemon sees many distinct terms
                self._bounds.clear()
            self._bounds[term] = float(weights.max()) if len(weights) else 0.0
        return self._bounds[term]

    def idf_k(self, term: str) -> float:
        """The factor idf x (K1 + 1) of a term's weights, as the exhaustive scorer computes it."""
        return self._idf(term, self.n) * (K1 + 1.0)

    def max_weight(self, term: str) -> float:
        """The largest weight `term` has in any chunk (an upper bound of what it adds to a score); kept
        longer than the postings. A long list's weights are computed for it and not kept."""
        got = self._bounds.get(term)
        if got is None:
            entry = self._entry(term)
            weights = entry.weights if entry.weights is not None else (
                self.idf_k(term) * entry.tfs / (entry.tfs + self._np_norm[entry.cids]))
            got = self._bound(term, weights)
        return got

    def weight_bound(self, term: str) -> tuple[float, bool]:
        """An upper bound of what `term` adds to a score, and whether it is :meth:`max_weight` itself: else
        its largest frequency against the shortest length norm of any chunk (a pass over the frequencies,
        not over the chunks' norms), a little above it."""
        got = self._bounds.get(term)
        if got is not None:
            return got, True
        tfs = self._entry(term).tfs
        if not len(tfs):
            return 0.0, True
        if self._min_norm is None:
            self._min_norm = float(self._np_norm.min())
        top = float(tfs.max())
        return self.idf_k(term) * top / (top + self._min_norm) * (1.0 + 1e-12), False

    def _boards_chunks_np(self, boards: Iterable[str]) -> Any:
        """Live chunk ids of any of `boards`, ascending and each once."""
        np = self._npmod
        return sorted_unique(np, np.concatenate([np.zeros(0, dtype=np.int64), *map(self.board_chunks_np, boards)]))

    def board_chunks_np(self, board: str) -> Any:
        """Live chunk ids of a board, ascending (cached)."""
        got = self._board_np.get(board)
        if got is None:
            np = self._npmod
            number = self.meta.board_number(board)
            got = (np.zeros(0, dtype=np.int64) if number is None else
                   np.flatnonzero((self._np_board_nos == number) & self._np_alive).astype(np.int64))
            keep(self._board_np, board, got)
        return got

    def _scores_np(self, terms: list[str], nterms: int, boards: dict[str, float], limit: int
                   ) -> list[tuple[int, float]]:
        return self._scores_np_own(terms, nterms, boards, limit)[0]

    def _scores_np_own(self, terms: list[str], nterms: int, boards: dict[str, float], limit: int
                       ) -> tuple[list[tuple[int, float]], Callable[[], list[tuple[int, float]]]]:
        """:meth:`_scores_np`, and what :meth:`_scores_of` gives for the same question, read when called from the
        scores of every chunk computed here (the same operations in the same order: the same values) instead of
        scoring the boosted boards' chunks again."""
        np = self._npmod
        assert self._np_norm is not None
        size = len(self._np_norm)
        lists = [self.term_weights(term) for term in terms]
        # One pass over every posting: bincount adds each chunk's weights in the order given, query-term
        # order here, from 0.0, which is the order (and so the float sum) of adding term after term.
        ids = lists[0][0] if len(lists) == 1 else np.concatenate([c for c, _ in lists])
        acc = np.bincount(ids, lists[0][1] if len(lists) == 1 else np.concatenate([w for _, w in lists]),
                          minlength=size)
        cnt = np.bincount(ids, minlength=size)
        if len(self._np_tomb):
            cnt[self._np_tomb] = 0
        # Scores over the whole table: on a large share of chunks holding a term, picking the holders out first
        # (a dense nonzero, then reading both tables at it) costs more than these passes. Every query term's weight
        # is > 0, so a chunk scores > 0 exactly when it holds one (coverage 0 zeroes the others, tombstones too).
        # The passes work in place where they can: each fresh table of a chunk's worth is a fresh allocation the
        # allocator may have handed back to the system since the last question (page faults on every search).
        acc *= _coverage(np, len(terms), nterms).take(cnt)
        raw = acc
        for board, boost in boards.items():  # a board's chunks by id: a few against a pass over every chunk
            raw[self.board_chunks_np(board)] *= boost
        if int(np.count_nonzero(cnt)) > 4 * limit + 64:
            # Round only near the top: rounding to 9 places moves a score by at most 5e-10, so every chunk
            # whose rounded score reaches the limit-th rounded score is within 1e-9 of the limit-th raw one.
            # That score is at least the limit-th of the chunks holding the most terms (found first: few).
            most = np.compress(cnt >= max(int(cnt.max()) - 1, 1), raw)
            if len(most) < limit:
                hit = np.flatnonzero(cnt)
            else:
                floor = np.partition(most, len(most) - limit)[len(most) - limit] - 1e-9
                # a chunk holding no term scores 0 (coverage 0): above a floor > 0 are only chunks holding one
                hit = np.flatnonzero(raw >= floor) if floor > 0.0 else np.flatnonzero((cnt > 0) & (raw >= floor))
            if len(hit) > 4 * limit + 64:
                top = raw[hit]
                floor = np.partition(top, len(top) - limit)[len(top) - limit] - 1e-9
                hit = hit[top >= floor]
        else:
            hit = np.flatnonzero(cnt)
        vals = np.round(raw[hit], 9)
        if len(hit) > limit:
            cutoff = np.partition(vals, len(vals) - limit)[len(vals) - limit]
            above = vals >= cutoff
            hit, vals = hit[above], vals[above]

        def own() -> list[tuple[int, float]]:
            mine = self._boards_chunks_np(boards)
            mine = mine[cnt[mine] > 0]
            return list(zip(mine.tolist(), np.round(raw[mine], 9).tolist(), strict=True))

        return list(zip(hit.tolist(), vals.tolist(), strict=True)), own
