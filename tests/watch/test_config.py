"""[[watch]] configuration: defaults, derived model shapes, and errors that name the key path."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from edge_agent.config import ConfigError, parse_settings, to_toml


def _watch(**kw: Any) -> dict[str, Any]:
    return parse_settings({"watch": [{"name": "w", **kw}]}).watch[0]  # type: ignore[return-value]


def _error(**kw: Any) -> str:
    with pytest.raises(ConfigError) as exc:
        parse_settings({"watch": [{"name": "w", **kw}]})
    return str(exc.value)


def test_a_minimal_watch_is_a_rule_only_hourly_summary_of_the_bme280_at_0x76() -> None:
    w = _watch()
    assert (w.sensor, w.address, w.interval_s, w.window, w.model.path, w.rule.kind) == (
        "bme280", 0x76, 1.0, 16, "", "summary")
    assert w.rate_limit.max_captures == 6


def test_model_tensor_shapes_default_to_window_by_channels_and_one_score() -> None:
    w = _watch(window=8, model={"path": "m.tflite", "channels": ["temperature_c", "pressure_hpa"]})
    assert w.input_shape() == (1, 8, 2)
    assert w.output_shape() == (1, 1)
    assert w.model_channels() == ("temperature_c", "pressure_hpa")


@pytest.mark.parametrize(("kw", "path"), [
    ({"rule": {"kind": "treshold", "above": 1}}, "watch.0.rule"),
    ({"rule": {"kind": "threshold"}}, "watch.0.rule.threshold"),
    ({"rule": {"kind": "change", "on": "temperature_c", "delta": 0}}, "watch.0.rule.change.delta"),
    ({"rule": {"kind": "summary", "every_s": 1, "evry": 2}}, "watch.0.rule.summary.evry"),
    ({"address": 0x80}, "watch.0.address"),
    ({"interval_s": 0}, "watch.0.interval_s"),
    ({"sensor": "dht22"}, "watch.0.sensor"),
    ({"rate_limit": {"max_captures": 0}}, "watch.0.rate_limit.max_captures"),
    ({"model": {"path": "m.tflite", "input": {"dtype": "float64"}}}, "watch.0.model.input.dtype"),
    ({"model": {"path": "m.tflite", "input": {"shape": [1, 0, 3]}}}, "watch.0.model.input.shape"),
    ({"name": "has space"}, "watch.0.name"),
])
def test_invalid_watch_settings_name_the_key_path(kw: dict[str, Any], path: str) -> None:
    assert f"  {path}:" in _error(**kw)


@pytest.mark.parametrize(("kw", "mentions"), [
    ({"rule": {"kind": "threshold", "above": 0.5}}, "rule.on"),  # score without a model
    ({"rule": {"kind": "threshold", "on": "temp", "above": 30}}, "rule.on"),
    ({"model": {"path": "m.tflite", "channels": ["co2"]}}, "model.channels"),
    ({"model": {"path": "m.tflite", "input": {"shape": [1, 32, 3]}}}, "model.input.shape"),
    ({"window": 4, "step": 5}, "step"),
])
def test_cross_field_errors_name_the_offending_key(kw: dict[str, Any], mentions: str) -> None:
    msg = _error(**kw)
    assert "watch.0" in msg and mentions in msg


def test_watches_render_back_to_toml_that_parses_to_the_same_settings() -> None:
    settings = parse_settings({"watch": [
        {"name": "a", "model": {"path": "builtin:bme280_anomaly"}, "rule": {"kind": "threshold", "above": 0.5}},
        {"name": "b", "rule": {"kind": "change", "on": "humidity_pct", "delta": 5}},
    ]})
    again = parse_settings(tomllib.loads(to_toml(settings)))
    assert again.watch == settings.watch
