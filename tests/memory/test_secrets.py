"""Credentials never reach the memory database, whether or not sync is on: every write is screened first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.config import Settings, parse_settings
from edge_agent.credentials import REDACTION_KEY_FILE, read_screening
from edge_agent.errors import SecretRejectedError
from edge_agent.memory import Capture, MemoryStore
from edge_agent.memory.errors import InvalidEntryError

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
BEARER = "eW91IHNob3VsZCBub3Qgc2VlIHRoaXM0Mg"


def run(state: Path, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(["--state", str(state), *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def database_bytes(state: Path) -> bytes:
    """Every byte of the workspace's database files (the main file, its WAL and shared memory)."""
    folder = state / "workspaces" / "default" / "memory"
    return b"".join(p.read_bytes() for p in sorted(folder.glob("memory.db*")) if p.is_file())


def test_sync_is_off_by_default_so_the_memory_store_is_the_only_screen() -> None:
    assert Settings().kumiho.enabled is False


def test_a_reflected_secret_in_prose_is_absent_from_export_recall_engage_and_the_file(
        state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = {"session_id": "s1", "response": f"stored it; the key is {AWS_SECRET}",
            "captures": [{"type": "fact", "title": "staging credentials",
                          "content": f"the aws secret access key is {AWS_SECRET}", "tags": ["aws", "staging"]}]}
    f = tmp_path / "reflect.json"
    f.write_text(json.dumps(body))
    rc, out, _ = run(state, "memory", "reflect", "--json", str(f), capsys=capsys)
    assert rc == 0 and json.loads(out)["stored"] == 1

    rc, out, _ = run(state, "memory", "export", capsys=capsys)
    assert rc == 0 and AWS_SECRET not in out
    line = json.loads(out.splitlines()[0])
    assert line["content"].startswith("the aws secret access key is [REDACTED:")  # the sentence itself is kept
    rc, out, _ = run(state, "memory", "recall", "aws secret access key", "--json", "--min-score", "0", capsys=capsys)
    hits = json.loads(out)["results"]
    assert rc == 0 and len(hits) == 1 and AWS_SECRET not in out
    rc, out, _ = run(state, "memory", "engage", "staging credentials", capsys=capsys)
    assert rc == 0 and "staging credentials" in out and AWS_SECRET not in out

    raw = database_bytes(state)
    assert raw and AWS_SECRET.encode() not in raw and b"wJalrXUtnFEMI" not in raw


def test_a_title_cut_from_the_content_does_not_keep_part_of_the_secret(store: MemoryStore) -> None:
    content = "x" * 100 + " key AKIAIOSFODNN7EXAMPLE for the uploader"  # the default title ends inside the key
    out = store.captures.reflect("s1", "", captures=[{"type": "fact", "content": content}])
    entry = store.get_by_id(out["captures"][0]["entry_id"])
    assert entry is not None and "AKIAIOSFOD" not in entry.title and "AKIAIOSFOD" not in entry.key
    assert b"AKIAIOSFOD" not in database_bytes(store.state_dir)


def test_the_response_kept_in_working_memory_is_redacted_too(store: MemoryStore) -> None:
    store.captures.reflect("s1", f"done; the aws secret access key is {AWS_SECRET}")
    kept = store.captures.working_memory("s1")
    assert kept is not None and kept.startswith("done; the aws secret access key is [REDACTED:")
    assert AWS_SECRET not in kept


def test_memory_store_of_an_entry_with_a_bearer_token_stores_it_redacted(
        state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = f"call the gateway with Authorization: Bearer {BEARER} from the bench pi"
    rc, out, _ = run(state, "memory", "store", "--key", "gateway", "--content", content, "--json", capsys=capsys)
    assert rc == 0 and BEARER not in out and "[REDACTED:bearer_token:" in json.loads(out)["content"]
    rc, out, _ = run(state, "memory", "get", "gateway", capsys=capsys)
    assert rc == 0 and BEARER not in out and "from the bench pi" in out
    assert BEARER.encode() not in database_bytes(state)


def test_title_and_metadata_of_an_entry_are_screened_and_a_key_holding_a_credential_is_refused(
        store: MemoryStore) -> None:
    entry = store.store("deploy", "rolled out the new gateway", title=f"token {BEARER}xYz9",
                        metadata={"cmd": ["curl", f"-H 'Authorization: Bearer {BEARER}'"], "n": 3})
    assert BEARER not in entry.title and BEARER not in json.dumps(entry.metadata) and entry.metadata["n"] == 3
    with pytest.raises(InvalidEntryError) as info:
        store.store(f"api_key={BEARER}", "the gateway key")
    assert info.value.field == "key" and store.count() == 1


def test_two_captures_differing_only_in_the_password_stay_two_and_a_repeat_still_dedups(store: MemoryStore) -> None:
    def cap(password: str) -> Capture:
        return Capture(type="fact", title="router login", content=f"the router admin password is {password}")

    first = store.captures.record_capture(cap("Tr0ub4dor&3xQ"))
    second = store.captures.record_capture(cap("C0rrectH0rse!9"))
    again = store.captures.record_capture(cap("Tr0ub4dor&3xQ"))
    assert first.entry_id != second.entry_id and first.content != second.content
    assert "Tr0ub4dor" not in first.content and "C0rrectH0rse" not in second.content
    assert again.id == first.id and again.entry_id == first.entry_id  # the same capture twice is one
    assert store.count() == 2
    stats = store.maintenance.stats()
    assert stats["secrets_redacted"] == 2 and stats["secrets_redacted_by"] == {"prose_secret": 2}


def test_a_batch_of_captures_is_screened_and_counted(store: MemoryStore) -> None:
    caps = [Capture(type="fact", title=f"unit {i}", content=f"unit {i} password is Zq8!mW{i}pLr7Kd") for i in range(10)]
    written = store.captures.record_captures(caps)
    assert len({c.entry_id for c in written}) == 10
    assert all("[REDACTED:prose_secret:" in c.content and "Zq8!mW" not in c.content for c in written)
    assert b"Zq8!mW" not in database_bytes(store.state_dir)


def test_the_same_secret_gets_the_same_tag_across_reopen_and_the_key_file_is_private(state: Path) -> None:
    with MemoryStore.open(state) as store:
        a = store.store("a", f"password = {AWS_SECRET}")
    with MemoryStore.open(state) as store:
        b = store.store("b", f"password = {AWS_SECRET}")  # identical text after redaction: one entry
        assert b.id == a.id and store.count() == 1
    assert (state / REDACTION_KEY_FILE).stat().st_mode & 0o077 == 0


def test_reject_policy_refuses_the_write_stores_nothing_and_counts_it(state: Path) -> None:
    settings = parse_settings({"kumiho": {"secret_policy": "reject"}})
    with MemoryStore.open(state, settings) as store:
        with pytest.raises(SecretRejectedError) as info:
            store.store("gateway", f"Authorization: Bearer {BEARER}")
        assert info.value.kinds == {"bearer_token": 1} and info.value.fields == ["content"]
        with pytest.raises(SecretRejectedError):
            store.captures.reflect("s1", "ok", captures=[{"type": "fact", "title": "aws",
                                                          "content": f"the aws secret access key is {AWS_SECRET}"}])
        assert store.count() == 0
        store.store("clean", "LD2 blinks on PA5")  # clean writes still pass
    assert read_screening(state)["rejected_captures"] == 2
    assert BEARER.encode() not in database_bytes(state) and AWS_SECRET.encode() not in database_bytes(state)


def test_an_old_export_holding_a_secret_is_screened_on_import(store: MemoryStore, tmp_path: Path) -> None:
    line = {"id": "0190f7a4-1111-7222-8333-444455556666", "key": "legacy", "content": f"password: {AWS_SECRET}",
            "category": "core", "timestamp": "2026-01-01T00:00:00Z",
            "capture": {"id": "0190f7a4-1111-7222-8333-444455556667", "type": "fact", "title": "legacy",
                        "tags": [f"token {AWS_SECRET}"], "metadata": {}}}
    assert store.transfer.import_jsonl([json.dumps(line)]) == {"imported": 1, "skipped": 0}
    exported = "".join(json.dumps(x) for x in store.transfer.export())
    assert AWS_SECRET not in exported and "[REDACTED:" in exported
