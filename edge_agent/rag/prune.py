"""Exact top-k BM25 with numpy that reads only part of the long postings (MaxScore).

The exhaustive scorer (:meth:`Postings._scores_np`) adds every posting of every query term into
arrays as long as the index; on a 10,000-file library a frequent word has a posting in most of its
165,000 chunks, and that costs milliseconds per term. Here:

1. likely winners are scored first (the chunks of the boosted boards and of the rarest terms, up to a
   few thousand), and their ``limit``-th score is a threshold;
2. each term's largest possible weight bounds what a chunk holding only some terms can score (their
   summed bounds times the coverage they could give); terms are taken smallest bound first while
   chunks holding only those terms stay below the threshold (the non-essential terms);
3. only chunks holding an essential term are candidates; each is scored exactly, looking its other
   terms up by binary search in their postings (ascending chunk ids) instead of walking them.

Scores are computed with the exhaustive scorer's element-wise operations in the same order (term
weights added in query order, then coverage, then each board's boost), so they are bit for bit the
same, and the chunks returned are the same: every chunk left out provably scores below the threshold,
with slack for float rounding. When the candidates would be a large share of the index anyway (a
question of common words only), the caller falls back to the exhaustive scorer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from edge_agent.rag.postings import COVERAGE_EXPONENT

if TYPE_CHECKING:
    from edge_agent.rag.postings import Postings

#: Chunks scored first to set the threshold, at most.
SEED_CHUNKS = 4096
#: Candidates (postings of the essential terms) beyond this share of the index: score exhaustively.
MAX_CANDIDATE_SHARE = 0.25
_SLACK = 1e-9


def top_pruned(p: Postings, terms: list[str], nterms: int, boards: dict[str, float],
               limit: int) -> list[tuple[int, float]] | None:
    """What :meth:`Postings._scores_np` returns for these arguments, or None when pruning would not pay."""
    np: Any = p._npmod
    norm: Any = p._np_norm
    live = p._np_live
    lists = [(*p.term_arrays(term), p.idf_k(term)) for term in terms]
    bounds = [p.max_weight(term, cids, tfs, idf) for term, (cids, tfs, idf) in zip(terms, lists, strict=True)]
    boosted = [p.board_chunks_np(board) for board in boards]
    if sum(map(len, boosted)) > SEED_CHUNKS or len(lists[bounds.index(max(bounds))][0]) > MAX_CANDIDATE_SHARE * p.n:
        return None  # the term with the largest weight is always essential: too many candidates already
    # seeds: the boosted chunks, every chunk of the rarest terms while they are few, else the rarest term's
    # best chunks
    mask = np.zeros(len(live), dtype=bool)
    for ids in boosted:
        mask[ids] = True
    by_rarity = sorted(range(len(lists)), key=lambda i: len(lists[i][0]))
    seeded: set[int] = set()
    budget = SEED_CHUNKS
    for i in by_rarity:
        cids, tfs, idf = lists[i]
        if len(cids) <= budget:
            mask[cids] = True
            seeded.add(i)
            budget -= len(cids)
        elif not seeded:
            tf64 = tfs.astype(np.float64)
            weight = idf * tf64 / (tf64 + norm[cids])
            mask[cids[np.argpartition(weight, len(weight) - budget)[len(weight) - budget:]]] = True
            break
        else:
            break
    seeds = np.flatnonzero(mask & live)
    if len(seeds) < limit:
        return None
    seed_raw, seed_cnt = _exact(p, seeds, lists, nterms, boards)  # a seed holding no term scores 0: still safe
    theta = float(np.partition(seed_raw, len(seed_raw) - limit)[len(seed_raw) - limit])
    # non-essential terms: smallest bound first, while a chunk holding only them stays below the threshold
    order = sorted(range(len(lists)), key=bounds.__getitem__)
    total = 0.0
    cut = 0
    while cut < len(order):
        reach = (total + bounds[order[cut]]) * ((cut + 1) / nterms) ** COVERAGE_EXPONENT
        if reach * (1.0 + _SLACK) + _SLACK >= theta:
            break
        total += bounds[order[cut]]
        cut += 1
    essential = order[cut:]
    if all(i in seeded for i in essential):  # every candidate is a seed: scored already
        ids, raw, cnt = seeds, seed_raw, seed_cnt
    else:
        if sum(len(lists[i][0]) for i in essential) > MAX_CANDIDATE_SHARE * p.n:
            return None
        for i in essential:
            mask[lists[i][0]] = True
        ids = np.flatnonzero(mask & live)
        raw, cnt = _exact(p, ids, lists, nterms, boards)
    held = cnt > 0  # a boosted chunk holding no query term is no result
    ids, vals = ids[held], np.round(raw[held], 9)
    if len(ids) > limit:
        cutoff = np.partition(vals, len(vals) - limit)[len(vals) - limit]
        keep = vals >= cutoff
        ids, vals = ids[keep], vals[keep]
    return list(zip(ids.tolist(), vals.tolist(), strict=True))


def _exact(p: Postings, ids: Any, lists: list[tuple[Any, Any, float]], nterms: int,
           boards: dict[str, float]) -> tuple[Any, Any]:
    """Raw scores (before rounding) of chunks `ids` (ascending), as the exhaustive scorer computes them, and
    the number of query terms each holds. A term a chunk lacks adds 0.0, which leaves its sum unchanged."""
    np: Any = p._npmod
    norm: Any = p._np_norm
    norm_ids = norm[ids]
    acc = np.zeros(len(ids), dtype=np.float64)
    cnt = np.zeros(len(ids), dtype=np.float64)
    for cids, tfs, idf in lists:
        if not len(cids):
            continue
        needles = ids.astype(cids.dtype, copy=False)  # searchsorted would otherwise convert the whole postings
        pos = np.minimum(np.searchsorted(cids, needles), len(cids) - 1)
        hit = cids[pos] == needles
        tf = tfs[pos].astype(np.float64)
        acc += np.where(hit, idf * tf / (tf + norm_ids), 0.0)
        cnt += hit
    acc *= (cnt / nterms) ** COVERAGE_EXPONENT
    for board, boost in boards.items():
        number = p.meta.board_number(board)
        if number is not None:
            acc[p._np_board_nos[ids] == number] *= boost
    return acc, cnt
