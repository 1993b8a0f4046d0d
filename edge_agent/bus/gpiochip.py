"""The kernel's GPIO chips as the linux:// backend explains them: which chips exist, how many lines each
has, who holds a line, and who may open the device file.

A line number is an offset on one chip (``/dev/gpiochipN``); a chip has a fixed number of lines and a
label (``pinctrl-bcm2711`` on a Pi 4, ``pinctrl-rp1`` on a Pi 5's header chip, ``gpio-sim.0-node0`` under
gpio-sim). Asking for a line the chip does not have, a line a kernel driver or another program has
requested, and a chip the user may not open are three different mistakes, each told in its own sentence
with what to do. Chip information comes from lgpio (imported only when there is something to explain).

A chip can be named by number (``gpiochip=0``) or by label (``gpiochip=pinctrl-rp1``). Numbers are given
out in probe order and change between kernels and boards (the Pi 5's header chip was gpiochip4 on early
kernels and is gpiochip0 since); the label is what the chip's driver calls it and stays put. A label is
looked up on every chip when the adapter first touches GPIO, through the chip's own character device (the
same GPIO_GET_CHIPINFO ioctl gpiodetect uses).
"""

from __future__ import annotations

import grp
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edge_agent.errors import (
    AdapterUnavailableError,
    BackendUnavailable,
    BusBusyError,
    BusError,
    BusPermissionError,
    InvalidAdapterURL,
    InvalidAddressError,
)

#: Where the device files are (a test points it at a directory of its own).
DEV_DIR = Path("/dev")


@dataclass(frozen=True)
class Chip:
    """One ``/dev/gpiochipN``: its number, its driver's label and its line count (None: it did not open)."""

    number: int
    label: str | None
    lines: int | None
    problem: str = ""

    def __str__(self) -> str:
        if self.label is None:
            return f"gpiochip{self.number} (cannot open: {self.problem})"
        return f"gpiochip{self.number} [{self.label}] ({self.lines} lines)"


def chips() -> list[Chip]:
    """This host's GPIO chips, in number order."""
    import lgpio

    out = []
    numbers = sorted(int(p.name[8:]) for p in DEV_DIR.glob("gpiochip*") if p.name[8:].isdigit())
    for number in numbers:
        try:
            handle = lgpio.gpiochip_open(number)
        except lgpio.error as exc:
            out.append(Chip(number, None, None, str(exc)))
            continue
        try:
            _, lines, _name, label = lgpio.gpio_get_chip_info(handle)
        finally:
            lgpio.gpiochip_close(handle)
        out.append(Chip(number, str(label), int(lines)))
    return out


def gpio_chips() -> list[str]:
    """This host's GPIO chips as gpiodetect prints them: ``gpiochip0 [pinctrl-bcm2711] (58 lines)``."""
    return [str(chip) for chip in chips()]


def resolve(url: str, label: str) -> int:
    """The number of the chip whose label is ``label`` (``gpiochip=LABEL`` in a linux:// URL).

    No chip with that label, two chips with it, or a chip that could not be asked (no permission) are
    errors that list the chips there are; nothing is guessed."""
    try:
        found = chips()
    except ImportError:
        raise BackendUnavailable(f"{url}: finding GPIO chip {label!r} by label needs the lgpio library; install "
                                 "it with: pip install 'edge-agent[linux]' (on Raspberry Pi OS: apt install "
                                 "python3-lgpio)") from None
    matches = [c.number for c in found if c.label == label]
    if len(matches) == 1:
        return matches[0]
    listing = "; ".join(map(str, found)) or f"none ({DEV_DIR}/gpiochip* does not exist)"
    if len(matches) > 1:
        raise InvalidAdapterURL(f"{url}: more than one GPIO chip is labelled {label!r} "
                                f"({', '.join(f'gpiochip{n}' for n in matches)}); name the one you mean by number "
                                f"(gpiochip=N). GPIO chips here: {listing}")
    unreadable = [c for c in found if c.label is None]
    if unreadable and all(not os.access(DEV_DIR / f"gpiochip{c.number}", os.R_OK | os.W_OK) for c in unreadable):
        path = DEV_DIR / f"gpiochip{unreadable[0].number}"
        raise BusPermissionError(f"{url}: no GPIO chip labelled {label!r} among those this user may open, and "
                                 f"{len(unreadable)} could not be asked: {group_advice(path)}. GPIO chips here: "
                                 f"{listing}", adapter=url)
    raise AdapterUnavailableError(f"{url}: no GPIO chip is labelled {label!r}; GPIO chips here: {listing}; name "
                                  "one with gpiochip=LABEL or gpiochip=N in the URL", adapter=url)


def chip_list() -> str:
    """:func:`gpio_chips` as one phrase for an error message."""
    try:
        chips = gpio_chips()
    except ImportError:
        return "unknown (lgpio is not installed)"
    return "; ".join(chips) if chips else f"none ({DEV_DIR}/gpiochip* does not exist)"


def group_advice(path: Path) -> str:
    """What to do about a device file the user may not open (a GPIO chip, /dev/i2c-N, a spidev node):
    join the group that owns it."""
    try:
        group = grp.getgrgid(path.stat().st_gid).gr_name
    except (OSError, KeyError):
        group = "gpio"
    return (f"{path} belongs to group '{group}': add the user to it (sudo usermod -aG {group} USER, then log in "
            "again) or run under the edge-agent service")


def open_error(url: str, number: int, exc: Exception) -> BusError:
    """Why ``/dev/gpiochip<number>`` did not open: missing (list the chips there are), permission, or else."""
    path = DEV_DIR / f"gpiochip{number}"
    if not path.exists():
        return AdapterUnavailableError(f"{url}: there is no {path}; GPIO chips here: {chip_list()}; name one with "
                                       "gpiochip=N or gpiochip=LABEL in the URL", adapter=url)
    if not os.access(path, os.R_OK | os.W_OK):
        return BusPermissionError(f"{url}: cannot open {path}: permission denied; {group_advice(path)}", adapter=url)
    return AdapterUnavailableError(f"{url}: cannot open {path} ({exc}); check that lgpio can write its FIFO in the "
                                   "working directory (set LG_WD)", adapter=url)


def line_error(url: str, handle: Any, number: int, line: int, operation: str, exc: Exception) -> BusError:
    """A sentence for an lgpio failure on ``line`` of the chip open as ``handle`` (None when unknown)."""
    text = str(exc)
    chip = f"gpiochip{number}"
    lines, label = _chip_info(handle)
    if "bad GPIO number" in text or (lines is not None and line >= lines):
        count = f"{lines} lines (0-{lines - 1})" if lines else "no such line"
        return InvalidAddressError(f"{url}: {chip} [{label}] has {count}; line {line} is not one of them. GPIO "
                                   f"chips here: {chip_list()}; name the chip with gpiochip=N or gpiochip=LABEL in "
                                   "the URL", adapter=url)
    if "busy" in text or "in use" in text:
        return BusBusyError(f"{url}: GPIO {line} on {chip} is in use{_holder(handle, line)}: a kernel driver or "
                            "another program has requested it (gpioinfo lists each line's holder); free it there "
                            "or use another line", adapter=url)
    if "permi" in text:  # lgpio: "GPIO operation not permitted", "no permission to perform action"
        return BusPermissionError(f"{url}: GPIO {line} {operation}: {text}; {group_advice(DEV_DIR / chip)}",
                                  adapter=url)
    return BusError(f"{url}: GPIO {line} on {chip}: {operation} failed: {text}", adapter=url)


def _chip_info(handle: Any) -> tuple[int | None, str]:
    if handle is None:
        return None, ""
    import lgpio

    try:
        _, lines, _name, label = lgpio.gpio_get_chip_info(handle)
    except lgpio.error:
        return None, ""
    return int(lines), str(label)


def _holder(handle: Any, line: int) -> str:
    if handle is None:
        return ""
    import lgpio

    try:
        user = lgpio.gpio_get_line_info(handle, line)[4]
    except lgpio.error:
        return ""
    return f" by {user!r}" if user else ""
