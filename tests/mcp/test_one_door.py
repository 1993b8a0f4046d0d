"""One door per action: for every action with both faces, the CLI's --json is the MCP tool's structured result.

The same sequence of actions runs on two fresh simulated boards of the same configuration: once through
the CLI in its own process (no daemon), once through the MCP HTTP server with the SDK's client. The
results must have the same keys, the same pin naming (the resolved pin plus ``requested``) and the same
values, apart from what differs by nature between two runs (a timestamp, a capture's id).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from edge_agent.cli import main
from edge_agent.config import load_settings
from edge_agent.mcp.tools import TOOL_NAMES
from edge_agent.runtime import Runtime
from edge_agent.services.core import actions

pytestmark = pytest.mark.anyio

CONFIG = ('[[peripherals.boards]]\nboard = "nucleo-f401re"\ntransport = "sim"\n\n'
          "[server]\nrecord_hardware_writes = true\n")

#: (action = MCP tool, tool arguments, CLI command, keys whose values differ by nature between two runs)
CASES: list[tuple[str, dict[str, Any], list[str], set[str]]] = [
    ("gpio_write", {"pin": "red_led", "value": 1}, ["gpio", "write", "red_led", "1"], {"capture"}),
    ("gpio_read", {"pin": "red_led"}, ["gpio", "read", "red_led"], set()),
    ("gpio_read", {"pin": "B1"}, ["gpio", "read", "B1"], set()),
    ("i2c_scan", {}, ["bus", "scan"], set()),
    ("i2c_read", {"addr": "0x76", "register": 0xD0}, ["i2c", "read", "0x76", "--register", "0xD0"], set()),
    ("i2c_read", {"addr": 0x50, "len": 4}, ["i2c", "read", "0x50", "-n", "4"], set()),
    ("i2c_write", {"addr": 0x50, "register": 0x10, "bytes": [1, 2]},
     ["i2c", "write", "0x50", "1", "2", "--register", "0x10"], {"capture"}),
    ("spi_transfer", {"bytes": [0xAA, 0x55], "cs": 0}, ["spi", "transfer", "0xAA", "0x55", "--cs", "0"], {"capture"}),
    ("sensor_read", {"sensor": "bme280"}, ["sensor", "read", "bme280"],
     {"at", "temperature_c", "pressure_hpa", "humidity_pct"}),
    ("hardware_capabilities", {}, ["bus", "info"], {"health"}),
    ("pin_resolve", {"name": "red_led"}, ["pins", "resolve", "red_led"], set()),
    ("pin_resolve", {"name": "D13", "board": "nucleo-f401re"}, ["pins", "resolve", "D13", "--board", "nucleo-f401re"],
     set()),
    ("datasheet_search", {"query": "BME280 chip id register", "limit": 2},
     ["rag", "query", "BME280 chip id register", "--limit", "2"], set()),
    # Memory: the same entries on both faces; ids and times differ by nature (see _same).
    ("memory_store", {"content": "the fan relay is on D7", "title": "fan relay", "memory_type": "fact"},
     ["memory", "store", "--key", "fan relay", "--title", "fan relay", "--content", "the fan relay is on D7",
      "--category", "fact"], set()),
    ("memory_recall", {"query": "fan relay", "limit": 3}, ["memory", "recall", "fan relay", "--limit", "3"], set()),
    ("memory_engage", {"query": "fan relay", "limit": 3}, ["memory", "engage", "fan relay", "--limit", "3"], set()),
    ("memory_reflect", {"session_id": "bench-1", "captures": [
        {"type": "fact", "title": "relay coil", "content": "the relay coil draws 70 mA"}]},
     ["memory", "reflect", "--json", "{reflect_file}"], set()),
    ("memory_forget", {"key": "fan relay"}, ["memory", "forget", "fan relay"], set()),
    ("sync_status", {}, ["sync", "status"], {"device_id"}),
    # The CLI's runtime is built over the files only (no daemon runs here: no adapter opened, no watch run),
    # the MCP server's is live, so what they report differs by nature; the keys and the stable parts do not.
    ("runtime_status", {}, ["status"], {"running", "daemon", "adapters", "components", "pid", "uptime_s",
                                       "status_age_s", "state_dir", "memory", "jobs", "sync", "datasheets"}),
]
#: Commands that print JSON without being asked (their --json is not a switch, or they have none).
ALWAYS_JSON = {("memory", "reflect"), ("memory", "forget")}
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_CAPTURE_KEY = re.compile(r"^(capture/.+)-[0-9a-f]{8}$")  # a capture's key ends in its id's last digits
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}(T[0-9:.]+Z?)?")


#: Read bookkeeping: a long-lived store (the MCP server's) batches it into its next write, a command's
#: store writes it when it closes.
_BOOKKEEPING = {"access_count", "last_access"}


def _same(value: Any) -> Any:
    """``value`` with what differs by nature between two stores made apart: entry ids, times, scores past
    the third decimal (relevance decays with the seconds between the two runs), read bookkeeping."""
    if isinstance(value, dict):
        return {k: _same(v) for k, v in value.items() if k not in _BOOKKEEPING}
    if isinstance(value, list):
        return [_same(v) for v in value]
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, str):
        return _CAPTURE_KEY.sub(r"\1-<id>", _TIME.sub("<time>", _ID.sub("<id>", value)))
    return value


def test_every_action_with_an_mcp_tool_is_checked_here() -> None:
    both = set(actions()) & set(TOOL_NAMES)
    # Lookups a CLI command does not offer as such: the file list and one file's text (`rag` has no
    # command for them), and the prompt block (`rag query --context` prints it as text, not JSON).
    # `memory export` writes a JSON Lines backup (action memory_export_file), not the tool's newest-first records.
    cli_less = {"datasheet_list", "datasheet_read", "hardware_context", "memory_export"}
    assert both - cli_less == {case[0] for case in CASES}


async def test_cli_json_is_the_mcp_tools_structured_result(tmp_path: Path, mcpkit: Any,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text(CONFIG)
    runtime = Runtime.build(load_settings(config), tmp_path / "mcp-state")
    cli_base = ["--config", str(config), "--state", str(tmp_path / "cli-state")]
    reflect_file = tmp_path / "reflect.json"
    try:
        async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as session:
            for tool, args, argv, volatile in CASES:
                if tool == "memory_reflect":
                    reflect_file.write_text(json.dumps(args))
                argv = [a.format(reflect_file=reflect_file) for a in argv]
                switch = [] if tuple(argv[:2]) in ALWAYS_JSON else ["--json"]
                assert main([*cli_base, *argv, *switch]) == 0, capsys.readouterr().err
                cli = json.loads(capsys.readouterr().out)
                mcp = mcpkit.structured(await session.call_tool(tool, args))
                assert set(cli) == set(mcp), f"{tool}: CLI keys {sorted(cli)} != MCP keys {sorted(mcp)}"
                same = {k: _same(v) for k, v in cli.items() if k not in volatile}
                assert same == {k: _same(v) for k, v in mcp.items() if k not in volatile}, tool
                if tool == "runtime_status":  # one result model: the same board, components and entry keys
                    assert (cli["running"], mcp["running"]) == (False, True)
                    assert [(a["name"], a["url"], a["board"]) for a in cli["adapters"]] == \
                        [(a["name"], a["url"], a["board"]) for a in mcp["adapters"]] == \
                        [("nucleo-f401re", "sim://nucleo-f401re", "nucleo-f401re")]
                    assert [set(a) for a in cli["adapters"]] == [set(a) for a in mcp["adapters"]]
                    assert set(cli["components"]) == set(mcp["components"]) and set(cli["daemon"]) == set(mcp["daemon"])
                if "capture" in volatile:  # the write is audited the same way on both faces
                    assert cli["capture"]["stored"] is mcp["capture"]["stored"] is True
                    assert set(cli["capture"]) == set(mcp["capture"])
    finally:
        runtime.close()
    # The CLI's capture is the tool's capture: the same title, tags and record of what was driven.
    assert main([*cli_base, "memory", "list", "--json"]) == 0
    cli_entries = json.loads(capsys.readouterr().out)
    titles = sorted(e["title"] for e in cli_entries if e["memory_type"] == "command_execution")
    assert titles == sorted(["gpio_write PA5=1 on nucleo-f401re", "i2c_write 0x50 2B on nucleo-f401re",
                             "spi_transfer 2 bytes on nucleo-f401re cs 0"])


async def test_text_output_is_rendered_from_the_same_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = ["--state", str(tmp_path / "state")]
    assert main([*state, "gpio", "write", "red_led", "1"]) == 0
    assert capsys.readouterr().out == "PA5 (red_led) = 1\n"
    assert main([*state, "gpio", "write", "PA5", "0"]) == 0
    assert capsys.readouterr().out == "PA5 = 0\n"  # no alias to echo when the pin was named as it is
    assert main([*state, "i2c", "write", "0x50", "7", "--register", "0x20"]) == 0
    assert capsys.readouterr().out == "wrote 1 byte(s) to 0x50 register 0x20 on nucleo-f401re\n"
    assert main([*state, "bus", "info"]) == 0
    text = capsys.readouterr().out
    assert not text.lstrip().startswith("{") and "health:" in text  # text unless --json
