"""The live-chunk table stored as one record: a restart reads it instead of every chunk row when it belongs to
the index as it is, and reads the rows (then stores the record again) when the index changed since."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag
from edge_agent.rag.chunktable import ChunkTable


def _write(root: Path, name: str, text: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)


def _state(table: ChunkTable) -> tuple[object, ...]:
    return (table.ids(), [table[cid] for cid in table.ids()], table.boards(), len(table),
            bytes(table.live_flags()), [list(a) for a in table.arrays()],
            [table.board_number(b) for b in ("rpi-4b", "bme280", "part-3", None, "nope")])  # type: ignore[arg-type]


def _random_table(rng: random.Random) -> ChunkTable:
    table = ChunkTable()
    next_id = 1
    live: list[int] = []
    for step in range(300):
        if live and rng.random() < 0.3:
            table.pop(live.pop(rng.randrange(len(live))))
        else:
            n = rng.randrange(1, 5)
            board = rng.choice(["rpi-4b", "bme280", None, f"part-{step % 6}"])
            table.add_file(next_id, f"v{step % 5}/f{step}.md", board, [float(rng.randrange(5, 99)) for _ in range(n)])
            live.extend(range(next_id, next_id + n))
            next_id += n + rng.randrange(0, 2)
    return table


def _record(table: ChunkTable, gen: int) -> bytes:
    return b"".join(bytes(p) for p in table.record_parts(gen))


def test_a_table_read_back_from_its_record_is_the_table_and_changes_like_it() -> None:
    rng = random.Random(3)
    for _ in range(5):
        table = _random_table(rng)
        back = ChunkTable.from_record(_record(table, 7), 7)
        assert back is not None
        assert _state(back) == _state(table)
        # both go on alike: a removal of a live chunk, a file added past the end, a chunk of a new board
        gone, end = table.ids()[len(table) // 2], len(table.arrays()[0]) + 2
        for t in (table, back):
            t.pop(gone)
            t.add_file(end, "new.md", "fresh-board", [12.0, 30.0])
        assert _state(back) == _state(table)
        assert "fresh-board" in back.boards()


def test_a_record_of_another_generation_or_not_whole_is_not_read() -> None:
    record = _record(_random_table(random.Random(4)), 3)
    assert ChunkTable.from_record(record, 4) is None
    assert ChunkTable.from_record(record[: len(record) // 2], 3) is None
    assert ChunkTable.from_record(b"not a record", 3) is None
    assert ChunkTable.from_record(record + b"\0", 3) is None
    assert ChunkTable.from_record(_record(ChunkTable(), 3), 3) is not None  # an empty index's table


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    _write(root, "nucleo-f401re.md", "# Nucleo\n## LEDs\nLD2 green user LED on PA5.\n## Clock\nHSE bypass 8 MHz.\n")
    _write(root, "bme280.md", "# BME280\n## Chip id\nRegister 0xD0 reads 0x60 on a BME280 chip id check.\n")
    for i in range(6):
        _write(root, f"part{i}.md", f"# Part {i}\n## Misc\nregister map of part {i}\n")
    return root


def _results(rag: HardwareRag, query: str) -> list[tuple[str, str, float]]:
    return [(c.source, c.heading, round(c.score, 6)) for c in rag.search(query)]


def _counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the restarts that read the live chunks from every chunk row."""
    reads: list[int] = []
    original = ChunkTable.add_rows

    def counted(self: ChunkTable, rows: object) -> None:
        reads.append(1)
        original(self, rows)  # type: ignore[arg-type]

    monkeypatch.setattr(ChunkTable, "add_rows", counted)
    return reads


def test_a_restart_reads_the_stored_record_instead_of_the_chunk_rows(library: Path, state: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    reads = _counting_reads(monkeypatch)
    HardwareRag.load(library, index_dir=state).close()  # a small cold build: no record yet
    HardwareRag.load(library, index_dir=state).close()  # reads the rows once, stores the record
    assert len(reads) == 1
    again = HardwareRag.load(library, index_dir=state)
    assert len(reads) == 1  # the record, not the rows
    cold = HardwareRag.load(library)
    for q in ("LED PA5", "register part 3", "chip id 0xD0"):
        assert _results(again, q) == _results(cold, q)


def test_a_change_since_the_record_makes_the_restart_read_the_rows(library: Path, state: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    HardwareRag.load(library, index_dir=state).close()
    HardwareRag.load(library, index_dir=state).close()  # the record is stored
    reads = _counting_reads(monkeypatch)
    daemon = HardwareRag.load(library, index_dir=state)
    assert not reads
    _write(library, "part3.md", "# Part 3\n## Misc\nregister map of part 3, now with a watchdog erratum\n")
    daemon.refresh([library / "part3.md"])  # a small refresh in place leaves the record behind
    daemon.close()
    restarted = HardwareRag.load(library, index_dir=state)
    assert len(reads) == 1
    assert restarted.search("watchdog erratum")[0].source == "part3.md"
    assert _results(restarted, "register part") == _results(HardwareRag.load(library), "register part")
    HardwareRag.load(library, index_dir=state).close()
    assert len(reads) == 1  # the restart that read the rows stored the record again


def test_a_restart_that_cannot_write_loads_without_storing_the_record(library: Path, state: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rag = HardwareRag.load(library, index_dir=state)
    assert rag.db_path is not None
    rag.close()
    other = sqlite3.connect(rag.db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process is writing the index
    try:
        reads = _counting_reads(monkeypatch)
        during = HardwareRag.load(library, index_dir=state)
        assert during.search("chip id")[0].source == "bme280.md"
        during.close()
    finally:
        other.execute("ROLLBACK")
        other.close()
    HardwareRag.load(library, index_dir=state).close()
    assert len(reads) == 2  # the first restart could not store the record, the second did
    HardwareRag.load(library, index_dir=state).close()
    assert len(reads) == 2
