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
from edge_agent.bus.bridge.hostsim import FIRMWARE_DIR

from .conftest import REQUIRE_FIRMWARE


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
