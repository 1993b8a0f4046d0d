"""The extras' environment markers keep wheel-less packages out of ARM installs (offline check).

`make arm-check` (run by CI) asks the package index whether the selection resolves from wheels;
this test pins the selection itself, with the same marker evaluation.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVERY_EXTRA = ["linux", "aardvark", "ftdi", "bridge", "pdf", "kumiho", "mcp", "agent", "ml"]


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_arm_install", ROOT / "tools" / "check_arm_install.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _names(tool: ModuleType, machine: str) -> set[str]:
    from packaging.requirements import Requirement

    return {Requirement(r).name for r in tool.requirements_for(machine, EVERY_EXTRA)}


def test_64_bit_arm_leaves_out_source_builds_and_packages_without_arm_wheels(tool: ModuleType) -> None:
    names = _names(tool, "aarch64")
    assert not names & {"spidev", "lgpio", "aardvark-py"}  # Pi OS ships python3-spidev / python3-lgpio
    assert {"smbus2", "gpiozero", "numpy", "ai-edge-litert", "pyserial", "mcp"} <= names


def test_32_bit_arm_also_leaves_out_numpy_and_the_model_runtimes(tool: ModuleType) -> None:
    names = _names(tool, "armv7l")
    assert not names & {"spidev", "lgpio", "aardvark-py", "numpy", "ai-edge-litert", "tflite-runtime"}
    assert {"smbus2", "gpiozero", "pyserial", "mcp", "kumiho"} <= names


def test_x86_64_keeps_every_backend(tool: ModuleType) -> None:
    assert {"spidev", "lgpio", "aardvark-py", "numpy", "ai-edge-litert"} <= _names(tool, "x86_64")


def test_an_unknown_extra_is_refused_by_name(tool: ModuleType) -> None:
    with pytest.raises(SystemExit, match="nope"):
        tool.requirements_for("aarch64", ["nope"])


@pytest.mark.parametrize("machine", ["aarch64", "armv7l"])
def test_every_manylinux_tag_bookworm_glibc_runs_is_offered_to_the_resolver(tool: ModuleType, machine: str) -> None:
    # pip matches --platform tags literally: without manylinux_2_34 it skips lgpio's aarch64 wheel and
    # resolves a placeholder release instead. Bookworm's glibc 2.36 runs every manylinux_2_17..2_36 wheel.
    platforms = tool.TARGETS[machine]["platforms"]
    assert {f"manylinux_2_{minor}_{machine}" for minor in range(17, 37)} <= set(platforms)
    assert not any(p.startswith("manylinux_2_37") for p in platforms)
