"""The write policy at the bus level: every register a transaction stores into, allow-lists fixed at open and
compared as lines, mode and pull changes as writes, and a policy that names the simulator."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.sim.world import GPIOMode, GPIOWrite, I2CWrite, I2CWriteRead
from edge_agent.config import AdapterSafety, SafetyConfig, parse_settings
from edge_agent.errors import ConfigError, WriteRefusedError
from edge_agent.pins import PinIndex, parse_aliases

BACKENDS = ["sim", "linux", "aardvark", "ftdi", "trace+sim", "trace+linux"]


def _open(request: pytest.FixtureRequest, backend: str, safety: AdapterSafety) -> tuple[object, SimpleNamespace]:
    """An adapter of ``backend`` whose I2C bus reaches a BME280 at 0x76 and a 24C02 at 0x50, and its world."""
    scheme = backend.removeprefix("trace+")
    cfg = SafetyConfig(adapters={scheme: safety})
    prefix = "trace+" if backend.startswith("trace+") else ""
    if scheme == "sim":
        adapter = open_adapter(f"{prefix}sim://nucleo-f401re", safety=cfg)
        world = getattr(adapter, "inner", adapter).world  # type: ignore[attr-defined]
        return adapter, SimpleNamespace(world=world, bus=world.i2c_buses[0])
    if scheme == "linux":
        env = request.getfixturevalue("linux_env")
        return open_adapter(f"{prefix}linux://?i2c=1", safety=cfg), SimpleNamespace(world=env.world, bus=1)
    if scheme == "aardvark":
        env = request.getfixturevalue("aardvark_env")
        return open_adapter("aardvark://2237-170206", safety=cfg), SimpleNamespace(world=env.world, bus=0)
    env = request.getfixturevalue("ftdi_env")
    return open_adapter("ftdi://ftdi:232h/1", safety=cfg), SimpleNamespace(world=env.world, bus=0)


def _writes(world: object, address: int) -> list[object]:
    return [t for t in world.log if isinstance(t, I2CWrite | I2CWriteRead) and t.address == address  # type: ignore[attr-defined]
            and t.error is None]


# --- I2C: every register a transaction stores into ----------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_one_register_rule_refuses_a_multi_byte_write_on_every_backend(request: pytest.FixtureRequest,
                                                                         backend: str) -> None:
    adapter, env = _open(request, backend, AdapterSafety(writable_i2c=["0x50:0x00"]))
    bus = adapter.i2c()  # type: ignore[attr-defined]
    before = len(_writes(env.world, 0x50))
    with pytest.raises(WriteRefusedError) as info:
        bus.write(0x50, b"\x00\xa1\xa2\xa3\xa4")  # the raw form: register 0x00, then four bytes
    assert "0x01-0x03" in str(info.value) and '"0x50:0x00-0x03"' in str(info.value)
    with pytest.raises(WriteRefusedError):
        bus.write_register(0x50, 0x00, b"\xa1\xa2")  # through trace+ too, where the register used to be lost
    with pytest.raises(WriteRefusedError):
        bus.write_read(0x50, b"\x00\xa1\xa2", 1)
    assert len(_writes(env.world, 0x50)) == before  # nothing reached the wire
    bus.write_register(0x50, 0x00, b"\x5a")  # the one register the rule names
    assert any(bus.probe(0x50) for _ in range(5))  # ACK polling: the bench EEPROM's write cycle
    assert bus.read_register(0x50, 0x00, 1) == b"\x5a"


@pytest.mark.parametrize("backend", BACKENDS)
def test_register_value_pairs_to_a_bme280_are_checked_pair_by_pair(request: pytest.FixtureRequest,
                                                                   backend: str) -> None:
    adapter, env = _open(request, backend, AdapterSafety(writable_i2c=["0x76:0xF2"]))
    bus = adapter.i2c()  # type: ignore[attr-defined]
    with pytest.raises(WriteRefusedError) as info:
        bus.write(0x76, b"\xf2\x01\xe0\xb6")  # sets ctrl_hum, then soft-resets the part
    assert "0xE0" in str(info.value) and "register/value pairs" in str(info.value)
    assert info.value.register == 0xE0
    assert _writes(env.world, 0x76) == []
    bus.write(0x76, b"\xf2\x01")  # one pair at the allowed register


def test_an_eeprom_page_write_that_would_wrap_outside_the_range_is_refused(linux_env: SimpleNamespace) -> None:
    """A 24C02 rolls over inside its 8-byte page: four bytes at 0x06 land at 0x06, 0x07, 0x00 and 0x01."""
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(writable_i2c=["0x50:0x06-0x0F"])})
    bus = open_adapter("linux://?i2c=1", safety=cfg).i2c()
    with pytest.raises(WriteRefusedError) as info:
        bus.write_register(0x50, 0x06, b"\x01\x02\x03\x04")
    assert "0x00-0x01" in str(info.value) and "page" in str(info.value)
    bus.write_register(0x50, 0x06, b"\x01\x02")  # stays inside the page and the range


def test_two_byte_register_rules_read_the_pointer_as_two_bytes() -> None:
    cfg = SafetyConfig(adapters={"sim": AdapterSafety(writable_i2c=["0x50:0x0000-0x00FF"])})
    bus = open_adapter("sim://nucleo-f401re", safety=cfg).i2c()
    bus.read_register(0x50, 0x0010, 2, register_width=2)  # a two-byte pointer only: a read for this part
    with pytest.raises(WriteRefusedError) as info:
        bus.write_register(0x50, 0x0100, b"\x01", register_width=2)
    assert "0x0100" in str(info.value)


def test_rules_for_one_address_must_agree_on_the_register_width() -> None:
    with pytest.raises(ConfigError) as info:
        open_adapter("sim://nucleo-f401re", safety=SafetyConfig(adapters={"sim": AdapterSafety(
            writable_i2c=["0x50:0x10", "0x50:0x0100-0x01FF"])}))
    assert "0x50" in str(info.value) and "writable_i2c" in str(info.value)


def test_a_register_pointer_before_a_read_is_a_read_and_read_only_refuses_stores() -> None:
    adapter = open_adapter("sim://nucleo-f401re", safety=SafetyConfig(read_only=True))
    assert adapter.i2c().read_register(0x76, 0xD0, 1) == b"\x60"
    with pytest.raises(WriteRefusedError) as info:
        adapter.i2c().write(0x20, b"\x14")  # a lone byte is a command or an output latch on some parts
    assert "read_only" in str(info.value)


# --- GPIO allow-lists: resolved once, compared as lines ---------------------------------------------------------


def test_an_entry_and_a_request_compare_as_lines_without_a_board(linux_env: SimpleNamespace) -> None:
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(writable_gpio=["GPIO17"])})
    adapter = open_adapter("linux://", safety=cfg)
    adapter.gpio_write(17, 1)
    adapter.gpio_write("17", 0)
    adapter.gpio_write("BCM17", 1)
    with pytest.raises(WriteRefusedError):
        adapter.gpio_write(27, 1)


def test_a_board_relative_entry_without_a_board_is_a_config_error_at_open(linux_env: SimpleNamespace) -> None:
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(writable_gpio=["J8-11"])})
    with pytest.raises(ConfigError) as info:
        open_adapter("linux://?i2c=1", safety=cfg)
    assert "writable_gpio" in str(info.value) and "'J8-11'" in str(info.value) and "board" in str(info.value)
    open_adapter("linux://?i2c=1&board=rpi-4b", safety=cfg).gpio_write("GPIO17", 1)


def _index(tmp_path: Path, files: dict[str, str]) -> PinIndex:
    entries = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        entries += parse_aliases(text, name, "nucleo-f401re")[0]
    return PinIndex(entries)


def test_a_name_the_datasheets_disagree_on_is_refused_when_the_adapter_opens(tmp_path: Path) -> None:
    index = _index(tmp_path, {"a-first.md": "## Pin Aliases\n\n- `red_led`: PA6\n",
                              "nucleo-f401re.md": "## Pin Aliases\n\n- `red_led`: PA5\n"})
    cfg = SafetyConfig(adapters={"sim": AdapterSafety(writable_gpio=["red_led"])})
    with pytest.raises(ConfigError) as info:
        open_adapter("sim://nucleo-f401re", safety=cfg, pins=index)
    assert "'red_led'" in str(info.value) and "PA6" in str(info.value) and "PA5" in str(info.value)


def test_allowed_lines_stay_fixed_when_the_datasheets_change(tmp_path: Path) -> None:
    cfg = SafetyConfig(adapters={"sim": AdapterSafety(writable_gpio=["red_led", "LD2"])})
    adapter = open_adapter("sim://nucleo-f401re", safety=cfg)
    assert adapter.capabilities()["writes"]["writable_gpio_resolved"] == ["red_led -> PA5"]  # LD2 is PA5 too
    # A datasheet read later moves red_led and tries to move LD2, a board-file name.
    adapter.use_pins(_index(tmp_path, {"x.md": "## Pin Aliases\n\n- `red_led`: PA6\n- `LD2`: PA7\n"}))
    with pytest.raises(WriteRefusedError):
        adapter.gpio_write("red_led", 1)  # now names PA6, which was never allowed
    adapter.gpio_write("LD2", 1)  # still PA5: the board file defines LD2
    assert adapter.led("LD2") == 1  # type: ignore[attr-defined]
    assert adapter.capabilities()["writes"]["writable_gpio_resolved"] == ["red_led -> PA5"]


# --- a mode or pull change is a write -----------------------------------------------------------------------------


def test_a_pull_or_direction_change_is_refused_in_read_only_mode_and_reads_keep_working() -> None:
    adapter = open_adapter("sim://nucleo-f401re", safety=SafetyConfig(read_only=True))
    world = adapter.world  # type: ignore[attr-defined]
    for call in (lambda: adapter.gpio_mode("LD2", "in", "down"), lambda: adapter.gpio_mode("B1", "in", "none")):
        with pytest.raises(WriteRefusedError) as info:
            call()
        assert "read_only" in str(info.value)
    assert not [t for t in world.log if isinstance(t, GPIOMode | GPIOWrite)]
    assert adapter.gpio_read("LD2") == 0 and adapter.gpio_read("B1") == 1


def test_a_pull_change_on_a_line_off_the_allow_list_is_refused() -> None:
    adapter = open_adapter("sim://nucleo-f401re", safety=SafetyConfig(
        adapters={"sim": AdapterSafety(writable_gpio=["D7"])}))
    with pytest.raises(WriteRefusedError) as info:
        adapter.gpio_mode("LD2", "in", "down")
    assert "writable_gpio" in str(info.value) and "pull down" in str(info.value)
    adapter.gpio_mode("D7", "in", "up")


# --- a policy that names the simulator applies as on hardware -------------------------------------------------------


@pytest.mark.parametrize("key", ["sim", "bench"])
def test_a_policy_naming_the_simulator_applies_exactly_as_on_hardware(key: str) -> None:
    cfg = SafetyConfig(adapters={key: AdapterSafety(writable_i2c=["0x50"], writable_gpio=["LD2"])})
    adapter = open_adapter("sim://nucleo-f401re", name="bench", safety=cfg)
    assert adapter.safety.mode == "allowlist"
    adapter.i2c().write_register(0x50, 0x10, b"\x01\x02")
    adapter.gpio_write("LD2", 1)
    with pytest.raises(WriteRefusedError):
        adapter.i2c().write_register(0x3C, 0x00, b"\xaf")
    with pytest.raises(WriteRefusedError):
        adapter.gpio_write("D7", 1)
    with pytest.raises(WriteRefusedError):
        adapter.spi(1, 0).transfer(b"\x01")


def test_a_simulator_no_section_names_stays_writable() -> None:
    settings = parse_settings({"hardware": {"safety": {"adapters": {"linux": {"writable_i2c": ["0x50"]}}}}})
    adapter = open_adapter("sim://nucleo-f401re", safety=settings.hardware.safety)
    assert adapter.safety.mode == "open"
    adapter.gpio_write("D7", 1)
