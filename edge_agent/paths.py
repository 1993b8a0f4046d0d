"""Where edge_agent finds its configuration, state and bundled data.

Precedence, highest first:

* config file: ``--config FILE`` -> ``EDGE_AGENT_CONFIG`` -> ``./edge-agent.toml`` ->
  ``$CONFIGURATION_DIRECTORY/edge-agent.toml`` (systemd) -> ``/etc/edge-agent/edge-agent.toml``;
  none found means the embedded defaults.
* state directory: ``--state DIR`` -> ``EDGE_AGENT_STATE`` -> ``$STATE_DIRECTORY`` (systemd) ->
  ``$XDG_STATE_HOME/edge-agent`` -> ``~/.local/state/edge-agent``.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

_REPO_ROOT = Path(__file__).resolve().parent.parent


def find_config(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """Return the config file to load, or None for the embedded defaults."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("EDGE_AGENT_CONFIG")
    if env:
        return Path(env)
    candidates = [Path("edge-agent.toml")]
    if os.environ.get("CONFIGURATION_DIRECTORY"):
        candidates.append(Path(os.environ["CONFIGURATION_DIRECTORY"].split(":")[0]) / "edge-agent.toml")
    candidates.append(Path("/etc/edge-agent/edge-agent.toml"))
    return next((p for p in candidates if p.is_file()), None)


def state_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Return the state directory (not created here)."""
    if explicit:
        return Path(explicit)
    for var in ("EDGE_AGENT_STATE", "STATE_DIRECTORY"):
        if os.environ.get(var):
            return Path(os.environ[var].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "edge-agent"


def ensure_state_dir(path: Path) -> Path:
    """Create the state directory if needed; a path that cannot be one is a ConfigError saying so."""
    from edge_agent.errors import ConfigError

    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigError(f"state directory {path} exists but is not a directory; "
                          "pass --state DIR (or set EDGE_AGENT_STATE) to a directory") from None
    except OSError as exc:
        raise ConfigError(f"cannot create the state directory {path}: {exc.strerror or exc}; "
                          "pass --state DIR (or set EDGE_AGENT_STATE) to a writable directory") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(f"the state directory {path} is not writable by this user; "
                          "pass --state DIR (or set EDGE_AGENT_STATE) to a writable directory")
    return path


def _bundled(packaged: str, repo_dir: str) -> Path:
    """Locate bundled data: inside an installed wheel, else the source checkout's folder."""
    try:
        candidate = Path(str(resources.files("edge_agent") / packaged))
        if candidate.is_dir():
            return candidate
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - zipimport or odd loaders
        pass
    return _REPO_ROOT / repo_dir


def bundled_boards_dir() -> Path:
    """Directory of board data files (TOML) shipped with the package."""
    return _bundled("_boards", "boards")


def bundled_datasheets_dir() -> Path:
    """Directory of the default datasheets shipped with the package."""
    return _bundled("_datasheets", "datasheets")


def bundled_vectors_dir() -> Path:
    """Directory of the firmware-bridge golden vectors shipped with the package."""
    return _bundled("_vectors", "firmware_bridge/vectors")
