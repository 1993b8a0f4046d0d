"""The firmware's independent watchdog, on the host build's watchdog model (host/hal_sim.c).

The model follows the board: the idle loop feeds it whenever the receive ring is empty, the core
feeds it once per processed line, and with the UART paced at its real rate a host that keeps the
line busy keeps the ring from emptying. Starved, the model does what the board does: drops its
input, resets every pin and announces itself with ``"reset":"watchdog"``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_agent.bus.bridge.hostsim import HostFirmware
from edge_agent.bus.bridge.link import Link
from edge_agent.bus.bridge.protocol import FirmwareResetError

#: The NUCLEO's IWDG: LSI 32 kHz / 64, reload 1000.
BOARD_WATCHDOG_MS = 2000


def _open(fw: HostFirmware) -> Link:
    link = Link(str(fw.path), settle_s=0, timeout_scale=5)
    link.open()
    return link


@pytest.fixture
def paced_fw(host_fw_binary: Path, tmp_path: Path) -> Iterator[HostFirmware]:
    fw = HostFirmware(host_fw_binary, directory=tmp_path, baud=115200, watchdog_ms=BOARD_WATCHDOG_MS)
    fw.start()
    try:
        yield fw
    finally:
        fw.stop()


def test_the_watchdog_model_resets_the_board_when_one_line_outlasts_its_period(host_fw_binary: Path,
                                                                              tmp_path: Path) -> None:
    # At 9600 baud a 128-byte read's reply (~290 bytes) takes ~0.3 s to send: longer than a 0.2 s
    # watchdog, with the next request already waiting so the idle loop never runs in between.
    with HostFirmware(host_fw_binary, directory=tmp_path, baud=9600, watchdog_ms=200) as fw:
        link = Link(str(fw.path), settle_s=0, baud=9600, timeout_scale=5)
        link.open(handshake=False)
        try:
            deadline = time.monotonic() + 20
            while link.last_boot is None and time.monotonic() < deadline:  # the power-on banner first
                time.sleep(0.01)
            assert link.last_boot is not None and link.last_boot["reset"] == "power"
            first = link.submit("i2c_read", {"addr": 0x50, "len": 128}, deadline=deadline)
            second = link.submit("i2c_read", {"addr": 0x50, "len": 128}, deadline=deadline)
            third = link.submit("ping", None, deadline=deadline)
            outcomes = []
            for p in (first, second, third):
                try:
                    outcomes.append(link.wait(p, deadline=deadline))
                except FirmwareResetError as exc:
                    outcomes.append(exc)
            assert any(isinstance(o, FirmwareResetError) for o in outcomes), outcomes
            assert link.stats.resets >= 1
            assert link.last_boot is not None and link.last_boot["reset"] == "watchdog"
        finally:
            link.close()


def test_two_clients_streaming_large_replies_keep_the_watchdog_fed(paced_fw: HostFirmware) -> None:
    link = _open(paced_fw)
    resets_at_start = link.stats.resets  # the power-on banner may land during the handshake
    stop = time.monotonic() + 3 * BOARD_WATCHDOG_MS / 1000
    answered = [0, 0]
    errors: list[BaseException] = []

    def client(slot: int, cmd: str, args: dict[str, object] | None) -> None:
        try:
            while time.monotonic() < stop:
                # Three in flight per client: the firmware always finds the next request waiting.
                pending = [link.submit(cmd, args, deadline=time.monotonic() + 10) for _ in range(3)]
                for p in pending:
                    link.wait(p, deadline=time.monotonic() + 10)
                    answered[slot] += 1
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            errors.append(exc)

    try:
        threads = [threading.Thread(target=client, args=(0, "i2c_read", {"addr": 0x50, "len": 128})),
                   threading.Thread(target=client, args=(1, "capabilities", None))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors
        assert link.stats.resets == resets_at_start, link.last_boot
        assert all(n > 0 for n in answered)
        # The board kept its state: still the same session, no banner since the handshake.
        assert link.request("ping") == "pong"
        assert link.stats.resets == resets_at_start
    finally:
        link.close()
