"""The live chunks of a datasheet index: which chunk ids are in use, and each one's file, position, board
and weighted length, held as arrays indexed by chunk id; and masks of chunk ids (a byte per id) with the
difference of two found at C speed, which a refresh uses to find the chunks it added and removed."""

from __future__ import annotations

import marshal
import sqlite3
from array import array
from collections import Counter
from collections.abc import Iterable
from itertools import compress, groupby, repeat
from operator import itemgetter

ChunkMeta = tuple[str, int, "str | None", float]  # (source path, chunk position, board, weighted length)
#: Version of the layout :meth:`ChunkTable.record_parts` gives (a record of another layout is not read).
RECORD_LAYOUT = 1


def stored_ids(conn: sqlite3.Connection) -> bytearray | None:
    """Which chunk ids the stored postings cover (byte `cid` is 1), or None when none were written yet."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'snapshot_ids'").fetchone()
    if row is None:
        return None
    ids = array("i")
    ids.frombytes(row[0])
    return id_mask(ids)


def id_mask(ids: Iterable[int]) -> bytearray:
    """A byte per chunk id up to the largest of `ids`: 1 for the ids given (a set of 165,000 ids as a
    Python set costs 13 MB; this costs 165 kB)."""
    ids = list(ids)
    mask = bytearray(max(ids, default=-1) + 1)
    for cid in ids:
        mask[cid] = 1
    return mask


def mask_diff(a: bytearray, b: bytearray) -> list[int]:
    """Ids set in mask `a` and not in mask `b` (masks as :func:`id_mask` and :meth:`ChunkTable.live_flags`
    make), ascending. The masks are combined as two big integers, a few microseconds for 165,000 ids, and
    only the ids that differ (the few chunks a refresh changed) are visited one by one."""
    n = len(a)
    x = int.from_bytes(a, "little")
    diff = (x & ~int.from_bytes(b[:n], "little")).to_bytes(n, "little")  # a byte of 1 where a is set, b not
    out: list[int] = []
    at = diff.find(1)
    while at >= 0:
        out.append(at)
        at = diff.find(1, at + 1)
    return out


class ChunkTable:
    """Chunk id -> (source path, position, board, weighted length) of the live chunks, held as four arrays
    indexed by chunk id (16 bytes a chunk) instead of a dict of tuples (about 270 bytes a chunk): the
    resident part of a 10,000-file index. Reads like a mapping; ``None`` boards are generic files."""

    def __init__(self) -> None:
        self._file = array("i")  # file number, -1 where no live chunk has that id
        self._idx = array("i")
        self._board = array("i")
        self._dl = array("d")
        self._files: list[str] = []
        self._file_no: dict[str, int] = {}
        self._boards: list[str | None] = [None]
        self._board_no: dict[str | None, int] = {None: 0}
        self._board_live: Counter[int] = Counter()  # live chunks per board number
        self._live_boards: set[str] = set()  # board tags with a live chunk, kept in step with the counts
        self._live = bytearray()  # 1 where a live chunk has that id
        self._n = 0

    def _count(self, bn: int, k: int) -> None:
        """Add `k` to the live chunks of board number `bn`."""
        before = self._board_live[bn]
        after = self._board_live[bn] = before + k
        board = self._boards[bn]
        if board and (before > 0) != (after > 0):
            if after > 0:
                self._live_boards.add(board)
            else:
                self._live_boards.discard(board)

    def __setitem__(self, cid: int, meta: ChunkMeta) -> None:
        rel, idx, board, dl = meta
        if cid >= len(self._file):
            grow = cid + 1 - len(self._file)
            self._file.extend(repeat(-1, grow))
            self._idx.extend(repeat(0, grow))
            self._board.extend(repeat(0, grow))
            self._dl.extend(repeat(0.0, grow))
            self._live.extend(bytes(grow))
        if self._file[cid] < 0:
            self._n += 1
        else:
            self._count(self._board[cid], -1)
        f, bn = self._numbers(rel, board)
        self._file[cid], self._idx[cid], self._board[cid], self._dl[cid] = f, idx, bn, dl
        self._live[cid] = 1
        self._count(bn, 1)

    def _numbers(self, rel: str, board: str | None) -> tuple[int, int]:
        """The numbers the table stores for a file and a board, given out on first sight."""
        f = self._file_no.get(rel)
        if f is None:
            f = self._file_no[rel] = len(self._files)
            self._files.append(rel)
        bn = self._board_no.get(board)
        if bn is None:
            bn = self._board_no[board] = len(self._boards)
            self._boards.append(board)
        return f, bn

    def add_file(self, first: int, rel: str, board: str | None, dls: list[float]) -> None:
        """The chunks of one file, ids `first` onwards (each id new to the table, as ids are never reused):
        the arrays grow by the file's chunks at once instead of a chunk at a time."""
        n = len(dls)
        if first < len(self._file):  # an id the table has seen: one at a time, keeping the counts right
            for i, dl in enumerate(dls):
                self[first + i] = (rel, i, board, dl)
            return
        f, bn = self._numbers(rel, board)
        gap = first - len(self._file)  # ids of chunks removed before this table was filled
        self._file.extend(repeat(-1, gap))
        self._idx.extend(repeat(0, gap))
        self._board.extend(repeat(0, gap))
        self._dl.extend(repeat(0.0, gap))
        self._live.extend(bytes(gap))
        self._file.extend(repeat(f, n))
        self._idx.extend(range(n))
        self._board.extend(repeat(bn, n))
        self._dl.extend(dls)
        self._live.extend(b"\1" * n)
        self._n += n
        self._count(bn, n)

    def add_rows(self, rows: Iterable[tuple[int, str, int, str | None, float]]) -> None:
        """Chunks read back from the index as (id, source path, position, board, weighted length), ids
        ascending: each file's chunks (consecutive ids, positions from 0, as indexing gives them) are added at
        once with :meth:`add_file`, anything else one chunk at a time."""
        for rel, group in groupby(rows, key=itemgetter(1)):
            chunks = list(group)
            first, _, _, board, _ = chunks[0]
            n = len(chunks)
            if (first >= len(self._file) and chunks[-1][0] - first == n - 1
                    and list(map(itemgetter(2), chunks)) == list(range(n))
                    and all(c[3] == board for c in chunks)):
                self.add_file(first, rel, board, list(map(itemgetter(4), chunks)))
            else:
                for cid, _, idx, chunk_board, dl in chunks:
                    self[cid] = (rel, idx, chunk_board, dl)

    def record_parts(self, gen: int) -> list[memoryview]:
        """The whole table as the parts of one compact record (a few MB for 165,000 chunks), naming the index
        generation `gen` it belongs to: a restart reads it back with :meth:`from_record` instead of reading
        every chunk row (and so every chunk's text) of the index. The parts are the table's own arrays (a
        header, then each array's bytes), so storing them copies nothing."""
        header = marshal.dumps((RECORD_LAYOUT, gen, self._files, self._boards, dict(self._board_live), len(self._file)))
        return [memoryview(len(header).to_bytes(4, "little")), memoryview(header),
                *(memoryview(a).cast("B") for a in (self._file, self._idx, self._board, self._dl)),
                memoryview(self._live)]

    @classmethod
    def from_record(cls, record: bytes, gen: int) -> ChunkTable | None:
        """The table a record of :meth:`record_parts` holds; None when it belongs to another generation than
        `gen` (the index changed since it was written) or is not a whole record of this layout."""
        view = memoryview(record)
        table = cls()
        try:
            at = 4 + int.from_bytes(view[:4], "little")
            layout, got_gen, files, boards, board_live, n = marshal.loads(view[4:at])
            if layout != RECORD_LAYOUT or got_gen != gen:
                return None
            for a in (table._file, table._idx, table._board, table._dl):
                a.frombytes(view[at:at + n * a.itemsize])
                at += n * a.itemsize
        except (EOFError, ValueError, TypeError):
            return None
        if len(view) != at + n or not (len(table._file) == len(table._idx) == len(table._board) == len(table._dl) == n):
            return None
        table._live = bytearray(view[at:])
        table._files, table._boards = list(files), list(boards)
        table._file_no = {rel: k for k, rel in enumerate(table._files)}
        table._board_no = {board: k for k, board in enumerate(table._boards)}
        table._n = table._live.count(1)
        table._board_live = Counter(board_live)
        table._live_boards = {b for k, count in table._board_live.items() if count > 0 and (b := table._boards[k])}
        return table

    def __getitem__(self, cid: int) -> ChunkMeta:
        if not 0 <= cid < len(self._file) or self._file[cid] < 0:
            raise KeyError(cid)
        return (self._files[self._file[cid]], self._idx[cid], self._boards[self._board[cid]], self._dl[cid])

    def __contains__(self, cid: object) -> bool:
        return isinstance(cid, int) and 0 <= cid < len(self._file) and self._file[cid] >= 0

    def __len__(self) -> int:
        return self._n

    def pop(self, cid: int, default: object = None) -> object:
        if cid not in self:
            return default
        got = self[cid]
        self._file[cid] = -1
        self._live[cid] = 0
        self._n -= 1
        self._count(self._board[cid], -1)
        return got

    def ids(self) -> list[int]:
        """Live chunk ids, ascending."""
        return list(compress(range(len(self._file)), self._live))

    def live_flags(self) -> bytearray:
        """A byte per chunk id, 1 where a live chunk has it (the table's own: read, do not change)."""
        return self._live

    def board_of(self, cid: int) -> str | None:
        return self._boards[self._board[cid]]

    def arrays(self) -> tuple[array[int], array[int], array[float]]:
        """(file numbers, board numbers, weighted lengths) indexed by chunk id; file number -1 = no chunk."""
        return self._file, self._board, self._dl

    def first_chunk(self, board: str) -> int:
        """The lowest live chunk id of a board, -1 if none (a scan at C speed: a search asks for few boards)."""
        n = self._board_no.get(board)
        at = -1
        while n is not None:
            try:
                at = self._board.index(n, at + 1)
            except ValueError:
                return -1
            if self._file[at] >= 0:
                return at
        return -1

    def board_number(self, board: str) -> int | None:
        return self._board_no.get(board)

    def boards(self) -> frozenset[str]:
        """Board tags with at least one live chunk."""
        return frozenset(self._live_boards)
