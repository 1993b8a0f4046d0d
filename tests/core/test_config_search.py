"""Which configuration a command and `make run` use: `--config none` is the embedded defaults, and a
checkout's `make run` uses its own edge-agent.toml or those defaults, never a system-wide file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from edge_agent.config import load_settings
from edge_agent.paths import find_config

REPO = Path(__file__).resolve().parents[2]


def test_config_none_skips_every_file_on_the_search_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "edge-agent.toml").write_text('[workspace]\nname = "bench"\n')
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "edge-agent.toml").write_text('[workspace]\nname = "service"\n')
    monkeypatch.setenv("CONFIGURATION_DIRECTORY", str(tmp_path / "etc"))
    assert find_config() == Path("edge-agent.toml")  # the search finds the working directory's file
    assert find_config("none") is None
    monkeypatch.setenv("EDGE_AGENT_CONFIG", "none")
    assert find_config() is None
    assert find_config("./none") == Path("none")  # a file called that is still reachable by path
    assert load_settings(find_config()).workspace.name != "service"


def test_the_system_wide_file_is_found_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent import paths

    system = tmp_path / "etc" / "edge-agent.toml"
    system.parent.mkdir()
    system.write_text('[workspace]\nname = "service"\n')
    monkeypatch.setattr(paths, "SYSTEM_CONFIG", system)
    assert find_config() == system
    assert find_config("none") is None
    (Path.cwd() / "edge-agent.toml").write_text("")
    assert find_config() == Path("edge-agent.toml")


def _make_run_command(checkout: Path) -> str:
    """The command `make run` would run in `checkout` (a dry run of the project's Makefile there)."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    stamp = str(checkout / "stamp")  # the venv counts as installed (-o: never remade)
    out = subprocess.run([make, "-n", "-f", str(REPO / "Makefile"), "-C", str(checkout), "-o", stamp, "run",
                          "STAMP=" + stamp], capture_output=True, text=True, check=True).stdout
    (line,) = [ln for ln in out.splitlines() if ln.rstrip().endswith(" run")]
    return line


def test_make_run_uses_the_checkouts_config_or_the_embedded_defaults(tmp_path: Path) -> None:
    assert "--config none " in _make_run_command(tmp_path)
    (tmp_path / "edge-agent.toml").write_text("")
    assert "--config edge-agent.toml " in _make_run_command(tmp_path)
