"""The simulated board: parts with real register behaviour, GPIO world, scripted faults, recorded wire traffic."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.base import ReadOnlyPinError
from edge_agent.bus.sim import SCENARIO_DIR, SimAdapter
from edge_agent.bus.sim.devices import EEPROM24Sim, MCP23017Sim, PCA9685Sim, SSD1306Sim
from edge_agent.bus.transactions import GPIOWrite, I2CRead, I2CWrite, I2CWriteRead, SPITransfer
from edge_agent.drivers.bme280 import BME280
from edge_agent.errors import (
    AdapterUnavailableError,
    BusBusyError,
    BusTimeoutError,
    ConfigError,
    I2CNackError,
    InvalidAdapterURL,
    UnknownBoardError,
)
from edge_agent.pins import list_boards


def scenario(tmp_path: Path, text: str) -> str:
    path = tmp_path / "scenario.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def open_with(tmp_path: Path, text: str, board: str = "rpi-4b") -> SimAdapter:
    adapter = open_adapter(f"sim://{board}?scenario={scenario(tmp_path, text)}")
    assert isinstance(adapter, SimAdapter)
    return adapter


@pytest.mark.parametrize("board", list_boards())
def test_every_board_has_a_bme280_at_0x76_by_default(board: str) -> None:
    adapter = open_adapter(f"sim://{board}")
    assert adapter.i2c().read_register(0x76, 0xD0, 1) == b"\x60"
    reading = BME280(adapter.i2c()).read()
    assert reading.temperature_c == pytest.approx(22.5, abs=0.2)


@pytest.mark.parametrize("board", ["rpi-4b", "rpi-5", "rpi-zero-2w"])
def test_on_a_pi_the_parts_sit_on_i2c1_the_header_bus_which_is_also_the_default(board: str) -> None:
    # On the 40-pin header sensors are wired to I2C1 (GPIO2/3); I2C0 is the HAT ID EEPROM bus.
    adapter = open_adapter(f"sim://{board}")
    assert adapter.i2c(1).read_register(0x76, 0xD0, 1) == b"\x60"
    assert adapter.i2c().scan() == adapter.i2c(1).scan() != []
    assert adapter.i2c(0).scan() == []


def test_every_transaction_is_recorded_as_it_went_over_the_wire(sim: SimAdapter) -> None:
    bus = sim.i2c()
    sim.clear_log()
    bus.write_register(0x50, 0x10, b"\xaa")
    bus.read(0x50, 2)
    bus.read_register(0x76, 0xD0, 1)
    sim.spi(1, 1).transfer(b"\x01\x02")
    sim.gpio_write("D13", 1)
    assert sim.log == [
        I2CWrite(1, 0x50, b"\x10\xaa"),
        I2CRead(1, 0x50, 2),
        I2CWriteRead(1, 0x76, b"\xd0", 1),
        SPITransfer(1, 1, b"\x01\x02"),
        GPIOWrite("PA5", 1),
    ]
    assert sim.log[2].result == b"\x60"
    assert sim.log[1].result == b"\xff\xff"  # erased EEPROM, pointer after the write


def test_led_follows_writes_through_any_pin_name(sim: SimAdapter) -> None:
    """LD2 is PA5 = D13 = CN10-11 on the NUCLEO-F401RE."""
    for name in ("D13", "PA5", "CN10-11", "LD2"):
        sim.gpio_write(name, 1)
        assert sim.led("LD2") == 1
        sim.gpio_write(name, 0)
        assert sim.led("LD2") == 0


def test_button_reads_low_while_pressed(sim: SimAdapter) -> None:
    """B1 USER pulls PC13 to ground when pressed (external pull-up)."""
    assert sim.gpio_read("PC13") == 1
    sim.press("B1")
    assert sim.gpio_read("B1") == 0
    sim.release("B1")
    assert sim.gpio_read("PC13") == 1


def test_writing_a_button_input_is_refused(sim: SimAdapter) -> None:
    with pytest.raises(ReadOnlyPinError) as info:
        sim.gpio_write("B1", 1)
    assert info.value.pin == "PC13"
    with pytest.raises(ReadOnlyPinError):
        sim.gpio_mode("PC13", "out")


def test_inputs_follow_pull_resistors_and_jumpers(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):  # jumpers name canonical pins; D2 is an Arduino label
        open_with(tmp_path, '[gpio]\njumpers = [["D2", "D3"]]\n', "nucleo-f401re")
    adapter = open_with(tmp_path, '[gpio]\njumpers = [["PA10", "PB3"]]\n', "nucleo-f401re")
    adapter.gpio_mode("PB3", "in", "up")
    assert adapter.gpio_read("PB3") == 1  # PA10 is an input too: the pull-up wins
    adapter.gpio_write("D2", 0)
    assert adapter.gpio_read("D3") == 0


def test_scenario_faults_fire_then_the_bus_recovers(tmp_path: Path) -> None:
    text = """
[[i2c]]
address = 0x76
device = "bme280"
[[faults]]
error = "nack"
address = 0x76
on = "read"
after = 1
count = 1
[[faults]]
error = "timeout"
address = 0x76
count = 1
after = 2
"""
    adapter = open_with(tmp_path, text)
    bus = adapter.i2c()
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"  # first read passes (after = 1)
    with pytest.raises(I2CNackError) as info:
        bus.read_register(0x76, 0xD0, 1)
    assert (info.value.address, info.value.register) == (0x76, 0xD0)
    with pytest.raises(BusTimeoutError):
        bus.read_register(0x76, 0xD0, 1)
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"
    assert [t.error for t in adapter.log] == [None, "I2CNackError", "BusTimeoutError", None]


def test_stuck_sda_blocks_every_address_until_cleared(sim: SimAdapter) -> None:
    sim.inject_fault(error="stuck_sda", count=None)
    for address in (0x50, 0x76, 0x11):
        with pytest.raises(BusBusyError):
            sim.i2c().read(address, 1)
    sim.world.clear_faults()
    assert sim.i2c().read_register(0x76, 0xD0, 1) == b"\x60"


def test_unplug_mid_transaction_then_the_adapter_works_again(sim: SimAdapter) -> None:
    sim.inject_fault(error="unplug", on="write", count=1)
    with pytest.raises(AdapterUnavailableError):
        sim.i2c().write_register(0x50, 0, b"\x01")
    sim.i2c().write_register(0x50, 0, b"\x01")
    assert sim.i2c().read_register(0x50, 0, 1) == b"\x01"


def test_bme280_anomaly_from_scenario_data_starts_after_n_reads(tmp_path: Path) -> None:
    text = """
[[i2c]]
address = 0x76
device = "bme280"
[i2c.params]
temperature_c = 20.0
[i2c.params.anomaly]
temperature_c = 15.0
after_reads = 2
duration_reads = 1
"""
    adapter = open_with(tmp_path, text)
    sensor = BME280(adapter.i2c())
    temps = [sensor.read().temperature_c for _ in range(4)]
    assert temps == pytest.approx([20.0, 20.0, 35.0, 20.0], abs=0.02)


def test_bme280_anomaly_and_environment_at_runtime(sim: SimAdapter) -> None:
    sensor = BME280(sim.i2c())
    sim.bme280().set_environment(temperature_c=30.0, pressure_hpa=950.0, humidity_pct=80.0)
    r = sensor.read()
    assert (r.temperature_c, r.pressure_hpa, r.humidity_pct) == pytest.approx((30.0, 950.0, 80.0), abs=0.5)
    sim.device(0x76).inject_anomaly(humidity_pct=-60.0)  # type: ignore[attr-defined]
    assert sensor.read().humidity_pct == pytest.approx(20.0, abs=0.5)
    sim.bme280().clear_anomaly()
    assert sensor.read().humidity_pct == pytest.approx(80.0, abs=0.5)


def test_environment_outside_the_parts_range_is_refused(sim: SimAdapter) -> None:
    with pytest.raises(ValueError):
        sim.bme280().set_environment(temperature_c=200.0)


def test_bme280_sleeps_until_a_forced_measurement(sim: SimAdapter) -> None:
    """After power-on the data registers read 0x80000/0x8000 and the part is in sleep mode."""
    bus = sim.i2c()
    assert bus.read_register(0x76, 0xFA, 3) == b"\x80\x00\x00"
    bus.write_register(0x76, 0xF4, b"\x25")  # osrs_t x1, osrs_p x1, forced
    assert bus.read_register(0x76, 0xFA, 3) != b"\x80\x00\x00"
    assert bus.read_register(0x76, 0xF4, 1) == b"\x24"  # back to sleep


def test_bme280_reset_word_restores_power_on_state(sim: SimAdapter) -> None:
    bus = sim.i2c()
    bus.write_register(0x76, 0xF5, b"\xa0")
    bus.write_register(0x76, 0xE0, b"\xb6")
    assert bus.read_register(0x76, 0xF5, 1) == b"\x00"


def test_bme280_skipped_humidity_reads_0x8000(sim: SimAdapter) -> None:
    bus = sim.i2c()
    bus.write_register(0x76, 0xF2, b"\x00")
    bus.write_register(0x76, 0xF4, b"\x25")
    assert bus.read_register(0x76, 0xFD, 2) == b"\x80\x00"


def test_eeprom_ack_polling_during_the_write_cycle(tmp_path: Path) -> None:
    text = '[[i2c]]\naddress = 0x50\ndevice = "24c02"\n[i2c.params]\nwrite_cycle_polls = 3\n'
    adapter = open_with(tmp_path, text)
    bus = adapter.i2c()
    bus.write_register(0x50, 0x00, b"\x42")
    assert [bus.probe(0x50) for _ in range(4)] == [False, False, False, True]
    assert isinstance(adapter.device(0x50), EEPROM24Sim)


def test_mcp23017_outputs_and_inputs(sim: SimAdapter) -> None:
    bus = sim.i2c()
    assert bus.read_register(0x20, 0x12, 1) == b"\xa5"  # all inputs, pins driven 0xA5 by the scenario
    bus.write_register(0x20, 0x00, b"\x0f")  # GPA7..4 outputs
    bus.write_register(0x20, 0x12, b"\xf0")  # GPIO write lands in OLATA
    assert bus.read_register(0x20, 0x14, 1) == b"\xf0"
    assert bus.read_register(0x20, 0x12, 1) == bytes([0xF0 | (0xA5 & 0x0F)])
    assert isinstance(sim.device(0x20), MCP23017Sim)


def test_pca9685_auto_increment_needs_mode1_ai(sim: SimAdapter) -> None:
    bus = sim.i2c()
    bus.write_register(0x40, 0x06, b"\x01\x02\x03\x04")  # AI off: all four land in LED0_ON_L
    pca = sim.device(0x40)
    assert isinstance(pca, PCA9685Sim)
    assert pca.channel(0) == (0x0004, 0x0000)
    bus.write_register(0x40, 0x00, b"\x31")  # SLEEP | AI | ALLCALL
    bus.write_register(0x40, 0xFE, b"\x79")  # 50 Hz prescale, allowed while asleep
    bus.write_register(0x40, 0x06, b"\x00\x00\x00\x08")
    assert pca.channel(0) == (0x0000, 0x0800)
    bus.write_register(0x40, 0x00, b"\x21")  # wake
    bus.write_register(0x40, 0xFE, b"\x03")  # ignored while awake
    assert bus.read_register(0x40, 0xFE, 1) == b"\x79"


def test_ssd1306_commands_and_status(sim: SimAdapter) -> None:
    bus = sim.i2c()
    oled = sim.device(0x3C)
    assert isinstance(oled, SSD1306Sim)
    assert bus.read(0x3C, 1) == b"\x40"  # display off
    bus.write(0x3C, b"\x00\xaf\x81\x10")
    assert oled.display_on and oled.contrast == 0x10
    assert bus.read(0x3C, 1) == b"\x00"


def test_mcp3008_converts_channel_voltages(sim: SimAdapter) -> None:
    """Default scenario: CH1 = 0.825 V, CH4 = 3.3 V with Vref 3.3 V -> codes 256 and 1023."""
    dev = sim.spi(1, 0)
    codes = []
    for ch in range(5):
        rx = dev.transfer([0x01, 0x80 | ch << 4, 0x00])
        codes.append((rx[1] & 0x03) << 8 | rx[2])
    assert codes == [0, 256, 512, 768, 1023]


def test_mcp3008_answers_at_any_byte_alignment(sim: SimAdapter) -> None:
    """Leading zero bits before the start bit are ignored (datasheet 6.1): start bit as the MSB of byte 0."""
    rx = sim.spi(1, 0).transfer([0b11001000, 0x00, 0x00])  # start, SGL, D2..D0 = 001 -> CH1
    bits = int.from_bytes(rx, "big")
    # 1 start + 4 config + 1 sample clock + 1 null bit = 7 bit times, then B9..B0
    assert (bits >> (24 - 7 - 10)) & 0x3FF == 256


def test_unknown_board_scenario_and_keys_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(UnknownBoardError):
        open_adapter("sim://nucleo-f999")
    with pytest.raises(InvalidAdapterURL):
        open_adapter("sim://")
    with pytest.raises(ConfigError):
        open_adapter("sim://rpi-4b?scenario=nope")
    with pytest.raises(ConfigError):
        open_adapter(f"sim://rpi-4b?scenario={tmp_path / 'missing.toml'}")
    with pytest.raises(ConfigError) as info:
        open_with(tmp_path, '[[i2c]]\naddress = 0x76\ndevice = "bme280"\n[i2c.params]\ntemp = 3\n')
    assert "temp" in str(info.value)
    with pytest.raises(ConfigError):
        open_with(tmp_path, '[[i2c]]\naddress = 0x76\ndevice = "lm75"\n')
    with pytest.raises(ConfigError):
        open_with(tmp_path, 'faults = [{error = "smoke"}]\n')


def test_datasheet_alias_red_led_drives_the_nucleo_user_led(sim: SimAdapter) -> None:
    """The bundled NUCLEO-F401RE datasheet's `## Pin Aliases` maps red_led to PA5 (LD2)."""
    sim.gpio_write("red_led", 1)
    assert sim.led("LD2") == 1
    assert sim.log[-1] == GPIOWrite("PA5", 1)


@pytest.mark.parametrize("name", sorted(p.stem for p in SCENARIO_DIR.glob("*.toml")))
@pytest.mark.parametrize("board", list_boards())
def test_every_bundled_scenario_loads_on_every_board(name: str, board: str) -> None:
    adapter = open_adapter(f"sim://{board}?scenario={name}")
    assert adapter.i2c().read_register(0x76, 0xD0, 1) == b"\x60"


def test_faulty_scenario_fails_then_recovers() -> None:
    adapter = open_adapter("sim://rpi-4b?scenario=faulty")
    bus = adapter.i2c()
    outcomes = []
    for _ in range(30):
        try:
            bus.read_register(0x76, 0xD0, 1)
            outcomes.append("ok")
        except (I2CNackError, BusTimeoutError, BusBusyError) as exc:
            outcomes.append(type(exc).__name__)
    assert outcomes.count("I2CNackError") == 2 and outcomes.count("BusTimeoutError") == 1
    assert outcomes.count("BusBusyError") == 3 and outcomes[-1] == "ok"


def test_anomaly_scenario_spikes_after_thirty_readings() -> None:
    adapter = open_adapter("sim://nucleo-f401re?scenario=anomaly")
    sensor = BME280(adapter.i2c())
    temps = [sensor.read().temperature_c for _ in range(45)]
    assert max(temps[:30]) < 23.0 and min(temps[30:40]) > 34.0 and max(temps[40:]) < 23.0
