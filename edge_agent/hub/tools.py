"""The MCP tools by name over an in-process Runtime, worded as the daemon's MCP server words them.

:class:`LocalToolCaller` is the in-process side of :meth:`edge_agent.hub.connect.Services.call_tool`
(the daemon's side is ``tools/call`` over its socket, :class:`edge_agent.hub.client.SocketServices`).
Both run the same :class:`edge_agent.hub.toolbox.Tools` methods with the same argument checks and return
the same JSON; a refusal or failure is raised as :class:`ToolCallError` (an invalid call as its
subclass :class:`InvalidToolCallError`) with the sentence an MCP client would see.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from edge_agent.errors import EdgeAgentError, InvalidToolCallError, ToolCallError
from edge_agent.jsontypes import JsonObject, JsonValue

if TYPE_CHECKING:
    from edge_agent.runtime import Runtime

log = logging.getLogger(__name__)


def _unknown_tool(name: str, names: tuple[str, ...] | list[str]) -> InvalidToolCallError:
    return InvalidToolCallError(f"unknown tool {name!r}; the tools are: {', '.join(names)}", tool=name)


class LocalToolCaller:
    """The tools over a Runtime in this process (no daemon serves the state directory)."""

    def __init__(self, runtime: Runtime, *, owns_runtime: bool = False) -> None:
        from edge_agent.hub.toolbox import TOOL_NAMES, Tools

        self.runtime = runtime
        self._owns = owns_runtime
        self._tools = Tools(runtime)
        self._names = TOOL_NAMES
        self._validated: dict[str, Any] = {}
        self._params: dict[str, tuple[list[str], list[str]]] = {}

    def _function(self, name: str) -> Any:
        fn = self._validated.get(name)
        if fn is None:
            from pydantic import validate_call

            fn = self._validated[name] = validate_call(getattr(self._tools, name))
        return fn

    def _signature(self, name: str) -> tuple[list[str], list[str]]:
        """(parameter names, required parameter names) of tool ``name``."""
        sig = self._params.get(name)
        if sig is None:
            import inspect

            params = inspect.signature(getattr(self._tools, name)).parameters.values()
            sig = self._params[name] = ([p.name for p in params],
                                        [p.name for p in params if p.default is inspect.Parameter.empty])
        return sig

    def call_tool(self, name: str, arguments: JsonObject) -> JsonValue:
        """Validate ``arguments`` against the tool's signature and run it."""
        from pydantic import ValidationError

        from edge_agent.hub.messages import for_agent, invalid_arguments, sent, unknown_arguments

        if name not in self._names:
            raise _unknown_tool(name, self._names)
        if not isinstance(arguments, dict):
            raise InvalidToolCallError(f"Error executing tool {name}: arguments must be a JSON object, "
                                       f"not {type(arguments).__name__}", tool=name)
        known, required = self._signature(name)
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            raise InvalidToolCallError(unknown_arguments(name, unknown, known), tool=name)
        missing = [p for p in required if p not in arguments]
        if missing:  # worded as the MCP server's schema validation words it
            got = sent(arguments)
            raise InvalidToolCallError(f"Error executing tool {name}: invalid arguments: "
                                       + "; ".join(f"{p}: Field required (got {got})" for p in missing)
                                       + "; the tool's input schema lists the expected types", tool=name)
        try:
            result = self._function(name)(**pre_parse_json(arguments))
        except ValidationError as exc:
            raise InvalidToolCallError(f"Error executing tool {name}: {invalid_arguments(exc)}", tool=name) from exc
        except EdgeAgentError as exc:
            raise ToolCallError(f"Error executing tool {name}: {for_agent(exc)}", tool=name) from exc
        except Exception as exc:
            log.exception("tool %s failed unexpectedly", name)
            raise ToolCallError(f"{name} failed with an internal error ({type(exc).__name__}); the log has "
                                "the details. Check runtime_status, then retry or try another approach",
                                tool=name) from exc
        plain: JsonValue = _plain(result)
        return plain

    def close(self) -> None:
        if self._owns:
            self.runtime.close()

    def __enter__(self) -> LocalToolCaller:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _plain(result: Any) -> Any:
    """The JSON form of a tool result (pydantic models dumped as an MCP client receives them)."""
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return result


def pre_parse_json(arguments: Mapping[str, JsonValue]) -> JsonObject:
    """Lists and objects sent as JSON text (``"[1, 2]"``) are parsed before validation, as the MCP server
    does: models often quote a list argument. Text that is not a JSON list or object is left as sent."""
    out = dict(arguments)
    for key, value in arguments.items():
        if isinstance(value, str) and value[:1] in ("[", "{"):
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                continue
            if isinstance(parsed, list | dict):
                out[key] = parsed
    return out
