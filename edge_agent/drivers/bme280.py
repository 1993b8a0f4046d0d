"""Bosch BME280 temperature / pressure / humidity sensor over I2C.

The register map and the datasheet's integer compensation live in :mod:`edge_agent.chips.bme280`
(re-exported here); this module drives a real part through the bus port API.
"""

from __future__ import annotations

from edge_agent.bus.base import I2CBus, I2CDevice
from edge_agent.chips.bme280 import (
    CHIP_ID,
    MODE_FORCED,
    MODE_NORMAL,
    MODE_SLEEP,
    REG_CALIB_H,
    REG_CALIB_TP,
    REG_CONFIG,
    REG_CTRL_HUM,
    REG_CTRL_MEAS,
    REG_DATA,
    REG_ID,
    REG_RESET,
    REG_STATUS,
    RESET_WORD,
    SKIPPED_16BIT,
    SKIPPED_20BIT,
    STATUS_MEASURING,
    Calibration,
    Reading,
    compensate,
    compensate_humidity,
    compensate_pressure,
    compensate_temperature,
)
from edge_agent.drivers import UnexpectedDeviceError, wait_until
from edge_agent.errors import BusTimeoutError, WriteRefusedError


class BME280:
    """A BME280 on an I2C bus (address 0x76 with SDO low, 0x77 with SDO high)."""

    def __init__(self, bus: I2CBus | I2CDevice, address: int = 0x76, *, oversampling: int = 1,
                 max_polls: int = 50) -> None:
        self.port = bus if isinstance(bus, I2CDevice) else bus.device(address)
        self.address = self.port.address
        if oversampling not in (1, 2, 4, 8, 16):
            raise ValueError(f"oversampling {oversampling!r} must be 1, 2, 4, 8 or 16")
        # osrs_x field codes 001..101 select x1..x16 (datasheet tables 20, 22, 23)
        self._osrs = {1: 1, 2: 2, 4: 3, 8: 4, 16: 5}[oversampling]
        self._max_polls = max_polls
        self._calibration: Calibration | None = None

    def chip_id(self) -> int:
        """The value of register 0xD0 (0x60 for a BME280)."""
        return self.port.read_register(REG_ID, 1)[0]

    def calibration(self) -> Calibration:
        """Read (once) and decode the trimming parameters."""
        if self._calibration is None:
            chip = self.chip_id()
            if chip != CHIP_ID:
                raise UnexpectedDeviceError(
                    f"I2C target 0x{self.address:02X} reports chip id 0x{chip:02X}, not a BME280 (0x60)"
                    + ("; 0x58 is a BMP280, which has no humidity sensor" if chip == 0x58 else ""),
                    adapter=self.port.bus.adapter.url, address=self.address, register=REG_ID,
                )
            tp = self.port.read_register(REG_CALIB_TP, 24)
            h1 = self.port.read_register(0xA1, 1)[0]
            h = self.port.read_register(REG_CALIB_H, 7)
            self._calibration = Calibration.from_registers(tp, h1, h)
        return self._calibration

    def read_raw(self) -> tuple[int, int, int]:
        """Take one sample and return the raw (adc_T, adc_P, adc_H) words.

        A sensor already in normal mode is only read (no write reaches it); otherwise one forced
        measurement is triggered, which writes ctrl_hum (0xF2) and ctrl_meas (0xF4).
        """
        ctrl = self.port.read_register(REG_CTRL_MEAS, 1)[0]
        if ctrl & 0b11 != MODE_NORMAL:
            # ctrl_hum only takes effect after a write to ctrl_meas (datasheet 5.4.3), so write it first.
            try:
                self.port.write_register(REG_CTRL_HUM, bytes([self._osrs]))
            except WriteRefusedError as exc:
                # Name both registers now: allowing only the one refused would just move the refusal on.
                raise WriteRefusedError(
                    f"{exc.message()}; a BME280 reading writes ctrl_hum 0x{REG_CTRL_HUM:02X} and then ctrl_meas "
                    f'0x{REG_CTRL_MEAS:02X}, so allow both: "0x{self.address:02X}:0x{REG_CTRL_HUM:02X}-'
                    f'0x{REG_CTRL_MEAS:02X}"', adapter=exc.adapter, address=exc.address, register=exc.register,
                    hint=exc.hint) from exc
            self.port.write_register(REG_CTRL_MEAS, bytes([self._osrs << 5 | self._osrs << 2 | MODE_FORCED]))
            self._wait_for_measurement()
        d = self.port.read_register(REG_DATA, 8)
        adc_p = d[0] << 12 | d[1] << 4 | d[2] >> 4
        adc_t = d[3] << 12 | d[4] << 4 | d[5] >> 4
        adc_h = d[6] << 8 | d[7]
        return adc_t, adc_p, adc_h

    def _wait_for_measurement(self) -> None:
        # A forced conversion at x1 oversampling takes ~8-10 ms (datasheet 9.1); poll the status bit
        # a bounded number of times instead of sleeping for the worst case.
        if not wait_until(lambda: not self.port.read_register(REG_STATUS, 1)[0] & STATUS_MEASURING,
                          polls=self._max_polls, interval_s=0.002):
            raise BusTimeoutError(
                f"BME280 0x{self.address:02X} still measuring after {self._max_polls} status polls",
                adapter=self.port.bus.adapter.url, address=self.address, register=REG_STATUS,
            )

    def read(self) -> Reading:
        """Take one compensated sample (holding the bus lock across trigger, poll and read)."""
        with self.port.bus.lock:
            c = self.calibration()
            adc_t, adc_p, adc_h = self.read_raw()
        return compensate(adc_t, adc_p, adc_h, c)


__all__ = [
    "BME280", "CHIP_ID", "MODE_FORCED", "MODE_NORMAL", "MODE_SLEEP", "REG_CALIB_H", "REG_CALIB_TP", "REG_CONFIG",
    "REG_CTRL_HUM", "REG_CTRL_MEAS", "REG_DATA", "REG_ID", "REG_RESET", "REG_STATUS", "RESET_WORD", "SKIPPED_16BIT",
    "SKIPPED_20BIT", "STATUS_MEASURING", "Calibration", "Reading", "compensate", "compensate_humidity",
    "compensate_pressure", "compensate_temperature",
]
