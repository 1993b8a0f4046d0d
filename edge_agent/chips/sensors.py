"""Sensors a watch can sample: channel names, units and the range the part can physically report.

Data only: the configuration reads it to validate rule channel names, and the watch runner imports
the driver named here only when a watch actually starts.
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_agent.errors import ConfigError


@dataclass(frozen=True)
class Channel:
    """One value a sensor reports, with the range outside which a reading is rejected as bogus."""

    name: str
    unit: str
    low: float
    high: float


@dataclass(frozen=True)
class SensorSpec:
    """A sensor driver (``module:Class``) and the channels its ``read()`` result carries as attributes."""

    driver: str
    channels: tuple[Channel, ...]
    addresses: tuple[int, ...]

    @property
    def channel_names(self) -> tuple[str, ...]:
        """Channel names in model-input order."""
        return tuple(c.name for c in self.channels)


SENSORS: dict[str, SensorSpec] = {
    # BME280 datasheet (BST-BME280-DS002) §1 "Operating range": -40..85 °C, 0..100 %RH,
    # 300..1100 hPa. Anything outside is a bus glitch or an uncompensated raw value, not weather.
    # SDO low selects 0x76, high 0x77 (§6.2).
    "bme280": SensorSpec(
        driver="edge_agent.drivers.bme280:BME280",
        channels=(
            Channel("temperature_c", "°C", -40.0, 85.0),
            Channel("humidity_pct", "%RH", 0.0, 100.0),
            Channel("pressure_hpa", "hPa", 300.0, 1100.0),
        ),
        addresses=(0x76, 0x77),
    ),
}


def sensor_spec(name: str) -> SensorSpec:
    """The spec of sensor `name`, or ConfigError listing known sensors."""
    try:
        return SENSORS[name]
    except KeyError:
        raise ConfigError(f"unknown sensor {name!r}; known sensors: {', '.join(sorted(SENSORS))}") from None
