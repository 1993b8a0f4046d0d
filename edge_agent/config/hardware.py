"""``[hardware.safety]``: the write policy of every adapter."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from edge_agent.config._base import _each_matches, _Section


class AdapterSafety(_Section):
    """Per-adapter write policy; the table key is the adapter name or URL scheme."""

    read_only: bool | None = Field(None, description="true refuses every write on this adapter, false allows every "
                                   "write; unset: only the writable_* lists, on a simulated adapter too.")
    writable_gpio: list[str] = Field(default_factory=list, description="Pins whose level, direction or pull may be "
                                     "changed; any pin name or alias, resolved once when the adapter opens.")
    writable_i2c: list[str] = Field(
        default_factory=list, description="'0x3C' (any register) or '0x76:0xF2-0xF5' (register range; every byte a "
        "write stores must land inside); '0x50:0x0000-0x0FFF' for two-byte register addresses."
    )
    writable_spi: list[str] = Field(default_factory=list, description="'0.0' bus.chip-select, or '*'.")

    @field_validator("writable_gpio", "writable_i2c", mode="before")
    @classmethod
    def _numbers_as_names(cls, v: object, info: ValidationInfo) -> object:
        """A bare TOML integer is a line number (``17``) or an I2C address (``0x3C``): the same entry as its text."""
        if not isinstance(v, list):
            return v
        shown = "0x{:02X}".format if info.field_name == "writable_i2c" else str
        return [shown(item) if isinstance(item, int) and not isinstance(item, bool) else item for item in v]

    @field_validator("writable_i2c")
    @classmethod
    def _i2c_rules(cls, v: list[str]) -> list[str]:
        num = r"(0[xX][0-9a-fA-F]+|\d+)"
        return _each_matches(v, rf"{num}(:{num}(-{num})?)?|\*", "is not an I2C rule; use '0x3C' (any register), "
                             "'0x76:0xF4', '0x76:0xF2-0xF5' or '0x50:0x0000-0x0FFF', or '*'")

    @field_validator("writable_spi")
    @classmethod
    def _spi_rules(cls, v: list[str]) -> list[str]:
        return _each_matches(v, r"\d+\.\d+|\*", "is not an SPI device; use 'BUS.CS' like '0.0', or '*'")


class SafetyConfig(_Section):
    read_only: bool = Field(False, description="true refuses every write on every adapter.")
    adapters: dict[str, AdapterSafety] = Field(default_factory=dict)


class HardwareConfig(_Section):
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
