"""One pin index for every path: the same name gives the same pin through the CLI, the gpio commands,
the MCP tools and the runtime, wherever the configuration came from."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_agent import pins
from edge_agent.cli import main
from edge_agent.cli.bus import open_from_args
from edge_agent.config import load_settings
from edge_agent.errors import UnknownPinError
from edge_agent.mcp.tools import Tools
from edge_agent.paths import find_config
from edge_agent.runtime import Runtime

CONFIG = """
[peripherals]
datasheet_dir = "{datasheets}"

[[peripherals.boards]]
board = "nucleo-f401re"
transport = "sim"
"""


@pytest.fixture()
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    (sheets / "nucleo-f401re.md").write_text("# Bench wiring\n\n## Pin Aliases\n\nprobe_led: PA6\n")
    config = tmp_path / "conf" / "edge-agent.toml"
    config.parent.mkdir()
    config.write_text(CONFIG.format(datasheets=sheets.as_posix()))
    monkeypatch.delenv("EDGE_AGENT_CONFIG", raising=False)
    monkeypatch.setenv("EDGE_AGENT_STATE", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    yield config


def _cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("source", ["--config", "$EDGE_AGENT_CONFIG", "default path"])
def test_a_datasheet_alias_gives_the_same_pin_through_every_path(
    setup: Path, source: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = setup
    prefix: list[str] = []
    if source == "--config":
        prefix = ["--config", str(config)]
        explicit: str | None = str(config)
    elif source == "$EDGE_AGENT_CONFIG":
        monkeypatch.setenv("EDGE_AGENT_CONFIG", str(config))
        explicit = None
    else:
        (tmp_path / "edge-agent.toml").write_text(config.read_text())  # ./edge-agent.toml is the default path
        explicit = None
    got = {"pins resolve": _cli_json([*prefix, "pins", "resolve", "probe_led", "--board", "nucleo-f401re",
                                      "--json"], capsys)["name"]}
    wrote = _cli_json([*prefix, "gpio", "write", "probe_led", "1", "--json"], capsys)
    read = _cli_json([*prefix, "gpio", "read", "probe_led", "--json"], capsys)
    assert wrote["requested"] == read["requested"] == "probe_led"
    got["cli gpio write"], got["cli gpio read"] = wrote["pin"], read["pin"]
    # the adapter those commands open, asked which pin the name is
    args = argparse.Namespace(config=explicit, url=None, adapter=None, board=None, gpio_command="read")
    with open_from_args(args) as adapter:
        got["gpio command adapter"] = adapter.resolve_pin("probe_led")[0]
    settings = load_settings(find_config(explicit))
    runtime = Runtime.build(settings, tmp_path / "rt-state")
    try:
        tools = Tools(runtime)
        got["mcp pin_resolve"] = tools.pin_resolve("probe_led")["name"]
        got["mcp gpio_write"] = tools.gpio_write("probe_led", 1)["pin"]
        got["mcp gpio_read"] = tools.gpio_read("probe_led")["pin"]
        got["runtime index"] = runtime.pins.resolve("nucleo-f401re", "probe_led").name
        assert "probe_led = pin PA6" in tools.hardware_context("where is the probe led")["context"]
        # the agent's prompt block and offline answers read the same index object
        assert runtime.pins is runtime.rag.pin_index()
        assert "probe_led = pin PA6" in runtime.rag.pin_context("probe led on?", ["nucleo-f401re"])
    finally:
        runtime.close()
    assert got == dict.fromkeys(got, "PA6")


def test_without_an_index_the_board_files_and_bundled_datasheets_count_and_no_config_is_read(
    setup: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "edge-agent.toml").write_text(setup.read_text())  # a config that would define probe_led
    with pytest.raises(UnknownPinError):
        pins.resolve("nucleo-f401re", "probe_led")
    assert pins.resolve("nucleo-f401re", "LD2").name == "PA5"
    assert pins.resolve("nucleo-f401re", "red_led").name == "PA5"  # bundled nucleo-f401re.md


def test_a_runtime_reindex_gives_every_adapter_the_new_index(setup: Path, tmp_path: Path) -> None:
    settings = load_settings(setup)
    runtime = Runtime.build(settings, tmp_path / "rt-state")
    try:
        tools = Tools(runtime)
        assert tools.gpio_read("probe_led")["pin"] == "PA6"
        sheet = Path(settings.datasheet_dir()) / "nucleo-f401re.md"
        sheet.write_text(sheet.read_text().replace("PA6", "PA7") + "\n")
        assert runtime.reindex_if_changed()
        assert tools.gpio_read("probe_led")["pin"] == "PA7"
        assert tools.pin_resolve("probe_led")["name"] == "PA7"
    finally:
        runtime.close()
