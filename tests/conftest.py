"""Shared fixtures: every test runs with its own state directory and no ambient config."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_CORPUS = REPO_ROOT.parent / "shared" / "corpus" / "datasheets"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("EDGE_AGENT_CONFIG", "EDGE_AGENT_STATE", "STATE_DIRECTORY", "CONFIGURATION_DIRECTORY",
                "NOTIFY_SOCKET", "WATCHDOG_USEC", "KUMIHO_AUTH_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """A fresh state directory."""
    path = tmp_path / "state"
    path.mkdir()
    return path


@pytest.fixture
def shared_corpus() -> Path:
    """The realistic datasheet corpus in ../shared (skips when the checkout has no ../shared)."""
    if not SHARED_CORPUS.is_dir():
        pytest.skip("../shared/corpus/datasheets is not beside this checkout")
    return SHARED_CORPUS
