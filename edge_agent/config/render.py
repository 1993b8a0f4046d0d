"""Settings written back as TOML: the effective file for `config check`, and single values for the reference."""

from __future__ import annotations

import re

from edge_agent.config.agent import redact_url
from edge_agent.config.settings import Settings
from edge_agent.jsontypes import JsonValue


def to_toml(settings: Settings) -> str:
    """Render the effective configuration as TOML (for `edge-agent config check`); it parses back equal,
    except that a password inside a URL (``http://user:pass@host``) is printed as ``***``."""
    import tomli_w

    data = _redacted(_without_none(settings.model_dump(mode="json")))
    if not isinstance(data, dict):  # a model dumps as an object, and neither step changes its kind
        raise TypeError(f"settings dumped as {type(data).__name__}, not an object")
    return tomli_w.dumps(data)


def _redacted(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    return redact_url(value) if isinstance(value, str) else value


def toml_value(value: object) -> str:
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


def _without_none(value: JsonValue) -> JsonValue:
    # TOML has no null: an unset optional key (None) is left out, which reads back as the same None.
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value
