"""Opening a sensor for a watch: the driver named by the sensor catalogue, read as {channel: value}.

The catalogue itself (channels, units, physical ranges) is data in :mod:`edge_agent.chips.sensors`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from edge_agent.chips.sensors import SENSORS, Channel, SensorSpec, sensor_spec

__all__ = ["SENSORS", "Channel", "SensorSpec", "open_sampler", "sensor_spec"]


def open_sampler(sensor: str, i2c: Any, address: int) -> Callable[[], dict[str, float]]:
    """Construct the sensor's driver on `i2c` and return a function reading one sample as {channel: value}."""
    spec = sensor_spec(sensor)
    module_name, _, cls_name = spec.driver.partition(":")
    driver_cls = getattr(importlib.import_module(module_name), cls_name)
    driver = driver_cls(i2c, address=address)
    names = spec.channel_names

    def sample() -> dict[str, float]:
        reading = driver.read()
        return {n: float(getattr(reading, n)) for n in names}

    return sample
