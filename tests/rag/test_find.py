"""The pruned scorer's lookup of chunk ids in a term's postings: right for every needle, however the table it
keeps between lookups was left by earlier ones (longer lists, other ids, a larger index)."""

from __future__ import annotations

import random

import pytest

from edge_agent.rag.postings import sorted_unique
from edge_agent.rag.prune import _find

np = pytest.importorskip("numpy")


def test_each_needle_is_found_at_its_place_or_not_at_all_after_any_earlier_lookup() -> None:
    rng = random.Random(7)
    for _ in range(300):
        span = rng.choice((50, 2_000, 40_000))
        cids = np.array(sorted(rng.sample(range(span), rng.randint(1, span // 3))), dtype=np.intp)
        needles = np.array(sorted(rng.sample(range(span), rng.randint(1, span // 2))), dtype=np.intp)
        hit, pos = _find(cids, needles, np)
        place = {int(c): i for i, c in enumerate(cids)}
        want = [int(n) in place for n in needles]
        assert hit.tolist() == want
        found = [int(p) for p, h in zip(pos, hit, strict=True) if h]
        assert found == [place[int(n)] for n in needles if int(n) in place]


def test_the_distinct_ids_are_those_numpy_unique_gives_ascending_and_of_the_same_type() -> None:
    rng = random.Random(11)
    for size in (0, 1, 2, 3, 50, 5_000):
        for dtype in (np.int64, np.int32):
            values = np.array([rng.randrange(max(size // 3, 1)) for _ in range(size)], dtype=dtype)
            got = sorted_unique(np, values)
            want = np.unique(values)
            assert got.dtype == want.dtype
            assert got.tolist() == want.tolist()
