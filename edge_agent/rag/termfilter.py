"""Which terms the stored postings hold, answered in memory: a Bloom filter over the terms of the postings
rows, written with them.

A question's words, their other forms (``-er``, ``-ion``, irregular ones) and the words a long one splits into
are looked up one by one, and most of those forms, and any word no datasheet uses, have no row: each such
lookup descends the postings table's B-tree (rows of a few kB to hundreds of kB, so few to a page), about
10-30 µs, where the filter answers in under a microsecond. The filter never turns away a term that has a row;
about one absent term in a thousand passes it and is then looked up as before.

It is stored in the meta table beside the ids of the chunks the postings cover (``snapshot_ids``), with a
checksum of those ids: postings written again without a filter (by another version) cover other ids, so the
old filter no longer matches them and is not used.
"""

from __future__ import annotations

import sqlite3
import struct
import zlib
from collections.abc import Collection
from typing import Any

#: Filter bits per term (rounded up to a power of two): about 1 absent term in 1,000 passes with 4 probes.
BITS_PER_TERM = 16
PROBES = 4
_MAGIC = b"TF1"
_HEADER = struct.Struct("<3sIIB")  # magic, checksum and length of the covered ids, log2 of the bit count


def _hashes(term: str) -> tuple[int, int]:
    """Two independent hashes of a term (the same in every process, unlike :func:`hash`); the second is odd,
    so the probes of a power-of-two filter are distinct."""
    raw = term.encode("utf-8", "surrogatepass")
    return zlib.crc32(raw), zlib.adler32(raw) | 1


def build(terms: Collection[str], covers: bytes, np: Any = None) -> bytes:
    """The stored filter of `terms` (every term of the postings rows) for postings covering the chunk ids
    `covers` (the ``snapshot_ids`` value); with numpy (`np`) the bits are set in a few array operations."""
    log2 = max(10, (BITS_PER_TERM * len(terms)).bit_length())
    mask = (1 << log2) - 1
    header = _HEADER.pack(_MAGIC, zlib.crc32(covers), len(covers), log2)
    if np is not None:
        pairs = [_hashes(t) for t in terms]
        first = np.fromiter((a for a, _ in pairs), dtype=np.int64, count=len(pairs))
        step = np.fromiter((b for _, b in pairs), dtype=np.int64, count=len(pairs))
        bits = np.zeros((mask >> 3) + 1, dtype=np.uint8)
        for i in range(PROBES):
            at = (first + i * step) & mask
            np.bitwise_or.at(bits, at >> 3, (1 << (at & 7)).astype(np.uint8))
        return header + bytes(bits.tobytes())
    out = bytearray((mask >> 3) + 1)
    for t in terms:
        a, b = _hashes(t)
        for i in range(PROBES):
            at = (a + i * b) & mask
            out[at >> 3] |= 1 << (at & 7)
    return header + bytes(out)


class TermFilter:
    """``term in filter``: False when the postings rows surely have no row for `term`."""

    __slots__ = ("_bits", "_mask")

    def __init__(self, bits: bytes, log2: int) -> None:
        if len(bits) != (1 << log2) >> 3:
            raise ValueError(f"a term filter of 2**{log2} bits holds {len(bits)} bytes")
        self._bits = bits
        self._mask = (1 << log2) - 1

    def __contains__(self, term: object) -> bool:
        if not isinstance(term, str):
            return False
        a, b = _hashes(term)
        bits, mask = self._bits, self._mask
        for i in range(PROBES):
            at = (a + i * b) & mask
            if not bits[at >> 3] >> (at & 7) & 1:
                return False
        return True


def write(conn: sqlite3.Connection, terms: Collection[str], covers: bytes, np: Any = None) -> None:
    """Store the filter of the postings rows just written (inside the transaction that wrote them)."""
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('term_filter', ?)", (build(terms, covers, np),))


def read(conn: sqlite3.Connection) -> TermFilter | None:
    """The stored filter, or None when there is none or it was written for other postings than the stored
    ones (their covered chunk ids differ)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'term_filter'").fetchone()
    ids = conn.execute("SELECT value FROM meta WHERE key = 'snapshot_ids'").fetchone()
    if row is None or ids is None or not isinstance(row[0], bytes) or not isinstance(ids[0], bytes) \
            or len(row[0]) < _HEADER.size:
        return None
    blob, covers = row[0], ids[0]
    magic, checksum, length, log2 = _HEADER.unpack_from(blob)
    if magic != _MAGIC or length != len(covers) or checksum != zlib.crc32(covers):
        return None
    try:
        return TermFilter(blob[_HEADER.size:], log2)
    except ValueError:
        return None
