"""Which process holds a file, device or socket: for errors that say who to stop (Linux /proc).

``describe_holders('/dev/ttyACM0')`` gives ``"pid 812: edge-agent --state /var/lib/edge-agent run"``.
The lookup reads ``/proc/locks`` (flock/POSIX locks, visible for every user) and each process's
``/proc/<pid>/fd`` links (visible for our own processes, or all of them as root). It never raises:
when nothing can be found it says so.
"""

from __future__ import annotations

import os
from pathlib import Path

_MAX_SCAN = 4096  # processes looked at; a device has a few hundred


def command_line(pid: int) -> str:
    """The command line of ``pid`` as one string ('?' when it is gone or unreadable)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    parts = [p.decode(errors="replace") for p in raw.split(b"\0") if p]
    if parts and os.path.basename(parts[0]).startswith("python") and len(parts) > 1:
        parts = parts[1:]  # `python /path/edge-agent run` reads better as `edge-agent run`
    if parts:
        parts[0] = os.path.basename(parts[0])
    text = " ".join(parts)
    return text if len(text) <= 200 else text[:197] + "..."


def _lock_holders(path: Path) -> set[int]:
    try:
        st = os.stat(path)
        text = Path("/proc/locks").read_text()
    except OSError:
        return set()
    want = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    pids: set[int] = set()
    for line in text.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a "->" marks a waiter: skip it)
        if len(fields) >= 6 and fields[1] != "->" and fields[5].lower() == want and fields[4].isdigit():
            pids.add(int(fields[4]))
    return pids


def _fd_holders(targets: set[str]) -> set[int]:
    pids: set[int] = set()
    me = os.getpid()
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()][:_MAX_SCAN]
    except OSError:
        return pids
    for entry in entries:
        pid = int(entry)
        if pid == me:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") in targets:
                    pids.add(pid)
                    break
            except OSError:
                continue
    return pids


def holders(path: str | os.PathLike[str]) -> list[int]:
    """PIDs (other than ours) that lock or have ``path`` open."""
    p = Path(path)
    targets = {str(p)}
    try:
        targets.add(str(p.resolve()))
    except OSError:
        pass
    return sorted((_lock_holders(p) | _fd_holders(targets)) - {os.getpid()})


def describe_holders(path: str | os.PathLike[str]) -> str:
    """``"pid N: command line"`` for each holder of ``path``, or a sentence saying none was found."""
    pids = holders(path)
    if not pids:
        return "no holder visible to this user (run as root, or `fuser -v` the device, to see it)"
    return "; ".join(f"pid {pid}: {command_line(pid)}" for pid in pids)


def socket_holders(path: str | os.PathLike[str]) -> list[int]:
    """PIDs listening on the AF_UNIX socket bound at ``path``."""
    wanted = os.fspath(path)
    inodes = set()
    try:
        with open("/proc/net/unix") as fh:
            next(fh, None)
            for line in fh:
                fields = line.split()
                if len(fields) >= 8 and fields[7] == wanted:
                    inodes.add(f"socket:[{fields[6]}]")
    except OSError:
        return []
    return sorted(_fd_holders(inodes)) if inodes else []


def describe_socket_holders(path: str | os.PathLike[str]) -> str:
    """``"pid N: command line"`` for each process serving the socket at ``path``."""
    pids = socket_holders(path)
    if not pids:
        return "holder not visible to this user"
    return "; ".join(f"pid {pid}: {command_line(pid)}" for pid in pids)
