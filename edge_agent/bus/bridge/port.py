"""Opening the bridge's serial port: any pyserial URL, held exclusively, with errors that say who holds it."""

from __future__ import annotations

import errno
import logging

import serial

from edge_agent.errors import AdapterUnavailableError, BusPermissionError, NextStep
from edge_agent.holders import describe_holders

log = logging.getLogger(__name__)

_BUSY_HINT = ("Stop that process; if it is `edge-agent run` for another state directory, pass that "
              "--state so the command goes through it, or give the boards separate ports")


def open_port(device: str, *, baud: int, exclusive: bool, adapter: str) -> serial.SerialBase:
    """Open ``device`` (a path or pyserial URL) for the link: 50 ms reads, 2 s writes.

    Raises:
        AdapterUnavailableError: no such device, or another process holds it (named when known).
        BusPermissionError: the OS denied access to the device node.
    """
    try:
        port = serial.serial_for_url(
            device, baudrate=baud, timeout=0.05, write_timeout=2.0, exclusive=exclusive, do_not_open=True,
        )
        port.open()
    except (serial.SerialException, OSError, ValueError) as exc:
        text = str(exc)
        if getattr(exc, "errno", None) == errno.EBUSY:
            raise AdapterUnavailableError(
                f"{adapter}: {device} is in use by another process (opened exclusively): "
                f"{describe_holders(device)}. {_BUSY_HINT}", adapter=adapter) from exc
        # pyserial wraps the open(2) failure in SerialException but keeps its errno.
        if isinstance(exc, PermissionError) or getattr(exc, "errno", None) in (errno.EACCES, errno.EPERM):
            raise BusPermissionError(
                f"{adapter}: permission denied opening {device}; add the user to the 'dialout' "
                "group (or install the udev rules from systemd/)", adapter=adapter) from exc
        if "exclusively lock" in text or "Resource temporarily unavailable" in text:
            raise AdapterUnavailableError(
                f"{adapter}: {device} is in use by another process (it holds the port lock): "
                f"{describe_holders(device)}. {_BUSY_HINT}", adapter=adapter) from exc
        if getattr(exc, "errno", None) == errno.ENOENT:
            # The usual case in the field: the board is unplugged, or came back under another name
            # (ttyACM1 after a replug while ttyACM0 was still held).
            raise AdapterUnavailableError(
                f"{adapter}: {device} does not exist: the board is not plugged in, or it enumerated "
                "under another device name", adapter=adapter,
                hint=NextStep("to see attached boards", command="edge-agent bridge list")) from exc
        raise AdapterUnavailableError(
            f"{adapter}: cannot open {device}: {text}", adapter=adapter,
            hint=NextStep("to see attached boards", command="edge-agent bridge list")) from exc
    if exclusive:
        set_tty_exclusive(port)
    return port


def close_port(port: serial.SerialBase, *, exclusive: bool) -> None:
    """Release the tty's exclusive mode and close the port, ignoring a port already gone."""
    if exclusive:
        set_tty_exclusive(port, on=False)
    try:
        port.close()
    except (OSError, serial.SerialException):
        pass


def set_tty_exclusive(port: serial.SerialBase, on: bool = True) -> None:
    """Put a real tty in (or out of) exclusive mode, TIOCEXCL/TIOCNXCL, on top of pyserial's flock.

    flock only stops programs that also take the lock (other edge-agent processes); TIOCEXCL makes
    the kernel refuse any further open() of the device with EBUSY (terminal programs, a second
    runtime), except for root. The flag outlives our descriptor if someone else still holds the
    tty, so it is cleared again before closing.
    """
    fd = getattr(port, "fd", None)
    if not isinstance(fd, int):
        return  # loop://, socket:// and other URL handlers have no tty
    try:
        import fcntl
        import termios

        fcntl.ioctl(fd, termios.TIOCEXCL if on else termios.TIOCNXCL)
    except (ImportError, OSError, AttributeError) as exc:  # not a tty, gone, or not POSIX
        log.debug("TIOCEXCL/TIOCNXCL not applied: %s", exc)
