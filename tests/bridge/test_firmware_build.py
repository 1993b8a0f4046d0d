"""The NUCLEO-F401RE firmware builds with Debian's arm-none-eabi toolchain and fits the chip.

Skipped when arm-none-eabi-gcc is absent, unless EDGE_AGENT_REQUIRE_FIRMWARE=1 (set by .ci/run),
in which case a missing toolchain or a failed build fails the test.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from .conftest import FIRMWARE_DIR, REQUIRE_FIRMWARE

FLASH_BYTES = 512 * 1024  # STM32F401RE (RM0368 2.3)
RAM_BYTES = 96 * 1024
FLASH_BASE, RAM_BASE = 0x0800_0000, 0x2000_0000


@pytest.fixture(scope="module")
def arm_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Build into a private directory; returns (build dir, make output)."""
    if shutil.which("arm-none-eabi-gcc") is None:
        if REQUIRE_FIRMWARE:
            pytest.fail("EDGE_AGENT_REQUIRE_FIRMWARE=1 but arm-none-eabi-gcc is not installed "
                        "(apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi)")
        pytest.skip("arm-none-eabi-gcc is not installed")
    out = tmp_path_factory.mktemp("fw-build")
    proc = subprocess.run(["make", "-C", str(FIRMWARE_DIR), f"BUILD={out}"], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out, proc.stdout


def test_make_produces_elf_and_bin(arm_build: tuple[Path, str]) -> None:
    out, _ = arm_build
    assert (out / "nucleo-f401re.elf").read_bytes()[:4] == b"\x7fELF"
    assert 0 < (out / "nucleo-f401re.bin").stat().st_size <= FLASH_BYTES


def test_reported_flash_and_ram_use_fit_the_stm32f401re(arm_build: tuple[Path, str]) -> None:
    _, log = arm_build
    flash = re.search(r"flash: (\d+) / (\d+) bytes", log)
    ram = re.search(r"RAM: (\d+) / (\d+) bytes", log)
    assert flash and ram, log
    assert int(flash[2]) == FLASH_BYTES and int(ram[2]) == RAM_BYTES
    assert 0 < int(flash[1]) <= FLASH_BYTES
    assert 0 < int(ram[1]) <= RAM_BYTES


def test_vector_table_points_into_ram_and_flash(arm_build: tuple[Path, str]) -> None:
    """Cortex-M boot: word 0 is the initial stack pointer, word 1 the reset handler (Thumb bit set)."""
    out, _ = arm_build
    sp, reset = struct.unpack("<II", (out / "nucleo-f401re.bin").read_bytes()[:8])
    assert sp == RAM_BASE + RAM_BYTES
    assert reset & 1 and FLASH_BASE <= reset < FLASH_BASE + FLASH_BYTES
