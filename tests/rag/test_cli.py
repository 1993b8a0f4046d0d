"""`edge-agent rag ...` and `edge-agent pins ...` through edge_agent.cli.main."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.paths import bundled_datasheets_dir


def _json(capsys: pytest.CaptureFixture[str]) -> object:
    return json.loads(capsys.readouterr().out)


def test_rag_index_persists_under_the_state_directory(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(state), "rag", "index", "--json"]) == 0
    first = _json(capsys)
    assert first["stats"]["indexed"] == len(first["files"]) > 9 and first["problems"] == []
    assert Path(first["index"]).parent == state / "rag"
    assert main(["--state", str(state), "rag", "index", "--json"]) == 0
    assert _json(capsys)["stats"]["indexed"] == 0


def test_rag_query_answers_from_the_bundled_datasheets(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(state), "rag", "query", "BME280 chip id register", "--json", "--limit", "2"]) == 0
    got = _json(capsys)["results"]  # the datasheet_search tool's result
    assert isinstance(got, list) and len(got) == 2
    assert got[0]["source"] == "bme280.md" and "0x60" in got[0]["text"]


def test_rag_query_context_prints_the_agent_block(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(state), "rag", "query", "which pin is the red LED", "--board", "nucleo-f401re",
                 "--context"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[Pin aliases for query]\nnucleo-f401re: red_led = pin PA5")


def test_rag_query_with_another_datasheet_dir(tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "widget.md").write_text("# Widget\n## Reset\nHold RST low for 10 ms.\n")
    assert main(["--state", str(state), "rag", "query", "reset pulse", "--datasheets", str(tmp_path / "ds"),
                 "--json"]) == 0
    assert [c["source"] for c in _json(capsys)["results"]] == ["widget.md"]


def test_rag_query_with_an_unknown_board_fails_with_the_known_list(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--state", str(state), "rag", "query", "LED", "--board", "nucleo-f999"]) == 1
    err = capsys.readouterr().err
    assert "nucleo-f999" in err and "nucleo-f401re" in err


def test_config_datasheet_dir_is_used_by_default(tmp_path: Path, state: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sheets").mkdir()
    (tmp_path / "sheets" / "gizmo.md").write_text("# Gizmo\nThe gizmo strobe pin is active low.\n")
    cfg = tmp_path / "edge-agent.toml"
    cfg.write_text('[peripherals]\ndatasheet_dir = "sheets"\n')
    assert main(["--config", str(cfg), "--state", str(state), "rag", "query", "gizmo strobe", "--json"]) == 0
    assert [c["source"] for c in _json(capsys)["results"]] == ["gizmo.md"]


def test_pins_resolve_prints_the_canonical_pin(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pins", "resolve", "red_led", "--board", "nucleo-f401re", "--json"]) == 0
    got = _json(capsys)
    assert got == {"board": "nucleo-f401re", "name": "PA5", "number": 13, "headers": ["CN10-11", "CN5-6", "D13"],
                   "functions": got["functions"], "raw": "PA5"}
    assert main(["pins", "resolve", "J8:11", "--board", "rpi-4b"]) == 0
    assert "GPIO17" in capsys.readouterr().out


def test_pins_resolve_unknown_name_exits_1_with_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pins", "resolve", "PA55", "--board", "nucleo-f401re"]) == 1
    assert "PA5" in capsys.readouterr().err


def test_pins_which_is_the_inverse_lookup(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pins", "which", "PA5", "--board", "nucleo-f401re", "--json"]) == 0
    got = _json(capsys)
    assert got["pin"]["name"] == "PA5" and {"alias": "red_led", "source": "nucleo-f401re.md"} in got["aliases"]
    assert main(["pins", "which", "J8-6", "--board", "rpi-4b", "--json"]) == 0
    assert _json(capsys)["power"] == "GND"


def test_pins_list_shows_every_pin_with_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pins", "list", "--board", "rpi-pico", "--json"]) == 0
    got = _json(capsys)
    gp25 = next(p for p in got["pins"] if p["name"] == "GP25")
    assert "led" in gp25["aliases"] and got["leds"] == {"LED": "GP25"}
    assert main(["pins", "list", "--board", "nucleo-f401re"]) == 0
    assert "PA5" in capsys.readouterr().out


def test_pins_list_of_a_datasheet_only_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "relay-hat.md").write_text("# Relay HAT\n## Pin Aliases\nrelay1: GPIO5\n")
    assert main(["pins", "list", "--board", "relay-hat", "--datasheets", str(tmp_path), "--json"]) == 0
    assert _json(capsys)["aliases"]["relay1"]["raw"] == "GPIO5"


def test_pins_boards_lists_the_board_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pins", "boards", "--json"]) == 0
    assert len(_json(capsys)) == 9


def test_rag_index_shows_a_progress_bar_for_large_sets(tmp_path: Path, state: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(120):
        (tmp_path / f"part{i:03d}.md").write_text(f"# Part {i}\nregister {i}\n")
    assert main(["--state", str(state), "rag", "index", "--datasheets", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "120/120 files" in captured.err and "120 file(s)" in captured.out


@pytest.mark.parametrize("limit", ["0", "-1", "many"])
def test_rag_query_limit_below_one_is_a_usage_error(state: Path, capsys: pytest.CaptureFixture[str],
                                                     limit: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--state", str(state), "rag", "query", "led", "--limit", limit])
    assert info.value.code == 2
    assert "--limit" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["rag", "query", "led"], ["rag", "query", "led", "--json"],
                                     ["rag", "index"], ["rag", "index", "--json"],
                                     ["pins", "resolve", "red_led"], ["pins", "which", "PA5"],
                                     ["pins", "list"], ["pins", "check"]])
@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_named_datasheet_dir_that_is_not_a_directory_is_an_error(
        tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str], command: list[str], kind: str) -> None:
    bad = tmp_path / "no-such-dir"
    if kind == "file":
        bad.write_text("not a directory\n")
    assert main(["--state", str(state), *command, "--datasheets", str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("edge-agent: error:") and str(bad) in captured.err
    assert "--datasheets" in captured.err
    assert not (state / "rag").exists() or not any((state / "rag").iterdir())


def test_a_configured_datasheet_dir_that_does_not_exist_is_an_error(
        tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text('[peripherals]\ndatasheet_dir = "gone"\n')
    for command in (["rag", "query", "led"], ["rag", "index"], ["pins", "list"]):
        assert main(["--state", str(state), "--config", str(config), *command]) == 1
        err = capsys.readouterr().err
        assert str(tmp_path / "gone") in err and "[peripherals] datasheet_dir" in err
    # The command line still wins over the config file.
    assert main(["--state", str(state), "--config", str(config), "rag", "query", "BME280 chip id", "--json",
                 "--datasheets", str(bundled_datasheets_dir())]) == 0
    assert _json(capsys)


def test_a_missing_bundled_default_is_only_a_warning(tmp_path: Path, state: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # Nobody chose the default directory, and the board files answer pin questions without it.
    import edge_agent.config.peripherals

    gone = tmp_path / "stripped-install"
    monkeypatch.setattr(edge_agent.config.peripherals, "bundled_datasheets_dir", lambda: gone)
    assert main(["--state", str(state), "rag", "query", "led"]) == 0
    err = capsys.readouterr().err
    assert str(gone) in err and "no matching datasheet text" in err
    assert main(["--state", str(state), "pins", "resolve", "PA5", "--board", "nucleo-f401re", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "PA5"
