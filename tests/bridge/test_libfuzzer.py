"""Coverage-guided fuzzing of the firmware core (firmware_bridge/fuzz) for a bounded time.

`make fuzz` builds the libFuzzer target with clang (ASan + UBSan), seeds it with every request of
the golden vectors, and runs it on a checking HAL that aborts on any pin or bus outside the header
table, an over-long or invalid reply, or a line not answered exactly once. Skipped without clang
(unless EDGE_AGENT_REQUIRE_FIRMWARE=1, as in CI, where `.ci/run` installs it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import FIRMWARE_DIR, REQUIRE_FIRMWARE

#: Fuzzing time per `make test` run; EDGE_AGENT_FUZZ_SECONDS overrides (longer campaigns by hand).
FUZZ_SECONDS = int(os.environ.get("EDGE_AGENT_FUZZ_SECONDS", "20"))


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        if REQUIRE_FIRMWARE:
            pytest.fail(f"EDGE_AGENT_REQUIRE_FIRMWARE=1 but `{tool}` is not installed (.ci/run installs it)")
        pytest.skip(f"`{tool}` is not installed")


def test_fuzzing_the_core_on_the_checking_hal_finds_nothing(tmp_path: Path) -> None:
    _need("clang")
    _need("make")
    build = subprocess.run(["make", "-s", "-C", str(FIRMWARE_DIR), f"BUILD={tmp_path}", "fuzz-build"],
                           capture_output=True, text=True, timeout=600, check=False)
    if build.returncode != 0:
        if "fuzzer" in build.stderr and not REQUIRE_FIRMWARE:
            pytest.skip(f"clang has no libFuzzer runtime (install libclang-rt-dev): {build.stderr[-300:]}")
        pytest.fail(f"building the fuzz target failed:\n{build.stderr[-3000:]}")
    run = subprocess.run(["make", "-s", "-C", str(FIRMWARE_DIR), f"BUILD={tmp_path}", "fuzz",
                          f"FUZZ_SECONDS={FUZZ_SECONDS}"],
                         capture_output=True, text=True, timeout=FUZZ_SECONDS + 300, check=False)
    findings = [line for line in run.stderr.splitlines() if line.startswith(("fuzz_proto:", "SUMMARY:"))]
    crashes = sorted(p.name for p in (tmp_path / "fuzz").glob("crash-*"))
    assert run.returncode == 0, f"finding: {findings} inputs: {crashes}\n{run.stderr[-3000:]}"
    assert not crashes
    # The run really executed inputs: the seeds alone are 60-odd units.
    executed = [line for line in run.stderr.splitlines() if line.startswith("stat::number_of_executed_units:")]
    assert executed and int(executed[0].split(":")[-1]) > 60, run.stderr[-2000:]
    assert len(list((tmp_path / "fuzz" / "seeds").glob("vector-*"))) >= 50


def test_replies_escape_del_like_every_other_control_byte(host_fw_binary: Path) -> None:
    # Found by the fuzz target: a DEL echoed from an unknown command name went out raw.
    request = b'{"id":"1","cmd":"gpi\x7f_write"}\n'
    proc = subprocess.run([str(host_fw_binary)], input=request, capture_output=True, timeout=30, check=True)
    reply = proc.stdout.splitlines()[-1]
    assert b"\x7f" not in reply
    assert b"gpi\\u007f_write" in reply
    assert all(0x20 <= b < 0x7F for b in reply)
