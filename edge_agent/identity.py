"""Who and when: the device's stable id, this boot's id, and clock readings with a synced flag.

Raspberry Pi class boards have no real-time clock: until NTP syncs, the wall clock starts from
fake-hwclock's last save or systemd's clock epoch, so a wall time alone can be hours or years off.
Every capture therefore records ``(boot_id, CLOCK_MONOTONIC, wall time, clock_synced)``: within one
boot the monotonic clock is exact, so a wall time taken before sync can be corrected later from a
synced reading of the same boot (:func:`corrected_wall_time`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import hmac
import os
import re
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from edge_agent.config import Settings
from edge_agent.errors import ConfigError
from edge_agent.paths import open_private, private_dir

MACHINE_ID_PATHS = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))
BOOT_ID_PATH = Path("/proc/sys/kernel/random/boot_id")
TIMESYNC_FLAG = Path("/run/systemd/timesync/synchronized")  # touched by systemd-timesyncd on sync
DEVICE_ID_FILE = "device-id"
# Application key for deriving an id from machine-id: machine-id(5) asks applications not to
# expose the raw value, but an HMAC keyed by it (like sd_id128_get_machine_app_specific).
_APP_KEY = b"edge-agent device id v1"
_ID_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def device_id(settings: Settings, state_dir: Path) -> str:
    """The device's stable id: ``[device] id``, else derived from machine-id, else a persisted random id."""
    configured = settings.device.id.strip()
    if configured:
        if not _ID_OK.match(configured):
            raise ConfigError(
                f"device.id {configured!r} must be 1-64 characters of letters, digits, '-' or '_' "
                "(it names the device upstream, e.g. id = \"lab-pi-03\")"
            )
        return configured
    for path in MACHINE_ID_PATHS:
        try:
            machine = path.read_text().strip()
        except OSError:
            continue
        if re.fullmatch(r"[0-9a-f]{32}", machine):
            digest = hmac.new(bytes.fromhex(machine), _APP_KEY, hashlib.sha256).hexdigest()
            return f"dev-{digest[:16]}"
    return _persisted_random_id(Path(state_dir))


def _persisted_random_id(state_dir: Path) -> str:
    path = state_dir / DEVICE_ID_FILE
    try:
        existing = path.read_text().strip()
        if _ID_OK.match(existing):
            return existing
    except OSError:
        pass
    new = f"dev-{secrets.token_hex(8)}"
    private_dir(state_dir)
    tmp = path.with_suffix(".tmp")
    with open_private(tmp, "w") as fh:  # write, fsync, rename: the id must never change once handed out
        fh.write(new + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    try:
        os.link(tmp, path)  # atomic create-if-absent: a concurrent first start keeps one id
    except FileExistsError:
        tmp.unlink(missing_ok=True)
        return path.read_text().strip()
    tmp.unlink(missing_ok=True)
    return new


@functools.cache
def boot_id() -> str:
    """This boot's random id from the kernel; '' where the kernel does not provide one (read once)."""
    try:
        return BOOT_ID_PATH.read_text().strip()
    except OSError:
        return ""


class _Timex(ctypes.Structure):
    # Leading fields of struct timex (linux/timex.h); the kernel writes up to ~200 bytes, so the
    # padding keeps the call inside our buffer on both 32- and 64-bit ABIs.
    _fields_ = [
        ("modes", ctypes.c_uint),
        ("offset", ctypes.c_long),
        ("freq", ctypes.c_long),
        ("maxerror", ctypes.c_long),
        ("esterror", ctypes.c_long),
        ("status", ctypes.c_int),
        ("_rest", ctypes.c_byte * 256),
    ]


_TIME_ERROR = 5  # adjtimex return: clock not synchronized
_STA_UNSYNC = 0x0040


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:  # find_library may run ldconfig: once per process only
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None


_SYNC_CACHE_S = 1.0  # sync state changes rarely; captures can arrive thousands per second
_sync_cache: tuple[float, bool] = (-1e9, False)


def clock_synced() -> bool:
    """Whether the wall clock is known to be synchronised (timesyncd flag, else the kernel's NTP state)."""
    global _sync_cache
    now = time.monotonic()
    if now - _sync_cache[0] < _SYNC_CACHE_S:
        return _sync_cache[1]
    synced = _read_clock_synced()
    _sync_cache = (now, synced)
    return synced


def _read_clock_synced() -> bool:
    if TIMESYNC_FLAG.exists():
        return True
    libc = _libc()
    if libc is None:
        return False
    try:
        tx = _Timex()
        state = libc.adjtimex(ctypes.byref(tx))  # modes=0: read only, needs no privilege
    except AttributeError:
        return False
    return state not in (-1, _TIME_ERROR) and not tx.status & _STA_UNSYNC


@dataclass(frozen=True)
class ClockReading:
    """One reading of both clocks, with the boot it belongs to."""

    boot_id: str
    monotonic_ns: int
    wall_time: str  # RFC 3339 UTC
    clock_synced: bool

    def as_metadata(self) -> dict[str, str]:
        """String form for capture / revision metadata."""
        return {
            "boot_id": self.boot_id,
            "monotonic_ns": str(self.monotonic_ns),
            "wall_time": self.wall_time,
            "clock_synced": "true" if self.clock_synced else "false",
        }


def read_clock() -> ClockReading:
    """Read CLOCK_MONOTONIC and the wall clock together."""
    mono = time.monotonic_ns()
    wall = datetime.now(UTC)
    return ClockReading(boot_id(), mono, _rfc3339(wall), clock_synced())


def corrected_wall_time(captured: ClockReading, now: ClockReading) -> str | None:
    """The wall time of an unsynced reading, recomputed from a synced one of the same boot; else None."""
    if captured.clock_synced or not now.clock_synced or not captured.boot_id or captured.boot_id != now.boot_id:
        return None
    now_wall = datetime.fromisoformat(now.wall_time)
    delta_s = (now.monotonic_ns - captured.monotonic_ns) / 1e9
    return _rfc3339(datetime.fromtimestamp(now_wall.timestamp() - delta_s, UTC))


def _rfc3339(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
