"""Exact top-k BM25 with numpy that reads only part of the long postings (MaxScore).

The exhaustive scorer (:meth:`Postings._scores_np`) adds every posting of every query term into
arrays as long as the index; on a 10,000-file library a frequent word has a posting in most of its
165,000 chunks, and that costs milliseconds per term. Here:

1. likely winners are scored first, and their ``limit``-th score is a threshold: the chunks holding the
   term of every long list (found rarest list first, each list looked up only for the chunks left, so
   the positions found give their exact scores), the chunks of the boosted boards and every chunk of a
   short list (a part number). With coverage squared, the best chunks for a question of common words
   hold all or nearly all of them, so this threshold is mostly the final one;
2. a chunk not scored yet holds no short list's term and misses a long list's term; each term's largest
   weight bounds what it can add to a score, so with at most all long lists but one it can reach the
   threshold only holding enough terms: it is in the shortest of those lists, or holds an essential
   term (terms taken smallest bound first while a chunk holding only those stays below the threshold);
3. only chunks of those lists are candidates. Their weights there are summed; a candidate whose sum plus
   the bounds of the terms not looked up yet, times the best coverage it could reach, stays below the
   threshold drops out, and the others are looked up in the next list, rarest first;
4. the rest are scored exactly. A lookup of a few chunk ids is a binary search in the term's postings
   (ascending chunk ids); of many, a pass writing each posting's position into a table by chunk id.

Scores are computed with the exhaustive scorer's element-wise operations in the same order (term
weights added in query order, then coverage, then each board's boost), so they are bit for bit the
same, and the chunks returned are the same: every chunk left out provably scores below the threshold,
with slack for float rounding. When even the essential postings would be a large share of the index
(a question of common words only), the caller falls back to the exhaustive scorer.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from edge_agent.rag.postings import COVERAGE_EXPONENT, sorted_unique

if TYPE_CHECKING:
    from edge_agent.rag.postings import Postings

#: Every chunk of a list this short (a part number, a rare register) is a seed.
SEED_CHUNKS = 64
#: Chunks of the boosted boards beyond this: score exhaustively (every boosted chunk is a seed).
BOOSTED_CHUNKS = 4096
#: Postings of the essential terms beyond this share of the index: score exhaustively.
MAX_CANDIDATE_SHARE = 0.6
_SLACK = 1e-9


def top_pruned(p: Postings, terms: list[str], nterms: int, boards: dict[str, float],
               limit: int) -> list[tuple[int, float]] | None:
    """What :meth:`Postings._scores_np` returns for these arguments, or None when pruning would not pay."""
    got = top_pruned_own(p, terms, nterms, boards, limit, 0)
    return None if got is None else got[0]


def top_pruned_own(p: Postings, terms: list[str], nterms: int, boards: dict[str, float], limit: int,
                   own: int, of: Collection[str] | None = None
                   ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]] | None:
    """:func:`top_pruned`, and (chunk id, rounded score) of at least the `own` best chunks of the boosted boards
    `of` (all of them when None) holding a query term (all of them when fewer): every boosted chunk is scored
    exactly as a seed anyway."""
    np: Any = p._npmod
    live = p._np_live
    lists = [p.term_postings(term) for term in terms]  # (ids, frequencies): weights only where needed
    quick = [p.weight_bound(term) for term in terms]  # exact once a term's weights were computed
    bounds = [bound for bound, _ in quick]
    boosted = [p.board_chunks_np(board) for board in boards]
    if sum(map(len, boosted)) > BOOSTED_CHUNKS:
        return None
    # seeds: the chunks holding every long list's term (exact scores from the positions found), then the
    # boosted chunks and every chunk of a short list
    full, known = _intersection(p, lists, limit)
    alive = live[full]
    # (selections by a mask with compress throughout: the same elements, in fewer steps than indexing by the mask)
    full, known = full.compress(alive), {i: at.compress(alive) for i, at in known.items()}
    raw, cnt = exact_scores(p, full, terms, lists, nterms, boards, known)
    pool = np.concatenate([np.zeros(0, dtype=np.int64), *boosted, *(c for c, _ in lists if len(c) <= SEED_CHUNKS)])
    others = sorted_unique(np, pool.astype(np.int64, copy=False))
    others = others[live[others] & ~_find(full, others, np)[0]]
    more_raw, more_cnt = exact_scores(p, others, terms, lists, nterms, boards)
    seeds = np.concatenate([full, others])  # each part ascending
    raw, cnt = np.concatenate([raw, more_raw]), np.concatenate([cnt, more_cnt])
    if len(seeds) < limit:
        return None
    mine: list[tuple[int, float]] = []
    if own > 0 and boosted:
        held = cnt > 0
        numbers = p._np_board_nos[seeds]
        mask = np.zeros(len(seeds), dtype=bool)
        for board in boards if of is None else [b for b in boards if b in of]:
            if (number := p.meta.board_number(board)) is not None:
                mask |= numbers == number
        held &= mask
        mine_ids, mine_vals = seeds[held], np.round(raw[held], 9)
        if len(mine_ids) > own:
            keep = mine_vals >= np.partition(mine_vals, len(mine_vals) - own)[len(mine_vals) - own]
            mine_ids, mine_vals = mine_ids[keep], mine_vals[keep]
        mine = list(zip(mine_ids.tolist(), mine_vals.tolist(), strict=True))
    theta = float(np.partition(raw, len(raw) - limit)[len(raw) - limit])
    # A chunk that is not a seed holds no short list's term and misses a term of the intersection: only the
    # long lists, all but one of them at most, can bring it anywhere near the threshold.
    longer = [i for i in range(len(lists)) if len(lists[i][0]) > SEED_CHUNKS]
    most = len(longer) - 1
    source = _candidate_source(lists, bounds, nterms, theta, longer, most)
    if source and not all(quick[i][1] for i in longer):
        # candidates by the quick bounds: the lists' largest weights may rule them out, and the race needs them
        bounds = [p.max_weight(terms[i]) if i in longer else bound for i, bound in enumerate(bounds)]
        source = _candidate_source(lists, bounds, nterms, theta, longer, most)
    ids = seeds
    if source:
        if sum(len(lists[i][0]) for i in source) > MAX_CANDIDATE_SHARE * p.n:
            return None
        more, part, held = _union([lists[i][0] for i in source], [p.term_weights(terms[i])[1] for i in source], np)
        scored = np.insert(full, full.searchsorted(others), others)  # the seeds, ascending (`others` not in `full`)
        keep = live[more] & ~_find(scored, more, np)[0]  # seeds are scored already
        more, part, held = more.compress(keep), part.compress(keep), held.compress(keep)
        # the other terms, rarest first (the likeliest to be missing), are looked up for the candidates still
        # in the race; those that cannot reach the threshold with the bounds left drop out, and the threshold
        # rises to the limit-th best score known to be reached (scored seeds, candidates' partial scores)
        rest = sorted(set(longer) - set(source), key=lambda i: len(lists[i][0]))
        left = sum(bounds[i] for i in rest)
        raise_theta = all(boost >= 1.0 for boost in boards.values())  # a boost never lowers a partial score
        # coverage by terms held (the most a candidate can hold: `most`), and by terms found
        reach_cov = np.array([(min(k, most) / nterms) ** COVERAGE_EXPONENT for k in range(len(lists) + 1)])
        held_cov = np.array([(k / nterms) ** COVERAGE_EXPONENT for k in range(len(lists) + 1)])
        for k in range(len(rest), -1, -1):
            # reach * (1 + slack) + slack >= theta, with the slack for float rounding on the threshold's side
            keep = (part + left) * reach_cov[held + k] >= (theta - _SLACK) / (1.0 + _SLACK)
            if not keep.all():
                more, part, held = more.compress(keep), part.compress(keep), held.compress(keep)
            if not k or not len(more):
                break
            i = rest[len(rest) - k]
            left -= bounds[i]
            hit, pos = _find(lists[i][0], more, np)
            part = part.copy()
            found = np.flatnonzero(hit)
            part[found] += p.weights_at(terms[i], pos.take(found))
            held = held + hit
            if raise_theta:
                # the limit-th best of the scores known to be reached (seeds', candidates' partial ones), if
                # above the threshold: only those above it are ranked
                low = part * held_cov[held]
                top = np.concatenate([raw[raw > theta], low[low > theta]])
                if len(top) >= limit:
                    kth = float(np.partition(top, len(top) - limit)[len(top) - limit])
                    theta = max(theta, kth * (1.0 - _SLACK) - _SLACK)  # the sums' order differs from the exact one
        if len(more):
            more_raw, more_cnt = exact_scores(p, more, terms, lists, nterms, boards)
            ids = np.concatenate([seeds, more])
            raw, cnt = np.concatenate([raw, more_raw]), np.concatenate([cnt, more_cnt])
    # a boosted chunk holding no query term is no result; the limit-th best raw score is at least the
    # threshold, and rounding to 9 places moves a score by at most 5e-10, so only those near it are ranked
    kept = (cnt > 0) & (raw >= theta - 1e-9)
    ids, vals = ids.compress(kept), np.round(raw.compress(kept), 9)
    if len(ids) > limit:
        cutoff = np.partition(vals, len(vals) - limit)[len(vals) - limit]
        keep = vals >= cutoff
        ids, vals = ids[keep], vals[keep]
    return list(zip(ids.tolist(), vals.tolist(), strict=True)), mine


def _intersection(p: Postings, lists: list[tuple[Any, Any]], limit: int) -> tuple[Any, dict[int, Any]]:
    """The chunks holding the term of every list longer than SEED_CHUNKS (ascending) and each such term's
    positions of them in its list: the rarest list's chunks are
    narrowed to those in the next rarest, and so on; a list holding fewer than `limit` of those left is
    passed over. The best results of a question of common words hold all or nearly all of them (coverage
    is squared), so their scores set a threshold close to the final one, and the positions found are
    those the exact scores need."""
    np: Any = p._npmod
    longer = sorted((i for i in range(len(lists)) if len(lists[i][0]) > SEED_CHUNKS), key=lambda i: len(lists[i][0]))
    if not longer:
        return np.zeros(0, dtype=np.int64), {}
    first = longer[0]
    cand = lists[first][0]
    sel = None  # positions of `cand` in the first list (None: all of it)
    steps: list[tuple[int, Any, Any]] = []  # (term, which of the chunks then left hold it, their positions)
    for i in longer[1:]:
        hit, pos = _find(lists[i][0], cand, np)
        if int(np.count_nonzero(hit)) < limit:
            continue
        steps.append((i, hit, pos))
        cand = cand.compress(hit)
        sel = np.flatnonzero(hit) if sel is None else sel.compress(hit)
    known = {first: np.arange(len(cand)) if sel is None else sel}
    for n, (i, hit, pos) in enumerate(steps):
        at = pos.compress(hit)
        for _, later, _ in steps[n + 1:]:
            at = at.compress(later)
        known[i] = at
    return cand.astype(np.int64, copy=False), known


#: Chunks scored up to this many get a weight computed for every query term, held or not (masked after):
#: fewer array operations than picking out the holders first.
FEW_CHUNKS = 512
#: A lookup of this many chunk ids or more in a list of postings goes through a table by chunk id (a pass
#: over the list) instead of a binary search per id, per posting of the list.
DENSE_LOOKUP = 1 / 8


#: Each thread's table by chunk id and run of positions 0, 1, 2... for :func:`_find`, kept between lookups: a
#: fresh table and run for each dense lookup (two arrays as long as the index) cost about a fifth of its time.
_SCRATCH = threading.local()


def _scratch(np: Any, size: int) -> tuple[Any, Any]:
    """This thread's (table, positions), both at least `size` long. The table starts as zeros and only ever
    holds positions, so an entry is never negative."""
    table = getattr(_SCRATCH, "table", None)
    if table is None or len(table) < size:
        size += size >> 3  # room for the chunks indexed later, without a new table for each
        table = _SCRATCH.table = np.zeros(size, dtype=np.intp)
        _SCRATCH.positions = np.arange(size, dtype=np.intp)
    return table, _SCRATCH.positions


def _find(cids: Any, needles: Any, np: Any) -> tuple[Any, Any]:
    """(whether each of the ascending `needles` is in the ascending ids `cids`, its position there where it
    is). Few needles: a binary search each; many: each id's position written into a table by chunk id, read
    back at the needles (the table is not cleared: a stale entry, brought into range, points at another id,
    which the check rejects, or at the needle's own place in `cids`). Positions are index integers (intp), as
    the ids are: numpy would convert any other integer array each time it indexes with it."""
    n = len(cids)
    if not n or not len(needles):
        return np.zeros(len(needles), dtype=bool), np.zeros(len(needles), dtype=np.intp)
    if len(needles) < DENSE_LOOKUP * n:
        pos = cids.searchsorted(needles.astype(cids.dtype, copy=False))  # else it converts all of `cids`
    else:
        table, positions = _scratch(np, max(int(cids[-1]), int(needles[-1])) + 1)
        table[cids] = positions[:n]
        pos = table.take(needles)  # (`take`: the same reads as indexing, in fewer steps on thousands of ids)
    np.minimum(pos, n - 1, out=pos)  # a stale entry may be any earlier position
    return cids.take(pos) == needles, pos


def _candidate_source(lists: list[tuple[Any, Any]], all_bounds: list[float], nterms: int, theta: float,
                      usable: list[int], most: int) -> list[int]:
    """The terms whose postings hold every chunk not yet scored that could reach `theta`, as few postings as
    can be told: the smaller of two sets.

    * Essential terms (MaxScore): the terms left once the smallest bounds are taken away while a chunk
      holding only those terms stays below the threshold; a chunk that can reach it holds an essential term.
    * The shortest lists: with k terms a chunk scores at most the k largest bounds times (k / nterms)^2, so
      a chunk that can reach the threshold holds at least `kmin` of the L terms, and so is in at least one
      of any L - kmin + 1 of their postings.

    A chunk not scored yet holds only terms of the lists `usable`, at most `most` of them. An empty list:
    no chunk outside the seeds can reach the threshold."""
    bounds = [all_bounds[i] if i in usable else 0.0 for i in range(len(lists))]
    order = sorted(usable, key=bounds.__getitem__)
    total = 0.0
    cut = 0
    while cut < len(order):
        reach = (total + bounds[order[cut]]) * (min(cut + 1, most) / nterms) ** COVERAGE_EXPONENT
        if reach * (1.0 + _SLACK) + _SLACK >= theta:
            break
        total += bounds[order[cut]]
        cut += 1
    essential = order[cut:]
    kmin = 0
    total = 0.0
    for k, bound in enumerate(sorted((bounds[i] for i in usable), reverse=True)[:most], 1):
        total += bound
        if total * (k / nterms) ** COVERAGE_EXPONENT * (1.0 + _SLACK) + _SLACK >= theta:
            kmin = k
            break
    if not essential or not kmin:
        return []
    shortest = sorted(usable, key=lambda i: len(lists[i][0]))[:len(usable) - kmin + 1]
    return shortest if _postings(lists, shortest) < _postings(lists, essential) else essential


def _postings(lists: list[tuple[Any, Any]], which: list[int]) -> int:
    return sum(len(lists[i][0]) for i in which)


def _union(cids: list[Any], weights: list[Any], np: Any) -> tuple[Any, Any, Any]:
    """(chunk ids in any of the postings `cids`, ascending; the sum of their `weights` in each; in how many
    of them each is). The sums are bounds only, so their order of addition does not matter. Each list is
    ascending, so a stable sort (a merge of sorted runs) orders them all."""
    if len(cids) == 1:
        return cids[0].astype(np.int64, copy=False), weights[0], np.ones(len(cids[0]), dtype=np.int64)
    flat = np.concatenate(cids).astype(np.int64, copy=False)
    order = np.argsort(flat, kind="stable")
    flat = flat[order]
    starts = np.flatnonzero(np.concatenate([[True], flat[1:] != flat[:-1]]))
    return flat[starts], np.add.reduceat(np.concatenate(weights)[order], starts), np.diff(np.append(starts, len(flat)))


def exact_scores(p: Postings, ids: Any, terms: list[str], lists: list[tuple[Any, Any]], nterms: int,
           boards: dict[str, float], known: dict[int, Any] | None = None) -> tuple[Any, Any]:
    """Raw scores (before rounding) of chunks `ids` (ascending), as the exhaustive scorer computes them, and
    the number of query terms each holds: each term's weight is added, in query order, to the chunks that
    hold it (the exhaustive scorer adds nothing to the others either). `known`: for terms every one of
    `ids` holds, their positions in the term's list."""
    np: Any = p._npmod
    acc = np.zeros(len(ids), dtype=np.float64)
    cnt = np.zeros(len(ids), dtype=np.float64)
    norms = p._np_norm[ids]  # each chunk's length norm, read once for every term
    few = len(ids) <= FEW_CHUNKS
    for n, (term, (cids, _)) in enumerate(zip(terms, lists, strict=True)):
        if not len(cids) or not len(ids):
            continue
        if known and n in known:
            acc += p.weights_at(term, known[n], norms)
            cnt += 1.0
            continue
        hit, pos = _find(cids, ids, np)
        if few:  # a weight for every chunk, added where the term is held (x + 0.0 is x): fewer array operations
            acc += np.where(hit, p.weights_at(term, pos, norms), 0.0)
        else:
            at = np.flatnonzero(hit)  # (the holders' places, read with take: fewer steps than a mask each time)
            acc[at] += p.weights_at(term, pos.take(at), norms.take(at))
        cnt += hit
    acc *= (cnt / nterms) ** COVERAGE_EXPONENT
    for board, boost in boards.items():
        number = p.meta.board_number(board)
        if number is not None:
            acc[p._np_board_nos[ids] == number] *= boost
    return acc, cnt
