"""A demo watch for `make run`: the bundled anomaly model on a simulated BME280 that misbehaves once.

``demo_watch()`` returns a ready :class:`~edge_agent.config.WatchConfig`; the runtime may append it
to ``settings.watch`` when it runs on the embedded defaults. It samples its own simulated board
(``sim://nucleo-f401re`` with :file:`demo_scenario.toml`), so the anomaly it shows never disturbs
the board the MCP tools use. The same watch in edge-agent.toml (``adapter`` naming a sim board and
the anomaly injected with ``sim.bme280().inject_anomaly(...)``) looks like::

    [[watch]]
    name = "demo-bme280"
    adapter = "nucleo-f401re"
    interval_s = 1.0
    window = 16
    model = { path = "builtin:bme280_anomaly" }
    rule = { kind = "threshold", on = "score", above = 0.5 }
    rate_limit = { max_captures = 6, per_s = 3600 }
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from edge_agent.config import WatchConfig

DEMO_NAME = "demo-bme280"


def demo_scenario_path() -> Path:
    """The bundled simulator scenario with the scripted BME280 anomaly."""
    return Path(str(resources.files("edge_agent.watch") / "demo_scenario.toml"))


def demo_watch(*, interval_s: float = 1.0, model: bool = True) -> WatchConfig:
    """The demo watch: model watch (threshold on score) or, with ``model=False``, a rule-only one.

    The rule-only variant fires on a 3 °C jump in the window's max temperature, so it works without
    the ``ml`` extra.
    """
    adapter = f"sim://nucleo-f401re?scenario={demo_scenario_path()}"
    if model:
        return WatchConfig.model_validate({
            "name": DEMO_NAME, "adapter": adapter, "interval_s": interval_s, "window": 16,
            "model": {"path": "builtin:bme280_anomaly"},
            "rule": {"kind": "threshold", "on": "score", "above": 0.5},
        })
    return WatchConfig.model_validate({
        "name": DEMO_NAME, "adapter": adapter, "interval_s": interval_s, "window": 8,
        "rule": {"kind": "change", "on": "temperature_c", "stat": "max", "delta": 3.0},
    })
