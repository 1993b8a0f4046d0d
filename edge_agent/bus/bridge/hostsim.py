"""Run the host build of firmware_bridge (the real protocol core on a simulated board) on a pty.

Used by tests, the bridge benchmark and ``edge-agent bridge sim``. The firmware process talks on the
master side of a pseudo-terminal; the host driver opens the slave side by path, as it would open
``/dev/ttyACM0``. The path handed out is a stable symlink (like ``/dev/serial/by-id/...``), so an
"unplug" (kill the process, the pty disappears) and "replug" (new process, new pty, symlink moved)
look to the driver like a USB board going away and coming back. Works from a source checkout only:
the firmware sources are not part of the wheel.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import tty
from pathlib import Path
from types import TracebackType

from edge_agent.errors import EdgeAgentError


def find_firmware_dir() -> Path:
    """The firmware_bridge/ source directory: ``$EDGE_AGENT_FIRMWARE_DIR``, else beside this package
    in a source checkout, else ``./firmware_bridge``."""
    env = os.environ.get("EDGE_AGENT_FIRMWARE_DIR")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parents[3] / "firmware_bridge"
    return checkout if (checkout / "Makefile").is_file() else Path.cwd() / "firmware_bridge"


FIRMWARE_DIR = find_firmware_dir()
HOST_BINARY = FIRMWARE_DIR / "build" / "host" / "bridge-fw-sim"


class HostFirmwareError(EdgeAgentError):
    """The host build of the firmware could not be built or started."""


def build_host_firmware(firmware_dir: Path | None = None, *, build_dir: Path | None = None,
                        target: str = "host") -> Path:
    """Build (or bring up to date) the host firmware with ``make host``; return the binary path.

    ``build_dir`` (default ``firmware_dir/build``) keeps concurrent builds apart; ``target`` may be
    ``host-asan`` for the AddressSanitizer/UBSan build.
    """
    firmware_dir = firmware_dir or find_firmware_dir()
    if not (firmware_dir / "Makefile").is_file():
        raise HostFirmwareError(f"{firmware_dir} has no Makefile; the host firmware needs a source checkout")
    make = shutil.which("make")
    if make is None or (shutil.which("cc") is None and shutil.which("gcc") is None):
        raise HostFirmwareError("building the host firmware needs `make` and a C compiler (cc/gcc)")
    build = build_dir or firmware_dir / "build"
    proc = subprocess.run([make, "-s", "-C", str(firmware_dir), f"BUILD={build}", target], capture_output=True,
                          text=True, timeout=300, check=False)
    if proc.returncode != 0:
        raise HostFirmwareError(f"`make -C {firmware_dir} {target}` failed:\n{proc.stderr[-2000:]}")
    name = "bridge-fw-sim-asan" if target == "host-asan" else "bridge-fw-sim"
    return build / "host" / name


class HostFirmware:
    """The host firmware process on a pty, reachable at :attr:`path` (a symlink to the pty slave)."""

    def __init__(self, binary: Path = HOST_BINARY, *, directory: Path | None = None, baud: int | None = None,
                 noise: bool = False, watchdog_ms: int | None = None) -> None:
        self.binary = binary
        #: Pace the emulated UART at this rate (both directions); None = as fast as the pty goes.
        self.baud = baud
        #: Precede every reply with a line of noise (junk, stray id, overlong line, unknown event).
        self.noise = noise
        #: Model the board's independent watchdog with this period (2000 on the NUCLEO); None = off.
        self.watchdog_ms = watchdog_ms
        self._tmp = None if directory else tempfile.TemporaryDirectory(prefix="bridge-sim-")
        base = directory or Path(self._tmp.name)  # type: ignore[union-attr]
        self.path = base / "ttyBRIDGE0"
        self.proc: subprocess.Popen[bytes] | None = None
        self._slave: int | None = None

    def start(self) -> HostFirmware:
        """Start the firmware ("plug the board in")."""
        if not self.binary.is_file():
            raise HostFirmwareError(f"{self.binary} does not exist; run `make -C firmware_bridge host`")
        master, slave = os.openpty()
        # Raw mode before the firmware writes its banner: a cooked pty would echo the banner
        # back to the firmware as if it were a request, and translate newlines.
        tty.setraw(slave)
        try:
            env = dict(os.environ)
            env.pop("BRIDGE_SIM_BAUD", None)
            env.pop("BRIDGE_SIM_NOISE", None)
            env.pop("BRIDGE_SIM_WATCHDOG_MS", None)
            if self.watchdog_ms:
                env["BRIDGE_SIM_WATCHDOG_MS"] = str(self.watchdog_ms)
            if self.baud:
                env["BRIDGE_SIM_BAUD"] = str(self.baud)
            if self.noise:
                env["BRIDGE_SIM_NOISE"] = "1"
            self.proc = subprocess.Popen([str(self.binary)], stdin=master, stdout=master, stderr=subprocess.DEVNULL,
                                         close_fds=True, env=env)
        finally:
            os.close(master)  # only the child holds the master: its death hangs up the pty
        self._slave = slave
        tmp = self.path.with_name(self.path.name + ".new")
        tmp.unlink(missing_ok=True)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        return self

    def reset(self) -> None:
        """Press the reset button: buffered input is lost and the boot banner is sent again."""
        self._signal(signal.SIGUSR1)

    def pause(self) -> None:
        """Freeze the firmware (SIGSTOP): requests queue up unanswered."""
        self._signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused firmware run again (SIGCONT)."""
        self._signal(signal.SIGCONT)

    def unplug(self) -> None:
        """End the process and remove the pty, as pulling the USB cable would."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=5)
            self.proc = None
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None
        self.path.unlink(missing_ok=True)

    def replug(self) -> None:
        """Start a fresh firmware on a new pty behind the same path."""
        self.unplug()
        self.start()

    def stop(self) -> None:
        """Unplug and remove the temporary directory."""
        self.unplug()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def _signal(self, sig: int) -> None:
        if self.proc is None:
            raise HostFirmwareError("the host firmware is not running")
        self.proc.send_signal(sig)

    def __enter__(self) -> HostFirmware:
        return self.start() if self.proc is None else self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
