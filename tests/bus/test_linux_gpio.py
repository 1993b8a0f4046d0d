"""linux:// GPIO errors as a real kernel produces them, through gpiozero's lgpio factory and the lgpio wrapper.

The fake sits at lgpio's C extension (``lgpio._lgpio``): GPIO chips with a label and a line count,
lines another holder has requested, chips the user may not open. lgpio's own Python layer turns its
status codes into ``lgpio.error`` exactly as on a Pi. gpiozero is told it runs on a Pi 3B, as the device
tree's revision property tells it on a board.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.bus import gpiochip, open_adapter
from edge_agent.errors import (
    AdapterUnavailableError,
    BusBusyError,
    BusPermissionError,
    InvalidAdapterURL,
    InvalidAddressError,
)

# lgpio is the linux extra's GPIO library on x86 and the system's python3-lgpio on a Pi; without it
# (a venv on ARM that cannot see the system's packages) these tests skip.
lgpio = pytest.importorskip("lgpio", reason="linux:// GPIO tests need lgpio")
gpiozero_local = pytest.importorskip("gpiozero.pins.local", reason="linux:// GPIO tests need gpiozero")

LG_CANNOT_OPEN_CHIP, LG_BAD_GPIO_NUMBER, LG_GPIO_BUSY = -78, -73, -79
GPIO_IS_OUT = 1 << 1


class FakeChips:
    """The ``_lgpio`` functions gpiozero's pins use, over a few GPIO chips."""

    def __init__(self, dev: Path) -> None:
        self.dev = dev
        self.chips: dict[int, dict[str, Any]] = {}
        self.handles: dict[int, int] = {}

    def add(self, number: int, label: str, lines: int, held: dict[int, str] | None = None) -> None:
        (self.dev / f"gpiochip{number}").touch()
        self.chips[number] = {"label": label, "lines": lines, "held": held or {}, "out": {}, "level": {}}

    def _chip(self, h: int) -> dict[str, Any]:
        return self.chips[self.handles[h]]

    def _gpiochip_open(self, number: int) -> int:
        if number not in self.chips or not os.access(self.dev / f"gpiochip{number}", os.R_OK | os.W_OK):
            return LG_CANNOT_OPEN_CHIP
        h = len(self.handles) + 1
        self.handles[h] = number
        return h

    def _gpiochip_close(self, h: int) -> int:
        self.handles.pop(h, None)
        return 0

    def _gpio_get_chip_info(self, h: int) -> list[Any]:
        chip = self._chip(h)
        return [0, chip["lines"], f"gpiochip{self.handles[h]}", chip["label"]]

    def _gpio_get_line_info(self, h: int, gpio: int) -> list[Any]:
        chip = self._chip(h)
        if gpio >= chip["lines"]:
            return [LG_BAD_GPIO_NUMBER]
        user = chip["held"].get(gpio, "")
        return [0, gpio, 1 if user else 0, "", user]

    def _claim(self, h: int, gpio: int, out: bool, level: int = 0) -> int:
        chip = self._chip(h)
        if gpio >= chip["lines"]:
            return LG_BAD_GPIO_NUMBER
        if gpio in chip["held"]:
            return LG_GPIO_BUSY
        chip["out"][gpio] = out
        if out:
            chip["level"][gpio] = level
        return 0

    def _gpio_claim_input(self, h: int, flags: int, gpio: int) -> int:
        return self._claim(h, gpio, False)

    def _gpio_claim_output(self, h: int, flags: int, gpio: int, level: int) -> int:
        return self._claim(h, gpio, True, level)

    def _gpio_free(self, h: int, gpio: int) -> int:
        return 0

    def _gpio_get_mode(self, h: int, gpio: int) -> int:
        return GPIO_IS_OUT if self._chip(h)["out"].get(gpio) else 0

    def _gpio_read(self, h: int, gpio: int) -> int:
        return self._chip(h)["level"].get(gpio, 0)

    def _gpio_write(self, h: int, gpio: int, level: int) -> int:
        self._chip(h)["level"][gpio] = level
        return 0


@pytest.fixture
def chips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChips]:
    fake = FakeChips(tmp_path)
    for name in dir(fake):
        if name.startswith("_g"):
            monkeypatch.setattr(lgpio._lgpio, name, getattr(fake, name))
    monkeypatch.setattr(gpiochip, "DEV_DIR", tmp_path)
    monkeypatch.setattr(gpiozero_local, "get_pi_revision", lambda: 0xA02082)  # a Pi 3B
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    fake.add(0, "9030000.pl061", 8)
    fake.add(2, "gpio-sim.0-node0", 8, held={4: "button-daemon"})
    yield fake


def _adapter(url: str) -> Any:
    adapter = open_adapter(url, safety=None)
    adapter.safety.mode = "open"
    return adapter


def test_a_line_the_chip_does_not_have_names_the_chip_its_line_count_and_the_other_chips(chips: FakeChips) -> None:
    adapter = _adapter("linux://?gpiochip=2")
    try:
        with pytest.raises(InvalidAddressError) as info:
            adapter.gpio_read(22)
    finally:
        adapter.close()
    text = str(info.value)
    assert "gpiochip2 [gpio-sim.0-node0] has 8 lines (0-7); line 22 is not one of them" in text
    assert "gpiochip0 [9030000.pl061] (8 lines); gpiochip2 [gpio-sim.0-node0] (8 lines)" in text  # gpiodetect
    assert "another process" not in text and "holds" not in text


def test_a_line_someone_else_requested_names_its_holder(chips: FakeChips) -> None:
    adapter = _adapter("linux://?gpiochip=2")
    try:
        with pytest.raises(BusBusyError, match="GPIO 4 on gpiochip2 is in use by 'button-daemon'"):
            adapter.gpio_read(4)
        adapter.gpio_write(5, 1)  # a free line on the same chip works
        assert chips.chips[2]["level"][5] == 1
    finally:
        adapter.close()


def test_a_chip_the_user_may_not_open_says_which_group_to_join(chips: FakeChips,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = chips.dev / "gpiochip2"
    monkeypatch.setattr(gpiochip.os, "access", lambda p, mode: Path(p) != path)  # root opens anything
    adapter = _adapter("linux://?gpiochip=2")
    with pytest.raises(BusPermissionError) as info:
        adapter.gpio_read(1)
    group = __import__("grp").getgrgid(path.stat().st_gid).gr_name
    assert f"belongs to group '{group}'" in str(info.value) and f"usermod -aG {group}" in str(info.value)
    assert "busy" not in str(info.value)


def test_a_chip_that_does_not_exist_lists_the_ones_that_do(chips: FakeChips) -> None:
    adapter = _adapter("linux://?gpiochip=5")
    with pytest.raises(AdapterUnavailableError, match=r"there is no .*gpiochip5; GPIO chips here: gpiochip0 "):
        adapter.gpio_read(1)


def test_gpio_chips_lists_them_like_gpiodetect(chips: FakeChips) -> None:
    assert gpiochip.gpio_chips() == ["gpiochip0 [9030000.pl061] (8 lines)", "gpiochip2 [gpio-sim.0-node0] (8 lines)"]


def test_a_chip_named_by_label_is_found_whatever_its_number(chips: FakeChips) -> None:
    """A board's header chip keeps its label when probe order renumbers it (the Pi 5's RP1 chip moved
    from gpiochip4 to gpiochip0 between kernels): gpiochip=LABEL opens the chip that has it now."""
    chips.add(4, "pinctrl-rp1", 54)
    adapter = _adapter("linux://?gpiochip=pinctrl-rp1")
    try:
        adapter.gpio_write(17, 1)
        assert chips.chips[4]["level"][17] == 1
        assert 17 not in chips.chips[0]["level"] and 17 not in chips.chips[2]["level"]
    finally:
        adapter.close()


def test_a_label_no_chip_has_lists_the_chips_there_are(chips: FakeChips) -> None:
    adapter = _adapter("linux://?gpiochip=pinctrl-rp1")
    with pytest.raises(AdapterUnavailableError) as info:
        adapter.gpio_read(17)
    text = str(info.value)
    assert "no GPIO chip is labelled 'pinctrl-rp1'" in text
    assert "gpiochip0 [9030000.pl061] (8 lines); gpiochip2 [gpio-sim.0-node0] (8 lines)" in text
    assert chips.chips[0]["level"] == {} and chips.chips[2]["out"] == {}  # nothing claimed on the way


def test_a_label_two_chips_share_is_refused_not_guessed(chips: FakeChips) -> None:
    chips.add(3, "gpio-sim.0-node0", 4)
    adapter = _adapter("linux://?gpiochip=gpio-sim.0-node0")
    with pytest.raises(InvalidAdapterURL, match=r"more than one GPIO chip is labelled .*\(gpiochip2, gpiochip3\)"):
        adapter.gpio_read(1)
    assert chips.chips[2]["out"] == {} and chips.chips[3]["out"] == {}


def test_a_label_on_chips_the_user_may_not_open_names_the_group(chips: FakeChips,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpiochip.os, "access", lambda p, mode: False)
    adapter = _adapter("linux://?gpiochip=pinctrl-rp1")
    with pytest.raises(BusPermissionError, match=r"could not be asked: .* belongs to group '.*': add the user"):
        adapter.gpio_read(17)


def test_line_errors_on_a_chip_named_by_label_name_its_number(chips: FakeChips) -> None:
    adapter = _adapter("linux://?gpiochip=gpio-sim.0-node0")
    try:
        with pytest.raises(InvalidAddressError, match=r"gpiochip2 \[gpio-sim.0-node0\] has 8 lines"):
            adapter.gpio_read(22)
        with pytest.raises(BusBusyError, match="GPIO 4 on gpiochip2 is in use by 'button-daemon'"):
            adapter.gpio_read(4)
    finally:
        adapter.close()
