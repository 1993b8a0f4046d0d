"""Shared fixtures: every test runs with its own state directory and no ambient config."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent import paths
from edge_agent.bus import open_adapter
from edge_agent.bus.sim import SimAdapter

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_CORPUS = REPO_ROOT.parent / "shared" / "corpus" / "datasheets"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    for var in ("EDGE_AGENT_CONFIG", "EDGE_AGENT_STATE", "STATE_DIRECTORY", "CONFIGURATION_DIRECTORY",
                "NOTIFY_SOCKET", "WATCHDOG_USEC", "KUMIHO_AUTH_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    # Nor the installed service's /etc/edge-agent/edge-agent.toml (on a Pi running the service, the tests
    # would otherwise run on its board config instead of the embedded defaults).
    monkeypatch.setattr(paths, "SYSTEM_CONFIG", tmp_path / "etc-edge-agent" / "edge-agent.toml")
    # An edge-agent.toml in the checkout (where the docs suggest one) is the developer's, not the test's:
    # each test runs from an empty directory of its own, so ./edge-agent.toml is never found.
    # (Beside tmp_path, not in it: a test may expect its tmp_path to hold only what it made.)
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """A fresh state directory."""
    path = tmp_path / "state"
    path.mkdir()
    return path


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The umask outside systemd (0022), under which a file's mode is only as private as its code makes it."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def shared_corpus() -> Path:
    """The realistic datasheet corpus in ../shared (skips when the checkout has no ../shared)."""
    if not SHARED_CORPUS.is_dir():
        pytest.skip("../shared/corpus/datasheets is not beside this checkout")
    return SHARED_CORPUS


def pytest_addoption(parser: pytest.Parser) -> None:
    # Bus contract suite (tests/bus/contract): run it against real adapters on a bench. pytest only
    # honours pytest_addoption in the root conftest, so the options live here.
    group = parser.getgroup("bus", "bus contract suite on real adapters")
    group.addoption("--bus-url", action="append", default=[],
                    help="adapter URL to run tests/bus/contract against (repeatable); default: sim and fakes")
    group.addoption("--bus-gpio-loop", default="", help="OUT,IN: two GPIO lines jumpered together on the bench")
    group.addoption("--bus-spi-loop", default="", help="BUS.CS whose MOSI is jumpered to MISO on the bench")
    group.addoption("--bus-board", default="", help="board id for pin names on the bench (linux:// on a Pi)")


@pytest.fixture
def host_firmware(tmp_path: Path) -> Iterator[Any]:
    """The bridge firmware core built for the host, answering on a pty (a HostFirmware).

    Skips without a host C compiler, unless CI sets EDGE_AGENT_REQUIRE_FIRMWARE=1.
    """
    hostsim = pytest.importorskip("edge_agent.bus.bridge.hostsim", reason="the bridge extra is not installed")
    try:
        binary = hostsim.build_host_firmware()
    except hostsim.HostFirmwareError as exc:
        if os.environ.get("EDGE_AGENT_REQUIRE_FIRMWARE") == "1":
            raise
        pytest.skip(str(exc))
    fw = hostsim.HostFirmware(binary, directory=tmp_path).start()
    yield fw
    fw.stop()


@pytest.fixture
def sim() -> Iterator[SimAdapter]:
    """A simulated NUCLEO-F401RE with the default scenario."""
    adapter = open_adapter("sim://nucleo-f401re")
    assert isinstance(adapter, SimAdapter)
    yield adapter
    adapter.close()
