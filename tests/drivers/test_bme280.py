"""BME280 compensation against the datasheet's worked example, and the driver on the simulated part."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_agent.bus import open_adapter
from edge_agent.bus.sim import SimAdapter
from edge_agent.bus.sim.devices import DEFAULT_CALIBRATION
from edge_agent.drivers import UnexpectedDeviceError
from edge_agent.drivers.bme280 import (
    BME280,
    Calibration,
    compensate_humidity,
    compensate_pressure,
    compensate_temperature,
)

# Worked example of the Bosch BMP280 datasheet (section 3.12), whose temperature and pressure formulas the
# BME280 shares: trimming values and raw ADC words, with T = 25.08 degC and p = 100653.27 Pa.
EXAMPLE = DEFAULT_CALIBRATION
QUIET = Path(__file__).resolve().parent / "data" / "quiet.toml"
ADC_T, ADC_P = 519888, 415148


def _float_humidity(adc_h: int, t_fine: int, c: Calibration) -> float:
    """The datasheet's double-precision humidity formula (BME280 datasheet 8.1), as an independent oracle."""
    h = t_fine - 76800.0
    h = (adc_h - (c.H4 * 64.0 + c.H5 / 16384.0 * h)) * (
        c.H2 / 65536.0 * (1.0 + c.H6 / 67108864.0 * h * (1.0 + c.H3 / 67108864.0 * h)))
    h = h * (1.0 - c.H1 * h / 524288.0)
    return min(max(h, 0.0), 100.0)


def test_temperature_matches_the_datasheet_example() -> None:
    centi, t_fine = compensate_temperature(ADC_T, EXAMPLE)
    assert centi == 2508
    assert t_fine == 128422


def test_pressure_matches_the_datasheet_example() -> None:
    _, t_fine = compensate_temperature(ADC_T, EXAMPLE)
    pa = compensate_pressure(ADC_P, t_fine, EXAMPLE) / 256.0
    assert pa == pytest.approx(100653.27, abs=0.05)


@pytest.mark.parametrize("adc_h", [20000, 26000, 30000, 35000, 40000])
@pytest.mark.parametrize("adc_t", [400000, 519888, 600000])
def test_integer_humidity_agrees_with_the_floating_point_formula(adc_h: int, adc_t: int) -> None:
    _, t_fine = compensate_temperature(adc_t, EXAMPLE)
    assert compensate_humidity(adc_h, t_fine, EXAMPLE) / 1024.0 == pytest.approx(
        _float_humidity(adc_h, t_fine, EXAMPLE), abs=0.05)


def test_humidity_is_clamped_to_0_and_100_percent() -> None:
    _, t_fine = compensate_temperature(ADC_T, EXAMPLE)
    assert compensate_humidity(0, t_fine, EXAMPLE) == 0
    assert compensate_humidity(0xFFFF, t_fine, EXAMPLE) == 100 * 1024


def test_calibration_decodes_the_shared_h4_h5_nibbles() -> None:
    """dig_H4 = 0xE4[7:0] << 4 | 0xE5[3:0]; dig_H5 = 0xE6[7:0] << 4 | 0xE5[7:4] (datasheet table 16)."""
    tp, h1, _ = EXAMPLE.to_registers()
    h = bytes([0x6A, 0x01, 0x00, 0x13, 0x2B, 0x03, 0x1E])
    c = Calibration.from_registers(tp, h1, h)
    assert (c.H2, c.H3, c.H4, c.H5, c.H6) == (362, 0, 0x13B, 0x032, 30)
    c = Calibration.from_registers(tp, h1, bytes([0, 0, 0, 0xFF, 0x0F, 0xFF, 0xE2]))
    assert (c.H4, c.H5, c.H6) == (-1, -16, -30)


def test_driver_reads_the_simulated_environment(sim: SimAdapter) -> None:
    sim.bme280().set_environment(temperature_c=18.25, pressure_hpa=1013.25, humidity_pct=55.0)
    sim.bme280().params.noise_temperature_c = 0.0  # type: ignore[attr-defined]
    sim.bme280().params.noise_pressure_hpa = 0.0  # type: ignore[attr-defined]
    sim.bme280().params.noise_humidity_pct = 0.0  # type: ignore[attr-defined]
    r = BME280(sim.i2c(), 0x76).read()
    assert r.temperature_c == pytest.approx(18.25, abs=0.011)
    assert r.pressure_hpa == pytest.approx(1013.25, abs=0.01)
    assert r.humidity_pct == pytest.approx(55.0, abs=0.01)


def test_driver_triggers_one_forced_measurement_per_read(sim: SimAdapter) -> None:
    sensor = BME280(sim.i2c())
    sensor.read()
    sim.clear_log()
    sensor.read()
    writes = [t.data for t in sim.log if type(t).__name__ == "I2CWrite"]
    assert writes == [b"\xf2\x01", b"\xf4\x25"]  # ctrl_hum first: it latches on the ctrl_meas write
    assert sim.bme280().measurements == 2


def test_wrong_chip_id_is_reported_with_the_id_seen(sim: SimAdapter) -> None:
    sim.device(0x76).regs[0xD0] = 0x58  # type: ignore[attr-defined]  # a BMP280
    with pytest.raises(UnexpectedDeviceError) as info:
        BME280(sim.i2c()).read()
    assert info.value.address == 0x76 and info.value.register == 0xD0
    assert "BMP280" in str(info.value)


@settings(max_examples=60, deadline=None)
@given(t=st.floats(-40, 85), p=st.floats(300, 1100), h=st.floats(0, 100))
def test_any_environment_in_the_operating_range_reads_back_through_the_compensation(t: float, p: float,
                                                                                     h: float) -> None:
    """The simulator inverts the datasheet formulas; the driver applies them: a round trip within one LSB."""
    adapter = open_adapter("sim://rpi-4b?scenario=" + str(QUIET))
    assert isinstance(adapter, SimAdapter)
    adapter.bme280().set_environment(temperature_c=t, pressure_hpa=p, humidity_pct=h)
    r = BME280(adapter.i2c()).read()
    assert r.temperature_c == pytest.approx(t, abs=0.011)
    assert r.pressure_hpa == pytest.approx(p, abs=0.01)
    assert r.humidity_pct == pytest.approx(h, abs=0.02)


def test_a_refused_measurement_write_names_both_registers_a_reading_needs() -> None:
    # On a real adapter the first refusal named only ctrl_hum; allowing it led to a second refusal for ctrl_meas.
    from edge_agent.bus.safety import SafetyPolicy
    from edge_agent.errors import WriteRefusedError

    sim = open_adapter("sim://nucleo-f401re")
    sim.safety = SafetyPolicy.for_adapter(None, name="bench", scheme="bridge")  # a real adapter's default
    with pytest.raises(WriteRefusedError) as info:
        BME280(sim.i2c(), 0x76).read()
    text = str(info.value)
    assert '"0x76:0xF2-0xF4"' in text and "hardware.safety.adapters.bench.writable_i2c" in text
