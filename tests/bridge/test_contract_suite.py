"""The bus layer's adapter contract suite (tests/bus/contract) passes on bridge:// against the real
firmware core over a pty, with the simulated board's wiring: D7-D8 jumper, SPI MOSI-MISO loop,
24C02 EEPROM at 0x50 and BME280 at 0x76."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from edge_agent.bus.bridge.hostsim import HostFirmware

CONTRACT = Path(__file__).resolve().parents[1] / "bus" / "contract"


def test_bus_contract_suite_passes_on_the_bridge(host_fw: HostFirmware) -> None:
    if not CONTRACT.is_dir():
        pytest.skip("tests/bus/contract is not in this checkout")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(CONTRACT), "-o", "addopts=--import-mode=importlib", "-q",
         "-p", "no:cacheprovider", "--bus-url",
         f"bridge://{host_fw.path}?timeout_scale=5", "--bus-gpio-loop", "D7,D8", "--bus-spi-loop", "1.0"],
        capture_output=True, text=True, timeout=240, cwd=CONTRACT.parents[2], check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    summary = proc.stdout.strip().splitlines()[-1]
    assert " passed" in summary and not any(w in summary for w in ("failed", "error", "skipped")), summary
