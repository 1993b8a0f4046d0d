"""Joining shards: each term's compact rows from shards numbered from 1 give, byte for byte, the row of
the whole postings list; files split into contiguous shards of about equal size."""

from __future__ import annotations

import random

import pytest

from edge_agent.rag.codec import encode
from edge_agent.rag.files import DocFile
from edge_agent.rag.shards import _joined, split


@pytest.mark.parametrize("seed", range(6))
def test_joined_shard_rows_are_the_rows_of_the_whole_list(seed: int) -> None:
    rng = random.Random(seed)
    n_chunks = 60_000
    cuts = sorted(rng.sample(range(1, n_chunks), rng.randint(1, 4)))
    bounds = [0, *cuts, n_chunks]  # shard k holds chunk ids bounds[k] + 1 .. bounds[k + 1]
    whole: dict[str, tuple[list[int], list[float]]] = {}
    for t in range(60):
        share = rng.choice([1.0, 0.3, 0.01, 0.0004])  # dense terms, and sparse ones with gaps past a byte
        ids = [c for c in range(1, n_chunks + 1) if rng.random() < share]
        if t % 7 == 0:  # a posting right after a boundary, one at the boundary, the first and last chunks
            ids = sorted({*ids, 1, n_chunks, *(b for b in cuts), *(b + 1 for b in cuts)})
        if ids:
            whole[f"t{t:02d}"] = (ids, [rng.choice([1.0, 3.0, 4.0, 0.5, 300.0]) for _ in ids])
    parts = []
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        rows = []
        for term in sorted(whole):
            ids, tfs = whole[term]
            mine = [(c - lo, f) for c, f in zip(ids, tfs, strict=True) if lo < c <= hi]
            if mine:
                rows.append((term, *encode([c for c, _ in mine], [f for _, f in mine])))
        parts.append((lo, rows))
    df: dict[str, int] = {}
    got = list(_joined(parts, df))
    assert [row[0] for row in got] == sorted(whole)
    for term, n, ids_blob, tfs_blob in got:
        assert (n, ids_blob, tfs_blob) == encode(*whole[term]), term
        assert df[term] == len(whole[term][0])


def test_files_split_into_contiguous_shards_of_about_equal_bytes() -> None:
    files = [DocFile(f"/x/{i}", f"f{i:03d}.md", None, "text", 1000 + (i % 7) * 900, 0) for i in range(301)]
    runs = split(files, 3)
    assert [f for run in runs for f in run] == files  # every file once, in order
    sizes = [sum(f.size for f in run) for run in runs]
    assert max(sizes) - min(sizes) <= 2 * max(f.size for f in files)
    assert split(files[:1], 4) == [files[:1]]  # never an empty shard
