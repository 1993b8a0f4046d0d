"""The live-chunk table and chunk-id masks a refresh compares: the differences and the live boards are the
ones a plain recount gives, whatever the order of additions and removals."""

from __future__ import annotations

import random

from edge_agent.rag.chunktable import ChunkTable, id_mask, mask_diff


def test_mask_difference_is_the_set_difference_for_masks_of_any_length() -> None:
    rng = random.Random(5)
    for _ in range(200):
        a = {rng.randrange(3000) for _ in range(rng.randrange(0, 400))}
        b = {rng.randrange(3000) for _ in range(rng.randrange(0, 400))}
        assert mask_diff(id_mask(a), id_mask(b)) == sorted(a - b)
    assert mask_diff(bytearray(), id_mask({1, 2})) == []
    assert mask_diff(id_mask({0, 9}), bytearray()) == [0, 9]


def test_the_table_keeps_its_live_ids_and_boards_in_step_with_additions_and_removals() -> None:
    rng = random.Random(8)
    table = ChunkTable()
    live: dict[int, str | None] = {}
    next_id = 1
    for step in range(400):
        if live and rng.random() < 0.4:
            cid = rng.choice(sorted(live))
            table.pop(cid)
            del live[cid]
        else:
            board = rng.choice(["rpi-4b", "bme280", None, f"part-{step % 7}"])
            n = rng.randrange(1, 4)
            table.add_file(next_id, f"f{step}.md", board, [float(rng.randrange(10, 90)) for _ in range(n)])
            live.update(dict.fromkeys(range(next_id, next_id + n), board))
            next_id += n + rng.randrange(0, 3)  # ids of chunks dropped before the table saw them
        assert table.ids() == sorted(live)
        assert mask_diff(table.live_flags(), bytearray()) == sorted(live)
        assert table.boards() == {b for b in live.values() if b}
        assert len(table) == len(live)
        for b in ("rpi-4b", "bme280", "part-3", "not-a-board"):
            assert table.first_chunk(b) == min((c for c, t in live.items() if t == b), default=-1)


def _state(table: ChunkTable) -> tuple[object, ...]:
    return (list(table.ids()), [table[cid] for cid in table.ids()], table.boards(), len(table),
            bytes(table.live_flags()), [list(a) for a in table.arrays()])


def test_rows_read_back_make_the_table_that_chunk_by_chunk_additions_make() -> None:
    """A restart reads every chunk's row back in id order and adds a file's chunks at once: the table is the
    one adding them one at a time gives, also with removed ids between files and rows that are not a whole
    file from its first position (kept one by one)."""
    rng = random.Random(11)
    rows: list[tuple[int, str, int, str | None, float]] = []
    next_id = 1
    for f in range(300):
        n = rng.randrange(1, 6)
        board = rng.choice(["rpi-4b", None, f"part-{f % 5}"])
        start = 0 if rng.random() < 0.8 else rng.randrange(1, 3)  # a file whose first chunks were dropped
        rows.extend((next_id + k, f"v{f % 7}/f{f}.md", start + k, board, float(rng.randrange(5, 99)))
                    for k in range(n))
        next_id += n + (rng.randrange(1, 4) if rng.random() < 0.3 else 0)  # removed chunks' ids
    rows.append((next_id + 1, "odd.md", 0, "x", 1.0))
    rows.append((next_id + 3, "odd.md", 1, "x", 2.0))  # one file, ids not consecutive
    one_by_one = ChunkTable()
    for cid, rel, idx, board, dl in rows:
        one_by_one[cid] = (rel, idx, board, dl)
    at_once = ChunkTable()
    at_once.add_rows(iter(rows))
    assert _state(at_once) == _state(one_by_one)
    assert at_once.board_number("rpi-4b") == one_by_one.board_number("rpi-4b")
