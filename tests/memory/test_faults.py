"""Faults: corrupt database at startup, disk full, several processes writing at once."""

from __future__ import annotations

import io
import logging
import multiprocessing as mp
from pathlib import Path

import pytest

from edge_agent.config import Settings
from edge_agent.errors import MemoryStoreError
from edge_agent.memory import MemoryFullError, MemoryStore


def test_a_corrupt_database_is_moved_aside_with_a_timestamp_and_a_fresh_one_started(
    state: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with MemoryStore.open(state, Settings()) as s:
        path = s.db_path
    garbage = b"this is not an sqlite file at all\n" * 200
    path.write_bytes(garbage)
    with caplog.at_level(logging.ERROR, logger="edge_agent.memory.db"), MemoryStore.open(state, Settings()) as s:
        assert s.recovered_from is not None
        assert s.recovered_from.name.startswith("memory.db.corrupt-")
        assert s.recovered_from.read_bytes() == garbage  # the evidence is kept, not deleted
        assert s.count() == 0
        s.store("k", "works again")
        assert s.maintenance.health_check()["ok"] is True
        assert s.maintenance.stats()["recovered_from"] == str(s.recovered_from)
    assert any(r.levelno == logging.ERROR and "CORRUPT" in r.getMessage() for r in caplog.records)


def test_damaged_pages_after_an_unclean_shutdown_are_detected_at_startup(state: Path) -> None:
    with MemoryStore.open(state, Settings()) as s:
        s.store_many({"key": f"k{i}", "content": f"reading {i} " * 40} for i in range(300))
        path = s.db_path
    size = path.stat().st_size
    with path.open("r+b") as fp:  # scribble over pages in the middle of the file
        fp.seek(size // 2)
        fp.write(b"\xff" * 8192)
    Path(f"{path}.clean").unlink()  # as if the process had crashed
    with MemoryStore.open(state, Settings()) as s:
        assert s.recovered_from is not None and s.count() == 0


def test_disk_full_fails_the_write_clearly_and_keeps_earlier_data(store: MemoryStore) -> None:
    store.store("before", "kept entry")
    (pages,) = store._conn.execute("PRAGMA page_count").fetchone()
    store._conn.execute(f"PRAGMA max_page_count = {pages}")  # the database may not grow: as if the disk filled
    with pytest.raises(MemoryFullError) as err:
        store.store_many({"key": f"big{i}", "content": "z" * 4000 + str(i)} for i in range(50))
    assert err.value.path == str(store.db_path)
    assert isinstance(err.value, OSError) and isinstance(err.value, MemoryStoreError)
    assert store.get("before") is not None and store.count() == 1
    store._conn.execute("PRAGMA max_page_count = 1073741823")
    store.store("after", "space is back")
    assert store.count() == 2


def _writer(state: str, worker: int, n: int, start: mp.synchronize.Event) -> None:  # type: ignore[name-defined]
    start.wait(30)
    with MemoryStore.open(state, Settings()) as s:
        for i in range(n):
            s.store(f"w{worker}-{i}", f"worker {worker} reading {i}", category="daily")


def test_two_processes_writing_at_once_lose_nothing(state: Path) -> None:
    ctx = mp.get_context("fork")
    start = ctx.Event()
    n = 60
    procs = [ctx.Process(target=_writer, args=(str(state), w, n, start)) for w in range(2)]
    for p in procs:
        p.start()
    start.set()  # both open the fresh database (and migrate it) and write at the same moment
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with MemoryStore.open(state, Settings()) as s:
        assert s.count() == 2 * n
        assert {e.key for e in s.list(limit=1000)} == {f"w{w}-{i}" for w in range(2) for i in range(n)}
        assert s.maintenance.health_check()["ok"] is True


def test_two_stores_in_one_process_interleave_writes(state: Path) -> None:
    a = MemoryStore.open(state, Settings())
    b = MemoryStore.open(state, Settings())
    try:
        for i in range(20):
            a.store(f"a{i}", f"from a {i}")
            b.store(f"b{i}", f"from b {i}")
        assert a.count() == b.count() == 40
    finally:
        a.close()
        b.close()


def test_threads_sharing_one_store_neither_lose_writes_nor_fail(state: Path) -> None:
    import threading

    errors: list[BaseException] = []
    with MemoryStore.open(state, Settings()) as s:
        def work(t: int) -> None:
            try:
                for i in range(25):
                    s.store(f"t{t}-{i}", f"thread {t} note {i} about the pump relay")
                    s.search.recall("pump relay")
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == [] and s.count() == 100


def test_disk_full_during_a_capture_keeps_neither_the_entry_nor_the_outbox_row(state: Path) -> None:
    from edge_agent.memory import Capture

    from .test_captures import TableSink, outbox_rows

    with MemoryStore.open(state, Settings(), capture_sink=TableSink()) as s:
        s.captures.record_capture(Capture(type="fact", title="first", content="kept capture"))
        (pages,) = s._conn.execute("PRAGMA page_count").fetchone()
        s._conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(MemoryFullError):
            s.captures.record_capture(Capture(type="fact", title="big", content="y" * 60_000))
        s._conn.execute("PRAGMA max_page_count = 1073741823")
        assert s.count() == 1 and len(outbox_rows(s)) == 1


def test_a_word_first_stored_by_another_process_is_recalled_at_once(state: Path) -> None:
    a = MemoryStore.open(state, Settings())
    b = MemoryStore.open(state, Settings())
    try:
        a.store("x", "pump relay wiring")
        assert a.search.recall("zeolite filter", min_score=0) == []
        b.store("z", "the zeolite filter was replaced")
        assert [e.key for e in a.search.recall("zeolite filter", min_score=0)] == ["z"]
    finally:
        a.close()
        b.close()


def test_damage_found_while_running_gets_the_file_checked_and_moved_aside_at_the_next_start(state: Path) -> None:
    with MemoryStore.open(state, Settings()) as s:
        s.store_many({"key": f"k{i}", "content": f"valve log {i} " * 40} for i in range(300))
        path = s.db_path
    size = path.stat().st_size
    with path.open("r+b") as fp:
        fp.seek(size // 2)
        fp.write(b"\x00\xff" * 8192)
    s = MemoryStore.open(state, Settings())  # closed cleanly last time: no full check, damage unseen yet
    with pytest.raises(MemoryStoreError):
        for i in range(300):
            s.get(f"k{i}")
            s.search.recall(f"valve log {i}")
        s.list(limit=1000)
        s.transfer.export_jsonl(io.StringIO())  # reads every entry
    assert s.degraded and s.maintenance.health_check()["ok"] is False
    s.close()
    with MemoryStore.open(state, Settings()) as fresh:
        assert fresh.recovered_from is not None and fresh.count() == 0


@pytest.fixture
def tiny_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A 1 MiB tmpfs: a file system that really runs out of space (needs root; skipped otherwise)."""
    import os
    import subprocess

    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True,
                          timeout=30, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=30, check=False)


def test_a_really_full_file_system_fails_the_write_clearly_and_keeps_earlier_entries(tiny_disk: Path) -> None:
    with MemoryStore.open(tiny_disk, Settings()) as s:
        s.store("first", "stored while there was room")
        with pytest.raises(MemoryFullError):
            for i in range(1000):
                s.store(f"k{i}", f"filler {i} " + "x" * 4000)
        n = s.count()
        assert s.get("first") is not None and n >= 1
    with MemoryStore.open(tiny_disk, Settings()) as s:  # still opens; nothing committed was lost
        assert s.recovered_from is None and s.count() == n
