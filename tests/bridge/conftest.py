"""Fixtures for the firmware-bridge tests: golden vectors, the host-built firmware on a pty."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.bridge.adapter import BridgeAdapter
from edge_agent.bus.bridge.hostsim import HostFirmware, HostFirmwareError, build_host_firmware
from edge_agent.bus.bridge.link import Link
from edge_agent.config import AdapterSafety, SafetyConfig
from edge_agent.paths import bundled_vectors_dir

REQUIRE_FIRMWARE = os.environ.get("EDGE_AGENT_REQUIRE_FIRMWARE") == "1"
#: The firmware sources of this checkout (the tests may run against an installed wheel).
FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware_bridge"
#: Writes allowed on the bridge adapter: the simulated board on the pty has nothing to damage.
WRITABLE = SafetyConfig(adapters={"bridge": AdapterSafety(read_only=False)})


def load_vectors() -> list[dict[str, Any]]:
    """The golden request/reply vectors, in order (they share one firmware session)."""
    path = bundled_vectors_dir() / "protocol-v1.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def fw_build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private build directory, so concurrent test runs never share half-written binaries."""
    return tmp_path_factory.mktemp("fw-host-build")


@pytest.fixture(scope="session")
def host_fw_binary(fw_build_dir: Path) -> Path:
    """The host build of the firmware (built once per session); skips without a C toolchain."""
    try:
        return build_host_firmware(FIRMWARE_DIR, build_dir=fw_build_dir)
    except HostFirmwareError as exc:
        if REQUIRE_FIRMWARE:
            pytest.fail(f"EDGE_AGENT_REQUIRE_FIRMWARE=1 but the host firmware did not build: {exc}")
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def asan_fw_binary(host_fw_binary: Path, fw_build_dir: Path) -> Path:
    """The host firmware built with AddressSanitizer and UBSan (falls back to the plain build when the
    compiler lacks the sanitizers)."""
    try:
        return build_host_firmware(FIRMWARE_DIR, build_dir=fw_build_dir, target="host-asan")
    except HostFirmwareError:
        return host_fw_binary


@pytest.fixture
def host_fw(host_fw_binary: Path, tmp_path: Path) -> Iterator[HostFirmware]:
    """The firmware process on a pty; ``.path`` is the device to open."""
    fw = HostFirmware(host_fw_binary, directory=tmp_path)
    fw.start()
    try:
        yield fw
    finally:
        fw.stop()


@pytest.fixture
def bridge(host_fw: HostFirmware) -> Iterator[BridgeAdapter]:
    """A writable bridge adapter connected to the host firmware over the pty."""
    # Generous timeouts: the machine running the tests may be busy; no test here relies on them.
    adapter = open_adapter(f"bridge://{host_fw.path}?timeout_scale=5", safety=WRITABLE)
    assert isinstance(adapter, BridgeAdapter)
    try:
        yield adapter
    finally:
        adapter.close()


# --- the host driver on pyserial's loop:// port, where a test plays the firmware's side -------------


@pytest.fixture
def link() -> Iterator[Link]:
    lk = Link("loop://", settle_s=0)
    lk.open(handshake=False)
    try:
        yield lk
    finally:
        lk.close()


def inject(link: Link, data: bytes) -> None:
    """Write bytes as if the firmware had sent them (loop:// hands them to the reader)."""
    assert link._port is not None
    link._port.write(data)


def reply(rid: str, result: object = "pong") -> bytes:
    """One successful reply line to request ``rid``."""
    return json.dumps({"id": rid, "ok": True, "result": result}).encode() + b"\n"


def soon() -> float:
    """A request deadline far enough away that only a lost reply reaches it."""
    return time.monotonic() + 5.0


def wait_until(predicate: Callable[[], object], timeout_s: float = 5.0) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False
