"""The one error tree of edge_agent.

Every error raised on purpose derives from :class:`EdgeAgentError`; leaves also inherit the builtin
that fits (``ValueError``, ``LookupError``, ``OSError``) so generic callers can still catch them.
Messages are sentences an agent or operator can act on: what failed, why, and what to try. Where
the next step is a command for an operator and a tool for an agent, it is a structured
:class:`NextStep` in ``hint``, and each reader gets its own form (:meth:`EdgeAgentError.explain`).
Tests assert on type and structured fields, never on message text.
"""

from __future__ import annotations

import importlib
import shlex
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from edge_agent.jsontypes import JsonObject, JsonValue

Reader = Literal["operator", "agent"]


@dataclass(frozen=True)
class NextStep:
    """What to do about an error: the command an operator runs, or the tool an agent calls.

    ``purpose`` finishes either sentence ("to list responding addresses"). A step with no tool has
    nothing to offer an agent (it cannot run a shell command), and the agent's message leaves it out.
    """

    purpose: str
    command: str = ""
    tool: str = ""
    arguments: Mapping[str, JsonValue] = field(default_factory=dict)

    def for_reader(self, reader: Reader) -> str:
        """The step as a clause for ``reader`` ('' when there is nothing for that reader to do)."""
        if reader == "agent":
            if not self.tool:
                return ""
            args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
            return f"call {self.tool}{f' with {args}' if args else ''} {self.purpose}"
        return f"run `{self.command}` {self.purpose}" if self.command else ""


class EdgeAgentError(Exception):
    """Root of every error edge_agent raises on purpose; ``hint`` is its structured next step, if any."""

    hint: NextStep | None = None

    def __init__(self, *args: object, hint: NextStep | None = None) -> None:
        super().__init__(*args)
        if hint is not None:
            self.hint = hint

    def message(self) -> str:
        """What failed and why, without the next step."""
        return Exception.__str__(self)

    def explain(self, reader: Reader = "operator") -> str:
        """The message with the next step written for ``reader``."""
        text = self.message()
        step = self.hint.for_reader(reader) if self.hint is not None else ""
        return f"{text}; {step}" if step else text

    def __str__(self) -> str:
        return self.explain("operator")


ECHO_CHARS = 40


def echo(text: str, limit: int = ECHO_CHARS) -> str:
    """``text`` quoted for a message, cut to its first ``limit`` characters (and its length) when longer.

    A name that came from outside can be megabytes long; an error repeats only enough of it to
    recognise it.
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


# --- errors across a process boundary -------------------------------------------------------------

def _plain(value: object) -> bool:
    """True when ``value`` survives JSON unchanged (so an error field can travel as it is)."""
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list | tuple):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def error_to_wire(exc: EdgeAgentError) -> JsonObject:
    """``exc`` as JSON data: its class (and the edge_agent classes it derives from), message, next step
    and structured fields, so the receiving side can raise the same error (:func:`error_from_wire`)."""
    cls = type(exc)
    hint = exc.hint
    fields: JsonObject = {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(exc).items()
                          if k != "hint" and not k.startswith("_") and _plain(v)}
    return {
        "type": cls.__name__, "module": cls.__module__, "message": exc.message(),
        "bases": [c.__name__ for c in cls.__mro__[1:] if isinstance(c, type) and issubclass(c, EdgeAgentError)],
        "hint": None if hint is None else {"purpose": hint.purpose, "command": hint.command, "tool": hint.tool,
                                           "arguments": dict(hint.arguments)},
        "fields": fields,
    }


def _subclasses(root: type[EdgeAgentError]) -> Iterator[type[EdgeAgentError]]:
    todo = [root]
    while todo:
        cls = todo.pop()
        yield cls
        todo.extend(cls.__subclasses__())


def _error_class(name: str, module: str, bases: list[str]) -> type[EdgeAgentError]:
    """The class named ``name`` from ``module`` (imported on demand: this is the error path, not the fast
    one), else the nearest edge_agent base class this process knows, else EdgeAgentError."""
    def known(wanted: str, where: str | None) -> type[EdgeAgentError] | None:
        return next((c for c in _subclasses(EdgeAgentError)
                     if c.__name__ == wanted and (where is None or c.__module__ == where)), None)

    # The class the module defines now first: a module imported twice (a test dropping it from sys.modules)
    # leaves the old copy's classes among the subclasses, and an except clause names the current one.
    current = getattr(sys.modules.get(module), name, None)
    if isinstance(current, type) and issubclass(current, EdgeAgentError):
        return current
    found = known(name, module)
    if found is None and module.startswith("edge_agent."):
        try:
            importlib.import_module(module)
        except Exception:  # an optional extra this process lacks: a base class will do
            pass
        found = known(name, module)
    for base in bases if found is None else ():
        found = known(base, None)
        if found is not None:
            break
    return found or EdgeAgentError


def error_from_wire(data: Mapping[str, JsonValue]) -> EdgeAgentError:
    """The error :func:`error_to_wire` described, as the same class with the same message, hint and fields."""
    bases = data.get("bases")
    cls = _error_class(str(data.get("type") or ""), str(data.get("module") or ""),
                       [str(b) for b in bases] if isinstance(bases, list) else [])
    exc = cls.__new__(cls)
    Exception.__init__(exc, str(data.get("message") or ""))
    hint = data.get("hint")
    if isinstance(hint, dict):
        arguments = hint.get("arguments")
        exc.hint = NextStep(str(hint.get("purpose") or ""), command=str(hint.get("command") or ""),
                            tool=str(hint.get("tool") or ""),
                            arguments=dict(arguments) if isinstance(arguments, dict) else {})
    fields = data.get("fields")
    for key, value in (fields.items() if isinstance(fields, dict) else ()):
        if isinstance(key, str) and not key.startswith("_") and key != "hint":
            setattr(exc, key, value)
    return exc


# --- refusals ------------------------------------------------------------------------------------


class RefusedError(EdgeAgentError):
    """A rule said no and nothing ran: the hardware safety policy, the secret policy, the agent's autonomy
    level or action caps, or the operator's own no. The message says which rule and what would allow it.
    A refusal is not a failure: the same call can run once the rule allows it."""


class ApprovalNeededError(RefusedError):
    """A state-changing call needs the operator's yes (``[autonomy] level = "supervised"``) and nobody
    could be asked (a one-shot without ``--yes``). Nothing ran."""


# --- services -------------------------------------------------------------------------------------


class InvalidArgumentError(EdgeAgentError, ValueError):
    """An action's arguments do not match its input: a missing, unknown or mistyped argument. Nothing ran."""


class UnknownActionError(EdgeAgentError, LookupError):
    """No action of that name (from a CLI and a daemon of different versions, or a typo in a script)."""


class ComponentUnavailable(EdgeAgentError):
    """A runtime component (datasheets, memory, sync, an adapter) is not running."""

    def __init__(self, component: str, reason: str) -> None:
        self.component, self.reason = component, reason
        super().__init__(f"{component} is not available: {reason}")


# --- configuration -------------------------------------------------------------------------------


class ConfigError(EdgeAgentError, ValueError):
    """The configuration file or an option is invalid; the message names the key path."""


# --- datasheets and pins -------------------------------------------------------------------------


class DatasheetError(EdgeAgentError):
    """A datasheet file or the datasheet index could not be used."""


class PinError(EdgeAgentError, LookupError):
    """A pin or board name could not be resolved."""


class UnknownBoardError(PinError):
    """The board is not in boards/ nor named by any datasheet."""

    def __init__(self, board: str, known: list[str]) -> None:
        self.board, self.known = board, known
        shown = ", ".join(known[:40]) + (f" and {len(known) - 40} more (edge-agent rag index lists the datasheets)"
                                         if len(known) > 40 else "")
        super().__init__(f"unknown board {board!r}; known boards: {shown or '(none)'}")


class UnknownPinError(PinError):
    """No pin or alias of that name exists on the board."""

    def __init__(self, board: str, name: str, suggestions: list[str], sources: list[str] | None = None,
                 power: str | None = None) -> None:
        self.board, self.name, self.suggestions = board, name, suggestions
        self.sources = list(sources) if sources is not None else []  # where each suggestion comes from
        self.power = power  # what a header position carries when it is a supply or ground pin, not a signal
        if power is not None:
            super().__init__(
                f"{echo(name)} on {board} is {power}, a supply or ground pin, not a signal a name can stand for",
                hint=NextStep("to see what sits on it", command=f"edge-agent pins which {shlex.quote(name)} --board "
                              f"{board}"),
            )
            return
        shown = [f"{s} ({src})" for s, src in zip(suggestions, self.sources, strict=False)] + suggestions[
            len(self.sources):]
        # A list rather than a question, so the next step can follow after "; " without a stray "?;".
        hint = f"; the closest names are {', '.join(shown)}" if suggestions else ""
        super().__init__(
            f"{board} has no pin or alias {echo(name)}{hint}",
            hint=NextStep("to see every name", command=f"edge-agent pins list --board {board}",
                          tool="hardware_board_info", arguments={"board": board}),
        )


class AmbiguousPinError(PinError):
    """The name matches several pins; the caller must pick one.

    ``candidates`` are the pins; ``choices`` the (name, pin) of each where the name names that pin alone ("I2C1 SDA",
    "PB9"), so the message says what to type; ``matches`` the (spelling, pin, source) of datasheet spellings that
    fit."""

    def __init__(self, board: str, name: str, candidates: list[str],
                 matches: list[tuple[str, str, str]] | None = None,
                 choices: list[tuple[str, str]] | None = None,
                 supplies: list[tuple[str, str]] | None = None) -> None:
        self.board, self.name, self.candidates = board, name, candidates
        self.matches = list(matches or [])  # (name as written, pin, source) of each spelling that fit
        self.choices = [(n, p) for n, p in choices or []]  # (a name of one candidate only, that pin)
        self.supplies = [(n, r) for n, r in supplies or []]  # (header position, what it carries) it could also be
        spellings = [n for n, _, _ in self.matches]
        if self.matches and len(set(spellings)) < len(spellings):  # one spelling, several pins (I2C6 SDA on two)
            listed = "; ".join(f"{p} ({src})" for _, p, src in self.matches)
            super().__init__(f"{echo(name)} is ambiguous on {board}: the datasheets give it several pins: {listed}; "
                             "use the pin name")
        elif self.matches:
            listed = "; ".join(f"{n!r} = {p} ({src})" for n, p, src in self.matches)
            super().__init__(
                f"{name!r} is ambiguous on {board}: names that differ only in case or separators mean different "
                f"pins: {listed}; write one of them exactly as shown, or use the pin name")
        elif self.choices or self.supplies:
            listed = ", ".join([*(p if n == p else f"{n} = {p}" for n, p in self.choices),
                                *(f"{n} ({r}, a supply or ground pin)" for n, r in self.supplies)])
            super().__init__(f"{echo(name)} is ambiguous on {board}: it could be {listed}; type one of those names "
                             "or pins")
        else:
            super().__init__(
                f"{echo(name)} is ambiguous on {board}: it could be {', '.join(candidates)}; use one of those names"
            )

    @property
    def pins(self) -> set[str]:
        """The pins the name could be: the candidates, each choice's pin and each matching spelling's (an error from
        an older peer may write a candidate with its name, "i2c0_SDA (P0.26)": the pin in brackets)."""
        return {c[c.rindex("(") + 1:-1] if c.endswith(")") and "(" in c else c for c in self.candidates} | {
            p for _, p in self.choices} | {p for _, p, _ in self.matches}


# --- buses ----------------------------------------------------------------------------------------


class InvalidAdapterURL(EdgeAgentError, ValueError):
    """An adapter URL could not be parsed, names an unknown scheme, or has unknown options."""


class BackendUnavailable(EdgeAgentError, ImportError):
    """A known adapter scheme whose optional dependency (extra) is not installed."""


class BusError(EdgeAgentError, OSError):
    """A bus operation failed in the adapter, driver or wiring.

    Structured fields: ``adapter`` (URL or name), ``address`` and ``register`` where they apply.
    """

    def __init__(
        self,
        message: str,
        *,
        adapter: str = "",
        address: int | None = None,
        register: int | None = None,
        hint: NextStep | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.adapter, self.address, self.register = adapter, address, register

    def message(self) -> str:  # OSError's __str__ would print an errno tuple
        return str(self.args[0]) if self.args else ""


class I2CNackError(BusError):
    """The I2C target did not acknowledge its address or a data byte; the hint is a scan of that bus."""

    def __init__(self, message: str, *, adapter: str = "", address: int | None = None,
                 register: int | None = None, hint: NextStep | None = None) -> None:
        if hint is None and adapter:
            hint = NextStep("to list responding addresses", command=f"edge-agent bus scan --url {adapter}",
                            tool="i2c_scan")
        super().__init__(message, adapter=adapter, address=address, register=register, hint=hint)


class BusTimeoutError(BusError):
    """The transaction did not complete within its deadline."""


class BusBusyError(BusError):
    """The bus is held busy or stuck (for example SDA held low by a target)."""


class InvalidAddressError(BusError, ValueError):
    """The address, register, length or pin is outside what the bus or board allows."""


class AdapterUnavailableError(BusError):
    """The adapter is absent, unplugged, closed or in use by another process."""


class BusPermissionError(BusError, PermissionError):
    """The operating system denied access to the device node."""


class WriteRefusedError(BusError, RefusedError, PermissionError):
    """The safety policy refused a write; the message names the config key that would allow it."""


class ProtocolError(BusError):
    """The firmware bridge sent something the protocol does not allow."""


# --- memory and sync ------------------------------------------------------------------------------


class MemoryStoreError(EdgeAgentError):
    """The local memory store refused or failed an operation."""


class SyncError(EdgeAgentError):
    """Upstream sync to Kumiho failed or was refused."""


class SecretRejectedError(MemoryStoreError, SyncError, RefusedError, ValueError):
    """A write held credentials and ``[kumiho] secret_policy = "reject"``; nothing was stored or queued.

    ``kinds`` counts what was found per kind, ``fields`` names where (never the values).
    """

    def __init__(self, kinds: dict[str, int], fields: list[str]) -> None:
        self.kinds, self.fields = kinds, fields
        super().__init__(
            f"write refused: it contains credentials ({', '.join(f'{k} x{n}' for k, n in sorted(kinds.items()))}) "
            f"in {', '.join(fields)}; remove them, or set [kumiho] secret_policy = \"redact\" to store it redacted"
        )


# --- inference ------------------------------------------------------------------------------------


class InferenceError(EdgeAgentError):
    """A model could not be loaded or run."""


# --- the agent --------------------------------------------------------------------------------------


class ProviderError(EdgeAgentError):
    """No model provider answered: each one tried is listed in ``attempts`` as (url, reason)."""

    def __init__(self, message: str, attempts: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.attempts = list(attempts or [])


class ModelOutputError(EdgeAgentError):
    """The model server is up but could not turn the model's output into a reply: llama.cpp's server
    answers HTTP 500 when the text the model wrote does not parse as a call to a listed tool. The model
    erred, not the provider: the turn retries once, then asks without tools. ``url`` is the server's."""

    def __init__(self, message: str, url: str = "") -> None:
        super().__init__(message)
        self.url = url


class ToolCallError(EdgeAgentError):
    """A tool call (from an agent or an MCP client) was refused or failed; the message is written for the
    agent: what failed, why, and which tool or argument to use instead. ``tool`` names the tool."""

    def __init__(self, message: str, *, tool: str = "") -> None:
        super().__init__(message)
        self.tool = tool


class InvalidToolCallError(ToolCallError, ValueError):
    """The call itself is wrong: no such tool, arguments not an object, unknown, missing or mistyped
    arguments. Nothing ran; the message says what a valid call looks like."""
