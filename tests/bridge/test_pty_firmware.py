"""The real host driver against the real firmware core (host build) over a real pty.

The simulated board behind the firmware (firmware_bridge/host/hal_sim.c): D7 and D8 jumpered,
B1 pulled up, ADC ladder A0..A5 = 585 * (1..6) counts, a 24C02 EEPROM at 0x50, a BME280 at 0x76
(chip id 0x60 at 0xD0), SPI MOSI jumpered to MISO.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.bridge.adapter import BridgeAdapter
from edge_agent.bus.bridge.hostsim import HostFirmware
from edge_agent.bus.bridge.protocol import FirmwareResetError
from edge_agent.errors import (
    AdapterUnavailableError,
    BusPermissionError,
    I2CNackError,
    InvalidAddressError,
    WriteRefusedError,
)

from .conftest import WRITABLE


def _wait_state(fw: HostFirmware, state: str) -> None:
    """Wait (bounded) until the firmware process shows ``state`` in /proc (T = stopped)."""
    assert fw.proc is not None
    stat = Path(f"/proc/{fw.proc.pid}/stat")
    for _ in range(500):
        if stat.read_text().split(") ", 1)[1].startswith(state):
            return
        time.sleep(0.01)
    raise AssertionError(f"firmware never reached state {state}")


def test_connect_checks_protocol_and_learns_the_board(bridge: BridgeAdapter) -> None:
    assert bridge.link.protocol == 1
    assert bridge.board == "nucleo-f401re"
    assert bridge.capabilities()["firmware"] == "0.1.0"
    bridge.ping()


def test_firmware_capabilities_list_every_usable_digital_pin(bridge: BridgeAdapter) -> None:
    caps = bridge.firmware_capabilities()
    assert caps["gpio"] == list(range(2, 16)) and caps["led_pin"] == 13 and caps["reserved"] == [0, 1]


def test_gpio_write_on_d7_is_read_on_the_jumpered_d8_by_any_pin_name(bridge: BridgeAdapter) -> None:
    bridge.gpio_write("D7", 1)
    assert bridge.gpio_read("PA9") == 1  # D8 by chip name
    bridge.gpio_write("PA8", 0)  # D7 by chip name
    assert bridge.gpio_read(8) == 0


def test_led_alias_and_number_address_the_same_pin(bridge: BridgeAdapter) -> None:
    bridge.gpio_write("LD2", 1)
    assert bridge.gpio_read(13) == 1
    bridge.gpio_write("D13", 0)
    assert bridge.gpio_read("PA5") == 0


def test_input_pulls_are_applied(bridge: BridgeAdapter) -> None:
    bridge.gpio_mode("D4", "in", "up")
    assert bridge.gpio_read("D4") == 1
    bridge.gpio_mode("D4", "in", "down")
    assert bridge.gpio_read("D4") == 0
    assert bridge.gpio_read("B1") == 1  # user button released (board pull-up)


def test_link_pins_are_refused_with_invalid_address(bridge: BridgeAdapter) -> None:
    with pytest.raises(InvalidAddressError):
        bridge.gpio_write("D0", 1)


def test_adc_reads_twelve_bit_counts_per_pin(bridge: BridgeAdapter) -> None:
    assert [bridge.adc_read(f"A{i}") for i in range(6)] == [585 * (i + 1) for i in range(6)]


def test_i2c_scan_read_register_and_write_register(bridge: BridgeAdapter) -> None:
    bus = bridge.i2c()
    assert bus.scan() == [0x50, 0x76]
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"
    bus.write_register(0x50, 0x20, b"\x01\x02\x03")
    assert bus.read_register(0x50, 0x20, 3) == b"\x01\x02\x03"
    assert bus.probe(0x50) and not bus.probe(0x51)


def test_i2c_absent_target_raises_nack_with_address(bridge: BridgeAdapter) -> None:
    with pytest.raises(I2CNackError) as info:
        bridge.i2c().read(0x42, 2)
    assert info.value.address == 0x42


def test_spi_transfer_is_full_duplex(bridge: BridgeAdapter) -> None:
    dev = bridge.spi(1, 0, mode=3, speed_hz=20_000_000)  # above the firmware's range: clamped, not refused
    assert dev.transfer(b"\x9f\x00\x00") == b"\x9f\x00\x00"


def test_writes_follow_the_safety_policy_by_default(host_fw: HostFirmware) -> None:
    with open_adapter(f"bridge://{host_fw.path}?timeout_scale=5") as adapter, pytest.raises(WriteRefusedError):
        adapter.gpio_write("D13", 1)


def test_eight_pipelined_requests_each_get_their_own_reply(bridge: BridgeAdapter) -> None:
    link = bridge.link
    deadline = time.monotonic() + 5
    pending = [link.submit("adc_read", {"pin": f"A{i % 6}"}, deadline=deadline) for i in range(8)]
    assert [link.wait(p, deadline=deadline) for p in pending] == [585 * (i % 6 + 1) for i in range(8)]


def test_garbage_written_to_the_board_does_not_break_the_next_request(bridge: BridgeAdapter) -> None:
    port = bridge.link._port
    assert port is not None
    port.write(b"\xff\x00garbage without newline {\"id\":")  # a torn frame in the firmware's buffer
    bridge.ping()  # the request's leading newline ends the junk; its error reply is skipped
    assert bridge.link.stats.error_frames_without_id + bridge.link.stats.stray_replies >= 1


def test_overlong_line_to_the_board_is_answered_and_the_link_recovers(bridge: BridgeAdapter) -> None:
    port = bridge.link._port
    assert port is not None
    port.write(b"{" + b"x" * 3000 + b"\n")
    bridge.ping()


def test_reset_mid_command_fails_that_request_and_the_next_one_works(host_fw: HostFirmware,
                                                                     bridge: BridgeAdapter) -> None:
    # The power-on banner may or may not have been counted (it races the port open), so count from here.
    resets_before = bridge.link.stats.resets
    host_fw.pause()
    _wait_state(host_fw, "T")
    deadline = time.monotonic() + 5
    pending = bridge.link.submit("gpio_read", {"pin": "D7"}, deadline=deadline)
    host_fw.reset()  # delivered when the process runs again: the queued request is lost
    host_fw.resume()
    with pytest.raises(FirmwareResetError):
        bridge.link.wait(pending, deadline=deadline)
    assert bridge.link.last_boot is not None and bridge.link.last_boot["reset"] == "pin"
    bridge.ping()
    assert bridge.health()["resets"] == resets_before + 1


def test_unplug_fails_requests_clearly_and_replug_recovers_the_link(host_fw: HostFirmware,
                                                                    bridge: BridgeAdapter) -> None:
    host_fw.pause()
    _wait_state(host_fw, "T")
    deadline = time.monotonic() + 5
    in_flight = bridge.link.submit("ping", None, deadline=deadline)
    host_fw.unplug()
    with pytest.raises(AdapterUnavailableError):
        bridge.link.wait(in_flight, deadline=deadline)
    with pytest.raises(AdapterUnavailableError):
        bridge.link.request("ping", timeout_s=0.3)
    host_fw.start()
    assert bridge.link.request("ping", timeout_s=10) == "pong"  # waits for the background reconnect
    health = bridge.health()
    assert health["ok"] and health["reconnects"] >= 1 and health["disconnects"] >= 1


def test_a_second_opener_of_the_same_port_gets_a_clear_error(bridge: BridgeAdapter, host_fw: HostFirmware) -> None:
    with pytest.raises(AdapterUnavailableError):
        open_adapter(f"bridge://{host_fw.path}", safety=WRITABLE)
    bridge.ping()  # the first holder is unaffected


def test_a_second_process_is_refused_by_the_port_lock(bridge: BridgeAdapter, host_fw: HostFirmware) -> None:
    code = "import sys; from edge_agent.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", code, "bridge", "ping", "--url", f"bridge://{host_fw.path}"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert proc.returncode == 1
    assert "in use by another process" in proc.stderr
    bridge.ping()


def test_cli_ping_and_capabilities_against_the_pty(host_fw: HostFirmware, capsys: pytest.CaptureFixture[str]) -> None:
    from edge_agent.cli import main

    assert main(["bridge", "ping", "--url", f"bridge://{host_fw.path}?timeout_scale=5", "--count", "2", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"protocol": 1' in out and '"board": "nucleo-f401re"' in out
    assert main(["bridge", "capabilities", "--url", f"bridge://{host_fw.path}?timeout_scale=5"]) == 0
    assert "i2c_write_read" in capsys.readouterr().out


def test_a_configured_serial_board_opens_through_its_config_url(host_fw: HostFirmware) -> None:
    from edge_agent.config import BoardConfig

    entry = BoardConfig(board="nucleo-f401re", transport="serial", path=str(host_fw.path), baud=115200)
    with open_adapter(entry.adapter_url(), name="nucleo", safety=WRITABLE) as adapter:
        assert isinstance(adapter, BridgeAdapter) and adapter.name == "nucleo"
        adapter.gpio_write("D7", 1)
        assert adapter.gpio_read("D8") == 1


def test_unknown_url_option_is_refused_by_name(host_fw: HostFirmware) -> None:
    from edge_agent.errors import InvalidAdapterURL

    with pytest.raises(InvalidAdapterURL):
        open_adapter(f"bridge://{host_fw.path}?bitrate=9600")


def test_bridge_auto_opens_the_one_board_discovery_finds(host_fw: HostFirmware,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from serial.tools import list_ports, list_ports_common

    info = list_ports_common.ListPortInfo(str(host_fw.path), skip_link_detection=True)
    info.vid, info.pid = 0x0483, 0x374B
    monkeypatch.setattr(list_ports, "comports", lambda: [info])
    with open_adapter("bridge://auto") as adapter:
        assert isinstance(adapter, BridgeAdapter) and adapter.link.device == str(host_fw.path)
        adapter.ping()


def test_without_reconnect_a_vanished_port_fails_fast(host_fw: HostFirmware) -> None:
    with open_adapter(f"bridge://{host_fw.path}?reconnect=0&timeout_scale=5") as adapter:
        assert isinstance(adapter, BridgeAdapter)
        host_fw.unplug()
        with pytest.raises(AdapterUnavailableError):
            adapter.link.request("ping", timeout_s=30)  # must not sit out the 30 s


def test_a_device_node_without_permission_is_a_bus_permission_error(host_fw: HostFirmware) -> None:
    """The pty slave is mode 0600 root: an unprivileged user must get BusPermissionError, not a crash."""
    import shutil

    target = os.path.realpath(host_fw.path)
    if os.geteuid() != 0:
        os.chmod(target, 0o000)
        with pytest.raises(BusPermissionError):
            open_adapter(f"bridge://{host_fw.path}")
        return
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv to drop privileges")
    code = ("from edge_agent.bus import open_adapter\n"
            f"try:\n    open_adapter('bridge://{target}')\n"
            "except Exception as exc:\n    print(type(exc).__name__)\n")
    proc = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-c",
                           code], capture_output=True, text=True, timeout=60, check=False)
    if "BusPermissionError" not in proc.stdout and "Permission denied" in proc.stderr:
        pytest.skip(f"nobody cannot run this interpreter: {proc.stderr[-200:]}")
    assert proc.stdout.strip() == "BusPermissionError", proc.stderr[-1000:]


def test_the_open_port_is_in_kernel_exclusive_mode_for_other_programs(bridge: BridgeAdapter,
                                                                       host_fw: HostFirmware) -> None:
    """TIOCEXCL: a program that ignores flock (a terminal, another tool) gets EBUSY on open()."""
    import shutil

    target = os.path.realpath(host_fw.path)
    if os.geteuid() != 0:
        with pytest.raises(OSError) as info:
            os.close(os.open(target, os.O_RDWR | os.O_NOCTTY))
        assert info.value.errno == errno.EBUSY
        return
    if shutil.which("setpriv") is None:
        pytest.skip("root bypasses TIOCEXCL and setpriv is not available to drop privileges")
    os.chmod(target, 0o666)  # permission is not what this test is about
    code = (f"import os\ntry:\n    os.close(os.open({target!r}, os.O_RDWR | os.O_NOCTTY))\n    print('opened')\n"
            "except OSError as exc:\n    print(exc.errno)\n")
    proc = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-c",
                           code], capture_output=True, text=True, timeout=60, check=False)
    if proc.returncode != 0 and "Permission denied" in proc.stderr:
        pytest.skip(f"nobody cannot run this interpreter: {proc.stderr[-200:]}")
    assert proc.stdout.strip() == str(errno.EBUSY), proc.stdout + proc.stderr
    bridge.ping()


def test_closing_the_adapter_gives_the_port_back(host_fw: HostFirmware) -> None:
    with open_adapter(f"bridge://{host_fw.path}?timeout_scale=5") as first:
        first.ping()
    with open_adapter(f"bridge://{host_fw.path}?timeout_scale=5") as second:
        second.ping()
    import fcntl

    fd = os.open(os.path.realpath(host_fw.path), os.O_RDWR | os.O_NOCTTY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # no lock left behind
    finally:
        os.close(fd)


def test_noise_lines_from_the_board_are_skipped_and_counted(host_fw_binary: Path, tmp_path: Path) -> None:
    """Every reply comes after a noise line (junk bytes, a stray id, a 1500-byte line, an unknown event)."""
    with HostFirmware(host_fw_binary, directory=tmp_path, noise=True) as fw, \
            open_adapter(f"bridge://{fw.path}?timeout_scale=5", safety=WRITABLE) as adapter:
        assert isinstance(adapter, BridgeAdapter)
        for i in range(10):
            adapter.gpio_write("D7", i % 2)
            assert adapter.gpio_read("D8") == i % 2
        deadline = time.monotonic() + 10
        pending = [adapter.link.submit("adc_read", {"pin": f"A{i}"}, deadline=deadline) for i in range(6)]
        assert [adapter.link.wait(p, deadline=deadline) for p in pending] == [585 * (i + 1) for i in range(6)]
        health = adapter.health()
        assert health["timeouts"] == 0
        assert health["garbage_lines"] > 0 and health["stray_replies"] > 0 and health["overlong_lines"] > 0
