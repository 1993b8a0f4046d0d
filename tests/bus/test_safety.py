"""[hardware.safety]: the simulator is writable, real adapters need allow-lists, refusals name the key."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.config import AdapterSafety, SafetyConfig, parse_settings
from edge_agent.errors import ConfigError, WriteRefusedError


def test_simulator_is_writable_by_default() -> None:
    adapter = open_adapter("sim://nucleo-f401re")
    adapter.gpio_write("LD2", 1)
    adapter.i2c().write_register(0x50, 0x00, b"\x01")
    assert adapter.safety.mode == "open"


def test_real_adapter_refuses_unlisted_i2c_writes_and_names_the_key(linux_env: SimpleNamespace) -> None:
    adapter = open_adapter("linux://?i2c=1", name="pi-bus")
    with pytest.raises(WriteRefusedError) as info:
        adapter.i2c().write_register(0x50, 0x10, b"\x01")
    err = info.value
    assert (err.address, err.register, err.adapter) == (0x50, 0x10, "linux://?i2c=1")
    assert "hardware.safety.adapters.pi-bus.writable_i2c" in str(err)  # the named adapter's own key
    assert '"0x50:0x10"' in str(err)
    assert linux_env.world.log == []  # nothing reached the wire


def test_reads_are_never_refused(linux_env: SimpleNamespace) -> None:
    adapter = open_adapter("linux://?i2c=1", safety=SafetyConfig(read_only=True))
    assert adapter.i2c().read_register(0x76, 0xD0, 1) == b"\x60"
    assert adapter.i2c().scan() == [0x50, 0x76]


def test_register_range_allow_list_allows_only_that_range(linux_env: SimpleNamespace) -> None:
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(writable_i2c=["0x50:0x08-0x0F"])})
    bus = open_adapter("linux://?i2c=1", safety=cfg).i2c()
    bus.write_register(0x50, 0x08, b"\x01\x02")
    with pytest.raises(WriteRefusedError):
        bus.write_register(0x50, 0x0E, b"\x01\x02\x03")  # runs past 0x0F
    with pytest.raises(WriteRefusedError):
        bus.write_register(0x50, 0x07, b"\x01")
    with pytest.raises(WriteRefusedError):
        bus.write(0x50, b"\x20\x01")  # a raw write's first byte is the register


def test_adapter_name_section_wins_over_the_scheme_section(linux_env: SimpleNamespace) -> None:
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(read_only=True),
                                 "pi-bus": AdapterSafety(writable_i2c=["0x50"])})
    open_adapter("linux://?i2c=1", name="pi-bus", safety=cfg).i2c().write_register(0x50, 0, b"\x01")
    with pytest.raises(WriteRefusedError) as info:
        open_adapter("linux://?i2c=1", name="other", safety=cfg).i2c().write_register(0x50, 0, b"\x01")
    assert "hardware.safety.adapters.linux.read_only" in str(info.value)


def test_global_read_only_refuses_even_the_simulator() -> None:
    adapter = open_adapter("sim://nucleo-f401re", safety=SafetyConfig(read_only=True))
    with pytest.raises(WriteRefusedError) as info:
        adapter.gpio_write("PA5", 1)
    assert "hardware.safety.read_only" in str(info.value)
    with pytest.raises(WriteRefusedError):
        adapter.spi(1, 1).transfer(b"\x00")
    with pytest.raises(WriteRefusedError):
        adapter.gpio_mode("PA5", "out")
    assert adapter.led("LD2") == 0


def test_read_only_false_opens_a_real_adapter(linux_env: SimpleNamespace) -> None:
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(read_only=False)})
    open_adapter("linux://?i2c=1", safety=cfg).i2c().write_register(0x50, 0x00, b"\x01")


def test_gpio_allow_list_entries_resolve_through_aliases(linux_env: SimpleNamespace) -> None:
    """An allow-list naming J8-11 allows GPIO17 under any of its names, and nothing else."""
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(writable_gpio=["J8-11"])})
    adapter = open_adapter("linux://?board=rpi-4b", safety=cfg)
    adapter.gpio_write("GPIO17", 1)
    adapter.gpio_write(17, 0)
    with pytest.raises(WriteRefusedError) as info:
        adapter.gpio_write("GPIO27", 1)
    assert "hardware.safety.adapters.linux.writable_gpio" in str(info.value)


def test_simulator_can_be_restricted_to_an_allow_list_by_config() -> None:
    cfg = SafetyConfig(adapters={"sim": AdapterSafety(read_only=True)})
    with pytest.raises(WriteRefusedError):
        open_adapter("sim://nucleo-f401re", safety=cfg).gpio_write("D13", 1)


def test_spi_allow_list_names_bus_and_chip_select(linux_env: SimpleNamespace) -> None:
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(writable_spi=["0.1"])})
    adapter = open_adapter("linux://?spi=0.0,0.1", safety=cfg)
    assert adapter.spi(0, 1).transfer(b"\x42") == b"\x42"
    with pytest.raises(WriteRefusedError) as info:
        adapter.spi(0, 0).transfer(b"\x01")
    assert '"0.0"' in str(info.value)


@pytest.mark.parametrize("entry", ["0x80", "fifty", "0x50:0x10-0x08", "0x50:zz", "0x50:"])
def test_malformed_i2c_allow_list_entries_are_config_errors(entry: str) -> None:
    with pytest.raises(ConfigError) as info:
        settings = parse_settings({"hardware": {"safety": {"adapters": {"x": {"writable_i2c": [entry]}}}}})
        SafetyPolicy.for_adapter(settings.hardware.safety, name="x", scheme="linux")
    assert "writable_i2c" in str(info.value)


def test_unknown_gpio_allow_list_pin_is_a_config_error_when_the_adapter_opens(linux_env: SimpleNamespace) -> None:
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(writable_gpio=["no_such_pin"])})
    with pytest.raises(ConfigError) as info:
        open_adapter("linux://?board=rpi-4b", safety=cfg)
    assert "writable_gpio" in str(info.value) and "'no_such_pin'" in str(info.value)


def test_safety_section_loads_from_toml_data() -> None:
    settings = parse_settings({"hardware": {"safety": {"adapters": {"bench": {
        "writable_i2c": ["0x3C", "0x76:0xF2-0xF5"], "writable_gpio": ["red_led"], "writable_spi": ["0.0"]}}}}})
    policy = SafetyPolicy.for_adapter(settings.hardware.safety, name="bench", scheme="aardvark")
    assert policy.describe()["writable_i2c"] == ["0x3C", "0x76:0xF2-0xF5"]
    with pytest.raises(ConfigError):
        parse_settings({"hardware": {"safety": {"adapters": {"bench": {"writable_i2c": "0x3C"}}}}})


def test_write_read_carrying_data_is_checked_like_a_write(linux_env: SimpleNamespace) -> None:
    """A register pointer then a value in the write phase stores the value, so it cannot slip past the policy."""
    bus = open_adapter("linux://?i2c=1").i2c()
    assert bus.write_read(0x76, b"\xd0", 1) == b"\x60"  # pointer only: a read
    with pytest.raises(WriteRefusedError) as info:
        bus.write_read(0x50, b"\x00\xaa", 1)
    assert (info.value.address, info.value.register) == (0x50, 0x00)
    with pytest.raises(WriteRefusedError):  # on this 24C02 the second pointer byte would be stored as data
        bus.read_register(0x50, 0x0000, 2, register_width=2)
    assert linux_env.world.device(0x50).regs[0] == 0xFF  # type: ignore[attr-defined]
