"""Exact top-k BM25 with numpy that reads only part of the long postings (MaxScore).

The exhaustive scorer (:meth:`Postings._scores_np`) adds every posting of every query term into
arrays as long as the index; on a 10,000-file library a frequent word has a posting in most of its
165,000 chunks, and that costs milliseconds per term. Here:

1. likely winners are scored first (the chunks of the boosted boards and of the rarest terms, up to a
   few thousand), and their ``limit``-th score is a threshold;
2. each term's largest weight bounds what it can add to a chunk's score; terms are taken smallest bound
   first while a chunk holding only those terms stays below the threshold (the non-essential terms);
3. only chunks holding an essential term are candidates. Their essential terms' weights are summed
   from those (short) postings; a candidate whose sum plus every non-essential bound, times the best
   coverage it could reach, stays below the threshold is dropped without looking at the long postings;
4. the rest are scored exactly, looking each term up by binary search in its postings (ascending chunk
   ids) instead of walking them.

Scores are computed with the exhaustive scorer's element-wise operations in the same order (term
weights added in query order, then coverage, then each board's boost), so they are bit for bit the
same, and the chunks returned are the same: every chunk left out provably scores below the threshold,
with slack for float rounding. When even the essential postings would be a large share of the index
(a question of common words only), the caller falls back to the exhaustive scorer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from edge_agent.rag.postings import COVERAGE_EXPONENT

if TYPE_CHECKING:
    from edge_agent.rag.postings import Postings

#: Chunks scored first to set the threshold (besides the boosted ones), at most.
SEED_CHUNKS = 64
#: Postings of the rarest terms from which the seeds are picked, at most.
SEED_POSTINGS = 16384
#: Chunks of the boosted boards beyond this: score exhaustively (every boosted chunk is a seed).
BOOSTED_CHUNKS = 4096
#: Postings of the essential terms beyond this share of the index: score exhaustively.
MAX_CANDIDATE_SHARE = 0.6
_SLACK = 1e-9


def top_pruned(p: Postings, terms: list[str], nterms: int, boards: dict[str, float],
               limit: int) -> list[tuple[int, float]] | None:
    """What :meth:`Postings._scores_np` returns for these arguments, or None when pruning would not pay."""
    np: Any = p._npmod
    live = p._np_live
    lists = [p.term_postings(term) for term in terms]  # (ids, frequencies): weights only where needed
    bounds = [p.max_weight(term) for term in terms]
    boosted = [p.board_chunks_np(board) for board in boards]
    if sum(map(len, boosted)) > BOOSTED_CHUNKS:
        return None
    # seeds: the boosted chunks and the best chunks by the rarest terms' weights alone (a lower bound of
    # their score), from those terms' postings while they are short, else from the rarest term's best
    by_rarity = sorted(range(len(lists)), key=lambda i: len(lists[i][0]))
    rare = [by_rarity[0]]
    for i in by_rarity[1:]:
        if sum(len(lists[j][0]) for j in rare) + len(lists[i][0]) > SEED_POSTINGS:
            break
        rare.append(i)
    rare_union = None
    if len(lists[rare[0]][0]) > SEED_POSTINGS:
        cids, w = p.term_weights(terms[rare[0]])
        top = max(0, len(w) - SEED_CHUNKS)
        cand = cids[np.argpartition(w, top)[top:]]
    else:
        cand, part, held = rare_union = _union([lists[i][0] for i in rare],
                                               [p.term_weights(terms[i])[1] for i in rare], np)
        alive = live[cand]
        cand, low = cand[alive], (part * (held / nterms) ** COVERAGE_EXPONENT)[alive]
        if len(cand) > SEED_CHUNKS:
            cand = cand[np.argpartition(low, len(low) - SEED_CHUNKS)[len(low) - SEED_CHUNKS:]]
    seeds = np.unique(np.concatenate([*boosted, cand.astype(np.int64)]))
    seeds = seeds[live[seeds]]
    if len(seeds) < limit:
        return None
    raw, cnt = _exact(p, seeds, terms, lists, nterms, boards)  # a seed holding no term scores 0: still safe
    theta = float(np.partition(raw, len(raw) - limit)[len(raw) - limit])
    source = _candidate_source(lists, bounds, nterms, theta)
    ids = seeds
    if source:
        if sum(len(lists[i][0]) for i in source) > MAX_CANDIDATE_SHARE * p.n:
            return None
        if rare_union is not None and set(source) <= set(rare):
            # the seeds' union holds every candidate already (and perhaps a few more, which the bounds drop)
            source, (more, part, held) = rare, rare_union
        else:
            more, part, held = _union([lists[i][0] for i in source], [p.term_weights(terms[i])[1] for i in source],
                                      np)
        at = np.minimum(np.searchsorted(seeds, more), len(seeds) - 1)
        keep = (seeds[at] != more) & live[more]  # seeds are scored already
        more, part, held = more[keep], part[keep], held[keep]
        # the other terms, rarest first (the likeliest to be missing), are looked up for the candidates still
        # in the race; those that cannot reach the threshold with the bounds left drop out, and the threshold
        # rises to the limit-th best score known to be reached (scored seeds, candidates' partial scores)
        rest = sorted(set(range(len(lists))) - set(source), key=lambda i: len(lists[i][0]))
        left = sum(bounds[i] for i in rest)
        raise_theta = all(boost >= 1.0 for boost in boards.values())  # a boost never lowers a partial score
        for k in range(len(rest), -1, -1):
            reach = (part + left) * ((held + k) / nterms) ** COVERAGE_EXPONENT
            keep = reach * (1.0 + _SLACK) + _SLACK >= theta
            more, part, held = more[keep], part[keep], held[keep]
            if not k or not len(more):
                break
            i = rest[len(rest) - k]
            left -= bounds[i]
            cids = lists[i][0]
            pos = np.minimum(np.searchsorted(cids, more.astype(cids.dtype, copy=False)), len(cids) - 1)
            hit = cids[pos] == more
            part = part.copy()
            part[hit] += p.weights_at(terms[i], pos[hit])
            held = held + hit
            if raise_theta and len(more) + len(raw) > limit:
                low = np.concatenate([raw, part * (held / nterms) ** COVERAGE_EXPONENT])
                kth = float(np.partition(low, len(low) - limit)[len(low) - limit])
                theta = max(theta, kth * (1.0 - _SLACK) - _SLACK)  # the sums' order differs from the exact one
        if len(more):
            more_raw, more_cnt = _exact(p, more, terms, lists, nterms, boards)
            ids = np.concatenate([seeds, more])
            raw, cnt = np.concatenate([raw, more_raw]), np.concatenate([cnt, more_cnt])
    held_any = cnt > 0  # a boosted chunk holding no query term is no result
    ids, vals = ids[held_any], np.round(raw[held_any], 9)
    if len(ids) > limit:
        cutoff = np.partition(vals, len(vals) - limit)[len(vals) - limit]
        keep = vals >= cutoff
        ids, vals = ids[keep], vals[keep]
    return list(zip(ids.tolist(), vals.tolist(), strict=True))


def _candidate_source(lists: list[tuple[Any, Any]], bounds: list[float], nterms: int, theta: float) -> list[int]:
    """The terms whose postings hold every chunk not yet scored that could reach `theta`, as few postings as
    can be told: the smaller of two sets.

    * Essential terms (MaxScore): the terms left once the smallest bounds are taken away while a chunk
      holding only those terms stays below the threshold; a chunk that can reach it holds an essential term.
    * The shortest lists: with k terms a chunk scores at most the k largest bounds times (k / nterms)^2, so
      a chunk that can reach the threshold holds at least `kmin` of the L terms, and so is in at least one
      of any L - kmin + 1 of their postings.

    An empty list: no chunk outside the seeds can reach the threshold."""
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
    kmin = 0
    total = 0.0
    for k, bound in enumerate(sorted(bounds, reverse=True), 1):
        total += bound
        if total * (k / nterms) ** COVERAGE_EXPONENT * (1.0 + _SLACK) + _SLACK >= theta:
            kmin = k
            break
    if not essential or not kmin:
        return []
    shortest = sorted(range(len(lists)), key=lambda i: len(lists[i][0]))[:len(lists) - kmin + 1]
    return shortest if _postings(lists, shortest) < _postings(lists, essential) else essential


def _postings(lists: list[tuple[Any, Any]], which: list[int]) -> int:
    return sum(len(lists[i][0]) for i in which)


def _union(cids: list[Any], weights: list[Any], np: Any) -> tuple[Any, Any, Any]:
    """(chunk ids in any of the postings `cids`, ascending; the sum of their `weights` in each; in how many
    of them each is). The sums are bounds only, so their order of addition does not matter. Each list is
    ascending, so a stable sort (a merge of sorted runs) orders them all."""
    if len(cids) == 1:
        return cids[0].astype(np.int64), weights[0], np.ones(len(cids[0]), dtype=np.int64)
    flat = np.concatenate(cids).astype(np.int64)
    order = np.argsort(flat, kind="stable")
    flat = flat[order]
    starts = np.flatnonzero(np.concatenate([[True], flat[1:] != flat[:-1]]))
    return flat[starts], np.add.reduceat(np.concatenate(weights)[order], starts), np.diff(np.append(starts, len(flat)))


def _exact(p: Postings, ids: Any, terms: list[str], lists: list[tuple[Any, Any]], nterms: int,
           boards: dict[str, float]) -> tuple[Any, Any]:
    """Raw scores (before rounding) of chunks `ids` (ascending), as the exhaustive scorer computes them, and
    the number of query terms each holds: each term's weight is added, in query order, to the chunks that
    hold it (the exhaustive scorer adds nothing to the others either)."""
    np: Any = p._npmod
    acc = np.zeros(len(ids), dtype=np.float64)
    cnt = np.zeros(len(ids), dtype=np.float64)
    for term, (cids, _) in zip(terms, lists, strict=True):
        if not len(cids):
            continue
        needles = ids.astype(cids.dtype, copy=False)  # searchsorted would otherwise convert the whole postings
        pos = np.minimum(np.searchsorted(cids, needles), len(cids) - 1)
        hit = cids[pos] == needles
        acc[hit] += p.weights_at(term, pos[hit])
        cnt += hit
    acc *= (cnt / nterms) ** COVERAGE_EXPONENT
    for board, boost in boards.items():
        number = p.meta.board_number(board)
        if number is not None:
            acc[p._np_board_nos[ids] == number] *= boost
    return acc, cnt
