"""`edge-agent bus|i2c|spi|gpio|sensor` against sim:// (and a read-only real adapter through the fakes)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from edge_agent.cli import main
from edge_agent.pins import list_boards


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("board", list_boards())
def test_sensor_read_json_works_on_every_simulated_board(capsys: pytest.CaptureFixture[str], board: str) -> None:
    code, out, _ = run(capsys, "sensor", "read", "bme280", "--url", f"sim://{board}", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"adapter", "sensor", "addr", "addr_hex", "at", "temperature_c", "pressure_hpa",
                         "humidity_pct"}
    assert data["adapter"] == f"sim://{board}" and data["addr_hex"] == "0x76"
    assert 300 < data["pressure_hpa"] < 1100


def test_scan_json_is_the_i2c_scan_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bus", "scan", "--url", "sim://rpi-4b", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["addresses"] == [0x20, 0x3C, 0x40, 0x50, 0x76] and data["busy"] == []
    assert data["addresses_hex"] == ["0x20", "0x3C", "0x40", "0x50", "0x76"]


def test_scan_prints_the_i2cdetect_grid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bus", "scan", "--url", "sim://rpi-pico")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split() == [f"{c:x}" for c in range(16)]
    assert lines[8].startswith("70:") and lines[8].split()[7] == "76"
    assert lines[1].split() == ["00:"] + ["--"] * 8  # 0x00-0x07 are reserved and not probed
    assert len(lines) == 9


def test_gpio_write_then_read_reports_pin_and_value(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "gpio", "write", "D13", "1", "--url", "sim://nucleo-f401re")
    assert code == 0 and out == "PA5 (D13) = 1\n"  # says what it drove: the resolved pin and the name given
    code, out, _ = run(capsys, "gpio", "read", "PC13", "--url", "sim://nucleo-f401re", "--json")
    assert code == 0 and json.loads(out) == {"adapter": "sim://nucleo-f401re", "board": "nucleo-f401re",
                                             "pin": "PC13", "requested": "PC13", "value": 1}
    code, out, _ = run(capsys, "gpio", "read", "B1", "--url", "sim://nucleo-f401re")
    assert code == 0 and out == "PC13 (B1) = 1\n"


def test_i2c_read_and_write(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "i2c", "read", "0x76", "--register", "0xD0", "--url", "sim://rpi-5", "--json")
    assert code == 0 and json.loads(out)["data"] == [0x60]
    code, out, _ = run(capsys, "i2c", "read", "0x76", "--register", "0x88", "-n", "4", "--url", "sim://rpi-5")
    assert code == 0 and len(out.split()) == 4
    code, _, _ = run(capsys, "i2c", "write", "0x50", "0x01", "--register", "0x00", "--url", "sim://rpi-5")
    assert code == 0


def test_spi_transfer_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "spi", "transfer", "0xAA", "0x55", "--cs", "1", "--url", "sim://rpi-4b", "--json")
    assert code == 0
    assert json.loads(out) == {"adapter": "sim://rpi-4b", "cs": 1, "mode": 0, "rx": [0xAA, 0x55], "hex": "aa 55"}


@pytest.mark.parametrize(
    "argv",
    [
        ("bus", "scan", "--url", "nope://x"),
        ("bus", "scan", "--url", "sim://rpi-4b?bogus=1"),
        ("i2c", "read", "0x80", "--url", "sim://rpi-4b"),
        ("i2c", "read", "0x11", "--url", "sim://rpi-4b"),
        ("gpio", "read", "no_such_pin", "--url", "sim://rpi-4b"),
        ("gpio", "write", "B1", "1", "--url", "sim://nucleo-f401re"),
        ("bus", "scan", "--url", "sim://rpi-4b", "--bus", "7"),
        ("sensor", "read", "bme280", "--url", "sim://rpi-4b", "--address", "0x77"),
    ],
)
def test_bad_input_is_a_one_line_error_with_exit_code_1(capsys: pytest.CaptureFixture[str],
                                                       argv: tuple[str, ...]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert err.startswith("edge-agent: error: ") and "Traceback" not in err


def test_refused_write_names_the_config_key(capsys: pytest.CaptureFixture[str], linux_env: SimpleNamespace,
                                           tmp_path: Path) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text('[[peripherals.boards]]\nboard = "rpi-4b"\nname = "pi"\nurl = "linux://?i2c=1"\n')
    code, _, err = run(capsys, "--config", str(config), "i2c", "write", "0x50", "1", "--register", "0")
    assert code == 1
    assert "hardware.safety.adapters.pi.writable_i2c" in err
    config.write_text(config.read_text() + '\n[hardware.safety.adapters.pi]\nwritable_i2c = ["0x50"]\n')
    code, _, err = run(capsys, "--config", str(config), "i2c", "write", "0x50", "1", "--register", "0")
    assert code == 0, err


def test_default_adapter_is_the_first_configured_board(capsys: pytest.CaptureFixture[str]) -> None:
    """The embedded defaults configure sim://nucleo-f401re."""
    code, out, _ = run(capsys, "gpio", "read", "B1", "--json")
    assert code == 0 and json.loads(out)["value"] == 1


def test_backends_lists_schemes_and_extras(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bus", "backends", "--json")
    rows = {r["scheme"]: r["extra"] for r in json.loads(out)}
    assert code == 0 and rows["sim"] is None and rows["linux"] == "linux" and rows["bridge"] == "bridge"


def test_scan_grid_shows_driver_owned_addresses_as_uu(capsys: pytest.CaptureFixture[str],
                                                      linux_env: SimpleNamespace) -> None:
    linux_env.kernel.driver_owned.add(0x50)  # a HAT EEPROM bound to its kernel driver
    code, out, _ = run(capsys, "bus", "scan", "--url", "linux://?i2c=1&board=rpi-4b")
    assert code == 0, out
    row50 = next(line for line in out.splitlines() if line.startswith("50:"))
    assert row50.split()[1] == "UU"
    row70 = next(line for line in out.splitlines() if line.startswith("70:"))
    assert "76" in row70.split()
    code, out, _ = run(capsys, "bus", "scan", "--url", "linux://?i2c=1&board=rpi-4b", "--json")
    assert code == 0 and json.loads(out)["addresses"] == [0x76] and json.loads(out)["busy"] == [0x50]


def test_scan_on_an_smbus_only_adapter_that_answers_enodev_prints_the_grid(capsys: pytest.CaptureFixture[str],
                                                                          linux_env: SimpleNamespace) -> None:
    linux_env.kernel.as_i2c_stub()  # ENODEV at every empty address, as i2c-stub answers
    linux_env.kernel.driver_owned.add(0x50)
    code, out, err = run(capsys, "bus", "scan", "--url", "linux://?i2c=1")
    assert code == 0, err
    rows = {line[:3]: line.split()[1:] for line in out.splitlines()[1:]}
    assert rows["50:"][0] == "UU" and rows["70:"][6] == "76"
    code, out, err = run(capsys, "i2c", "read", "0x76", "--register", "0xD0", "--url", "linux://?i2c=1", "--json")
    assert code == 0, err
    code, out, _ = run(capsys, "bus", "info", "--url", "linux://?i2c=1")
    assert "i2c_transfers:" in out and "1: smbus" in out  # bus info prints text; --json the tool's result
    code, out, _ = run(capsys, "bus", "info", "--url", "linux://?i2c=1", "--json")
    assert json.loads(out)["i2c_transfers"]["1"].startswith("smbus")


def test_a_one_shot_gpio_write_on_the_host_says_the_line_is_released_at_exit(
        capsys: pytest.CaptureFixture[str], linux_env: SimpleNamespace, tmp_path: Path) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text('[[peripherals.boards]]\nboard = "rpi-4b"\nname = "pi"\nurl = "linux://?i2c=1"\n'
                      '[hardware.safety.adapters.pi]\nwritable_gpio = ["GPIO17"]\n')
    code, _, err = run(capsys, "--config", str(config), "gpio", "write", "GPIO17", "1")
    assert code == 0, err
    assert "no daemon holds GPIO17" in err and "released" in err and "edge-agent run" in err
    code, _, err = run(capsys, "gpio", "write", "red_led", "1", "--url", "sim://nucleo-f401re")
    assert code == 0 and "released" not in err  # the simulator keeps its state between commands
