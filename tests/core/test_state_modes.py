"""The state directory holds memories, the MCP token and the device id: 0700, its files 0600, whatever the umask.

Outside systemd (no StateDirectory=, no UMask=) the process runs with the login umask, usually
0022, which would leave every file world-readable. The integration tests run real sessions with
that umask and then check every directory and file the runtime left in the state directory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.paths import open_private, private_dir, private_file, write_private


def _modes(root: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def _assert_private(root: Path) -> None:
    modes = _modes(root)
    assert len(modes) > 1, "the session left nothing in the state directory"
    wrong = {name: oct(mode) for name, mode in modes.items()
             if mode != (0o700 if (root / name).is_dir() else 0o600)}
    assert not wrong, f"not 0700 (directories) / 0600 (files): {wrong}"


# --- the helpers ---------------------------------------------------------------------------------


def test_private_dir_creates_missing_parents_0700_and_leaves_existing_ones(tmp_path: Path, loose_umask: None) -> None:
    existing = tmp_path / "home"
    existing.mkdir(mode=0o755)
    target = existing / "state" / "edge-agent"
    private_dir(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755  # not ours to change
    private_dir(target)  # idempotent


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o277])
def test_private_files_are_exactly_0600_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        private_file(tmp_path / "a.db")
        write_private(tmp_path / "b.json", '{"x": 1}')
        with open_private(tmp_path / "c.lock", "a+") as fh:
            fh.write("1")
    finally:
        os.umask(old)
    for name in ("a.db", "b.json", "c.lock"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
    assert (tmp_path / "b.json").read_text() == '{"x": 1}'
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_file_an_older_version_left_world_readable_is_tightened(tmp_path: Path) -> None:
    old = tmp_path / "memory.db"
    old.write_text("")
    old.chmod(0o644)
    private_file(old)
    assert stat.S_IMODE(old.stat().st_mode) == 0o600


# --- real sessions ---------------------------------------------------------------------------------


def test_cli_memory_and_sync_sessions_leave_only_private_state(tmp_path: Path, loose_umask: None,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "fresh" / "state"  # created by the runtime itself
    assert main(["--state", str(state), "memory", "store", "--key", "probe",
                 "--content", "the BME280 sits at 0x76"]) == 0
    assert main(["--state", str(state), "memory", "snapshot"]) == 0
    assert main(["--state", str(state), "memory", "list"]) == 0
    assert main(["--state", str(state), "sync", "status"]) == 0
    assert main(["--state", str(state), "rag", "index"]) == 0
    capsys.readouterr()
    _assert_private(state)
    assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o700

