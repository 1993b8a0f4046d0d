"""USB VID:PID discovery (`edge-agent bridge list`, `bridge://auto`) on pyserial's port records."""

from __future__ import annotations

import json

import pytest
from serial.tools import list_ports, list_ports_common

from edge_agent.bus.bridge.discovery import find_one, find_ports
from edge_agent.errors import AdapterUnavailableError


def port(device: str, vid: int | None, pid: int | None, serial: str | None = None) -> list_ports_common.ListPortInfo:
    info = list_ports_common.ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.serial_number = vid, pid, serial
    info.description = "STM32 STLink" if vid == 0x0483 else "n/a"
    return info


PORTS = [
    port("/dev/ttyS0", None, None),
    port("/dev/ttyACM1", 0x0483, 0x374E, "003A"),
    port("/dev/ttyACM0", 0x0483, 0x374B, "0671FF"),
    port("/dev/ttyUSB0", 0x0403, 0x6001),  # an FTDI cable: not a bridge board
]


def test_known_probes_are_listed_sorted_with_their_urls() -> None:
    found = find_ports(PORTS)
    assert [(f.device, f.usb_id, f.board_guess) for f in found] == [
        ("/dev/ttyACM0", "0483:374b", "nucleo-f401re"),
        ("/dev/ttyACM1", "0483:374e", "nucleo"),
    ]
    assert found[0].url == "bridge:///dev/ttyACM0"


def test_auto_needs_exactly_one_board() -> None:
    assert find_one(PORTS[2:3]).device == "/dev/ttyACM0"
    with pytest.raises(AdapterUnavailableError):
        find_one([])
    with pytest.raises(AdapterUnavailableError):
        find_one(PORTS)


def test_cli_list_prints_json_records(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from edge_agent.cli import main

    monkeypatch.setattr(list_ports, "comports", lambda: PORTS)
    assert main(["bridge", "list", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["usb_id"] for r in records] == ["0483:374b", "0483:374e"]
    assert records[0]["serial_number"] == "0671FF"
