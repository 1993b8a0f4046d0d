"""Model providers: the OpenAI-compatible chat completions API through the official `openai` SDK.

The default provider is tried first; a failure (connection refused, timeout, 5xx, 429, a reply that is
not a chat completion) is retried ``provider_retries`` times with exponential backoff from
``provider_backoff_ms``, then each fallback provider gets the same treatment. A refusal that retrying
cannot fix (400, 401, 404: wrong model name, bad key) moves on to the next provider at once, and so
does a refused connection to a server on this machine: nothing listens on that port, and waiting
seconds for it to appear only delays the next provider or the offline answer. When all fail,
:class:`ProviderError` lists each URL tried and why.

An HTTP 500 from the server's own tool-call parser (llama.cpp: "failed to parse tool call arguments",
the output "does not match the expected format") is the model's error, not an outage: it is raised at
once as :class:`ModelOutputError` for the turn to handle (retry once, then answer without tools).
"""

from __future__ import annotations

import errno
import hashlib
import ipaddress
import logging
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from edge_agent.agent.toolmode import call_schema, prompt_mode
from edge_agent.config import Settings, redact_url, resolve_provider
from edge_agent.errors import BackendUnavailable, ModelOutputError, ProviderError
from edge_agent.jsontypes import JsonObject, JsonValue

if TYPE_CHECKING:  # the SDK is imported when the first request is made
    from openai import OpenAI

log = logging.getLogger(__name__)

API_KEY_ENV = "EDGE_AGENT_API_KEY"


@dataclass
class NativeCall:
    """A tool call the server parsed: id, name and the arguments as the JSON text it sent."""

    id: str
    name: str
    arguments: str


@dataclass
class Reply:
    """One assistant reply as received (content still holds any <think> text)."""

    content: str
    reasoning: str = ""
    tool_calls: list[NativeCall] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    provider: str = ""
    url: str = ""


@dataclass
class Provider:
    spec: str
    url: str
    client: OpenAI | None = None
    api_key: str = ""
    tool_calls: str = "auto"  # auto | native | prompt
    tool_choice: bool = True  # sends `tool_choice` with native tools (False once the server refused it)
    call_grammar: bool = True  # a forced call is asked for with a response_format schema (False once refused)

    @property
    def shown(self) -> str:
        """The provider string as it may be printed: a password in its URL is replaced by ***."""
        return redact_url(self.spec)

    @property
    def shown_url(self) -> str:
        return redact_url(self.url)


class _Retryable(Exception):
    pass


class _Refused(Exception):
    """Nothing listens at a loopback address: the next provider at once, no retry."""


# How llama.cpp's server (and servers built on its chat parsers) say the model's text is not a call.
_PARSER_ERROR = re.compile(r"parse tool call|tool call arguments|does not match (the )?expected format|"
                           r"failed to parse (input|the output|output)|expected format", re.IGNORECASE)


def parser_error(detail: str) -> bool:
    """True when a server error message says the model's output did not parse (a model error)."""
    return bool(_PARSER_ERROR.search(detail or ""))


def is_loopback(url: str) -> bool:
    """True when the URL's host is this machine (localhost, 127.0.0.0/8, ::1).

    Names under ``.localhost`` are not counted: only resolvers that follow the special-use rule map them
    to loopback, and a plain /etc/hosts plus DNS setup may send them anywhere, with the key in clear text.
    """
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refused(exc: BaseException) -> bool:
    """True when a connection error was caused by ECONNREFUSED (somewhere in its cause chain)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, ConnectionRefusedError) or getattr(cur, "errno", None) == errno.ECONNREFUSED:
            return True
        if "connection refused" in str(cur).lower() or f"[errno {errno.ECONNREFUSED}]" in str(cur).lower():
            return True
        cur = cur.__cause__ or cur.__context__
    return False


class ProviderChain:
    """The default provider, then the fallbacks, each with retries and backoff."""

    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 probes: ProbeCache | None = None) -> None:
        specs = list(dict.fromkeys([settings.default_provider, *settings.reliability.fallback_providers]))
        self.providers = []
        for i, spec in enumerate(specs):
            url, entry = resolve_provider(spec, settings.providers)
            provider = Provider(spec, url, tool_calls=entry.tool_calls if entry is not None else "auto")
            provider.api_key = _key_for(provider, entry, settings if i == 0 else None)
            self.providers.append(provider)
        self.model = settings.default_model
        self.temperature = settings.default_temperature
        self.max_tokens: int | None = None  # a cap on each reply's length (the agent sets it in compact mode)
        self.timeout = settings.provider_timeout_secs
        self.retries = settings.reliability.provider_retries
        self.backoff_s = settings.reliability.provider_backoff_ms / 1000
        self.probes = probes
        self._sleep = sleep

    def _client(self, provider: Provider) -> Any:
        if provider.client is None:
            openai = _sdk()

            # The SDK insists on some key; with none configured the Authorization header is omitted on
            # each request instead (local servers expect none).
            provider.client = openai.OpenAI(base_url=provider.url, api_key=provider.api_key or "no-key",
                                            timeout=self.timeout, max_retries=0)
        return provider.client

    def identity(self) -> str:
        """Who answers, as the response cache's key names it: the model, the first provider's URL (a
        password shown as ***) and the temperature."""
        return f"{self.model} @ {self.providers[0].shown_url} (temperature {self.temperature:g})"

    def known_mode(self) -> str:
        """How the first provider takes tools, without asking it: configured, kept from a probe, or "auto"
        (not probed yet)."""
        provider = self.providers[0]
        if provider.tool_calls != "auto" or self.probes is None:
            return provider.tool_calls
        return self.probes.probed_mode(_probe_key(provider.url), self.model) or "auto"

    def mode(self, provider: Provider) -> str:
        """How this provider takes tools: "native" or "prompt" (``tool_calls = "auto"`` probes once)."""
        if provider.tool_calls != "auto":
            return provider.tool_calls
        key = _probe_key(provider.url)
        known = self.probes.probed_mode(key, self.model) if self.probes is not None else None
        if known is None:
            known = self._probe(provider)
            if known is not None and self.probes is not None:
                self.probes.note_probe(key, self.model, known)
        provider.tool_calls = known or "native"  # unknown (server down): native, probed again next process
        return provider.tool_calls

    def _probe(self, provider: Provider) -> str | None:
        """Ask the server for one token with one tool declared: accepted -> native, refused over the tools ->
        prompt; None when the probe says nothing about tools (server down, model missing)."""
        openai = _sdk()
        kwargs: dict[str, Any] = {"model": self.model, "max_tokens": 1, "temperature": 0,
                                  "messages": [{"role": "user", "content": "ping"}], "tools": [PROBE_TOOL]}
        if not provider.api_key:
            kwargs["extra_headers"] = {"Authorization": openai.Omit()}
        try:
            self._client(provider).chat.completions.create(**kwargs)
        except openai.APIStatusError as exc:
            detail = _detail(exc)
            if exc.status_code in (400, 422, 500, 501) and re.search(r"tool|jinja|function", detail, re.I):
                log.info("provider %s refuses the tools field (%s): tools go in the prompt", provider.shown_url,
                         detail)
                return "prompt"
            return None
        except openai.APIError:
            return None
        except (ValueError, TypeError, AttributeError):
            return None
        return "native"

    def warm(self) -> None:
        """Import the SDK and make the first provider's client now (a chat does it while the user types)."""
        try:
            self._client(self.providers[0])
        except Exception as exc:  # the first real request reports it properly
            log.debug("warming the provider client: %s", exc)

    def complete(self, messages: list[JsonObject], tools: list[JsonObject] | None = None, *,
                 on_token: Callable[[str], None] | None = None,
                 on_retry: Callable[[str], None] | None = None, tool_choice: str | None = None,
                 only: Sequence[str] | None = None, values: Mapping[str, Sequence[JsonValue]] | None = None) -> Reply:
        """One assistant reply; streamed (each content delta to `on_token`) when `on_token` is given.

        `tool_choice` "none" goes with native tools: a plain answer with the same prompt (so the
        server's cached prefix still serves). "required" asks for a call to one of `tools` (to those
        named in `only`, when given; arguments named in `values` one of the values listed): sent as a
        ``response_format`` JSON schema of the calls (:func:`~edge_agent.agent.toolmode.call_schema`),
        which servers that constrain output turn into a grammar, in both tool-call modes; the reply is
        then the call as JSON text. A server that refuses the schema is sent ``tool_choice:
        "required"`` instead, and one that refuses that, nothing.
        """
        attempts: list[tuple[str, str]] = []
        forced = _forced(tools, only, values) if tool_choice == "required" else None
        for provider in self.providers:
            for attempt in range(self.retries + 1):
                if attempt:
                    self._sleep(self.backoff_s * 2 ** (attempt - 1))
                try:
                    if tools and self.mode(provider) == "prompt":
                        reply = self._request(provider, prompt_mode(messages, tools), None, on_token, forced=forced)
                    else:
                        reply = self._request(provider, messages, tools, on_token, tool_choice, forced=forced)
                except _Refused as exc:
                    reason = str(exc)
                    log.info("provider %s refused the connection; trying the next one", provider.shown_url)
                    break
                except _Retryable as exc:
                    reason = str(exc)
                    log.info("provider %s failed (attempt %d): %s", provider.shown_url, attempt + 1, redact_url(reason))
                    if on_retry is not None:
                        on_retry(reason)
                    continue
                except ProviderError as exc:  # not worth retrying on this provider
                    reason = str(exc)
                    break
                reply.provider, reply.url = provider.shown, provider.shown_url
                return reply
            attempts.append((provider.shown_url, redact_url(reason)))
        summary = "; ".join(f"{url}: {why}" for url, why in attempts)
        raise ProviderError(f"no model provider answered ({summary})", attempts)

    def _request(self, provider: Provider, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                 on_token: Callable[[str], None] | None, tool_choice: str | None = None,
                 forced: JsonObject | None = None) -> Reply:
        openai = _sdk()

        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        if forced is not None and provider.call_grammar:
            kwargs["response_format"] = {"type": "json_schema",
                                         "json_schema": {"name": "tool_call", "schema": forced}}
            tool_choice = None
        if tools:
            kwargs["tools"] = tools
            if tool_choice and provider.tool_choice:
                kwargs["tool_choice"] = tool_choice
        if not provider.api_key:
            kwargs["extra_headers"] = {"Authorization": openai.Omit()}
        try:
            client = self._client(provider)
            if on_token is None:
                return _from_completion(client.chat.completions.create(**kwargs))
            stream = client.chat.completions.create(stream=True, stream_options={"include_usage": True}, **kwargs)
            reply = _from_stream(stream, on_token)
            if reply is None:  # the server ignored `stream` (no events): ask again without it
                reply = _from_completion(client.chat.completions.create(**kwargs))
                if reply.content:
                    on_token(reply.content)
            return reply
        except openai.APITimeoutError:
            raise _Retryable(f"no answer within {self.timeout:g} s (provider_timeout_secs)") from None
        except openai.APIConnectionError as exc:
            if _refused(exc) and is_loopback(provider.url):
                raise _Refused(f"connection refused: nothing listens at {provider.shown_url}") from None
            raise _Retryable(f"connection failed: {_cause(exc)}") from None
        except openai.InternalServerError as exc:
            detail = _detail(exc)
            if parser_error(detail):
                raise ModelOutputError(f"the server could not parse the model's output (HTTP {exc.status_code}: "
                                       f"{detail})", provider.shown_url) from None
            raise _Retryable(f"HTTP {exc.status_code}: {detail}") from None
        except openai.RateLimitError as exc:
            raise _Retryable(f"HTTP {exc.status_code}: {_detail(exc)}") from None
        except openai.APIStatusError as exc:
            if "response_format" in kwargs and exc.status_code in (400, 422) and \
                    re.search(r"response_format|json_schema|grammar|schema", _detail(exc), re.I):
                log.info("provider %s refuses a response_format schema (%s): the call is asked for with "
                         "tool_choice", provider.shown_url, _detail(exc))
                provider.call_grammar = False
                return self._request(provider, messages, tools, on_token, "required" if tools else None)
            if "tool_choice" in kwargs and exc.status_code in (400, 422) and "tool_choice" in _detail(exc):
                log.info("provider %s refuses tool_choice (%s): sent without it", provider.shown_url, _detail(exc))
                provider.tool_choice = False
                return self._request(provider, messages, tools, on_token)
            key_hint = "check the provider's api_key_env or api_key"
            hint = {401: key_hint, 403: key_hint,
                    404: f"is the model {self.model!r} pulled/served there, and the URL right?"}.get(exc.status_code)
            raise ProviderError(f"HTTP {exc.status_code}: {_detail(exc)}" + (f" ({hint})" if hint else "")) from None
        except openai.APIError as exc:  # an error event inside a stream (no status of its own)
            detail = _detail(exc)
            if parser_error(detail):
                raise ModelOutputError(f"the server could not parse the model's output ({detail})",
                                       provider.shown_url) from None
            raise _Retryable(f"the server reported an error: {detail}") from None
        except (ValueError, TypeError, AttributeError) as exc:  # a body that is not a chat completion
            raise _Retryable(f"the reply is not a valid chat completion ({type(exc).__name__}: {exc})") from None
        except RecursionError:  # a body nested deeper than the JSON decoder can follow
            raise _Retryable("the reply is not a valid chat completion (JSON nested too deeply)") from None


def _forced(tools: list[JsonObject] | None, only: Sequence[str] | None,
            values: Mapping[str, Sequence[JsonValue]] | None) -> JsonObject | None:
    """The schema of the calls a "required" reply may be (None without tools)."""
    return call_schema(tools, only, values) if tools else None


PROBE_TOOL = {"type": "function", "function": {"name": "ping", "description": "Answer a ping.",
                                              "parameters": {"type": "object", "properties": {}}}}


class ProbeCache(Protocol):
    def probed_mode(self, url: str, model: str) -> str | None: ...

    def note_probe(self, url: str, model: str, mode: str) -> None: ...


def _probe_key(url: str) -> str:
    """What the probe cache keys a server by: a digest, so a password in the URL is not stored."""
    return hashlib.sha256(url.encode()).hexdigest()[:32]


def _key_for(provider: Provider, entry: Any, default_settings: Settings | None) -> str:
    """The API key this provider gets: its entry's (api_key_env, then api_key); the default provider alone also
    gets the top-level api_key / EDGE_AGENT_API_KEY. Never over plain http to another host without opt-in."""
    key = ""
    if entry is not None and entry.api_key_env:
        key = os.environ.get(entry.api_key_env, "")
        if not key:
            log.warning("provider %s: the environment variable %s is not set; no API key sent",
                        provider.shown, entry.api_key_env)
    elif entry is not None and entry.api_key:
        key = entry.api_key
    elif default_settings is not None:
        key = os.environ.get(API_KEY_ENV) or default_settings.api_key
    if key and provider.url.lower().startswith("http://") and not is_loopback(provider.url) and \
            not (entry is not None and entry.allow_plain_http_key):
        log.warning("provider %s: not sending its API key over plain http to another host; use https, or set "
                    "allow_plain_http_key = true in its [providers] entry", provider.shown)
        return ""
    return key


def _sdk() -> Any:
    """The openai SDK, or BackendUnavailable naming the extra that installs it."""
    try:
        import openai
    except ImportError:
        raise BackendUnavailable("the agent talks to models through the openai SDK, which is not installed; "
                                 "install the agent extra: pip install 'edge-agent[agent]'") from None
    return openai


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    text = str(inner or exc) or type(inner or exc).__name__
    return text.splitlines()[0][:200]


def _detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    msg: Any = None
    if isinstance(body, dict):
        err = body.get("error")
        msg = body.get("message") or (err.get("message") if isinstance(err, dict) else err)
    return str(msg or getattr(exc, "message", "") or type(exc).__name__)[:200]


def _usage(usage: Any) -> dict[str, int]:
    if usage is None:
        return {}
    out = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = getattr(usage, key, None)
        if isinstance(value, int):
            out[key] = value
    return out


def _reasoning(obj: Any) -> str:
    """Reasoning a server returned beside the answer (``reasoning_content``, or ``reasoning``)."""
    extra = getattr(obj, "model_extra", None) or {}
    for key in ("reasoning_content", "reasoning"):
        value = getattr(obj, key, None) or extra.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _from_completion(resp: Any) -> Reply:
    if isinstance(resp, str) or not getattr(resp, "choices", None):
        raise ValueError("the body has no choices")
    msg = resp.choices[0].message
    calls = [NativeCall(c.id or "", c.function.name or "", c.function.arguments or "")
             for c in (msg.tool_calls or []) if getattr(c, "function", None) is not None]
    return Reply(msg.content or "", _reasoning(msg), calls, _usage(resp.usage))


def _from_stream(stream: Any, on_token: Callable[[str], None]) -> Reply | None:
    """The reply assembled from stream events (None when the stream held no event at all)."""
    events = 0
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, NativeCall] = {}
    usage: dict[str, int] = {}
    for chunk in stream:
        events += 1
        if isinstance(chunk, str):
            raise ValueError("a stream event is not a chat completion chunk")
        if getattr(chunk, "usage", None):
            usage = _usage(chunk.usage)
        for choice in chunk.choices or []:
            delta = choice.delta
            if delta is None:
                continue
            if delta.content:
                content.append(delta.content)
                on_token(delta.content)
            if piece := _reasoning(delta):
                reasoning.append(piece)
            for tc in delta.tool_calls or []:
                call = calls.setdefault(tc.index, NativeCall("", "", ""))
                call.id = tc.id or call.id
                if tc.function is not None:
                    call.name += tc.function.name or ""
                    call.arguments += tc.function.arguments or ""
    if not events:
        return None
    return Reply("".join(content), "".join(reasoning), [calls[i] for i in sorted(calls)], usage)
