"""Run ``[[watch]]`` entries: sample, window, infer, apply the rule, store captures; never crash the daemon.

A :class:`Watch` owns one sensor on one adapter. Each :meth:`Watch.tick` takes one reading (holding the
adapter's lock, so an MCP tool's transaction never interleaves with the BME280 forced-measurement
sequence), screens it, and once the window is ready evaluates the model and rule. A bus error (NACK,
timeout, unplugged adapter) puts the watch in ``backoff``: the window is cleared (the samples are no
longer contiguous), the driver is rebuilt on the next attempt (a power-cycled part has lost its
configuration), and the wait doubles from the sampling interval up to ``backoff_max_s``.
:class:`WatchRunner` schedules every watch in one thread.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict

from edge_agent.bus.base import Adapter
from edge_agent.bus.pool import AdapterSlot
from edge_agent.config import Settings, WatchConfig
from edge_agent.errors import (
    BusError,
    BusTimeoutError,
    ConfigError,
    EdgeAgentError,
    I2CNackError,
    InferenceError,
)
from edge_agent.jsontypes import JsonObject
from edge_agent.watch.inference import Model, TensorSpec
from edge_agent.watch.rules import RateLimiter, Trigger, make_rule, num
from edge_agent.watch.sensors import open_sampler, sensor_spec
from edge_agent.watch.window import Window, WindowSummary, iso_utc

if TYPE_CHECKING:
    from edge_agent.memory.captures import Capture

log = logging.getLogger(__name__)

BUILTIN_PREFIX = "builtin:"
#: Shortest first retry after a sensor error, however fast the watch samples: a part that NACKed
#: is usually mid-reset or unplugged, and hammering it at 50 Hz only fills the log.
MIN_BACKOFF_S = 0.5
#: Recent accepted readings, scores and captures kept per watch for the status page (bounded memory).
HISTORY_READINGS = 300
HISTORY_EVENTS = 50


def builtin_model_path(name: str) -> Path:
    """Path of a model shipped in edge_agent/watch/models (``builtin:bme280_anomaly``)."""
    path = Path(str(resources.files("edge_agent.watch") / "models" / f"{name}.tflite"))
    if not path.is_file():
        known = sorted(p.stem for p in path.parent.glob("*.tflite"))
        raise ConfigError(f"no builtin model {name!r}; builtin models: {', '.join(known) or '(none)'}")
    return path


def resolve_model_path(cfg: WatchConfig, base_dir: Path | None) -> Path:
    """The model file a watch names: builtin, absolute, or relative to the config file's folder."""
    raw = cfg.model.path
    if raw.startswith(BUILTIN_PREFIX):
        return builtin_model_path(raw[len(BUILTIN_PREFIX):])
    path = Path(raw).expanduser()
    return path if path.is_absolute() or base_dir is None else base_dir / path


def load_watch_model(cfg: WatchConfig, base_dir: Path | None = None) -> Model | None:
    """Load and validate a watch's model, or None for a rule-only watch.

    Raises:
        InferenceError: missing/truncated/foreign file, or tensors not as the watch describes.
        BackendUnavailable: no interpreter installed while the watch names a model.
    """
    if not cfg.model.path:
        return None
    path = resolve_model_path(cfg, base_dir)
    model = Model.load(path, TensorSpec(cfg.input_shape(), cfg.model.input.dtype),
                       TensorSpec(cfg.output_shape(), cfg.model.output.dtype))
    size = 1
    for d in cfg.output_shape():
        size *= d
    if cfg.model.score_index >= size:
        raise InferenceError(f"watch {cfg.name!r}: model.score_index {cfg.model.score_index} is outside the "
                             f"{size}-element output")
    return model


class CaptureRecorder(Protocol):
    """What stores one capture (the memory store's capture writer, ``store.captures``)."""

    def record_capture(self, capture: Capture) -> Capture: ...


class CaptureStore(Protocol):
    """Where a watch's captures go (the memory store)."""

    @property
    def captures(self) -> CaptureRecorder: ...


class RuntimeParts(Protocol):
    """What a runner takes from the runtime: settings, adapter slots and the memory store."""

    @property
    def settings(self) -> Settings: ...
    @property
    def adapters(self) -> Mapping[str, AdapterSlot]: ...
    @property
    def memory(self) -> CaptureStore | None: ...


class Watch:
    """One configured watch: sensor sampling, window, optional model, rule, rate limit and state."""

    def __init__(self, cfg: WatchConfig, port: AdapterSlot, *, model: Model | None,
                 deliver: Callable[[Capture], Capture] | None = None, wall: Callable[[], float] = time.time) -> None:
        self.cfg = cfg
        self.name = cfg.name
        self.port = port
        self.model = model
        self.spec = sensor_spec(cfg.sensor)
        self.window = Window(self.spec.channels, cfg.window, cfg.step)
        self._model_channels = cfg.model_channels()
        self.rule = make_rule(cfg.rule)
        self.limiter = RateLimiter(cfg.rate_limit)
        self.deliver = deliver
        self._wall = wall
        self._sample: Callable[[], dict[str, float]] | None = None
        self.bus_number: int | None = None  # the I2C bus actually used, once the sensor is open
        self.state = "starting"
        self.next_due = 0.0
        self.samples = 0
        self.evaluations = 0
        self.captures = 0
        self.store_errors = 0
        self.inference_errors = 0
        self.errors = {"nack": 0, "timeout": 0, "other": 0}
        self.consecutive_errors = 0
        self.last_error = ""
        self.last_score: float | None = None
        self.last_capture_id = ""
        self.last_summary: WindowSummary | None = None
        self.overruns = 0
        self.readings: deque[tuple[float, dict[str, float]]] = deque(maxlen=HISTORY_READINGS)
        self.scores: deque[tuple[float, float]] = deque(maxlen=HISTORY_EVENTS)
        self.recent_captures: deque[JsonObject] = deque(maxlen=HISTORY_EVENTS)

    # scheduling ------------------------------------------------------------------------------------

    def tick(self, now: float) -> Capture | None:
        """Take one sample at monotonic time `now`; return the stored capture, if this sample produced one.

        Never raises: every failure is counted in :meth:`status` and scheduled for a retry.
        """
        try:
            return self._tick(now)
        except Exception as exc:  # a bug or an unexpected driver error must not stop other watches
            log.exception("watch %s: unexpected error", self.name)
            self._fail(exc, now, kind="other")
            return None

    def _tick(self, now: float) -> Capture | None:
        why = self.port.usable()
        if why:
            self._fail(None, now, kind="other", reason=f"adapter {self.port.name}: {why}")
            return None
        try:
            with self.port.lock:
                if self._sample is None:
                    bus: int | str | None = self.cfg.bus or None
                    if isinstance(bus, str) and bus.isdigit():
                        bus = int(bus)
                    i2c = self.port.require().i2c(bus)
                    self.bus_number = getattr(i2c, "bus", None)
                    self._sample = open_sampler(self.cfg.sensor, i2c, self.cfg.address)
                values = self._sample()
        except BusError as exc:
            self._fail(exc, now, kind=_error_kind(exc))
            return None
        self._schedule(now)
        if self.consecutive_errors:
            log.info("watch %s: sensor answering again after %d error(s)", self.name, self.consecutive_errors)
        self.consecutive_errors = 0
        self.state = "sampling"
        self.samples += 1
        at = self._wall()
        if not self.window.add(values, at):
            # The sensor answers but reports nonsense (NaN, beyond its range): say so in the state,
            # since the window cannot fill and no rule will ever fire.
            self.state = "dropping"
            log.debug("watch %s: reading dropped: %s", self.name, self.window.screen.last_reason)
            return None
        self.readings.append((at, {c.name: float(values[c.name]) for c in self.spec.channels}))
        if not self.window.ready():
            return None
        return self.evaluate(now)

    def _schedule(self, now: float) -> None:
        interval = self.cfg.interval_s
        due = (self.next_due or now) + interval
        if due <= now:  # fell behind (slow bus, busy CPU): skip the missed slots rather than burst
            self.overruns += 1
            due = now + interval
        self.next_due = due

    def _fail(self, exc: BaseException | None, now: float, *, kind: str, reason: str = "") -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        self.consecutive_errors += 1
        self.last_error = reason or f"{type(exc).__name__}: {exc}"
        delay = min(max(self.cfg.interval_s, MIN_BACKOFF_S) * 2 ** min(self.consecutive_errors - 1, 30),
                    self.cfg.backoff_max_s)
        self.next_due = now + delay
        self.window.clear()
        self._sample = None
        self.state = "backoff"
        level = logging.WARNING if self.consecutive_errors in (1, 5) or self.consecutive_errors % 50 == 0 \
            else logging.DEBUG
        log.log(level, "watch %s: %s (error %d in a row); retrying in %.1f s", self.name, self.last_error,
                self.consecutive_errors, delay)

    # evaluation ------------------------------------------------------------------------------------

    def evaluate(self, now: float) -> Capture | None:
        """Summarise the full window, score it, apply the rule and the rate limit; deliver a capture."""
        summary = self.window.summary()
        self.window.mark_evaluated()
        self.evaluations += 1
        self.last_summary = summary
        score = None
        if self.model is not None:
            try:
                out = self.model.predict(self.window.rows(self._model_channels))
                score = out[self.cfg.model.score_index]
            except (InferenceError, ValueError, RuntimeError) as exc:
                self.inference_errors += 1
                self.last_error = f"inference failed: {exc}"
                log.warning("watch %s: %s", self.name, self.last_error)
        self.last_score = score
        if score is not None:
            self.scores.append((summary.ended_at, float(score)))
        trigger = self.rule.evaluate(summary, score, now)
        if trigger is None or not self.limiter.allow(now):
            if trigger is not None:
                log.info("watch %s: %s rate-limited (%d per %g s)", self.name, trigger.reason,
                         self.limiter.max, self.limiter.per_s)
            return None
        capture = self.build_capture(trigger, summary, score)
        if self.deliver is None:
            self.rule.committed(trigger, now)
            return capture
        try:
            stored = self.deliver(capture)
        except EdgeAgentError as exc:
            self.store_errors += 1
            self.last_error = f"capture not stored: {exc}"
            log.warning("watch %s: %s", self.name, self.last_error)
            return None
        self.rule.committed(trigger, now)
        self.captures += 1
        stored = stored if stored is not None else capture
        self.last_capture_id = getattr(stored, "id", "")
        self.recent_captures.append({"at": summary.ended_at, "id": self.last_capture_id, "type": capture.type,
                                     "title": capture.title})
        return stored

    def history(self) -> JsonObject:
        """Recent readings (oldest first) per channel with units, model scores and captures, for plotting."""
        rows = list(self.readings)
        return {
            "channels": [{"name": c.name, "unit": c.unit} for c in self.spec.channels],
            "t": [at for at, _ in rows],
            "values": {c.name: [v[c.name] for _, v in rows] for c in self.spec.channels},
            "scores": [list(p) for p in self.scores],
            "captures": list(self.recent_captures),
        }

    def source(self) -> str:
        """Where the readings come from: ``watch://NAME`` naming adapter, bus and address."""
        return f"watch://{self.name}"

    def build_capture(self, trigger: Trigger, summary: WindowSummary, score: float | None) -> Capture:
        """A typed capture carrying the window summary, the model score and the watch's source."""
        from edge_agent.memory.captures import Capture

        cfg = self.cfg
        units = {c.name: c.unit for c in self.spec.channels}
        span = f"{iso_utc(summary.started_at)} to {iso_utc(summary.ended_at)}"
        where = f"{cfg.sensor.upper()} at 0x{cfg.address:02X} on {self.port.url}"
        lines = [f"Watch {cfg.name} ({where}): {trigger.capture_type}: {trigger.reason}.",
                 f"Window of {summary.count} samples every {cfg.interval_s:g} s, {span}:"]
        for ch, st in summary.channels.items():
            lines.append(f"  {ch}: min {num(st.min)} max {num(st.max)} mean {num(st.mean)} last {num(st.last)} "
                         f"{units[ch]}")
        if score is not None:
            lines.append(f"Model {cfg.model.path} score {score:.4f}.")
        metadata = {
            "source": self.source(),
            "category": "sensor",
            "watch": cfg.name,
            "rule": trigger.rule,
            "sensor": cfg.sensor,
            "adapter": self.port.name,
            "adapter_url": self.port.url,
            "bus": str(self.bus_number if self.bus_number is not None else cfg.bus),
            "address": f"0x{cfg.address:02X}",
            "window": json.dumps(summary.as_dict(), separators=(",", ":")),
            "score": "" if score is None else f"{score:.6f}",
            "model": cfg.model.path,
        }
        return Capture(
            type=trigger.capture_type,
            title=f"{cfg.name}: {trigger.reason}"[:200],
            content="\n".join(lines),
            tags=("watch", f"watch:{cfg.name}", cfg.sensor, trigger.capture_type),
            importance=trigger.importance,
            metadata=metadata,
        )

    def status(self) -> JsonObject:
        """The watch's state and counters (for `watch list`, runtime status and the MCP tool)."""
        screen = self.window.screen
        return {
            "name": self.name, "enabled": self.cfg.enabled, "state": self.state, "sensor": self.cfg.sensor,
            "adapter": self.port.name, "adapter_url": self.port.url, "address": f"0x{self.cfg.address:02X}",
            "interval_s": self.cfg.interval_s, "window": self.cfg.window, "rule": self.cfg.rule.kind,
            "model": self.cfg.model.path, "backend": self.model.backend if self.model else None,
            "samples": self.samples, "evaluations": self.evaluations, "captures": self.captures,
            "rate_limited": self.limiter.suppressed, "store_errors": self.store_errors,
            "dropped": {"nan": screen.nan, "out_of_range": screen.out_of_range, "missing": screen.missing},
            "errors": dict(self.errors), "consecutive_errors": self.consecutive_errors,
            "inference_errors": self.inference_errors, "overruns": self.overruns,
            "last_error": self.last_error, "last_score": self.last_score, "last_capture_id": self.last_capture_id,
            "last_window": self.last_summary.as_dict() if self.last_summary else None,
        }


def _error_kind(exc: BusError) -> str:
    if isinstance(exc, I2CNackError):
        return "nack"
    if isinstance(exc, BusTimeoutError):
        return "timeout"
    return "other"


class WatchOutcome(TypedDict):
    """What :meth:`WatchRunner.run_once` saw: whether a window was evaluated, the capture it stored (if it
    triggered) and the watch's status after it."""

    watch: str
    evaluated: bool
    capture: Capture | None
    status: JsonObject


class WatchRunner:
    """Schedules every enabled ``[[watch]]`` in one background thread.

    Construction (what the daemon does)::

        runner = WatchRunner(settings, adapters, store)          # or WatchRunner.from_runtime(runtime)
        threading.Thread(target=runner.run, args=(stop_event,), daemon=True).start()
        ...
        runner.status()                                        # list of per-watch dicts
        runner.close()                                         # after the thread ended

    Args:
        settings: the validated Settings; ``settings.watch`` lists the watches, ``settings.source``
            anchors relative model paths, ``settings.hardware.safety`` applies to adapters opened here.
        adapters: adapter name -> opened Adapter, or the runtime's :class:`AdapterSlot` (its lock is
            held around each sample). A watch's ``adapter`` key names one of
            them, or is a URL: a URL not among them is opened here and closed by :meth:`close`.
            An empty ``adapter`` key means the first entry.
        store: a MemoryStore (``record_capture``) or None to keep captures only in memory (dry runs).
        names: run only these watches (default: every enabled one).
        strict: raise at construction on a bad model or adapter (CLI); when False (daemon) the watch
            is kept in state ``error`` with the reason and the others run.
        on_capture: called with each stored capture (after the store committed it).

    Raises:
        ConfigError: duplicate watch names, unknown watch or adapter name.
        InferenceError: a model that is missing, truncated or not shaped as described (strict only).
    """

    def __init__(self, settings: Settings, adapters: Mapping[str, AdapterSlot | Adapter | None] | None = None,
                 store: CaptureStore | None = None, *,
                 names: list[str] | None = None, strict: bool = True,
                 on_capture: Callable[[Capture], None] | None = None) -> None:
        self.settings = settings
        self.store = store
        self.on_capture = on_capture
        self._owned: list[Adapter] = []
        self._ports = {name: _slot(name, a) for name, a in (adapters or {}).items()}
        self.watches: dict[str, Watch] = {}
        self.broken: dict[str, str] = {}
        seen: set[str] = set()
        for i, cfg in enumerate(settings.watch):
            if cfg.name in seen:
                raise ConfigError(f"watch.{i}.name: two watches are named {cfg.name!r}; names must be unique")
            seen.add(cfg.name)
        wanted = names if names is not None else [w.name for w in settings.watch if w.enabled]
        by_name = {w.name: (i, w) for i, w in enumerate(settings.watch)}
        for name in wanted:
            if name not in by_name:
                raise ConfigError(f"no watch named {name!r}; configured: {', '.join(by_name) or '(none)'}")
        base_dir = settings.source.parent if settings.source else None
        for name in wanted:
            i, cfg = by_name[name]
            try:
                port = self._port_for(i, cfg)
                model = load_watch_model(cfg, base_dir)
            except EdgeAgentError as exc:
                if strict:
                    self.close()
                    raise
                log.error("watch %s disabled: %s", name, exc)
                self.broken[name] = str(exc)
                continue
            self.watches[name] = Watch(cfg, port, model=model, deliver=self._deliver)
        if store is None and self.watches and not strict:
            log.warning("the memory store is not available: watches run and report, but their captures are "
                        "not stored")

    @classmethod
    def from_runtime(cls, runtime: RuntimeParts, *, names: list[str] | None = None, strict: bool = False,
                     on_capture: Callable[[Capture], None] | None = None) -> WatchRunner:
        """Build from an edge_agent.runtime.Runtime: its settings, adapter slots and memory store.

        Non-strict by default: a broken watch is reported by :meth:`status` while the others run.
        """
        return cls(runtime.settings, runtime.adapters, runtime.memory, names=names, strict=strict,
                   on_capture=on_capture)

    # adapters ------------------------------------------------------------------------------------------

    def _port_for(self, index: int, cfg: WatchConfig) -> AdapterSlot:
        key = cfg.adapter
        if not key:
            if not self._ports:
                raise ConfigError(f"watch.{index}.adapter: no adapters are configured; add a "
                                  "[[peripherals.boards]] entry or set the watch's adapter to a URL")
            return next(iter(self._ports.values()))
        if key in self._ports:
            return self._ports[key]
        for port in self._ports.values():
            if port.url == key:
                return port
        if "://" not in key:
            raise ConfigError(f"watch.{index}.adapter: no adapter named {key!r}; configured: "
                              f"{', '.join(self._ports) or '(none)'} (or give an adapter URL such as "
                              "sim://nucleo-f401re)")
        from edge_agent.bus import open_adapter

        adapter = open_adapter(key, safety=self.settings.hardware.safety)
        self._owned.append(adapter)
        port = AdapterSlot.holding(key, adapter)
        self._ports[key] = port
        return port

    def _deliver(self, capture: Capture) -> Capture:
        stored = self.store.captures.record_capture(capture) if self.store is not None else capture
        if self.on_capture is not None:
            try:
                self.on_capture(stored)
            except Exception:
                log.exception("on_capture callback failed")
        return stored

    # running -------------------------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Sample every watch on its own interval until `stop` is set; returns promptly after it is."""
        watches = list(self.watches.values())
        if not watches:
            log.info("no watches to run")
            stop.wait()
            return
        log.info("running %d watch(es): %s", len(watches), ", ".join(w.name for w in watches))
        while not stop.is_set():
            now = time.monotonic()
            due = min(w.next_due for w in watches)
            if due > now:
                stop.wait(due - now)
                continue
            for w in watches:
                if w.next_due <= now and not stop.is_set():
                    w.tick(now)

    def run_once(self, name: str, *, interval_s: float | None = None, stop: threading.Event | None = None,
                 max_errors: int = 3) -> WatchOutcome:
        """Sample watch `name` until one window is evaluated; return the outcome and the watch's status.

        `interval_s` overrides the watch's sampling interval (0 samples back to back). A failing sensor
        backs off as in the daemon, but after `max_errors` errors in a row the run gives up (the
        status says why) instead of waiting out the whole backoff ladder.
        """
        if name not in self.watches:
            if name in self.broken:
                raise ConfigError(f"watch {name!r} cannot run: {self.broken[name]}")
            raise ConfigError(f"no watch named {name!r}; configured: {', '.join(self.watches) or '(none)'}")
        w = self.watches[name]
        stop = stop or threading.Event()
        start = w.evaluations
        result = None
        # Every sample either fills the window, is dropped, or errors: bound the loop by all three.
        for _ in range(w.cfg.window * 4 + max_errors):
            if w.evaluations > start or w.consecutive_errors >= max_errors:
                break
            wait = w.next_due - time.monotonic()
            if wait > 0 and stop.wait(wait):
                break
            result = w.tick(time.monotonic())
            if interval_s is not None and w.state == "sampling":
                w.next_due = time.monotonic() + interval_s
        return WatchOutcome(watch=name, evaluated=w.evaluations > start, capture=result, status=w.status())

    def status(self) -> list[JsonObject]:
        """One dict per configured watch: running ones with counters, broken ones with the reason."""
        out = [w.status() for w in self.watches.values()]
        out += [{"name": n, "state": "error", "last_error": why} for n, why in self.broken.items()]
        return out

    def close(self) -> None:
        """Close adapters this runner opened itself (not the ones it was given)."""
        for adapter in self._owned:
            with contextlib.suppress(Exception):
                adapter.close()
        self._owned.clear()

    def __iter__(self) -> Iterator[Watch]:
        return iter(self.watches.values())


def _slot(name: str, obj: AdapterSlot | Adapter | None) -> AdapterSlot:
    return obj if isinstance(obj, AdapterSlot) else AdapterSlot.holding(name, obj)
