"""Fixtures for watch tests: a simulated board, settings with watches, a memory store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.config import Settings, parse_settings


@pytest.fixture
def sim() -> Iterator[Any]:
    """sim://nucleo-f401re with the default scenario (BME280 at 0x76, small noise)."""
    from edge_agent.bus import open_adapter

    adapter = open_adapter("sim://nucleo-f401re", name="nucleo-f401re")
    yield adapter
    adapter.close()


def make_settings(*watches: dict[str, Any], **sections: Any) -> Settings:
    """Settings with these [[watch]] tables (fast sampling unless given)."""
    return parse_settings({**sections, "watch": [{"interval_s": 0.001, **w} for w in watches]})


MODEL_WATCH = {"name": "env", "model": {"path": "builtin:bme280_anomaly"},
               "rule": {"kind": "threshold", "above": 0.5}}


@pytest.fixture
def model_path() -> Path:
    """The bundled model file."""
    from edge_agent.watch import builtin_model_path

    return builtin_model_path("bme280_anomaly")
