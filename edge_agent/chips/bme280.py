"""Bosch BME280 register map, calibration layout and the datasheet's integer compensation, as data.

Register map and formulas: BME280 datasheet (BST-BME280-DS002) section 4.2 (compensation, 32-bit
integer temperature and humidity, 64-bit integer pressure) and section 5.4 (memory map). The driver
reads a real part with these; the simulated part answers with them, so both agree by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

CHIP_ID = 0x60  # register 0xD0 "id"; a BMP280 answers 0x58 and has no humidity channel
REG_CALIB_TP = 0x88  # 0x88-0xA1: dig_T1..dig_P9, (0xA0 unused), dig_H1 at 0xA1
REG_ID = 0xD0
REG_RESET = 0xE0
REG_CALIB_H = 0xE1  # 0xE1-0xE7: dig_H2..dig_H6
REG_CTRL_HUM = 0xF2
REG_STATUS = 0xF3
REG_CTRL_MEAS = 0xF4
REG_CONFIG = 0xF5
REG_DATA = 0xF7  # press_msb .. hum_lsb, 8 bytes; read them in one burst so they come from one sample
RESET_WORD = 0xB6
MODE_SLEEP, MODE_FORCED, MODE_NORMAL = 0b00, 0b01, 0b11
STATUS_MEASURING = 0x08
#: A reading register never written by a measurement (channel skipped) holds 0x80000 / 0x8000.
SKIPPED_20BIT, SKIPPED_16BIT = 0x80000, 0x8000


@dataclass(frozen=True, slots=True)
class Calibration:
    """Trimming parameters burnt into the sensor's NVM (datasheet table 16)."""

    T1: int
    T2: int
    T3: int
    P1: int
    P2: int
    P3: int
    P4: int
    P5: int
    P6: int
    P7: int
    P8: int
    P9: int
    H1: int
    H2: int
    H3: int
    H4: int
    H5: int
    H6: int

    @classmethod
    def from_registers(cls, tp: bytes, h1: int, h: bytes) -> Calibration:
        """Decode the 24 bytes at 0x88, the byte at 0xA1 and the 7 bytes at 0xE1."""

        def u16(i: int) -> int:
            return tp[i] | tp[i + 1] << 8

        def s16(i: int) -> int:
            v = u16(i)
            return v - 0x10000 if v & 0x8000 else v

        def s8(v: int) -> int:
            return v - 0x100 if v & 0x80 else v

        # dig_H4 and dig_H5 are 12-bit signed values sharing register 0xE5 (datasheet table 16).
        h4 = s8(h[3]) << 4 | (h[4] & 0x0F)
        h5 = s8(h[5]) << 4 | (h[4] >> 4)
        h2 = h[0] | h[1] << 8
        return cls(
            T1=u16(0), T2=s16(2), T3=s16(4),
            P1=u16(6), P2=s16(8), P3=s16(10), P4=s16(12), P5=s16(14), P6=s16(16), P7=s16(18), P8=s16(20),
            P9=s16(22),
            H1=h1, H2=h2 - 0x10000 if h2 & 0x8000 else h2, H3=h[2], H4=h4, H5=h5, H6=s8(h[6]),
        )

    def to_registers(self) -> tuple[bytes, int, bytes]:
        """Encode back to (bytes at 0x88..0x9F, byte at 0xA1, bytes at 0xE1..0xE7) - the inverse of from_registers."""

        def le(v: int) -> bytes:
            return (v & 0xFFFF).to_bytes(2, "little")

        tp = b"".join(le(v) for v in (self.T1, self.T2, self.T3, self.P1, self.P2, self.P3, self.P4, self.P5,
                                      self.P6, self.P7, self.P8, self.P9))
        h = le(self.H2) + bytes([
            self.H3,
            (self.H4 >> 4) & 0xFF,
            (self.H4 & 0x0F) | (self.H5 & 0x0F) << 4,
            (self.H5 >> 4) & 0xFF,
            self.H6 & 0xFF,
        ])
        return tp, self.H1, h


def _div_trunc(a: int, b: int) -> int:
    # The datasheet code is C: integer division truncates toward zero, Python's // floors.
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def compensate_temperature(adc_t: int, c: Calibration) -> tuple[int, int]:
    """Return (temperature in 0.01 degC, t_fine) - datasheet 4.2.3, BME280_compensate_T_int32."""
    var1 = (((adc_t >> 3) - (c.T1 << 1)) * c.T2) >> 11
    var2 = (((((adc_t >> 4) - c.T1) * ((adc_t >> 4) - c.T1)) >> 12) * c.T3) >> 14
    t_fine = var1 + var2
    return (t_fine * 5 + 128) >> 8, t_fine


def compensate_pressure(adc_p: int, t_fine: int, c: Calibration) -> int:
    """Return pressure in Pa as unsigned Q24.8 (value/256 = Pa) - datasheet 4.2.3, BME280_compensate_P_int64."""
    var1 = t_fine - 128000
    var2 = var1 * var1 * c.P6
    var2 = var2 + ((var1 * c.P5) << 17)
    var2 = var2 + (c.P4 << 35)
    var1 = ((var1 * var1 * c.P3) >> 8) + ((var1 * c.P2) << 12)
    var1 = (((1 << 47) + var1) * c.P1) >> 33
    if var1 == 0:
        return 0  # avoids a division by zero when the calibration is blank
    p = 1048576 - adc_p
    p = _div_trunc(((p << 31) - var2) * 3125, var1)
    var1 = (c.P9 * (p >> 13) * (p >> 13)) >> 25
    var2 = (c.P8 * p) >> 19
    return ((p + var1 + var2) >> 8) + (c.P7 << 4)


def compensate_humidity(adc_h: int, t_fine: int, c: Calibration) -> int:
    """Return relative humidity as unsigned Q22.10 (value/1024 = %RH) - datasheet 4.2.3, BME280_compensate_H_int32."""
    v = t_fine - 76800
    v = (((((adc_h << 14) - (c.H4 << 20) - (c.H5 * v)) + 16384) >> 15)
         * (((((((v * c.H6) >> 10) * (((v * c.H3) >> 11) + 32768)) >> 10) + 2097152) * c.H2 + 8192) >> 14))
    v = v - (((((v >> 15) * (v >> 15)) >> 7) * c.H1) >> 4)
    v = min(max(v, 0), 419430400)  # clamp to 0..100 %RH
    return v >> 12


@dataclass(frozen=True, slots=True)
class Reading:
    """One compensated sample."""

    temperature_c: float
    pressure_hpa: float
    humidity_pct: float

    def as_dict(self) -> dict[str, float]:
        """The reading as the CLI/MCP JSON shape."""
        return {"temperature_c": self.temperature_c, "pressure_hpa": self.pressure_hpa,
                "humidity_pct": self.humidity_pct}


def compensate(adc_t: int, adc_p: int, adc_h: int, c: Calibration) -> Reading:
    """Turn raw ADC words into a Reading with the datasheet's integer formulas."""
    t_centi, t_fine = compensate_temperature(adc_t, c)
    p_q24_8 = compensate_pressure(adc_p, t_fine, c)
    h_q22_10 = compensate_humidity(adc_h, t_fine, c)
    return Reading(
        temperature_c=t_centi / 100.0,
        pressure_hpa=round(p_q24_8 / 256.0 / 100.0, 4),
        humidity_pct=round(h_q22_10 / 1024.0, 3),
    )
