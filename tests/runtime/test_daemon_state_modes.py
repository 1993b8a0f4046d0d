"""A daemon started with a loose umask (0022, as outside systemd) still keeps its state private."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any


def _assert_private(root: Path) -> None:
    wrong = {}
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [".", *dirnames, *filenames]:
            path = Path(dirpath) / name
            if name == "." and path.resolve() != root.resolve():
                continue
            seen += 1
            st = path.lstat()
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISSOCK(st.st_mode):
                # The local socket is an access point, not data: its owner may open it to the service's
                # group, never to others (and the 0700 directory still shuts the group out).
                if mode & 0o007:
                    wrong[str(path.relative_to(root))] = oct(mode)
            elif mode != (0o700 if path.is_dir() else 0o600):
                wrong[str(path.relative_to(root))] = oct(mode)
    assert seen > 1
    assert not wrong, f"not 0700 (directories) / 0600 (files): {wrong}"


def test_a_daemon_run_leaves_only_private_state(tmp_path: Path, loose_umask: None, daemon_factory: Any) -> None:
    state = tmp_path / "new-state"
    d = daemon_factory(state_dir=state)  # inherits the 0022 umask
    d.wait_ready()
    assert d.token()
    _assert_private(state)  # while running: token, status, lock, databases
    d.stop()
    _assert_private(state)
