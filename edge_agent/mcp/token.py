"""The bearer token that guards MCP over HTTP: generated once, kept in a 0600 file in the state dir."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from edge_agent.config import Settings
from edge_agent.errors import ConfigError
from edge_agent.paths import private_dir

TOKEN_FILE = "mcp-token"


def token_path(settings: Settings, state_dir: Path) -> Path:
    """Where the token lives: [server] token_file, else <state>/mcp-token."""
    configured = settings.server.token_file
    if configured:
        p = Path(os.path.expanduser(configured))
        return p if p.is_absolute() or settings.source is None else settings.source.parent / p
    return state_dir / TOKEN_FILE


def ensure_token(path: Path) -> str:
    """Return the token in `path`, creating it (random, 0600) on first start."""
    try:
        token = path.read_text().strip()
    except FileNotFoundError:
        token = ""
    except OSError as exc:
        raise ConfigError(f"MCP token file {path} cannot be read: {exc.strerror}; fix its permissions "
                          "or set [server] token_file") from None
    if token:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)  # someone loosened it; the token is a credential
        return token
    token = secrets.token_urlsafe(32)
    private_dir(path.parent)
    if path.exists():  # present but empty (an interrupted first start): replace it whole
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(token + "\n")
        os.replace(tmp, path)
        return token
    # O_EXCL: two processes starting together must not hand out different tokens.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip() or token
    with os.fdopen(fd, "w") as fh:
        fh.write(token + "\n")
    return token


def token_matches(expected: str, given: str) -> bool:
    """Constant-time comparison, so response timing does not leak the token."""
    return hmac.compare_digest(expected.encode(), given.encode())
