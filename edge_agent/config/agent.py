"""The model side: ``[agent]``, ``[autonomy]``, the provider names and their URLs, and ``[reliability]``."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from edge_agent.config._base import _Section
from edge_agent.errors import ConfigError


class AgentConfig(_Section):
    compact_context: bool = Field(
        False, description="Small-model mode: 2 datasheet chunks, shorter text, smaller memory budget."
    )
    max_tool_iterations: int = Field(10, ge=0, description="Tool rounds per turn before the agent stops; 0 means 10.")
    max_history_messages: int = Field(50, ge=0, description="Chat history kept per session (0 = none).")
    parallel_tools: bool = Field(False, description="Run the independent tool calls of one model reply concurrently.")
    max_calls_per_reply: int = Field(8, ge=1, le=100, description="Tool calls run from one model reply; the rest "
                                     "are answered 'not run' (a runaway reply cannot drive a pin 1,000 times).")
    tool_choice: Literal["question", "all"] = Field(
        "question", description="'question': offer only the tools the message calls for (no write tool for a "
        "question or small talk); 'all': every tool of the mode on every turn.")


class AutonomyConfig(_Section):
    """How far the agent acts on its own (the CLI and MCP clients are governed by [hardware.safety] alone)."""

    level: Literal["readonly", "supervised", "full"] = Field(
        "supervised", description="readonly: the agent runs no state-changing tool; supervised: each one is shown "
        "(pin, resolved pin, value) and runs after the operator's yes (a one-shot needs --yes); full: no asking.")
    max_actions_per_hour: int = Field(100, ge=0, le=100_000, description="State-changing tool calls the agent may "
                                      "run per hour, across its processes (0: none).")


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


# The password runs to the last '@' before the host: URL parsers split user part from host there, so an
# unescaped '@' inside a password is still part of it.
_URL_PASSWORD = re.compile(r"(?i)([a-z][a-z0-9+.-]*://[^/\s:@]*):[^\s/]*@")


def redact_url(text: str) -> str:
    """`text` with the password of every URL in it replaced by ``***`` (``http://user:***@host``)."""
    return _URL_PASSWORD.sub(r"\1:***@", text)


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


_ENTRY_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def _check_provider(v: str) -> str:
    """A provider string in one of the forms; a bare name may also be a ``[providers.NAME]`` entry, which the
    settings check once every table is read."""
    if _ENTRY_NAME.fullmatch(v.strip()):
        return v.strip()
    try:
        provider_url(v)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return v.strip()


class ProviderEntry(_Section):
    """One ``[providers.NAME]`` table: a model server, its key, and how it takes tool calls.

    ``default_provider`` and ``fallback_providers`` name the entry. An entry named like a built-in
    provider (``openai``, ``ollama``...) may leave ``url`` empty and only add a key or a tool-call mode.
    """

    url: str = Field("", description="OpenAI-compatible base URL (http:// or https://); empty keeps a named "
                     "provider's usual address.")
    api_key_env: str = Field("", description="Environment variable holding this server's API key (preferred: the "
                             "key stays out of the file).")
    api_key: str = Field("", exclude=True, repr=False, description="This server's API key; never printed. A key "
                         "is sent only to the entry it belongs to.")
    tool_calls: Literal["auto", "native", "prompt"] = Field(
        "auto", description="native: send the OpenAI `tools` field; prompt: describe the tools in the system "
        "prompt and read calls from the reply's text; auto: probe the server once (the result is kept in the "
        "state directory).")
    allow_plain_http_key: bool = Field(False, description="Send the key over plain http to a host that is not "
                                       "this machine (it crosses the network readable by anyone on the path).")

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        v = v.strip().rstrip("/")
        if v and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", v):
            raise ValueError("must be an http:// or https:// base URL such as http://10.0.0.5:8080/v1")
        return v

    @field_validator("api_key_env")
    @classmethod
    def _env(cls, v: str) -> str:
        if v and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v):
            raise ValueError("must be an environment variable name such as OPENAI_API_KEY")
        return v


def resolve_provider(spec: str, entries: dict[str, ProviderEntry]) -> tuple[str, ProviderEntry | None]:
    """(base URL, its ``[providers]`` entry or None) for a provider string; ConfigError when it is neither a
    configured entry nor one of the built-in forms."""
    name = spec.strip()
    entry = entries.get(name)
    if entry is not None:
        if entry.url:
            return entry.url, entry
        if name.lower() in PROVIDER_URLS:
            return PROVIDER_URLS[name.lower()], entry
        raise ConfigError(f"providers.{name}: needs url = \"http://host:port/v1\" (only the built-in names "
                          f"{', '.join(PROVIDER_URLS)} have a default address)")
    if _ENTRY_NAME.fullmatch(name) and name.lower() not in PROVIDER_URLS:
        known = ", ".join(sorted(entries)) or "none"
        raise ConfigError(f"unknown provider {spec!r}: not a [providers.NAME] entry (entries: {known}) nor one of "
                          f"{_PROVIDER_FORMS}")
    return provider_url(name), None


class ReliabilityConfig(_Section):
    provider_retries: int = Field(2, ge=0, le=20, description="Retries of a failing provider before the next one.")
    provider_backoff_ms: int = Field(500, ge=0, le=600_000, description="First retry delay; doubles each retry.")
    fallback_providers: list[str] = Field(default_factory=list, description="Tried in order once the "
                                          "default provider's retries are spent; same forms as default_provider.")

    @field_validator("fallback_providers")
    @classmethod
    def _providers(cls, v: list[str]) -> list[str]:
        return [_check_provider(p) for p in v]
