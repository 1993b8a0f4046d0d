"""`edge-agent memory ...` and `edge-agent cache ...` through edge_agent.cli.main."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from edge_agent.cli import main


def run(state: Path, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(["--state", str(state), *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_store_get_list_and_forget(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(state, "memory", "store", "--key", "led", "--content", "LD2 is on PA5", "--category", "Daily",
                     "--importance", "0.7", "--timestamp", "2026-01-02T03:04:05Z", "--json", capsys=capsys)
    assert rc == 0 and json.loads(out)["category"] == "daily"
    rc, out, _ = run(state, "memory", "store", "--key", "fan", "--content", "the fan relay is on D7", capsys=capsys)
    assert rc == 0 and out.startswith("stored fan [core] in default (mem://")  # text unless --json
    assert run(state, "memory", "forget", "fan", capsys=capsys)[0] == 0
    rc, out, _ = run(state, "memory", "get", "led", capsys=capsys)
    got = json.loads(out)
    assert (got["content"], got["importance"]) == ("LD2 is on PA5", 0.7)
    assert got["timestamp"] == "2026-01-02T03:04:05.000000Z"
    rc, out, _ = run(state, "memory", "list", "--json", capsys=capsys)
    assert [e["key"] for e in json.loads(out)] == ["led"]
    rc, out, _ = run(state, "memory", "list", capsys=capsys)
    assert "led: LD2 is on PA5" in out
    rc, out, _ = run(state, "memory", "forget", "led", capsys=capsys)
    assert rc == 0 and json.loads(out)["forgotten"] == 1
    rc, _, err = run(state, "memory", "get", "led", capsys=capsys)
    assert rc == 1 and "led" in err


def test_recall_json_lists_entries_with_their_final_decayed_score(state: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    run(state, "memory", "store", "--key", "new", "--content", "fan relay on GPIO17", "--category", "daily",
        capsys=capsys)
    run(state, "memory", "store", "--key", "old", "--content", "fan relay was on GPIO27", "--category", "daily",
        "--timestamp", "2020-01-01T00:00:00Z", capsys=capsys)
    rc, out, _ = run(state, "memory", "recall", "fan relay GPIO", "--limit", "3", "--json", "--min-score", "0",
                     capsys=capsys)
    data = json.loads(out)["results"]  # the memory_recall tool's result: {query, results, workspace}
    assert rc == 0 and [e["key"] for e in data] == ["new", "old"]
    assert data[0]["score"] > 0.5 > data[1]["score"] >= 0
    rc, out, _ = run(state, "memory", "recall", "fan relay GPIO", capsys=capsys)
    assert out.splitlines()[0].split()[2].startswith("new")


def test_engage_prints_the_context_or_json(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(state, "memory", "store", "--key", "addr", "--content", "BME280 answers at 0x76", capsys=capsys)
    rc, out, _ = run(state, "memory", "engage", "BME280 address", capsys=capsys)
    assert rc == 0 and "BME280 answers at 0x76" in out
    rc, out, _ = run(state, "memory", "engage", "BME280 address", "--json", capsys=capsys)
    data = json.loads(out)
    assert set(data) >= {"context", "results", "source_refs"} and data["source_refs"][0].startswith("mem://")


def test_reflect_reads_the_memory_reflect_json_from_a_file_or_stdin(state: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    body = {"session_id": "s1", "response": "noted",
            "captures": [{"type": "preference", "title": "units", "content": "User wants temperatures in Kelvin"}],
            "source_krefs": ["kref://CognitiveMemory/Devices/pi/units-1a2b3c4d.conversation?r=2"]}
    f = tmp_path / "reflect.json"
    f.write_text(json.dumps(body))
    rc, out, _ = run(state, "memory", "reflect", "--json", str(f), capsys=capsys)
    result = json.loads(out)
    assert rc == 0 and result["stored"] == 1 and result["source_refs"] == body["source_krefs"]
    body["captures"][0]["content"] = "User prefers Kelvin, always"
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(body)))
    rc, out, _ = run(state, "memory", "reflect", "--json", "-", capsys=capsys)
    assert rc == 0 and json.loads(out)["stored"] == 1
    rc, out, _ = run(state, "memory", "recall", "Kelvin", "--json", capsys=capsys)
    assert len(json.loads(out)["results"]) == 2


def test_reflect_with_bad_input_fails_with_exit_code_1(state: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.json"
    f.write_text("{not json")
    assert run(state, "memory", "reflect", "--json", str(f), capsys=capsys)[0] == 1
    f.write_text(json.dumps({"session_id": "s", "captures": [{"type": "rumour", "title": "x", "content": "y"}]}))
    rc, _, err = run(state, "memory", "reflect", "--json", str(f), capsys=capsys)
    assert rc == 1 and "rumour" in err
    assert run(state, "memory", "reflect", "--json", str(tmp_path / "missing.json"), capsys=capsys)[0] == 1


def test_invalid_input_is_a_one_line_error(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(state, "memory", "store", "--key", "k", "--content", "v", "--timestamp", "soon", capsys=capsys)
    assert rc == 1 and err.startswith("edge-agent: error:") and "soon" in err
    rc, _, err = run(state, "memory", "store", "--key", "k", "--content", "x" * 70000, capsys=capsys)
    assert rc == 1 and "max_content_bytes" in err


def test_export_then_import_into_another_workspace(state: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for i, cat in enumerate(["core", "daily", "daily"]):
        run(state, "memory", "store", "--key", f"k{i}", "--content", f"value {i}", "--category", cat,
            "--session", "s1", "--timestamp", f"2026-01-0{i + 1}T00:00:00Z", capsys=capsys)
    rc, out, _ = run(state, "memory", "export", "--category", "daily", "--since", "2026-01-03T00:00:00Z",
                     capsys=capsys)
    assert rc == 0 and [json.loads(x)["key"] for x in out.splitlines()] == ["k2"]
    rc, out, _ = run(state, "memory", "export", capsys=capsys)
    dump = tmp_path / "dump.jsonl"
    dump.write_text(out)
    rc, out, _ = run(state, "memory", "--workspace", "copy", "import", str(dump), capsys=capsys)
    assert rc == 0 and json.loads(out) == {"imported": 3, "skipped": 0}
    rc, out, _ = run(state, "memory", "--workspace", "copy", "export", capsys=capsys)
    assert out == dump.read_text()


def test_stats_health_hygiene_and_snapshot(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(state, "memory", "store", "--key", "k", "--content", "v", "--category", "daily",
        "--timestamp", "2020-01-01T00:00:00Z", capsys=capsys)
    rc, out, _ = run(state, "memory", "stats", capsys=capsys)
    assert rc == 0 and json.loads(out)["by_category"] == {"daily": 1}
    rc, out, _ = run(state, "memory", "health", capsys=capsys)
    assert rc == 0 and json.loads(out)["ok"] is True
    rc, out, _ = run(state, "memory", "hygiene", capsys=capsys)
    assert rc == 0 and json.loads(out)["purged_archived"] == 1
    rc, out, _ = run(state, "memory", "snapshot", capsys=capsys)
    assert rc == 0 and Path(json.loads(out)["snapshot"]).is_file()


def test_cache_put_get_stats_and_clear(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(state, "cache", "get", "--model", "m", "--prompt", "p", capsys=capsys)[0] == 1
    rc, out, _ = run(state, "cache", "put", "--model", "m", "--prompt", "p", "--response", "r", "--tokens", "12",
                     capsys=capsys)
    assert rc == 0 and len(json.loads(out)["key"]) == 64
    rc, out, _ = run(state, "cache", "get", "--model", "m", "--prompt", "p", capsys=capsys)
    assert (rc, out) == (0, "r\n")
    rc, out, _ = run(state, "cache", "stats", capsys=capsys)
    stats = json.loads(out)
    assert (stats["entries"], stats["hits"], stats["misses"], stats["tokens_saved"], stats["hit_rate"]) == \
        (1, 1, 1, 12, 0.5)
    rc, out, _ = run(state, "cache", "clear", capsys=capsys)
    assert json.loads(out) == {"cleared": 1}


def test_recall_across_workspaces_needs_the_config_switch(state: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    run(state, "memory", "--workspace", "lab", "store", "--key", "probe", "--content", "scope probe on CH1",
        capsys=capsys)
    rc, _, err = run(state, "memory", "recall", "scope probe", "--other-workspace", "lab", capsys=capsys)
    assert rc == 1 and "cross_workspace_search" in err
    cfg = tmp_path / "edge-agent.toml"
    cfg.write_text("[workspace]\nenabled = true\ncross_workspace_search = true\n")
    rc, out, _ = main_with_config(cfg, state, "memory", "recall", "scope probe", "--other-workspace", "*",
                                  capsys=capsys)
    assert rc == 0 and "lab:probe" in out


def main_with_config(cfg: Path, state: Path, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(["--config", str(cfg), "--state", str(state), *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_provenance_and_audit(state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "edge-agent.toml"
    cfg.write_text("[memory]\naudit_enabled = true\n")
    rc, out, _ = main_with_config(cfg, state, "memory", "store", "--key", "src", "--content", "BME280 at 0x76",
                                  "--json", capsys=capsys)
    src = json.loads(out)
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"session_id": "s", "captures": [{"type": "fact", "title": "t", "content": "derived"}],
                             "source_krefs": [src["source_ref"]]}))
    rc, out, _ = main_with_config(cfg, state, "memory", "reflect", "--json", str(f), capsys=capsys)
    derived = json.loads(out)["captures"][0]["entry_id"]
    rc, out, _ = main_with_config(cfg, state, "memory", "provenance", derived, capsys=capsys)
    assert rc == 0 and json.loads(out)["derived_from"][0]["entry_id"] == src["id"]
    rc, out, _ = main_with_config(cfg, state, "memory", "audit", capsys=capsys)
    assert rc == 0 and [a["operation"] for a in json.loads(out)] == ["store", "store"]
    rc, _, _ = main_with_config(cfg, state, "memory", "provenance", "no-such-id", capsys=capsys)
    assert rc == 1
