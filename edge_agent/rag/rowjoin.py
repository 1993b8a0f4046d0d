"""Joining runs of compact postings rows with numpy, a range of terms at a time, without a Python step per row.

A building worker joins the parts of its postings, and the indexing process the shards, term by term: a term's
row is its rows of every run, in run order, concatenated (:func:`edge_agent.rag.shards._joined` does it a row at a
time in pure Python). Only the first chunk-id gap of each run's row changes: it becomes the distance from the
term's last chunk id in the runs before (after moving the run's ids by its offset). So no posting is decoded:
each run's row is cut into its first gap, the rest of its gap bytes, its escaped first gap's value and the rest
of its escaped values, and the joined row's bytes are gathered from those pieces and a new first gap each. The
frequencies are only moved. The rows are byte for byte the ones of :func:`~edge_agent.rag.shards._joined`.

A run is read as packed batches of rows (:data:`Packed`); a joining step takes from every run its rows up to the
smallest last term among the runs' batches in hand, so it holds one batch of each run at most, and up to where
its rows' blobs reach STEP_BYTES.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import Any

#: Bytes of ids blobs a joining step takes from the runs in all: its arrays take several times that (the batches
#: of a run are often larger, a worker's part rows a few hundred KB to 2 MB).
STEP_BYTES = 1 << 18
#: Bytes gathered into joined rows at a time (:func:`_gather`).
GATHER_BYTES = 1 << 17

#: A batch of consecutive rows of a run, in term order: the terms, each row's postings count, where each row's
#: ids blob and tfs blob start and end (one more bound than rows, from 0; 8-byte ints) and the blobs joined (uint8).
Packed = tuple[list[str], Any, Any, Any, Any, Any]
#: Joined rows of a range of terms, laid out as :data:`Packed` with the blobs as bytes.
Joined = tuple[list[str], Any, Any, Any, bytes, bytes]


def packed_part(np: Any, terms: str, ns: bytes, id_ends: bytes, tf_ends: bytes, ids: bytes, tfs: bytes) -> Packed:
    """A row of ``postings_part`` (:data:`edge_agent.rag.shards.PackedRows`) as a :data:`Packed` batch."""
    return (terms.split("\n"), np.frombuffer(ns, dtype=np.int32).astype(np.int64),
            np.r_[0, np.frombuffer(id_ends, dtype=np.int64)], np.r_[0, np.frombuffer(tf_ends, dtype=np.int64)],
            np.frombuffer(ids, dtype=np.uint8), np.frombuffer(tfs, dtype=np.uint8))


def packed_rows(np: Any, rows: Sequence[tuple[str, int, bytes, bytes]]) -> Packed:
    """Rows (term, n, ids, tfs) as a :data:`Packed` batch."""
    terms, ns, ids, tfs = zip(*rows, strict=True)
    return (list(terms), np.array(ns, dtype=np.int64), np.cumsum([0, *map(len, ids)], dtype=np.int64),
            np.cumsum([0, *map(len, tfs)], dtype=np.int64), np.frombuffer(b"".join(ids), dtype=np.uint8),
            np.frombuffer(b"".join(tfs), dtype=np.uint8))


def joined_rows(batches: Iterable[Joined], df: dict[str, int] | None = None
                ) -> Iterator[tuple[str, int, bytes, bytes]]:
    """The rows (term, n, ids, tfs) of joined batches, for an ``executemany``; `df` gets each term's count."""
    for terms, counts, id_bounds, tf_bounds, ids, tfs in batches:
        ns, id_at, tf_at = counts.tolist(), id_bounds.tolist(), tf_bounds.tolist()
        if df is not None:
            df.update(zip(terms, ns, strict=True))
        yield from zip(terms, ns, map(ids.__getitem__, map(slice, id_at, id_at[1:])),
                       map(tfs.__getitem__, map(slice, tf_at, tf_at[1:])), strict=True)


def packed_joined(joined: Joined) -> tuple[str, bytes, bytes, bytes, bytes, bytes]:
    """Joined rows as one row of packed rows (:data:`edge_agent.rag.shards.PackedRows`)."""
    terms, ns, id_bounds, tf_bounds, ids, tfs = joined
    return ("\n".join(terms), ns.astype("=i4").tobytes(), id_bounds[1:].astype("=i8").tobytes(),
            tf_bounds[1:].astype("=i8").tobytes(), ids, tfs)


def join_runs(np: Any, runs: Sequence[tuple[int, Iterator[Packed]]]) -> Iterator[Joined]:
    """Each term's rows of every run (chunk ids moved by the run's offset; a term is once in a run, and the runs
    are in chunk-id order) joined in one row, in term order, a range of terms at a time."""
    held: list[Packed | None] = [None] * len(runs)
    at = [0] * len(runs)
    live = [True] * len(runs)
    share = max(1, STEP_BYTES // max(1, len(runs)))
    while True:
        for k, (_off, it) in enumerate(runs):  # a run's next batch, once the one before is let go
            if held[k] is None and live[k]:
                held[k] = next(it, None)
                live[k] = held[k] is not None
        # every run's rows up to the bound are in the batches in hand, and a run's rows up to it hold about its
        # share of a step's bytes (the run whose rows set it gives one row at least)
        ends = [batch[0][min(len(batch[0]), max(at[k] + 1, int(np.searchsorted(
                    batch[2], batch[2][at[k]] + share, side="right")) - 1)) - 1]
                for k, batch in enumerate(held) if batch is not None]
        if not ends:
            return
        bound = min(ends)
        taken: list[tuple[int, Packed, int, int]] = []
        for k, batch in enumerate(held):
            if batch is None:
                continue
            upto = bisect.bisect_right(batch[0], bound, at[k])
            if upto > at[k]:
                taken.append((runs[k][0], batch, at[k], upto))
            at[k] = upto
            if upto == len(batch[0]):
                held[k], at[k] = None, 0
        del batch
        yield _join(np, taken)
        del taken


def _join(np: Any, taken: list[tuple[int, Packed, int, int]]) -> Joined:
    """The rows `taken` (of each run: its offset, a batch and the rows from, upto of it) joined by term."""
    names = sorted(set(chain.from_iterable(batch[0][lo:hi] for _off, batch, lo, hi in taken)))
    rank_of = {name: r for r, name in enumerate(names)}
    ranks = np.fromiter((rank_of[t] for _off, batch, lo, hi in taken for t in batch[0][lo:hi]), dtype=np.int64)
    # every run's rows as segments, one after another, and their bytes in one buffer each (with a byte past the
    # end, so the bound of a last row's gap bytes is a place in the buffer)
    ns = np.concatenate([batch[1][lo:hi] for _off, batch, lo, hi in taken])
    offs = np.repeat(np.array([off for off, *_ in taken], dtype=np.int64), [hi - lo for *_, lo, hi in taken])
    id_lo, id_hi, id_buf = _segments(np, [(batch[2], batch[4], lo, hi) for _off, batch, lo, hi in taken])
    tf_lo, tf_hi, tf_buf = _segments(np, [(batch[3], batch[5], lo, hi) for _off, batch, lo, hi in taken])
    # each segment's first gap (escaped: its first 4-byte value) and its last chunk id, moved by its offset; worked
    # out in buffer order, where summing each segment's gap bytes reads each byte once
    gap_end = id_lo + ns  # where its gap bytes end and its escaped values begin
    escaped = id_buf[id_lo] == 0
    first = id_buf[id_lo].astype(np.int64)
    values = _gather(np, id_buf, gap_end, id_hi - gap_end).view(np.int32)  # every escaped value, in order
    value_sums = np.r_[0, np.cumsum(values, dtype=np.int64)]
    value_at = np.r_[0, np.cumsum((id_hi - gap_end) >> 2)]  # each segment's first value among them
    first[escaped] = values[value_at[:-1][escaped]]
    del values
    byte_sums = _sums(np, id_buf, id_lo, gap_end)
    ends = offs + byte_sums + value_sums[value_at[1:]] - value_sums[value_at[:-1]]
    del byte_sums, value_sums, value_at

    order = np.argsort(ranks, kind="stable")  # by term, then run (stable: the runs' order)
    ranks, ns, offs, first, escaped, ends = (a[order] for a in (ranks, ns, offs, first, escaped, ends))
    id_lo, id_hi, gap_end, tf_lo, tf_hi = (a[order] for a in (id_lo, id_hi, gap_end, tf_lo, tf_hi))
    del order
    n_terms = len(names)
    opens = np.empty(len(ranks), dtype=bool)  # a term's first segment
    opens[0] = True
    np.not_equal(ranks[1:], ranks[:-1], out=opens[1:])
    term_n = np.bincount(ranks, weights=ns, minlength=n_terms).astype(np.int64)
    before = np.empty(len(ends), dtype=np.int64)  # the term's last chunk id in the segments before
    before[0] = 0
    before[1:] = ends[:-1]
    before[opens] = 0
    gap = first + offs - before
    wide = gap >= 256
    heads = np.empty((len(gap), 5), dtype=np.uint8)  # each segment's new first gap byte, then its 4-byte value
    heads[:, 0] = np.where(wide, 0, gap)
    heads[:, 1:] = gap.astype(np.int32).view(np.uint8).reshape(-1, 4)

    # a segment's pieces: its new first gap byte, its other gap bytes; its new first value (if escaped), its other
    # values (less an escaped old first one). A term's row: every segment's gap pieces, then every one's values.
    rest = gap_end + 4 * escaped
    id_at, ids = _assemble(np, ranks, opens, term_n, n_terms, id_buf, [
        (len(id_buf) + 5 * np.arange(len(gap)), np.ones(len(gap), dtype=np.int64)), (id_lo + 1, ns - 1)], [
        (len(id_buf) + 5 * np.arange(len(gap)) + 1, 4 * wide.astype(np.int64)), (rest, id_hi - rest)],
        heads.ravel())
    tf_at, tfs = _assemble(np, ranks, opens, term_n, n_terms, tf_buf, [(tf_lo, ns)],
                           [(tf_lo + ns, tf_hi - tf_lo - ns)], None)
    return names, term_n, id_at, tf_at, ids, tfs


def _segments(np: Any, parts: list[tuple[Any, Any, int, int]]) -> tuple[Any, Any, Any]:
    """Where each row's blob starts and ends in one buffer of the rows' blobs (each part: its batch's blob bounds,
    the blobs, and the rows from, upto), and that buffer, a zero byte past its end."""
    los, his, blobs = [], [], []
    base = 0
    for bounds, blob, lo, hi in parts:
        start, end = int(bounds[lo]), int(bounds[hi])
        los.append(bounds[lo:hi] + (base - start))
        his.append(bounds[lo + 1:hi + 1] + (base - start))
        blobs.append(blob[start:end])
        base += end - start
    blobs.append(np.zeros(1, dtype=np.uint8))
    return np.concatenate(los), np.concatenate(his), np.concatenate(blobs)


def _sums(np: Any, buf: Any, starts: Any, ends: Any) -> Any:
    """The sum of each range (`starts` ascending, `ends`: each past its start, at or before the next start) of the
    bytes `buf`, GATHER_BYTES of them at a time (summed as 8-byte ints, which numpy makes a copy of the bytes in)."""
    cuts = [0, *np.searchsorted(starts, np.arange(GATHER_BYTES, len(buf), GATHER_BYTES)).tolist(), len(starts)]
    sums = []
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        if lo < hi:
            at = int(starts[lo])
            bounds = np.stack([starts[lo:hi], ends[lo:hi]], axis=1).ravel() - at
            sums.append(np.add.reduceat(buf[at:int(ends[hi - 1])], bounds[:-1], dtype=np.int64)[0::2])
    return np.concatenate(sums)


def _gather(np: Any, buf: Any, starts: Any, lengths: Any) -> Any:
    """The ranges (`starts`, `lengths`) of `buf`, one after another; GATHER_BYTES at a time, so the place of each
    byte (4 bytes a byte) stays a few MB."""
    keep = lengths > 0
    starts, lengths = starts[keep], lengths[keep]
    ends = np.cumsum(lengths)
    out = np.empty(int(ends[-1]) if len(ends) else 0, dtype=np.uint8)
    wide = np.int32 if len(buf) < 1 << 31 else np.int64
    cuts = [0, *np.searchsorted(ends, np.arange(GATHER_BYTES, len(out), GATHER_BYTES), side="right").tolist(),
            len(ends)]
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        if lo >= hi:
            continue
        at, upto = int(ends[lo] - lengths[lo]), int(ends[hi - 1])
        # each byte's place is one past the one before it, and a piece's first byte's its start: a running sum
        place = np.ones(upto - at, dtype=wide)
        place[0] = starts[lo]
        place[ends[lo:hi - 1] - at] = starts[lo + 1:hi] - starts[lo:hi - 1] - lengths[lo:hi - 1] + 1
        np.cumsum(place, out=place)
        np.take(buf, place, out=out[at:upto])
    return out


def _assemble(np: Any, ranks: Any, opens: Any, term_n: Any, n_terms: int, buf: Any, head: list[tuple[Any, Any]],
              tail: list[tuple[Any, Any]], extra: Any) -> tuple[Any, bytes]:
    """Each term's blob: the `head` pieces of its segments, segment by segment, then their `tail` pieces (each a
    list of (starts, lengths) per segment in `buf`, or past its end in `extra`): where each blob starts and ends, and
    the blobs one after another."""
    head_len = sum(length for _s, length in head)
    tail_len = sum(length for _s, length in tail)
    blob_len = term_n + np.bincount(ranks, weights=tail_len, minlength=n_terms).astype(np.int64)
    blob_at = np.r_[0, np.cumsum(blob_len)]
    # a segment's head pieces go after those of the term's segments before it, and its tail pieces after the
    # term's head bytes and the tail pieces before it
    head_at = _within(np, opens, head_len) + blob_at[ranks]
    tail_at = _within(np, opens, tail_len) + blob_at[ranks] + term_n[ranks]
    starts, lengths, dests = [], [], []
    for pieces, at in ((head, head_at), (tail, tail_at)):
        for s, length in pieces:
            starts.append(s)
            lengths.append(length)
            dests.append(at)
            at = at + length
    dest = np.concatenate(dests)
    order = np.argsort(dest, kind="stable")
    src = buf if extra is None else np.concatenate([buf, extra])
    out = _gather(np, src, np.concatenate(starts)[order], np.concatenate(lengths)[order])
    return blob_at, out.tobytes()


def _within(np: Any, opens: Any, lengths: Any) -> Any:
    """Each segment's place in its term (`opens`: a term's first segment): the `lengths` of the term's segments
    before it."""
    before = np.cumsum(lengths) - lengths
    return before - np.maximum.accumulate(np.where(opens, before, 0))
