"""edge-agent.toml: one file, validated once with pydantic.

Key names follow the Revka runtime where the meaning is the same (``[peripherals] datasheet_dir``,
``[[peripherals.boards]]`` with ``board``/``transport``/``path``/``baud``, ``[agent] compact_context``,
the ``[memory]`` keys). Unknown keys are errors, so a typo never silently does nothing. Every error
names the key path and, where the set is closed, the allowed values.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from edge_agent.chips.sensors import SENSORS
from edge_agent.errors import ConfigError
from edge_agent.names import device_id_problem, namespace_problem, workspace_problem
from edge_agent.paths import bundled_datasheets_dir


def _checked(value: str, problem: Callable[[str], str | None]) -> str:
    """``value`` when ``problem`` finds nothing wrong with it; else the ValueError that names the key."""
    why = problem(value)
    if why:
        raise ValueError(why)
    return value


def _each_matches(items: list[str], pattern: str, problem: str) -> list[str]:
    """``items`` when each one (stripped) fully matches ``pattern``; else the ValueError ``'<item>' <problem>``."""
    for item in items:
        if not re.fullmatch(pattern, item.strip()):
            raise ValueError(f"{item!r} {problem}")
    return items


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


# --- [device] -------------------------------------------------------------------------------------


class DeviceConfig(_Section):
    id: str = Field("", description="Stable device id; empty derives one from /etc/machine-id.")
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Log level of `edge-agent run`; each -v lowers it one step.")

    @field_validator("id")
    @classmethod
    def _device_id(cls, v: str) -> str:
        return _checked(v.strip(), device_id_problem)


# --- [peripherals] --------------------------------------------------------------------------------

Transport = Literal["sim", "serial", "bridge", "native", "linux", "aardvark", "ftdi"]


class BoardConfig(_Section):
    """One ``[[peripherals.boards]]`` entry: which board, and how it is reached."""

    board: str = Field(description="Board id: a file in boards/ (e.g. nucleo-f401re, rpi-4b) or a board known from a "
                       "datasheet.")
    name: str = Field("", description="Adapter name used by tools and CLI; defaults to `board`.")
    transport: Transport = Field("serial", description="How the board is reached when `url` is empty: sim, "
                                 "serial/bridge (path, baud), native/linux, aardvark or ftdi (path).")
    url: str = Field("", description="Adapter URL; overrides transport/path/baud when set.")
    path: str = Field("", description="Serial device for serial/bridge, Aardvark port or serial, or the pyftdi URL "
                      "for ftdi.")
    baud: int = Field(115200, gt=0, description="Serial speed of the firmware bridge.")

    @field_validator("board")
    @classmethod
    def _board_lower(cls, v: str) -> str:
        v = v.strip().lower()
        if not v:
            raise ValueError("must name a board, e.g. 'nucleo-f401re' or 'rpi-4b'")
        return v

    @property
    def adapter_name(self) -> str:
        return self.name or self.board

    def adapter_url(self) -> str:
        """The adapter URL this entry stands for (Revka's transport/path/baud mapped onto URLs)."""
        if self.url:
            return self.url
        if self.transport == "sim":
            return f"sim://{self.board}"
        if self.transport in ("serial", "bridge"):
            if not self.path:
                raise ConfigError(
                    f"peripherals.boards[{self.board}].path: transport {self.transport!r} needs the serial "
                    "device path, e.g. path = \"/dev/ttyACM0\""
                )
            return f"bridge://{self.path}?baud={self.baud}"
        if self.transport in ("native", "linux"):
            return "linux://"
        if self.transport == "aardvark":
            return f"aardvark://{self.path}"
        return self.path or "ftdi://ftdi:232h/1"


class PeripheralsConfig(_Section):
    enabled: bool = Field(True, description="false opens no board at all.")
    datasheet_dir: str = Field("", description="Datasheet directory; empty uses the bundled datasheets.")
    boards: list[BoardConfig] = Field(
        default_factory=lambda: [BoardConfig(board="nucleo-f401re", transport="sim")]
    )

    @model_validator(mode="after")
    def _unique_names(self) -> PeripheralsConfig:
        seen: set[str] = set()
        for b in self.boards:
            if b.adapter_name in seen:
                raise ValueError(
                    f"two boards share the adapter name {b.adapter_name!r}; give one a distinct `name`"
                )
            seen.add(b.adapter_name)
        return self

    def datasheet_path(self, base: Path | None = None) -> Path:
        if not self.datasheet_dir:
            return bundled_datasheets_dir()
        p = Path(os.path.expanduser(self.datasheet_dir))
        return p if p.is_absolute() or base is None else base / p


# --- [agent] --------------------------------------------------------------------------------------


class AgentConfig(_Section):
    compact_context: bool = Field(
        False, description="Small-model mode: 2 datasheet chunks, shorter text, smaller memory budget."
    )
    max_tool_iterations: int = Field(10, ge=0, description="Tool rounds per turn before the agent stops; 0 means 10.")
    max_history_messages: int = Field(50, ge=0, description="Chat history kept per session (0 = none).")
    parallel_tools: bool = Field(False, description="Run the independent tool calls of one model reply concurrently.")


# --- model providers ------------------------------------------------------------------------------

# Where each named provider listens when run as its users run it (OpenAI-compatible API base URLs).
PROVIDER_URLS: dict[str, str] = {
    "ollama": "http://127.0.0.1:11434/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
    "lmstudio": "http://127.0.0.1:1234/v1",
    "vllm": "http://127.0.0.1:8000/v1",
    "openai": "https://api.openai.com/v1",
}
_PROVIDER_FORMS = f"{', '.join(PROVIDER_URLS)} or custom:<base URL> (e.g. custom:http://10.0.0.5:8080/v1)"


def provider_url(spec: str) -> str:
    """The API base URL a provider string stands for; ConfigError listing the forms when it is none."""
    name = spec.strip()
    if name.lower() in PROVIDER_URLS:
        return PROVIDER_URLS[name.lower()]
    if name.lower().startswith("custom:"):
        url = name[len("custom:"):].strip().rstrip("/")
        if re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", url):
            return url
        raise ConfigError(f"provider {spec!r}: custom: needs an http:// or https:// base URL such as "
                          "custom:http://10.0.0.5:8080/v1")
    raise ConfigError(f"unknown provider {spec!r}; use {_PROVIDER_FORMS}")


def _check_provider(v: str) -> str:
    try:
        provider_url(v)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return v.strip()


class ReliabilityConfig(_Section):
    provider_retries: int = Field(2, ge=0, le=20, description="Retries of a failing provider before the next one.")
    provider_backoff_ms: int = Field(500, ge=0, le=600_000, description="First retry delay; doubles each retry.")
    fallback_providers: list[str] = Field(default_factory=list, description="Tried in order once the "
                                          "default provider's retries are spent; same forms as default_provider.")

    @field_validator("fallback_providers")
    @classmethod
    def _providers(cls, v: list[str]) -> list[str]:
        return [_check_provider(p) for p in v]


# --- [hardware] -----------------------------------------------------------------------------------


class AdapterSafety(_Section):
    """Per-adapter write policy; the table key is the adapter name or URL scheme."""

    read_only: bool | None = Field(None, description="true refuses every write on this adapter, false allows every "
                                   "write; unset: the simulator is writable, real adapters only the writable_* lists.")
    writable_gpio: list[str] = Field(default_factory=list, description="Pins that may be driven; any pin name or "
                                     "alias.")
    writable_i2c: list[str] = Field(
        default_factory=list, description="'0x3C' (any register) or '0x76:0xF2-0xF5' (register range)."
    )
    writable_spi: list[str] = Field(default_factory=list, description="'0.0' bus.chip-select, or '*'.")

    @field_validator("writable_i2c")
    @classmethod
    def _i2c_rules(cls, v: list[str]) -> list[str]:
        num = r"(0[xX][0-9a-fA-F]+|\d+)"
        return _each_matches(v, rf"{num}(:{num}(-{num})?)?|\*", "is not an I2C rule; use '0x3C' (any register), "
                             "'0x76:0xF4' or '0x76:0xF2-0xF5', or '*'")

    @field_validator("writable_spi")
    @classmethod
    def _spi_rules(cls, v: list[str]) -> list[str]:
        return _each_matches(v, r"\d+\.\d+|\*", "is not an SPI device; use 'BUS.CS' like '0.0', or '*'")


class SafetyConfig(_Section):
    read_only: bool = Field(False, description="true refuses every write on every adapter.")
    adapters: dict[str, AdapterSafety] = Field(default_factory=dict)


class HardwareConfig(_Section):
    safety: SafetyConfig = Field(default_factory=SafetyConfig)


# --- [memory] -------------------------------------------------------------------------------------


class MemoryPolicy(_Section):
    max_entries_per_namespace: int = Field(0, ge=0, description="Cap per namespace (0 = unlimited): superseded "
                                           "versions go first, then the least important, then the oldest.")
    max_entries_per_category: int = Field(0, ge=0, description="Cap per category (0 = unlimited), evicted in the same "
                                          "order.")
    read_only_namespaces: list[str] = Field(default_factory=list, description="Namespaces where store, reflect, "
                                            "forget, purge and import are refused.")
    retention_days_by_category: dict[str, int] = Field(default_factory=dict, description="Days after which hygiene "
                                                       "deletes a category's entries (0 keeps them).")

    @field_validator("read_only_namespaces")
    @classmethod
    def _namespaces(cls, v: list[str]) -> list[str]:
        return [_checked(n.strip(), namespace_problem) for n in v]

    @field_validator("retention_days_by_category")
    @classmethod
    def _retention(cls, v: dict[str, int]) -> dict[str, int]:
        out: dict[str, int] = {}
        for category, days in v.items():
            if days < 0:
                raise ValueError(f"{category}: days must be >= 0 (0 keeps entries forever), got {days}")
            out[category.strip().lower()] = days  # categories are stored lowercase
        return out


class MemoryConfig(_Section):
    backend: Literal["kumiho", "none"] = Field("kumiho", description="kumiho: the local cache, synced upstream when "
                                               "[kumiho] enabled; none: memory off.")
    auto_save: bool = Field(True, description="Store user inputs given to auto_save as conversation entries.")
    hygiene_enabled: bool = Field(True, description="Run memory hygiene every 6 h in the daemon.")
    archive_after_days: int = Field(7, ge=0, description="Archive daily entries older than this (they leave recall); "
                                    "0 disables.")
    purge_after_days: int = Field(30, ge=0, description="Delete archived entries and superseded versions older than "
                                  "this; 0 disables.")
    conversation_retention_days: int = Field(30, ge=0, description="Delete conversation entries older than this; 0 "
                                             "disables.")
    min_relevance_score: float = Field(0.4, ge=0.0, le=1.0, description="Recall and engage drop results scoring below "
                                       "this.")
    default_namespace: str = Field("default", description="Namespace of entries stored without one.")
    half_life_days: float = Field(7.0, description="Recall scores halve every this many days (core never decays; <= 0 "
                                  "means 7).")
    audit_enabled: bool = Field(False, description="Log every store, supersede, evict, forget, purge, archive, import "
                                "and set_kref.")
    audit_retention_days: int = Field(30, ge=0, description="Hygiene deletes audit rows older than this; 0 keeps "
                                      "them.")
    snapshot_enabled: bool = Field(False, description="Hygiene first writes a JSON Lines export to snapshots/ once a "
                                   "day (newest 5 kept).")
    snapshot_on_hygiene: bool = Field(False, description="Snapshot on every hygiene run, not once a day.")
    context_budget_tokens: int = Field(1200, ge=64, description="Token budget of the engage context (a third with "
                                       "[agent] compact_context).")
    max_content_bytes: int = Field(64 * 1024, ge=256, description="Larger content is refused with "
                                   "ContentTooLargeError.")
    response_cache_enabled: bool = Field(
        True, description="Keep LLM responses in response_cache.db: the agent answers an unchanged question "
        "from it without calling the model.")
    response_cache_hot_entries: int = Field(256, ge=0, description="In-process LRU tier of the response cache.")
    response_cache_max_entries: int = Field(5000, ge=0, description="SQLite tier of the response cache; least "
                                            "recently used evicted beyond.")
    response_cache_ttl_minutes: int = Field(60, ge=0, description="Response cache entries expire this long after they "
                                            "were stored; 0 = never.")
    policy: MemoryPolicy = Field(default_factory=MemoryPolicy)

    @field_validator("default_namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        return _checked(v.strip(), namespace_problem)

    @field_validator("backend", mode="before")
    @classmethod
    def _backend_names(cls, v: Any) -> Any:
        if isinstance(v, str) and v.lower() not in ("kumiho", "none"):
            raise ValueError(
                f"backend {v!r} is not supported: the device cache always runs locally and syncs to "
                "Kumiho; use 'kumiho' (sync captures upstream) or 'none' (memory off)"
            )
        return v.lower() if isinstance(v, str) else v


class WorkspaceConfig(_Section):
    enabled: bool = Field(False, description="Use the workspace `name` instead of default.")
    name: str = Field("default", description="Workspace name (a directory name: no '/', no '..').")
    isolate_memory: bool = Field(True, description="Each workspace gets its own database; false shares the default "
                                 "one.")
    cross_workspace_search: bool = Field(False, description="Allow recall to read other workspaces (read-only).")

    @field_validator("name")
    @classmethod
    def _workspace(cls, v: str) -> str:
        return _checked(v, workspace_problem)


# --- [kumiho] -------------------------------------------------------------------------------------


class KumihoConfig(_Section):
    enabled: bool = Field(False, description="Queue captures in the outbox and sync them upstream.")
    mode: Literal["cloud", "local_ce"] = Field("cloud", description="cloud (endpoint) or local_ce (community server "
                                               "on loopback).")
    endpoint: str = Field("", description="gRPC target: https://HOST[:PORT] or HOST:443; plain HOST:PORT only "
                          "on loopback. Empty with mode local_ce means 127.0.0.1:9190.")
    project: str = Field("CognitiveMemory", description="Kumiho project the captures go to.")
    space_path: str = Field("", description="Default space; empty means Devices/<device_id>.")
    token_file: str = Field("", description="File holding the bearer token; KUMIHO_AUTH_TOKEN wins when set.")
    memory_retrieval_limit: int = Field(3, ge=1, description="Cap on the `limit` of the memory_recall and "
                                        "memory_engage tools.")
    outbox_max_mb: float = Field(64.0, gt=0, description="Bound on queued + dead-lettered captures (bytes).")
    outbox_max_rows: int = Field(100_000, gt=0, description="Bound on queued + dead-lettered captures (rows).")
    outbox_full_policy: Literal["refuse_low_importance", "refuse_all"] = Field(
        "refuse_low_importance", description="refuse_low_importance: captures below low_importance_below are "
        "refused from 90 % of a bound, others at 100 %; refuse_all: everything at 100 %.")
    low_importance_below: float = Field(0.5, ge=0.0, le=1.0, description="Importance under which a capture counts as "
                                        "low for outbox_full_policy.")
    batch_size: int = Field(200, ge=1, le=200, description="Rows per BatchCreateRevisions call.")
    rpc_timeout_s: float = Field(10.0, gt=0, description="Deadline of each gRPC call.")
    sync_interval_s: float = Field(5.0, gt=0, description="How often the daemon's sync worker wakes when no retry is "
                                   "due.")
    backoff_initial_s: float = Field(1.0, gt=0, description="First retry delay; doubles each retry, half fixed and "
                                     "half random jitter.")
    backoff_max_s: float = Field(300.0, gt=0, description="Longest retry delay.")
    max_attempts: int = Field(50, ge=1, description="Answered failures before a capture is dead-lettered; "
                              "time offline never counts.")
    secret_policy: Literal["redact", "reject"] = Field("redact", description="Credentials found in anything written "
                                                       "to memory, with or without sync: redact replaces each with "
                                                       "[REDACTED:<kind>:<tag>], reject refuses the write.")

    @field_validator("project", "space_path")
    @classmethod
    def _kref_path(cls, v: str, info: Any) -> str:
        # Kumiho path segments are word characters and '-' (no '.', which splits name from kind).
        v = v.strip().strip("/")
        if info.field_name == "project" and not v:
            raise ValueError("must name the Kumiho project, e.g. 'CognitiveMemory'")
        for seg in v.split("/") if v else ():
            if not re.fullmatch(r"\w[\w-]*", seg):
                raise ValueError(
                    f"segment {seg!r} is not a valid Kumiho name: use letters, digits, '_' and '-' "
                    "(e.g. 'Lab/Bench-3')"
                )
        return v

    @model_validator(mode="after")
    def _backoff_order(self) -> KumihoConfig:
        if self.backoff_max_s < self.backoff_initial_s:
            raise ValueError("backoff_max_s must be >= backoff_initial_s")
        return self


# --- [server] (MCP) -------------------------------------------------------------------------------


class ServerConfig(_Section):
    http_enabled: bool = Field(True, description="Serve MCP over streamable HTTP inside `edge-agent run`.")
    host: str = Field("127.0.0.1", description="Listen address; another than loopback keeps the bearer token "
                      "requirement.")
    port: int = Field(8765, ge=0, le=65535, description="HTTP port; 0 picks a free one.")
    token_file: str = Field("", description="Bearer token file; empty means <state>/mcp-token.")
    watchdog: bool = Field(True, description="Send WATCHDOG=1 when the unit sets WatchdogSec.")
    record_hardware_writes: bool = Field(
        False, description="Store each gpio_write/i2c_write/spi_transfer made through MCP as a low-importance "
        "command_execution capture (an audit trail that syncs upstream with [kumiho] enabled).")
    allow_public_bind: bool = Field(
        False, description="Allow a `host` other than loopback (the device and its token become reachable from "
        "the network); use with tls_cert/tls_key and allowed_hosts.")
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Extra Host names clients use for this device, e.g. \"pi.lan\" or "
        "\"192.168.1.20\" (loopback names, the bound address and the host name are always allowed).")
    allowed_origins: list[str] = Field(
        default_factory=list, description="Extra browser origins allowed to call the server, e.g. "
        "\"https://tools.example.lan\" (this server's own origins are always allowed).")
    tls_cert: str = Field("", description="PEM certificate file: serve HTTPS (with tls_key); relative to the "
                          "config file.")
    tls_key: str = Field("", description="PEM private key file for tls_cert; relative to the config file.")

    @field_validator("allowed_hosts")
    @classmethod
    def _plain_hosts(cls, hosts: list[str]) -> list[str]:
        for h in hosts:
            if not h.strip() or "/" in h or " " in h.strip():
                raise ValueError(f"{h!r} is not a host name or address; write names like \"pi.lan\" or "
                                 "\"192.168.1.20\" (no scheme, no path)")
        return hosts

    @field_validator("allowed_origins")
    @classmethod
    def _origin_form(cls, origins: list[str]) -> list[str]:
        return _each_matches(origins, r"https?://[^/\s]+/?",
                             "is not an origin; write scheme://host[:port], e.g. \"https://pi.lan:8765\"")

    @model_validator(mode="after")
    def _tls_pair(self) -> ServerConfig:
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls_cert and tls_key go together: set both to serve HTTPS, or neither")
        return self


# --- [[watch]] ------------------------------------------------------------------------------------


class _WatchSection(_Section):
    # Optional keys left unset are dropped when dumping, so `config check` prints valid TOML (TOML
    # has no null) and only what the user wrote or a real default.
    @model_serializer(mode="wrap")
    def _drop_unset_optionals(self, handler: Any) -> Any:
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
    capture_type: str = Field("anomaly", description="Memory type of the capture.")
    importance: float = Field(0.8, ge=0.0, le=1.0, description="Importance of the capture.")

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
    capture_type: str = Field("state_change", description="Memory type of the capture.")
    importance: float = Field(0.6, ge=0.0, le=1.0, description="Importance of the capture.")


class SummaryRule(_WatchSection):
    """Capture a window summary at most every `every_s` seconds (first one on the first full window)."""

    kind: Literal["summary"] = Field(description="Rule type.")
    every_s: float = Field(3600.0, gt=0, description="Least time between two summaries.")
    capture_type: str = Field("fact", description="Memory type of the capture.")
    importance: float = Field(0.3, ge=0.0, le=1.0, description="Importance of the capture.")


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


# --- root -----------------------------------------------------------------------------------------


class Settings(_Section):
    default_provider: str = Field("ollama", description=f"Model server: {_PROVIDER_FORMS}.")
    default_model: str = Field("qwen2.5:3b", description="Model name as the provider knows it.")
    default_temperature: float = Field(0.7, ge=0.0, le=2.0)
    api_key: str = Field("", exclude=True, repr=False, description="Provider API key; EDGE_AGENT_API_KEY wins. "
                         "Empty sends no Authorization header (local servers need none). Never printed.")
    provider_timeout_secs: float = Field(120.0, gt=0, le=3600, description="Per request; on-device models are slow.")
    device: DeviceConfig = Field(default_factory=DeviceConfig)
    peripherals: PeripheralsConfig = Field(default_factory=PeripheralsConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    hardware: HardwareConfig = Field(default_factory=HardwareConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    workspace: WorkspaceConfig = Field(default_factory=WorkspaceConfig)
    kumiho: KumihoConfig = Field(default_factory=KumihoConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    watch: list[WatchConfig] = Field(default_factory=list)
    reliability: ReliabilityConfig = Field(default_factory=ReliabilityConfig)

    # Where the file came from (None = embedded defaults); relative paths resolve against its folder.
    source: Path | None = Field(None, exclude=True)

    @field_validator("default_provider")
    @classmethod
    def _provider(cls, v: str) -> str:
        return _check_provider(v)

    @field_validator("default_model")
    @classmethod
    def _model(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must name the model the provider serves, e.g. 'qwen2.5:3b' (Ollama)")
        return v.strip()

    def datasheet_dir(self) -> Path:
        return self.peripherals.datasheet_path(self.source.parent if self.source else None)


def _format_errors(exc: ValidationError, origin: str) -> str:
    lines = []
    for err in exc.errors():
        path = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = str(err["msg"]).removeprefix("Value error, ")  # the sentence is ours; pydantic's tag adds nothing
        if err["type"] == "extra_forbidden":
            msg = "unknown key" + _allowed_keys_hint(err["loc"])
        elif err["type"] == "literal_error":
            msg = f"{msg} (got {err.get('input')!r})"
        lines.append(f"  {path}: {msg}")
    return f"{origin} is invalid:\n" + "\n".join(lines)


def _allowed_keys_hint(loc: tuple[Any, ...]) -> str:
    model: Any = Settings
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return ""
        ann = field.annotation
        args = getattr(ann, "__args__", ())
        model = next((a for a in (ann, *args) if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if model is None:
            return ""
    keys = sorted(getattr(model, "model_fields", {}))
    return f"; allowed keys here: {', '.join(keys)}" if keys else ""


def parse_settings(data: dict[str, Any], origin: str = "configuration", source: Path | None = None) -> Settings:
    """Validate a dict (parsed TOML) into Settings, raising ConfigError with key paths."""
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(exc, origin)) from None
    settings.source = source
    return settings


def load_settings(path: str | os.PathLike[str] | None) -> Settings:
    """Load and validate a config file; None gives the embedded defaults."""
    if path is None:
        return Settings()
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"config file {p} does not exist; create it or drop --config / EDGE_AGENT_CONFIG") from None
    except OSError as exc:
        raise ConfigError(f"config file {p} cannot be read: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"config file {p} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {p} is not valid TOML: {exc}") from None
    return parse_settings(data, origin=f"config file {p}", source=p.resolve())


def to_toml(settings: Settings) -> str:
    """Render the effective configuration as TOML (for `edge-agent config check`); it parses back equal."""
    import tomli_w

    return tomli_w.dumps(_without_none(settings.model_dump(mode="json")))


def toml_value(value: Any) -> str:
    """One value as inline TOML (the configuration reference shows defaults this way)."""
    import tomli_w

    if isinstance(value, dict):
        items = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items() if v is not None)
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return tomli_w.dumps({"v": value})[len("v = "):].rstrip("\n")


def toml_key(key: str) -> str:
    """A key as TOML writes it: bare when it can be, else a quoted string (non-ASCII, dots, spaces)."""
    import tomli_w

    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else tomli_w.dumps({key: 0}).rsplit(" = ", 1)[0]


def _without_none(value: Any) -> Any:
    # TOML has no null: an unset optional key (None) is left out, which reads back as the same None.
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value
