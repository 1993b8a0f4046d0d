"""Stretch: the same ARM image boots in qemu-system-arm (netduinoplus2, an STM32F405 whose
USART2 sits at the same address and IRQ as the F401's) and answers the real host driver over
the emulated serial port on a pty. Only ping/hello/capabilities are meaningful there: the
machine model lacks the F401's GPIO and RCC behaviour, so the firmware avoids waiting on them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.bridge.adapter import BridgeAdapter

from .conftest import FIRMWARE_DIR, REQUIRE_FIRMWARE


@pytest.fixture(scope="module")
def qemu_pty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    missing = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
    if missing:
        if REQUIRE_FIRMWARE:
            pytest.fail(f"EDGE_AGENT_REQUIRE_FIRMWARE=1 but {', '.join(missing)} is not installed")
        pytest.skip(f"{', '.join(missing)} not installed")
    out = tmp_path_factory.mktemp("qemu-build")
    subprocess.run(["make", "-s", "-C", str(FIRMWARE_DIR), f"BUILD={out}", str(Path(out) / "nucleo-f401re.elf")],
                   capture_output=True, check=True, timeout=300)
    # serial0 = USART1 (discarded), serial1 = USART2 on a pty.
    proc = subprocess.Popen(["qemu-system-arm", "-M", "netduinoplus2", "-nographic", "-monitor", "none",
                             "-serial", "null", "-serial", "pty", "-kernel", str(out / "nucleo-f401re.elf")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        path = None
        deadline = time.monotonic() + 30
        while path is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            m = re.search(r"(/dev/pts/\d+)", line)
            path = m[1] if m else None
        assert path, "qemu did not report its pty"
        yield path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_arm_image_in_qemu_answers_ping_hello_and_capabilities(qemu_pty: str) -> None:
    adapter = open_adapter(f"bridge://{qemu_pty}?timeout_scale=5")
    assert isinstance(adapter, BridgeAdapter)
    with adapter:
        assert adapter.link.protocol == 1
        assert adapter.link.hello["board"] == "nucleo-f401re"
        adapter.ping()
        assert adapter.firmware_capabilities()["led_pin"] == 13


def test_arm_build_of_the_parser_matches_the_golden_vectors_that_need_no_peripherals(qemu_pty: str) -> None:
    """The ARM compile of the protocol core (32-bit long, newlib-nano) answers like the host build.

    Only vectors whose reply does not depend on GPIO/ADC/I2C/SPI hardware are used: the machine
    model has no STM32F401 peripherals behind those registers.
    """
    import json

    import serial

    from .conftest import load_vectors

    hardware_free = {"ping", "hello", "capabilities"}
    chosen = []
    for v in load_vectors():
        reply, request = v["reply"], v["request"]
        if request is None or reply is None or "event" in reply:
            continue
        if reply["ok"] and not any(f'"cmd":"{c}"' in request.replace(" ", "") for c in hardware_free):
            continue
        if not reply["ok"] and reply["code"] in (9, 10, 11):
            continue
        if "spi_transfer" in request and reply["ok"]:
            continue
        chosen.append(v)
    assert len(chosen) >= 30
    with serial.Serial(qemu_pty, 115200, timeout=0.2) as port:
        port.reset_input_buffer()
        port.write(b"\n")
        got: list[dict] = []
        for v in chosen:
            port.write(v["request"].encode())
            line = b""
            deadline = time.monotonic() + 10
            while not line.endswith(b"\n") and time.monotonic() < deadline:
                line += port.readline()
            got.append(json.loads(line))
    for v, g in zip(chosen, got, strict=True):
        assert g == v["reply"], v["name"]
