"""The root of edge-agent.toml: the top-level keys, every section, and loading a file into them."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from edge_agent.config._base import _Section
from edge_agent.config.agent import (
    _PROVIDER_FORMS,
    AgentConfig,
    AutonomyConfig,
    ProviderEntry,
    ReliabilityConfig,
    _check_provider,
    resolve_provider,
)
from edge_agent.config.device import DeviceConfig
from edge_agent.config.hardware import HardwareConfig
from edge_agent.config.kumiho import KumihoConfig
from edge_agent.config.memory import MemoryConfig, WorkspaceConfig
from edge_agent.config.peripherals import PeripheralsConfig
from edge_agent.config.server import ServerConfig
from edge_agent.config.watch import WatchConfig
from edge_agent.errors import ConfigError


class Settings(_Section):
    default_provider: str = Field("ollama", description=f"Model server: {_PROVIDER_FORMS}.")
    default_model: str = Field("qwen2.5:3b", description="Model name as the provider knows it.")
    default_temperature: float = Field(0.7, ge=0.0, le=2.0)
    api_key: str = Field("", exclude=True, repr=False, description="API key of default_provider only "
                         "(EDGE_AGENT_API_KEY wins); fallbacks get their own in [providers.NAME]. Empty sends no "
                         "Authorization header (local servers need none). Never printed.")
    provider_timeout_secs: float = Field(120.0, gt=0, le=3600, description="Per request; on-device models are slow.")
    device: DeviceConfig = Field(default_factory=DeviceConfig)
    peripherals: PeripheralsConfig = Field(default_factory=PeripheralsConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    autonomy: AutonomyConfig = Field(default_factory=AutonomyConfig)
    hardware: HardwareConfig = Field(default_factory=HardwareConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    workspace: WorkspaceConfig = Field(default_factory=WorkspaceConfig)
    kumiho: KumihoConfig = Field(default_factory=KumihoConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    watch: list[WatchConfig] = Field(default_factory=list)
    reliability: ReliabilityConfig = Field(default_factory=ReliabilityConfig)
    providers: dict[str, ProviderEntry] = Field(default_factory=dict, description="Named model servers "
                                                "([providers.NAME]): URL, API key, tool-call mode.")

    # Where the file came from (None = embedded defaults); relative paths resolve against its folder.
    source: Path | None = Field(None, exclude=True)

    @field_validator("default_provider")
    @classmethod
    def _provider(cls, v: str) -> str:
        return _check_provider(v)

    @model_validator(mode="after")
    def _providers_resolve(self) -> Settings:
        keys = ["default_provider"] + ["reliability.fallback_providers"] * len(self.reliability.fallback_providers)
        for key, spec in zip(keys, [self.default_provider, *self.reliability.fallback_providers], strict=True):
            try:
                resolve_provider(spec, self.providers)
            except ConfigError as exc:
                raise ValueError(f"{key}: {exc}") from None
        return self

    @field_validator("default_model")
    @classmethod
    def _model(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must name the model the provider serves, e.g. 'qwen2.5:3b' (Ollama)")
        return v.strip()

    def datasheet_dir(self) -> Path:
        return self.peripherals.datasheet_path(self.source.parent if self.source else None)


_KEYED = re.compile(r"^([a-z_]+(?:\.[a-z_]+)*): ")


def _format_errors(exc: ValidationError, origin: str) -> str:
    lines = []
    for err in exc.errors():
        path = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = str(err["msg"]).removeprefix("Value error, ")  # the sentence is ours; pydantic's tag adds nothing
        if not err["loc"] and (named := _KEYED.match(msg)):  # a check across sections names its key itself
            path, msg = named.group(1), msg[named.end():]
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
