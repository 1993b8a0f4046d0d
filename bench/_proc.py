"""A process's memory figures, read from its own /proc/<pid>/status as every memory figure in bench/ is."""

from __future__ import annotations

from pathlib import Path


def status_kib(pid: int | str = "self") -> dict[str, int]:
    """Every ``kB`` field of ``/proc/<pid>/status`` (VmRSS, VmHWM, RssAnon, RssFile, ...), in KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if len(parts) == 2 and parts[1] == "kB":
            out[key] = int(parts[0])
    return out
