"""One owner of the state database: the memory store opens the file and runs every package's migrations;
the sync worker borrows the store's connection (reads, units of work) and never opens one of its own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from edge_agent.config import Settings
from edge_agent.memory import MemoryStore, register_migrations
from edge_agent.memory import db as dbmod
from edge_agent.sync import SyncWorker


def test_the_worker_opens_no_connection_while_it_uploads_and_records_krefs(server, make_device,
                                                                           monkeypatch: pytest.MonkeyPatch):
    dev = make_device(server)
    caps = [dev.capture(f"reading {i}") for i in range(3)]
    opened: list[str] = []
    real_connect = sqlite3.connect

    def counting_connect(database: str | Path, *args: object, **kwargs: object) -> sqlite3.Connection:
        opened.append(str(database))
        return real_connect(database, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", counting_connect)
    worker = dev.reopen_worker()
    assert worker.sync_until_empty(deadline_s=30)
    status = worker.status()
    monkeypatch.undo()
    assert opened == [], f"the sync worker opened its own connection(s): {opened}"
    assert status["queued"] == 0 and status["in_flight"] == 0
    for cap in caps:  # the krefs went onto the entries through the store's unit of work
        assert dev.store.kref_of(cap.entry_id) is not None


def test_a_unit_of_work_that_fails_keeps_neither_the_outbox_change_nor_the_kref(make_device):
    dev = make_device()
    cap = dev.capture("vibration threshold")
    with pytest.raises(RuntimeError), dev.store.unit_of_work("test") as uow:
        uow.conn.execute("DELETE FROM sync_outbox")
        assert uow.record_krefs([(cap.entry_id, "kref://CognitiveMemory/x/y.fact?r=1")]) == 1
        raise RuntimeError("the upload step after it failed")
    with dev.store.reading() as conn:
        assert conn.execute("SELECT count(*) FROM sync_outbox").fetchone()[0] == 1
    assert dev.store.kref_of(cap.entry_id) is None


def test_a_package_registers_its_migrations_and_a_store_opened_before_applies_them_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with MemoryStore.open(tmp_path / "state", Settings()) as store:
        folder = tmp_path / "extra-migrations"
        folder.mkdir()
        (folder / "0001_notes.sql").write_text("CREATE TABLE extra_notes (id INTEGER PRIMARY KEY, note TEXT);\n")
        (folder / "README.txt").write_text("not a migration\n")
        monkeypatch.setitem(dbmod._MIGRATIONS, "extra", folder)  # removed again after the test
        assert store.apply_migrations() == ["extra/0001_notes.sql"]
        assert store.apply_migrations() == []
        with store.unit_of_work("note") as uow:
            uow.conn.execute("INSERT INTO extra_notes (note) VALUES ('x')")
        assert "extra/0001_notes.sql" in store.maintenance.health_check()["migrations"]
        # Applied in the order the packages registered: memory's own first, the latest one last.
        order = [name.split("/")[0] for name, _sql in dbmod.migration_files()]
        assert order[0] == "memory" and order[-1] == "extra" and order.index("sync") > order.index("memory")


def test_one_prefix_cannot_be_claimed_by_two_folders(tmp_path: Path):
    with pytest.raises(ValueError, match="already registered"):
        register_migrations("sync", tmp_path)


def test_memory_names_no_other_package_for_its_migrations():
    source = Path(dbmod.__file__).read_text(encoding="utf-8")
    assert "edge_agent.sync" not in source and '"sync"' not in source


def test_a_worker_attached_to_a_store_without_the_outbox_tables_creates_them(tmp_path: Path, server,
                                                                              monkeypatch: pytest.MonkeyPatch):
    # As when the store was opened before the sync package was imported: only memory's migrations ran.
    monkeypatch.setattr(dbmod, "_MIGRATIONS", {"memory": dbmod._MIGRATIONS["memory"]})
    settings = Settings.model_validate({"device": {"id": "pi-late"},
                                        "kumiho": {"enabled": True, "endpoint": server.endpoint}})
    with MemoryStore.open(tmp_path, settings) as store:
        with store.reading() as conn:
            assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sync_outbox'").fetchone() is None
        monkeypatch.undo()
        with SyncWorker(store, settings, tmp_path) as worker:
            assert worker.status()["queued"] == 0
        assert "sync/0001_sync_outbox.sql" in store.maintenance.health_check()["migrations"]
