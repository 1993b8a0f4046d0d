"""``[[watch]]``: a sensor sampled into windows, an optional model, and the rule that decides a capture."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer, model_validator

from edge_agent.chips.sensors import SENSORS
from edge_agent.config._base import _Section
from edge_agent.names import capture_type_problem


def _check_capture_type(value: str) -> str:
    # The memory store refuses a capture of any other form: caught here, `config check` fails on it
    # instead of every capture of the watch being refused at run time.
    problem = capture_type_problem(value)
    if problem:
        raise ValueError(problem)
    return value


class _WatchSection(_Section):
    # Optional keys left unset are dropped when dumping, so `config check` prints valid TOML (TOML
    # has no null) and only what the user wrote or a real default.
    @model_serializer(mode="wrap")
    def _drop_unset_optionals(self, handler: SerializerFunctionWrapHandler) -> object:
        data = handler(self)
        return {k: v for k, v in data.items() if v is not None} if isinstance(data, dict) else data


class TensorDesc(_WatchSection):
    """Shape and element type the watch expects of one model tensor."""

    shape: list[int] = Field(default_factory=list, description="Empty derives it: input [1, window, channels], "
                             "output [1, 1].")
    dtype: Literal["float32", "int8", "uint8", "int16", "int32"] = Field("float32", description="Element type; "
                                                                         "int8/uint8 are (de)quantized with the "
                                                                         "model's own scale.")

    @field_validator("shape")
    @classmethod
    def _positive(cls, v: list[int]) -> list[int]:
        if any(d < 1 for d in v):
            raise ValueError(f"dimensions must be positive, got {v}")
        return v


class WatchModel(_WatchSection):
    """``[watch.model]``: an optional .tflite model run on each full window."""

    path: str = Field("", description="'' = rule-only; 'builtin:bme280_anomaly' = the bundled model; else a "
                      "file path, relative to the config file.")
    channels: list[str] = Field(default_factory=list, description="Input channel order; empty = all of the "
                                "sensor's channels in its order.")
    input: TensorDesc = Field(default_factory=TensorDesc)
    output: TensorDesc = Field(default_factory=TensorDesc)
    score_index: int = Field(0, ge=0, description="Which output element is the score.")


Stat = Literal["last", "mean", "min", "max"]


class ThresholdRule(_WatchSection):
    """Capture when a value crosses a threshold (edge-triggered unless `repeat`)."""

    kind: Literal["threshold"] = Field(description="Rule type.")
    on: str = Field("score", description="'score' (model output) or a sensor channel name.")
    stat: Stat = Field("max", description="Window statistic compared.")
    above: float | None = Field(None, description="Fire when the statistic is strictly above this.")
    below: float | None = Field(None, description="Fire when the statistic is strictly below this.")
    repeat: bool = Field(False, description="Capture every window past the threshold, not only on entering.")
    capture_type: str = Field("anomaly", description="Memory type of the capture (a lowercase label).")
    importance: float = Field(0.8, ge=0.0, le=1.0, description="Importance of the capture.")

    _capture_type = field_validator("capture_type")(_check_capture_type)

    @model_validator(mode="after")
    def _bound(self) -> ThresholdRule:
        if self.above is None and self.below is None:
            raise ValueError("a threshold rule needs `above` or `below` (or both)")
        return self


class ChangeRule(_WatchSection):
    """Capture when a window statistic moved by at least `delta` since the last reported value."""

    kind: Literal["change"] = Field(description="Rule type.")
    on: str = Field(description="A sensor channel name, or 'score' (model output).")
    stat: Stat = Field("mean", description="Window statistic compared.")
    delta: float = Field(gt=0, description="Least change since the last reported value that fires.")
    capture_type: str = Field("state_change", description="Memory type of the capture (a lowercase label).")
    importance: float = Field(0.6, ge=0.0, le=1.0, description="Importance of the capture.")

    _capture_type = field_validator("capture_type")(_check_capture_type)


class SummaryRule(_WatchSection):
    """Capture a window summary at most every `every_s` seconds (first one on the first full window)."""

    kind: Literal["summary"] = Field(description="Rule type.")
    every_s: float = Field(3600.0, gt=0, description="Least time between two summaries.")
    capture_type: str = Field("fact", description="Memory type of the capture (a lowercase label).")
    importance: float = Field(0.3, ge=0.0, le=1.0, description="Importance of the capture.")

    _capture_type = field_validator("capture_type")(_check_capture_type)


class RateLimit(_WatchSection):
    """At most `max_captures` captures per `per_s` seconds per watch; the rest are counted, not stored."""

    max_captures: int = Field(6, ge=1, description="Captures allowed per period.")
    per_s: float = Field(3600.0, gt=0, description="Period in seconds.")


class WatchConfig(_WatchSection):
    """One ``[[watch]]``: sample a sensor, keep a window, optionally run a model, apply a rule."""

    name: str = Field(description="Watch name, used by `watch run-once` and in captures (watch://NAME).")
    enabled: bool = Field(True, description="false keeps the watch configured but never runs it.")
    sensor: Literal["bme280"] = Field("bme280", description="Sensor driver; bme280 has channels temperature_c, "
                                      "humidity_pct, pressure_hpa.")
    adapter: str = Field("", description="Adapter name from [[peripherals.boards]] or an adapter URL; "
                         "empty = the first board.")
    bus: str = Field("", description="I2C bus name on the adapter; empty = its default bus.")
    address: int = Field(0x76, ge=0x03, le=0x77, description="I2C address of the sensor.")
    interval_s: float = Field(1.0, gt=0, le=86400, description="Sampling interval.")
    window: int = Field(16, ge=1, le=4096, description="Samples per window.")
    step: int = Field(0, ge=0, description="Samples between evaluations; 0 = window (non-overlapping).")
    backoff_max_s: float = Field(300.0, gt=0, description="Longest wait between retries of a failing sensor.")
    model: WatchModel = Field(default_factory=WatchModel)
    rule: ThresholdRule | ChangeRule | SummaryRule = Field(
        default_factory=lambda: SummaryRule(kind="summary"), discriminator="kind"
    )
    rate_limit: RateLimit = Field(default_factory=RateLimit)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        v = v.strip()
        if not v or not all(c.isalnum() or c in "-_." for c in v):
            raise ValueError("must be a non-empty name of letters, digits, '-', '_' or '.', e.g. 'bench-env'")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> WatchConfig:
        spec = SENSORS[self.sensor]
        names = spec.channel_names
        if self.step > self.window:
            raise ValueError(f"step ({self.step}) must not exceed window ({self.window})")
        for ch in self.model.channels:
            if ch not in names:
                raise ValueError(f"model.channels: {ch!r} is not a {self.sensor} channel; use {', '.join(names)}")
        on = getattr(self.rule, "on", None)
        if on == "score" and not self.model.path:
            raise ValueError(f"rule.on = 'score' needs a model; set model.path or put the rule on one of "
                             f"{', '.join(names)}")
        if on is not None and on != "score" and on not in names:
            raise ValueError(f"rule.on: {on!r} is not 'score' nor a {self.sensor} channel ({', '.join(names)})")
        if self.model.path and self.model.input.shape:
            n = 1
            for d in self.model.input.shape:
                n *= d
            width = len(self.model.channels or names)
            if n != self.window * width:
                raise ValueError(f"model.input.shape {self.model.input.shape} holds {n} values but window "
                                 f"{self.window} x {width} channels is {self.window * width}")
        return self

    def model_channels(self) -> tuple[str, ...]:
        """Channel order fed to the model."""
        return tuple(self.model.channels) or SENSORS[self.sensor].channel_names

    def input_shape(self) -> tuple[int, ...]:
        """The model input shape: as described, else [1, window, channels]."""
        return tuple(self.model.input.shape) or (1, self.window, len(self.model_channels()))

    def output_shape(self) -> tuple[int, ...]:
        """The model output shape: as described, else [1, 1]."""
        return tuple(self.model.output.shape) or (1, 1)
