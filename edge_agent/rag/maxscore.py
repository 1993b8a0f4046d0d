"""Exact top-k BM25 in pure Python (the base install, or an index too small for numpy), skipping the
chunks whose weight bounds show they cannot reach the top (MaxScore, term at a time).

Scores are computed with the numpy scorer's operations in its order (weights added in query order, then
coverage, then each board's boost), so both return the same chunks with the same scores.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from itertools import chain, compress, filterfalse, islice, repeat
from operator import countOf, ge, mul
from typing import TYPE_CHECKING

from edge_agent.rag.postings import COVERAGE_EXPONENT, FULL_SEED_CHUNKS, SEED_CHUNKS

if TYPE_CHECKING:
    from edge_agent.rag.postings import Postings


def _scorer(wds: list[dict[int, float]], nterms: int, boost_of: dict[int, float]
            ) -> Callable[[list[int]], list[float]]:
    """The rounded final scores of chunks, from each query term's weights `wds` (query order), the number of
    query terms `nterms` (coverage) and each boosted chunk's boost."""
    coverage = [((len(wds) - missing) / nterms) ** COVERAGE_EXPONENT for missing in range(len(wds) + 1)]

    def score(cids: list[int]) -> list[float]:
        # column-wise at C speed; a missing term reads as 0.0, which leaves the query-order sum unchanged,
        # and every present weight is > 0, so the zeros in a row count the terms the chunk misses
        rows = list(zip(*[map(wd.get, cids, repeat(0.0)) for wd in wds], strict=True))
        raws = map(sum, rows)
        missing = map(countOf, rows, repeat(0.0))  # terms a chunk lacks, indexing `coverage` below
        finals = map(mul, raws, map(coverage.__getitem__, missing))
        if boost_of:
            finals = map(mul, finals, map(boost_of.get, cids, repeat(1.0)))
        return list(map(round, finals, repeat(9)))

    return score


def scores_of(p: Postings, terms: list[str], nterms: int, boards: dict[str, float], cids: list[int]
              ) -> list[tuple[int, float]]:
    """(chunk id, rounded score) of each of `cids` holding a query term, as :func:`top_python` scores it."""
    wds = [p._term_weights(t)[0] for t in terms]
    held = [cid for cid in cids if any(cid in wd for wd in wds)]
    boost_of = {cid: f for board, f in boards.items() for cid in p._chunks_of(board)}
    return list(zip(held, _scorer(wds, nterms, boost_of)(held), strict=True))


def top_python(p: Postings, terms: list[str], nterms: int, boards: dict[str, float], limit: int
               ) -> list[tuple[int, float]]:
    """(chunk id, rounded score) of every chunk whose score reaches the `limit`-th best, and possibly a few
    more scored on the way (the caller sorts and cuts)."""
    # MaxScore-style pruning, term at a time. Chunks likely to win are scored first (those holding
    # every query term, the named boards' chunks) to get a threshold; then terms are taken largest
    # weight first and every unscored chunk holding one is scored. A chunk never scored holds only
    # terms still left, so it scores at most their summed largest weights times the coverage they
    # could give; once that bound falls below the current limit-th score the rest is skipped.
    infos = [p._term_weights(t) for t in terms]
    wds = [wd for wd, _ in infos]
    boost_of = {cid: f for board, f in boards.items() for cid in p._chunks_of(board)}
    tomb = p.tomb
    score = _scorer(wds, nterms, boost_of)
    by_size = sorted(wds, key=len)
    full = set(by_size[0])
    for wd in by_size[1:]:
        full = set(filter(wd.__contains__, full))  # shrinks at C speed
    # When every chunk holding all the terms is scored up front, an unscored chunk misses at least one
    # term, which caps the coverage it can reach below 1.
    full_scored = len(full) <= FULL_SEED_CHUNKS
    seeds = list(((full if full_scored else set(islice(full, SEED_CHUNKS)))
                  | set(islice(by_size[0], SEED_CHUNKS))
                  | {cid for cid in boost_of if any(cid in wd for wd in wds)}) - tomb)
    scored = list(zip(seeds, score(seeds), strict=True))
    done = set(seeds) | tomb
    heap = heapq.nlargest(limit, [f for _, f in scored])
    heapq.heapify(heap)  # the `limit` best final scores so far (min-heap)
    kmax = len(infos) - 1 if full_scored else len(infos)
    left = sorted(range(len(infos)), key=lambda i: infos[i][1])
    while left:
        t = left.pop()  # the left term with the largest weight
        wd, top_w = infos[t]
        if len(heap) >= limit:
            # An unscored chunk holds only left terms (t among them or not): with k of them it scores at
            # most (its weight for t + the k-1 largest other bounds) x (k / nterms)^2. `need` is the least
            # weight for t that could still reach the current limit-th score; the board boost is left
            # out (every boosted chunk was seeded).
            rest = [infos[i][1] for i in reversed(left)]
            need = math.inf
            acc = 0.0
            for k in range(1, min(kmax, len(rest) + 1) + 1):
                if k > 1:
                    acc += rest[k - 2]
                need = min(need, heap[0] / (k / nterms) ** COVERAGE_EXPONENT - acc)
            need = need * (1.0 - 1e-9) - 1e-9  # slack for float rounding: never prune a possible winner
            if top_w < need:
                break  # t has the largest bound of the left terms, so no unscored chunk can make it
            if need > 0.0:
                new = [cid for cid, w in wd.items() if w >= need and cid not in done]
            else:
                new = list(filterfalse(done.__contains__, wd))
            # Fewer other left terms than `fewest` cannot reach the limit-th score even at t's largest
            # weight; counting them is set lookups at C speed, far cheaper than scoring.
            fewest = 0
            acc = 0.0
            while fewest < len(rest) and fewest + 1 < kmax and (top_w + acc) * (
                    (fewest + 1) / nterms) ** COVERAGE_EXPONENT * (1.0 + 1e-9) + 1e-9 < heap[0]:
                acc += rest[fewest]
                fewest += 1
            if fewest and new:
                others = [wds[i] for i in left]
                counts = map(sum, zip(*[map(o.__contains__, new) for o in others], strict=True))
                new = list(compress(new, map(ge, counts, repeat(fewest))))
            done.update(wd)  # the rest of t's chunks cannot reach the top: never score them later
        else:
            new = list(filterfalse(done.__contains__, wd))
            done.update(new)
        finals = score(new)
        scored.extend(zip(new, finals, strict=True))
        heap = heapq.nlargest(limit, chain(heap, finals))
        heapq.heapify(heap)
    kth = heap[0] if len(heap) >= limit else float("-inf")
    return [(cid, f) for cid, f in scored if f >= kth]
