"""An action, the registry of actions, and the in-process way to run them.

An :class:`Action` is one thing the device can do, defined once: its name (the MCP tool's name), a
pydantic input model, a result model, and the function that runs it against :class:`Resources`
(the adapters, the memory store, the datasheet index). The safety policy is applied by the adapters
the function uses; a hardware write keeps its audit capture through :meth:`Resources.record_write`;
errors are raised from the edge_agent tree. Every face (MCP tool, socket operation, CLI command,
agent tool) calls the action by name with plain JSON arguments and gets the result model's JSON.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from edge_agent.errors import InvalidArgumentError, UnknownActionError
from edge_agent.services.results import JSON, ToolResult, WriteRecord

if TYPE_CHECKING:
    from edge_agent.bus.pool import AdapterSlot
    from edge_agent.config import Settings
    from edge_agent.memory import MemoryStore
    from edge_agent.memory.response_cache import ResponseCache
    from edge_agent.pins import PinIndex
    from edge_agent.rag import HardwareRag
    from edge_agent.services.resources import RuntimeLike


class Resources(Protocol):
    """What an action may use. Two implementations: over a running daemon's runtime (its adapter slots,
    one transaction at a time each, and its open store), and for one command in a process of its own
    (opens what the action needs and closes it afterwards); see :mod:`edge_agent.services.resources`."""

    @property
    def settings(self) -> Settings: ...

    @property
    def state_dir(self) -> Path: ...

    @property
    def pins(self) -> PinIndex: ...

    @property
    def runtime(self) -> RuntimeLike | None:
        """The running runtime (the daemon's, or ``edge-agent mcp``'s), None for a command in its own process."""
        ...

    def hardware(self, adapter: str | None = None, board: str | None = None, url: str | None = None, *,
                 pins: bool = False) -> contextlib.AbstractContextManager[AdapterSlot]:
        """Hold one adapter for a transaction: the configured one named ``adapter``, or serving ``board``,
        or the first; with ``url``, that adapter (``board`` then names the board for pin names)."""
        ...

    def store(self, workspace: str | None = None) -> contextlib.AbstractContextManager[MemoryStore]: ...

    def cache(self, workspace: str | None = None) -> contextlib.AbstractContextManager[ResponseCache]: ...

    def datasheets(self) -> contextlib.AbstractContextManager[HardwareRag]:
        """The datasheet index (ComponentUnavailable when there is none)."""
        ...

    def record_write(self, action: str, slot: AdapterSlot, title: str, args: JSON) -> WriteRecord | None:
        """With ``[server] record_hardware_writes``, keep a hardware write as a command_execution capture."""
        ...


class ActionInput(BaseModel):
    """Base of every action's input: unknown arguments are errors, never ignored."""

    model_config = ConfigDict(extra="forbid")


In = TypeVar("In", bound=ActionInput)
Out = TypeVar("Out", bound=ToolResult)


@dataclass(frozen=True)
class Action(Generic[In, Out]):
    """One action: ``run(resources, input) -> result``."""

    name: str
    input: type[In]
    result: type[Out]
    fn: Callable[[Resources, In], Out]
    #: Changes the outside world (a bus write, a stored memory); faces may ask before calling it.
    writes: bool = False

    @property
    def summary(self) -> str:
        """The first line of the function's docstring: the action's one-line description."""
        return (self.fn.__doc__ or self.name).strip().splitlines()[0]

    def parse(self, args: Mapping[str, object]) -> In:
        """``args`` validated against the input model; InvalidArgumentError saying what is wrong."""
        try:
            return self.input.model_validate(dict(args))
        except ValidationError as exc:
            raise InvalidArgumentError(f"{self.name}: {_problems(exc)}") from None

    def __call__(self, resources: Resources, args: In) -> Out:
        return self.fn(resources, args)


def _problems(exc: ValidationError) -> str:
    out = []
    for err in exc.errors(include_url=False)[:5]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        if err.get("type") == "extra_forbidden":
            out.append(f"{where}: unknown argument")
        else:
            out.append(f"{where}: {err.get('msg')} (got {err.get('input')!r:.60})")
    return "; ".join(out)


#: Every action by name, filled by the modules that define them (imported by :func:`actions`).
_ACTIONS: dict[str, Action[ActionInput, ToolResult]] = {}
#: The modules that define actions, those that load the least first: an action is looked up module by
#: module, so a process that only engages memory and reads the response cache (the agent's turn on a
#: cache hit) never imports the hardware actions and the bus layer behind them.
_MODULES = ("memory", "context", "upkeep", "lookups", "hardware")


def action(name: str, input: type[In], result: type[Out], *, writes: bool = False  # noqa: A002
           ) -> Callable[[Callable[[Resources, In], Out]], Action[In, Out]]:
    """Decorator: define the action ``name`` from a function of (resources, input) -> result."""
    def register(fn: Callable[[Resources, In], Out]) -> Action[In, Out]:
        made: Action[In, Out] = Action(name, input, result, fn, writes)
        if name in _ACTIONS:
            raise RuntimeError(f"action {name!r} is defined twice")
        _ACTIONS[name] = made  # type: ignore[assignment]  # the registry holds every In/Out pair
        return made

    return register


def actions() -> Mapping[str, Action[ActionInput, ToolResult]]:
    """Every action by name."""
    import importlib

    for module in _MODULES:
        importlib.import_module(f"edge_agent.services.{module}")
    return _ACTIONS


def get_action(name: str) -> Action[ActionInput, ToolResult]:
    """Action ``name``, importing the defining modules in :data:`_MODULES` order only until it is found."""
    import importlib

    for module in _MODULES:
        if name in _ACTIONS:
            break
        importlib.import_module(f"edge_agent.services.{module}")
    found = _ACTIONS.get(name)
    if found is None:
        raise UnknownActionError(f"there is no action {name!r}; the actions are: {', '.join(sorted(_ACTIONS))}")
    return found


class LocalServices:
    """The actions run in this process against ``resources``; ``close`` runs ``on_close`` (what was opened)."""

    def __init__(self, resources: Resources, on_close: Callable[[], None] | None = None) -> None:
        self.resources = resources
        self._on_close = on_close

    def run(self, name: str, args: Mapping[str, object]) -> ToolResult:
        """Validate ``args`` and run action ``name``; the result model."""
        act = get_action(name)
        return act(self.resources, act.parse(args))

    def call(self, name: str, args: Mapping[str, object]) -> JSON:
        """Run action ``name``; its result as the JSON every face returns."""
        return self.run(name, args).as_json()

    def close(self) -> None:
        if self._on_close is not None:
            self._on_close()
            self._on_close = None

    def __enter__(self) -> LocalServices:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Action", "ActionInput", "LocalServices", "Resources", "action", "actions", "get_action"]
