"""edge-agent.toml: one file, validated once with pydantic.

Key names follow the Revka runtime where the meaning is the same (``[peripherals] datasheet_dir``,
``[[peripherals.boards]]`` with ``board``/``transport``/``path``/``baud``, ``[agent] compact_context``,
the ``[memory]`` keys). Unknown keys are errors, so a typo never silently does nothing. Every error
names the key path and, where the set is closed, the allowed values.

One module per group of sections: ``device``, ``peripherals``, ``agent`` (with the providers and
``[reliability]``), ``hardware``, ``memory`` (with ``[workspace]``), ``kumiho``, ``server`` and
``watch``; ``settings`` holds the root model and loading, ``render`` writes TOML back. Import the
names from ``edge_agent.config``; the modules are how the package is laid out, not its interface.
"""

from edge_agent.config.agent import (
    PROVIDER_URLS,
    AgentConfig,
    AutonomyConfig,
    ProviderEntry,
    ReliabilityConfig,
    provider_url,
    redact_url,
    resolve_provider,
)
from edge_agent.config.device import DeviceConfig
from edge_agent.config.hardware import AdapterSafety, HardwareConfig, SafetyConfig
from edge_agent.config.kumiho import KumihoConfig
from edge_agent.config.memory import MemoryConfig, MemoryPolicy, WorkspaceConfig
from edge_agent.config.peripherals import BoardConfig, PeripheralsConfig, Transport
from edge_agent.config.render import to_toml, toml_key, toml_value
from edge_agent.config.server import ServerConfig
from edge_agent.config.settings import Settings, load_settings, parse_settings
from edge_agent.config.watch import (
    ChangeRule,
    RateLimit,
    Stat,
    SummaryRule,
    TensorDesc,
    ThresholdRule,
    WatchConfig,
    WatchModel,
)
from edge_agent.errors import ConfigError

__all__ = [
    "PROVIDER_URLS",
    "AdapterSafety",
    "AgentConfig",
    "AutonomyConfig",
    "BoardConfig",
    "ChangeRule",
    "ConfigError",
    "DeviceConfig",
    "HardwareConfig",
    "KumihoConfig",
    "MemoryConfig",
    "MemoryPolicy",
    "PeripheralsConfig",
    "ProviderEntry",
    "RateLimit",
    "ReliabilityConfig",
    "SafetyConfig",
    "ServerConfig",
    "Settings",
    "Stat",
    "SummaryRule",
    "TensorDesc",
    "ThresholdRule",
    "Transport",
    "WatchConfig",
    "WatchModel",
    "WorkspaceConfig",
    "load_settings",
    "parse_settings",
    "provider_url",
    "redact_url",
    "resolve_provider",
    "to_toml",
    "toml_key",
    "toml_value",
]
