"""Register-level models of the parts the simulated board carries.

Each I2C model sees what a real part sees on the wire: a write (bytes after the address byte), a
read of ``n`` bytes, and a repeated START between a write and a read. Each SPI model sees the bytes
clocked while chip select is low. Parameters come from scenario data (``params`` tables), checked
by a pydantic model per part so a typo is an error naming the key.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from edge_agent.chips import bme280 as bme


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SimI2CDevice:
    """Base of I2C target models: acknowledges its address and ignores data."""

    Params: ClassVar[type[_Params]] = _Params
    kind: ClassVar[str] = "generic"

    def __init__(self, address: int, params: _Params) -> None:
        self.address = address
        self.params = params
        #: Number of address phases still to NACK (an EEPROM busy with its internal write cycle).
        self.busy_polls = 0

    def acknowledges(self) -> bool:
        """Whether the target ACKs its address now; a busy EEPROM does not."""
        if self.busy_polls > 0:
            self.busy_polls -= 1
            return False
        return True

    def write(self, data: bytes) -> None:
        """Bytes written after the address byte (empty for an SMBus quick write)."""

    def read(self, n: int) -> bytes:
        """Bytes the target sends for a read of ``n``."""
        return bytes([0xFF]) * n

    def snapshot(self) -> dict[str, Any]:
        """State worth showing in tests and `health()`."""
        return {"kind": self.kind, "address": self.address}


class RegisterDevice(SimI2CDevice):
    """A target with an 8-bit register pointer: the first byte written sets it, later bytes are stored.

    Reads and writes auto-increment the pointer (wrapping at ``size``) unless ``auto_increment`` is off.
    """

    size: int = 256

    def __init__(self, address: int, params: _Params) -> None:
        super().__init__(address, params)
        self.regs = bytearray(self.size)
        self.pointer = 0

    def auto_increment(self) -> bool:
        return True

    def write(self, data: bytes) -> None:
        if not data:
            return
        self.pointer = data[0] % self.size
        for value in data[1:]:
            self.store(self.pointer, value)
            self._advance()

    def read(self, n: int) -> bytes:
        out = bytearray()
        for _ in range(n):
            out.append(self.load(self.pointer))
            self._advance()
        return bytes(out)

    def _advance(self) -> None:
        if self.auto_increment():
            self.pointer = (self.pointer + 1) % self.size

    def store(self, register: int, value: int) -> None:
        self.regs[register] = value

    def load(self, register: int) -> int:
        return self.regs[register]


# --- BME280 -------------------------------------------------------------------------------------------

#: Trimming values used by the simulated part: the worked example of the Bosch BMP280 datasheet
#: (section 3.12) for T and P, and humidity values typical of production BME280 parts.
DEFAULT_CALIBRATION = bme.Calibration(
    T1=27504, T2=26435, T3=-1000,
    P1=36477, P2=-10685, P3=3024, P4=2855, P5=140, P6=-7, P7=15500, P8=-14600, P9=6000,
    H1=75, H2=362, H3=0, H4=313, H5=50, H6=30,
)


class Anomaly(_Params):
    """Offsets added to the environment for a window of measurements (a fault for watches to catch)."""

    temperature_c: float = 0.0
    pressure_hpa: float = 0.0
    humidity_pct: float = 0.0
    after_reads: int = Field(0, ge=0, description="measurements taken normally before the anomaly starts")
    duration_reads: int | None = Field(None, ge=1, description="measurements it lasts; unset = until cleared")


class Environment(_Params):
    """The air around the simulated BME280."""

    temperature_c: float = Field(22.5, ge=-40, le=85)
    pressure_hpa: float = Field(1009.25, ge=300, le=1100)
    humidity_pct: float = Field(45.0, ge=0, le=100)


class BME280Params(Environment):
    """Scenario parameters of the simulated BME280."""

    noise_temperature_c: float = Field(0.0, ge=0)
    noise_pressure_hpa: float = Field(0.0, ge=0)
    noise_humidity_pct: float = Field(0.0, ge=0)
    drift_temperature_c_per_read: float = 0.0
    seed: int = 1
    anomaly: Anomaly | None = None


def _invert(fn: Callable[[int], float], target: float, lo: int, hi: int) -> int:
    """Smallest raw word in [lo, hi] whose compensated value reaches ``target`` (fn monotonic either way)."""
    increasing = fn(hi) >= fn(lo)
    while lo < hi:
        mid = (lo + hi) // 2
        value = fn(mid)
        if (value < target) if increasing else (value > target):
            lo = mid + 1
        else:
            hi = mid
    return lo


class BME280Sim(RegisterDevice):
    """BME280: chip id 0x60, NVM trimming, forced and normal modes, reset word, pair-wise writes.

    Raw ADC words are found by inverting the datasheet compensation for the current environment, so a
    driver that applies the official formulas reads back the environment within one LSB.
    """

    Params = BME280Params
    kind = "bme280"

    def __init__(self, address: int, params: _Params) -> None:
        assert isinstance(params, BME280Params)
        super().__init__(address, params)
        self.environment = Environment(temperature_c=params.temperature_c, pressure_hpa=params.pressure_hpa,
                                       humidity_pct=params.humidity_pct)
        self.calibration = DEFAULT_CALIBRATION
        self.anomaly: Anomaly | None = params.anomaly
        self.measurements = 0
        self._anomaly_start = 0
        self._rng = random.Random(params.seed)
        self._power_on_reset()

    def _power_on_reset(self) -> None:
        self.regs = bytearray(self.size)
        tp, h1, h = self.calibration.to_registers()
        self.regs[0x88:0x88 + len(tp)] = tp
        self.regs[0xA1] = h1
        self.regs[0xE1:0xE1 + len(h)] = h
        self.regs[bme.REG_ID] = bme.CHIP_ID
        # Data registers after reset read 0x80000 / 0x8000 (datasheet table 18).
        self.regs[0xF7:0xFF] = bytes([0x80, 0x00, 0x00, 0x80, 0x00, 0x00, 0x80, 0x00])
        self._hum_latched = 0

    # BME280 writes are (register, value) pairs, not an auto-incremented stream (datasheet 6.2.1).
    def write(self, data: bytes) -> None:
        if not data:
            return
        self.pointer = data[0]
        pairs = data if len(data) % 2 == 0 else data[:-1]
        for i in range(1, len(pairs), 2):
            self.store(pairs[i - 1], pairs[i])

    def store(self, register: int, value: int) -> None:
        if register == bme.REG_RESET:
            if value == bme.RESET_WORD:
                self._power_on_reset()
            return
        if register == bme.REG_CTRL_HUM:
            self.regs[register] = value & 0x07
        elif register == bme.REG_CTRL_MEAS:
            self.regs[register] = value
            self._hum_latched = self.regs[bme.REG_CTRL_HUM]  # ctrl_hum takes effect on a ctrl_meas write
            if value & 0b11 == bme.MODE_FORCED:
                self._measure()
                self.regs[register] = value & ~0b11  # back to sleep after the forced conversion
        elif register == bme.REG_CONFIG:
            self.regs[register] = value & 0xFD  # bit 1 is reserved
        # NVM, id, status and data registers are read-only: the write is ignored, as on the part.

    def read(self, n: int) -> bytes:
        # In normal mode the part keeps converting; model one new sample per burst read of the data.
        if self.regs[bme.REG_CTRL_MEAS] & 0b11 == bme.MODE_NORMAL and bme.REG_DATA <= self.pointer <= 0xFE:
            self._measure()
        return super().read(n)

    # world ---------------------------------------------------------------------------------------
    def set_environment(self, *, temperature_c: float | None = None, pressure_hpa: float | None = None,
                        humidity_pct: float | None = None) -> None:
        """Change the air the sensor measures (values checked against the part's operating range)."""
        data = self.environment.model_dump()
        for key, value in (("temperature_c", temperature_c), ("pressure_hpa", pressure_hpa),
                           ("humidity_pct", humidity_pct)):
            if value is not None:
                data[key] = value
        self.environment = Environment(**data)

    def inject_anomaly(self, *, temperature_c: float = 0.0, pressure_hpa: float = 0.0, humidity_pct: float = 0.0,
                       after_reads: int = 0, duration_reads: int | None = None) -> None:
        """Offset the next measurements (after ``after_reads`` normal ones, for ``duration_reads``)."""
        self.anomaly = Anomaly(temperature_c=temperature_c, pressure_hpa=pressure_hpa, humidity_pct=humidity_pct,
                               after_reads=after_reads, duration_reads=duration_reads)
        self._anomaly_start = self.measurements

    def clear_anomaly(self) -> None:
        """Stop an injected anomaly."""
        self.anomaly = None

    def current_truth(self) -> Environment:
        """The environment the next measurement will report (anomaly applied, no noise)."""
        t, p, h = self._truth(self.measurements)
        return Environment(temperature_c=t, pressure_hpa=p, humidity_pct=h)

    def _truth(self, index: int) -> tuple[float, float, float]:
        env = self.environment
        params = self.params
        assert isinstance(params, BME280Params)
        t = env.temperature_c + params.drift_temperature_c_per_read * index
        p, h = env.pressure_hpa, env.humidity_pct
        a = self.anomaly
        if a is not None:
            k = index - self._anomaly_start
            if k >= a.after_reads and (a.duration_reads is None or k < a.after_reads + a.duration_reads):
                t, p, h = t + a.temperature_c, p + a.pressure_hpa, h + a.humidity_pct
        return t, p, min(max(h, 0.0), 100.0)

    def _measure(self) -> None:
        params = self.params
        assert isinstance(params, BME280Params)
        t, p, h = self._truth(self.measurements)
        self.measurements += 1
        t += self._rng.gauss(0.0, params.noise_temperature_c) if params.noise_temperature_c else 0.0
        p += self._rng.gauss(0.0, params.noise_pressure_hpa) if params.noise_pressure_hpa else 0.0
        h += self._rng.gauss(0.0, params.noise_humidity_pct) if params.noise_humidity_pct else 0.0
        c = self.calibration
        ctrl = self.regs[bme.REG_CTRL_MEAS]
        osrs_t, osrs_p, osrs_h = ctrl >> 5, (ctrl >> 2) & 0x07, self._hum_latched
        adc_t = _invert(lambda raw: bme.compensate_temperature(raw, c)[0] / 100.0, t, 0, 0xFFFFF)
        t_fine = bme.compensate_temperature(adc_t, c)[1]
        adc_p = _invert(lambda raw: bme.compensate_pressure(raw, t_fine, c) / 25600.0, p, 0, 0xFFFFF)
        adc_h = _invert(lambda raw: bme.compensate_humidity(raw, t_fine, c) / 1024.0, min(max(h, 0.0), 100.0),
                        0, 0xFFFF)
        if not osrs_t:
            adc_t = bme.SKIPPED_20BIT
        if not osrs_p:
            adc_p = bme.SKIPPED_20BIT
        if not osrs_h:
            adc_h = bme.SKIPPED_16BIT
        self.regs[0xF7:0xFA] = bytes([adc_p >> 12, (adc_p >> 4) & 0xFF, (adc_p & 0x0F) << 4])
        self.regs[0xFA:0xFD] = bytes([adc_t >> 12, (adc_t >> 4) & 0xFF, (adc_t & 0x0F) << 4])
        self.regs[0xFD:0xFF] = bytes([adc_h >> 8, adc_h & 0xFF])

    def snapshot(self) -> dict[str, Any]:
        return {**super().snapshot(), "environment": self.environment.model_dump(),
                "measurements": self.measurements, "anomaly": self.anomaly.model_dump() if self.anomaly else None}


# --- SSD1306 ------------------------------------------------------------------------------------------


class SSD1306Params(_Params):
    """Scenario parameters of the simulated SSD1306."""

    width: int = Field(128, ge=8, le=128)
    height: int = Field(64, description="32 or 64 rows")


class SSD1306Sim(SimI2CDevice):
    """SSD1306 OLED controller: control byte (Co, D/C#), command decoder, GDDRAM with page/horizontal addressing."""

    Params = SSD1306Params
    kind = "ssd1306"
    # Commands that take argument bytes (datasheet section 9, command table).
    _ARGS: ClassVar[dict[int, int]] = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1,
                                       0xDA: 1, 0xDB: 1, 0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2}

    def __init__(self, address: int, params: _Params) -> None:
        assert isinstance(params, SSD1306Params)
        super().__init__(address, params)
        self.pages = params.height // 8
        self.width = params.width
        self.gddram = [bytearray(128) for _ in range(8)]
        self.display_on = False
        self.contrast = 0x7F
        self.addressing = 2  # page addressing mode after reset
        self.col_start, self.col_end, self.page_start, self.page_end = 0, 127, 0, 7
        self.col, self.page = 0, 0
        self.commands: list[tuple[int, ...]] = []
        self._pending: list[int] = []

    def write(self, data: bytes) -> None:
        i = 0
        while i < len(data):
            control = data[i]
            i += 1
            continuation, is_data = control & 0x80, control & 0x40
            chunk = data[i:i + 1] if continuation else data[i:]
            i += len(chunk)
            for b in chunk:
                self._data(b) if is_data else self._command(b)

    def _command(self, b: int) -> None:
        self._pending.append(b)
        need = self._ARGS.get(self._pending[0], 0)
        if len(self._pending) <= need:
            return
        cmd = tuple(self._pending)
        self._pending = []
        self.commands.append(cmd)
        op = cmd[0]
        if op == 0xAE:
            self.display_on = False
        elif op == 0xAF:
            self.display_on = True
        elif op == 0x81:
            self.contrast = cmd[1]
        elif op == 0x20:
            self.addressing = cmd[1] & 0x03
        elif op == 0x21:
            self.col_start, self.col_end = cmd[1] & 0x7F, cmd[2] & 0x7F
            self.col = self.col_start
        elif op == 0x22:
            self.page_start, self.page_end = cmd[1] & 0x07, cmd[2] & 0x07
            self.page = self.page_start
        elif 0xB0 <= op <= 0xB7:
            self.page = op & 0x07
        elif op <= 0x0F:
            self.col = (self.col & 0xF0) | op
        elif 0x10 <= op <= 0x1F:
            self.col = (self.col & 0x0F) | (op & 0x0F) << 4

    def _data(self, b: int) -> None:
        self.gddram[self.page][self.col] = b
        if self.addressing == 2:  # page mode: column wraps within the page
            self.col = self.col + 1 if self.col < 127 else 0
            return
        if self.addressing == 0:  # horizontal: column, then page
            if self.col < self.col_end:
                self.col += 1
            else:
                self.col = self.col_start
                self.page = self.page + 1 if self.page < self.page_end else self.page_start
        else:  # vertical: page, then column
            if self.page < self.page_end:
                self.page += 1
            else:
                self.page = self.page_start
                self.col = self.col + 1 if self.col < self.col_end else self.col_start

    def read(self, n: int) -> bytes:
        # In I2C mode the controller only returns its status byte: bit 6 set = display off.
        return bytes([0x00 if self.display_on else 0x40]) * n

    def pixel(self, x: int, y: int) -> bool:
        """Whether the pixel at column x, row y is lit."""
        return bool(self.gddram[y // 8][x] >> (y % 8) & 1)

    def render(self) -> str:
        """The visible screen as text ('#' lit, '.' dark), one line per row."""
        return "\n".join("".join("#" if self.pixel(x, y) else "." for x in range(self.width))
                         for y in range(self.pages * 8))


# --- 24Cxx EEPROM ---------------------------------------------------------------------------------------


class EEPROMParams(_Params):
    """Scenario parameters of the simulated 24Cxx EEPROM."""

    size: int = Field(256, description="bytes: 128 (24C01), 256 (24C02), 512 (24C04), 1024, 2048")
    page_size: int = Field(8, ge=1)
    fill: int = Field(0xFF, ge=0, le=255)
    write_cycle_polls: int = Field(0, ge=0, description="address phases NACKed after a write (tWR)")
    contents: str = Field("", description="initial bytes as hex, written from address 0")
    address_bytes: int = Field(1, ge=1, le=2, description="word-address bytes: 1 up to 24C16, 2 from 24C32")


class EEPROM24Sim(RegisterDevice):
    """24Cxx EEPROM: one word-address byte (two with ``address_bytes = 2``, 24C32 and up), page writes that
    wrap inside the page, sequential reads that wrap at the end of memory, and an internal write cycle that
    NACKs polls (datasheet "ACK polling")."""

    Params = EEPROMParams
    kind = "24c02"

    def __init__(self, address: int, params: _Params) -> None:
        assert isinstance(params, EEPROMParams)
        self.size = params.size
        super().__init__(address, params)
        self.regs = bytearray([params.fill]) * self.size
        init = bytes.fromhex(params.contents)
        self.regs[:len(init)] = init
        self.page_size = params.page_size
        self.writes = 0

    def write(self, data: bytes) -> None:
        params = self.params
        assert isinstance(params, EEPROMParams)
        width = params.address_bytes
        if len(data) < width:
            return
        # Two-byte word addresses go high byte first (24C32 and larger).
        self.pointer = int.from_bytes(data[:width], "big") % self.size
        if len(data) == width:
            return  # a "dummy write" that only sets the address for a random read
        page_base = self.pointer - self.pointer % self.page_size
        offset = self.pointer % self.page_size
        for value in data[width:]:
            # The address counter's low bits roll over inside the page (page-write wrap).
            self.store(page_base + offset, value)
            offset = (offset + 1) % self.page_size
        self.pointer = page_base + offset
        self.writes += 1
        self.busy_polls = params.write_cycle_polls


# --- MCP23017 -------------------------------------------------------------------------------------------


class MCP23017Params(_Params):
    """Scenario parameters of the simulated MCP23017."""

    inputs_a: int = Field(0x00, ge=0, le=255, description="levels on GPA7..0 from outside")
    inputs_b: int = Field(0x00, ge=0, le=255)


class MCP23017Sim(RegisterDevice):
    """MCP23017 16-bit I/O expander, IOCON.BANK = 0 register layout (0x00-0x15)."""

    Params = MCP23017Params
    kind = "mcp23017"
    size = 0x16
    IODIRA, IODIRB, GPIOA, GPIOB, OLATA, OLATB, IOCON = 0x00, 0x01, 0x12, 0x13, 0x14, 0x15, 0x0A

    def __init__(self, address: int, params: _Params) -> None:
        assert isinstance(params, MCP23017Params)
        super().__init__(address, params)
        self.regs[self.IODIRA] = self.regs[self.IODIRB] = 0xFF  # all inputs after reset
        self.inputs = [params.inputs_a, params.inputs_b]

    def auto_increment(self) -> bool:
        return not self.regs[self.IOCON] & 0x20  # IOCON.SEQOP = 1 disables the address pointer increment

    def store(self, register: int, value: int) -> None:
        if register in (self.GPIOA, self.GPIOB):  # writing GPIO writes the output latch
            register += 2
        if register in (0x0A, 0x0B):  # IOCON is mirrored at both addresses
            self.regs[0x0A] = self.regs[0x0B] = value
            return
        self.regs[register] = value

    def load(self, register: int) -> int:
        if register in (self.GPIOA, self.GPIOB):
            port = register - self.GPIOA
            iodir, olat = self.regs[self.IODIRA + port], self.regs[self.OLATA + port]
            return (olat & ~iodir & 0xFF) | (self.inputs[port] & iodir)
        return self.regs[register]


# --- PCA9685 ---------------------------------------------------------------------------------------------


class PCA9685Sim(RegisterDevice):
    """PCA9685 16-channel PWM controller: MODE1 AI bit gates auto-increment; PRE_SCALE writable only in SLEEP."""

    kind = "pca9685"
    MODE1, MODE2, PRE_SCALE = 0x00, 0x01, 0xFE

    def __init__(self, address: int, params: _Params) -> None:
        super().__init__(address, params)
        self.regs[self.MODE1] = 0x11  # SLEEP | ALLCALL after power-on
        self.regs[self.MODE2] = 0x04  # OUTDRV totem pole
        self.regs[0xFA:0xFE] = bytes([0x00, 0x00, 0x00, 0x10])  # ALL_LED_OFF full-off bit
        self.regs[self.PRE_SCALE] = 0x1E  # 200 Hz with the 25 MHz oscillator

    def auto_increment(self) -> bool:
        return bool(self.regs[self.MODE1] & 0x20)

    def store(self, register: int, value: int) -> None:
        if register == self.PRE_SCALE and not self.regs[self.MODE1] & 0x10:
            return  # PRE_SCALE writes are ignored unless MODE1.SLEEP is set (datasheet 7.3.5)
        if 0x46 <= register <= 0xF9:
            return  # reserved
        self.regs[register] = value

    def channel(self, n: int) -> tuple[int, int]:
        """(ON count, OFF count) of channel ``n`` (12-bit each plus the full-on/off bit 12)."""
        base = 0x06 + 4 * n
        r = self.regs
        return r[base] | r[base + 1] << 8, r[base + 2] | r[base + 3] << 8


# --- SPI -------------------------------------------------------------------------------------------------


class SimSPIDevice:
    """Base of SPI target models: MISO floats high (pull-up) when nothing drives it."""

    Params: ClassVar[type[_Params]] = _Params
    kind: ClassVar[str] = "none"
    modes: ClassVar[tuple[int, ...]] = (0, 1, 2, 3)

    def __init__(self, params: _Params) -> None:
        self.params = params

    def transfer(self, data: bytes, mode: int) -> bytes:
        return b"\xff" * len(data)


class LoopbackSim(SimSPIDevice):
    """MOSI wired to MISO: every byte comes straight back."""

    kind = "loopback"

    def transfer(self, data: bytes, mode: int) -> bytes:
        return bytes(data)


class MCP3008Params(_Params):
    """Scenario parameters of the simulated MCP3008."""

    vref: float = Field(3.3, gt=0)
    channels: list[float] = Field(default_factory=lambda: [0.0] * 8, description="volts on CH0..CH7")


class MCP3008Sim(SimSPIDevice):
    """MCP3008 10-bit ADC, modelled bit by bit (datasheet figure 6-1): start bit, SGL/DIFF, D2..D0, one
    sample clock, a null bit, then B9..B0 MSB first (then LSB first); works at any byte alignment."""

    Params = MCP3008Params
    kind = "mcp3008"
    modes = (0, 3)  # the part supports SPI modes 0,0 and 1,1 only

    def set_voltage(self, channel: int, volts: float) -> None:
        """Apply ``volts`` to input CH``channel``."""
        params = self.params
        assert isinstance(params, MCP3008Params)
        while len(params.channels) < 8:
            params.channels.append(0.0)
        params.channels[channel] = volts

    def code(self, single: bool, channel: int) -> int:
        """The 10-bit conversion result for a channel (single-ended or pseudo-differential)."""
        params = self.params
        assert isinstance(params, MCP3008Params)
        chans = [*params.channels, *[0.0] * 8][:8]
        volts = chans[channel] if single else chans[channel] - chans[channel ^ 1]
        return max(0, min(1023, int(1024 * volts / params.vref)))

    def transfer(self, data: bytes, mode: int) -> bytes:
        if mode not in self.modes:
            return b"\xff" * len(data)  # sampling on the wrong edge: the controller sees garbage high bits
        bits_in = [(byte >> (7 - i)) & 1 for byte in data for i in range(8)]
        out: list[int] = []
        config: list[int] = []
        state, sample, idx = "idle", 0, 0
        for bit in bits_in:
            if state == "idle":
                out.append(1)  # DOUT is high-impedance before the start bit (pulled up here)
                if bit:
                    state, config = "config", []
            elif state == "config":
                out.append(1)
                config.append(bit)
                if len(config) == 4:
                    single = bool(config[0])
                    channel = config[1] << 2 | config[2] << 1 | config[3]
                    sample, state = self.code(single, channel), "sample"
            elif state == "sample":
                out.append(1)  # the sample-and-hold clock after D0: DOUT still high-impedance
                state = "null"
            elif state == "null":
                out.append(0)
                state, idx = "data", 9
            elif state == "data":
                out.append((sample >> idx) & 1)
                idx -= 1
                if idx < 0:
                    state, idx = "lsb", 1  # B0 already sent; LSB-first repeat starts at B1
            elif state == "lsb":
                out.append((sample >> idx) & 1 if idx <= 9 else 0)
                idx += 1
            else:  # pragma: no cover
                out.append(0)
        result = bytearray()
        for i in range(0, len(out), 8):
            byte = 0
            for b in out[i:i + 8]:
                byte = byte << 1 | b
            result.append(byte)
        return bytes(result)


I2C_MODELS: dict[str, type[SimI2CDevice]] = {
    m.kind: m for m in (BME280Sim, SSD1306Sim, EEPROM24Sim, MCP23017Sim, PCA9685Sim, SimI2CDevice)
}
SPI_MODELS: dict[str, type[SimSPIDevice]] = {m.kind: m for m in (MCP3008Sim, LoopbackSim, SimSPIDevice)}
