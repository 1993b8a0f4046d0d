"""In-memory BM25 postings for HardwareRag, persisted as a snapshot plus deltas.

The snapshot holds, per term, the chunk ids and weighted term frequencies of every chunk indexed at
the time it was written. Chunks indexed later (the delta) are read individually at start-up and
chunks removed since (tombstones) are masked, so changing one file costs one file, not a rebuild.
The snapshot is rewritten when the delta and tombstones pass a fifth of the index.

Scoring is BM25 (k1 = 1.2, b = 0.75) with heading tokens counted HEADING_WEIGHT times, multiplied by
the squared share of distinct query terms a chunk contains (coverage), and by the board boost. With
numpy importable and a large index the accumulation is vectorised; otherwise the same arithmetic
runs in Python.
"""

from __future__ import annotations

import heapq
import marshal
import math
from array import array
from collections import Counter
from collections.abc import Iterable
from typing import Any

K1 = 1.2
B = 0.75
COVERAGE_EXPONENT = 2.0
WEIGHT_CACHE_TERMS = 256  # pure-Python path: per-term weights kept for recent query terms
ChunkMeta = tuple[str, int, "str | None", float]  # (source path, chunk position, board, weighted length)

#: numpy (optional, from the `ml` extra) is used only for indexes this large: below it pure Python is
#: fast enough and importing numpy would cost the runtime ~100 ms and ~25 MB for nothing.
NUMPY_FROM_CHUNKS = 2000
_UNSET: Any = object()
_np: Any = _UNSET


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


class SnapshotBuilder:
    """Accumulates postings chunk by chunk in compact arrays (4 bytes per entry), then serialises them."""

    def __init__(self) -> None:
        self.ids = array("i")
        self.metas: list[ChunkMeta] = []
        self.terms: dict[str, tuple[array[int], array[float]]] = {}

    def add(self, cid: int, meta: ChunkMeta, tfs: dict[str, float]) -> None:
        self.ids.append(cid)
        self.metas.append(meta)
        terms = self.terms
        for term, tf in tfs.items():
            entry = terms.get(term)
            if entry is None:
                entry = terms[term] = (array("i"), array("f"))
            entry[0].append(cid)
            entry[1].append(tf)

    def blob(self) -> bytes:
        terms = {t: (c.tobytes(), f.tobytes()) for t, (c, f) in self.terms.items()}
        return marshal.dumps({"ids": self.ids.tobytes(), "meta": self.metas, "terms": terms})


class Postings:
    """Term -> (chunk ids, weighted tf) with chunk metadata; answers top-k BM25 queries."""

    def __init__(self, base: dict[str, tuple[bytes, bytes]], base_ids: set[int],
                 delta: dict[int, dict[str, float]], live: dict[int, tuple[str, int, str | None, float]],
                 df: Counter[str]) -> None:
        self._base = base
        self._decoded: dict[str, tuple[array[int], array[float]]] = {}
        self._weight_cache: dict[str, tuple[array[int], array[float], set[int]]] = {}
        self.meta = live  # cid -> (rel, idx, board, dl)
        self.tomb = base_ids - set(live)
        self.df = df
        self.n = len(live)
        self._delta: dict[str, list[tuple[int, float]]] = {}
        for cid, tfs in delta.items():
            for term, tf in tfs.items():
                self._delta.setdefault(term, []).append((cid, tf))
        avgdl = (sum(m[3] for m in live.values()) / self.n) if self.n else 1.0
        self._norm = {cid: K1 * (1 - B + B * m[3] / avgdl) for cid, m in live.items()}
        self._by_board: dict[str | None, list[int]] = {}
        for cid, m in live.items():
            self._by_board.setdefault(m[2], []).append(cid)
        self._np_norm = None
        np = _numpy() if len(live) >= NUMPY_FROM_CHUNKS else None
        if np is not None and live:
            size = max(max(live), max(base_ids, default=0)) + 1
            norm = np.full(size, K1, dtype=np.float64)
            for cid, value in self._norm.items():
                norm[cid] = value
            self._np_norm = norm
            self._np_tomb = np.fromiter(self.tomb, dtype=np.int64, count=len(self.tomb))
            self._np_boards = {b: np.array(ids, dtype=np.int64) for b, ids in self._by_board.items() if b}
            self._npmod = np

    def boards(self) -> set[str]:
        """Board tags of the indexed chunks."""
        return {b for b in self._by_board if b}

    # --- snapshot (de)serialisation -------------------------------------------------------------

    @staticmethod
    def build_snapshot(chunks: Iterable[tuple[int, ChunkMeta, dict[str, float]]]) -> bytes:
        """Serialise (chunk id, (rel, idx, board, dl), {term: weighted tf}) triples."""
        builder = SnapshotBuilder()
        for cid, meta, tfs in chunks:
            builder.add(cid, meta, tfs)
        return builder.blob()

    @staticmethod
    def read_snapshot(blob: bytes) -> tuple[dict[str, tuple[bytes, bytes]], dict[int, ChunkMeta]]:
        """Postings and chunk metadata from a snapshot."""
        data = marshal.loads(blob)
        ids = array("i")
        ids.frombytes(data["ids"])
        return data["terms"], dict(zip(ids, data["meta"], strict=True))

    # --- querying ---------------------------------------------------------------------------------

    def _term(self, term: str) -> tuple[array[int], array[float]]:
        got = self._decoded.get(term)
        if got is None:
            raw = self._base.get(term)
            cids, tfs = array("i"), array("f")
            if raw is not None:
                cids.frombytes(raw[0])
                tfs.frombytes(raw[1])
            got = self._decoded[term] = (cids, tfs)
        return got

    def top(self, terms: list[str], boosts: dict[str, float], limit: int) -> list[tuple[float, str, int, int]]:
        """Best `limit` chunks as (score, rel, idx, chunk id), best first; ties by path, then position."""
        live_terms = [t for t in terms if self.df.get(t, 0) > 0]
        if not live_terms or limit <= 0:
            return []
        boards = {b: f for b, f in boosts.items() if f != 1.0}
        if self._np_norm is not None:
            scored = self._scores_np(live_terms, len(terms), boards, limit)
        else:
            scored = self._scores_py(live_terms, len(terms), boards, limit)
        picked = [(-s, self.meta[cid][0], self.meta[cid][1], cid) for cid, s in scored]
        picked.sort()
        return [(-neg, rel, idx, cid) for neg, rel, idx, cid in picked[:limit]]

    def _idf(self, term: str, n: int) -> float:
        df = self.df[term]
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def _weights(self, term: str) -> tuple[array[int], array[float], set[int]]:
        """BM25 weight of `term` in each chunk of the snapshot (cached per term for this index state)."""
        got = self._weight_cache.get(term)
        if got is None:
            cids, tfs = self._term(term)
            idf = self._idf(term, self.n) * (K1 + 1.0)
            norm = self._norm
            weights = array("d", [idf * tf / (tf + norm.get(cid, K1)) for cid, tf in zip(cids, tfs, strict=True)])
            if len(self._weight_cache) >= WEIGHT_CACHE_TERMS:
                self._weight_cache.clear()
            got = self._weight_cache[term] = (cids, weights, set(cids))
        return got

    def _scores_py(self, terms: list[str], nterms: int, boards: dict[str, float], limit: int
                   ) -> list[tuple[int, float]]:
        # Accumulate raw BM25 (largest posting list first, as one C-level dict build), then walk the
        # candidates from the best raw score down: coverage can only lower a score, so the walk stops
        # once a raw score falls below the current limit-th final score.
        per_term = sorted((self._weights(t) for t in terms), key=lambda w: -len(w[0]))
        scores: dict[int, float] = dict(zip(per_term[0][0], per_term[0][1], strict=True))
        for cids, weights, _ in per_term[1:]:
            get = scores.get
            for cid, w in zip(cids, weights, strict=True):
                scores[cid] = get(cid, 0.0) + w
        idf_k = K1 + 1.0
        delta_sets: list[set[int]] = []
        for term in terms:
            hits = self._delta.get(term, ())
            delta_sets.append({cid for cid, _ in hits})
            idf = self._idf(term, self.n) * idf_k
            for cid, tf in hits:
                scores[cid] = scores.get(cid, 0.0) + idf * tf / (tf + self._norm[cid])
        for cid in self.tomb:
            scores.pop(cid, None)
        for board, boost in boards.items():
            for cid in self._by_board.get(board, ()):
                if cid in scores:
                    scores[cid] *= boost
        sets = [w[2] for w in per_term]
        best: list[tuple[int, float]] = []
        heap: list[float] = []  # the `limit` best final scores so far (min-heap)
        for cid in sorted(scores, key=scores.__getitem__, reverse=True):
            raw = scores[cid]
            if len(heap) >= limit and raw < heap[0]:
                break
            covered = sum(1 for st in sets if cid in st) + sum(1 for st in delta_sets if cid in st)
            final = round(raw * (covered / nterms) ** COVERAGE_EXPONENT, 9)
            best.append((cid, final))
            if len(heap) < limit:
                heapq.heappush(heap, final)
            elif final > heap[0]:
                heapq.heapreplace(heap, final)
        kth = heap[0] if len(heap) >= limit else float("-inf")
        return [(cid, f) for cid, f in best if f >= kth]

    def _scores_np(self, terms: list[str], nterms: int, boards: dict[str, float], limit: int
                   ) -> list[tuple[int, float]]:
        np = self._npmod
        assert self._np_norm is not None
        norm = self._np_norm
        size = len(norm)
        acc = np.zeros(size, dtype=np.float64)
        cnt = np.zeros(size, dtype=np.float64)
        n = self.n
        k1p = K1 + 1.0
        for term in terms:
            idf = self._idf(term, n) * k1p
            raw = self._base.get(term)
            if raw is not None:
                cids = np.frombuffer(raw[0], dtype=np.int32)
                tfs = np.frombuffer(raw[1], dtype=np.float32).astype(np.float64)
                acc[cids] += idf * tfs / (tfs + norm[cids])
                cnt[cids] += 1.0
            for cid, tf in self._delta.get(term, ()):
                acc[cid] += idf * tf / (tf + norm[cid])
                cnt[cid] += 1.0
        if len(self._np_tomb):
            cnt[self._np_tomb] = 0.0
        acc *= (cnt / nterms) ** COVERAGE_EXPONENT
        for board, boost in boards.items():
            ids = self._np_boards.get(board)
            if ids is not None:
                acc[ids] *= boost
        hit = np.flatnonzero(cnt)
        vals = np.round(acc[hit], 9)
        if len(hit) > limit:
            cutoff = np.partition(vals, len(vals) - limit)[len(vals) - limit]
            keep = vals >= cutoff
            hit, vals = hit[keep], vals[keep]
        return list(zip(hit.tolist(), vals.tolist(), strict=True))
