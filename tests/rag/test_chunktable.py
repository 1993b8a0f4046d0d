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
