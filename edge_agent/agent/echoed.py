"""Arguments a small model copied from what it was shown instead of writing a call: repaired, said out loud.

Two shapes seen from 0.5B-1.5B models, both for the agent only (MCP clients stay strict):

- **the schema as the call.** ``i2c_scan`` called with ``{"type": "object", "properties": {},
  "additionalProperties": false}``: the tool's parameter schema copied verbatim. An argument object
  whose top-level keys are all JSON-schema keywords is read as "the call with the values this schema
  names": a ``const`` or ``default`` given for one of the tool's own arguments is taken when the
  whole call then checks, otherwise the call has no arguments at all. A state-changing tool never
  takes a value from a copied schema (it gets no arguments, so a write without its pin and value is
  refused by the check). A schema keyword beside real arguments (``{"addr": 118,
  "additionalProperties": false}``) is dropped.
- **the result as the call.** After ``gpio_write`` answered ``{"adapter": .., "board": .., "pin":
  "PA5", "requested": "PA5", "value": 1}`` the model sends that object back as the next call's
  arguments. Keys that only a result has (``requested``, ``addresses_hex``, the loop's own
  ``note`` / ``error``...) carry nothing a call could mean; they are dropped, but only when what is
  left is a valid call. The pin and value are the result's own, so the repair never changes which
  pin or value is written.

Each repair returns a note for the tool result, so the model and the operator see what was ignored.
"""

from __future__ import annotations

import functools
import json
import typing
from typing import Any

from pydantic import BaseModel

from edge_agent.agent.tools import check_arguments, input_schema
from edge_agent.errors import EdgeAgentError
from edge_agent.hub import STATE_CHANGING
from edge_agent.mcp.tools import TOOL_NAMES, Tools

# JSON-schema keywords a copied schema has at its top level (none is an argument of a tool here; one
# that is a tool's own argument stays an argument).
SCHEMA_KEYWORDS = frozenset({"type", "properties", "additionalProperties", "required", "$schema", "$defs",
                             "definitions", "title", "description", "anyOf", "oneOf", "allOf", "items",
                             "patternProperties", "default", "examples"})
# Keywords that are never a value a call could carry: dropped even beside real arguments.
_NEVER_ARGUMENTS = frozenset({"additionalProperties", "properties", "required", "$schema", "$defs",
                              "patternProperties"})
_JSON_TYPES = frozenset({"object", "string", "integer", "number", "boolean", "array", "null"})
# Keys of the tool-result body the loop sends back (besides the result's own fields).
_LOOP_RESULT_KEYS = frozenset({"note", "error", "result"})


@functools.cache
def _props(name: str) -> frozenset[str]:
    return frozenset(input_schema(name).get("properties", {}))


@functools.cache
def result_only_keys(name: str) -> frozenset[str]:
    """The keys of tool `name`'s result that are not arguments of it (its output model's field names)."""
    hints = typing.get_type_hints(getattr(Tools, name))
    model = hints.get("return")
    keys: set[str] = set(_LOOP_RESULT_KEYS)
    if isinstance(model, type) and issubclass(model, BaseModel):
        keys.update(f.alias or k for k, f in model.model_fields.items())
    return frozenset(keys - _props(name))


def _valid(name: str, arguments: dict[str, Any]) -> bool:
    try:
        check_arguments(name, arguments)
    except EdgeAgentError:
        return False
    return True


def _schema_shaped(name: str, arguments: dict[str, Any]) -> bool:
    if not arguments or any(k not in SCHEMA_KEYWORDS or k in _props(name) for k in arguments):
        return False
    return "properties" in arguments or arguments.get("type") == "object"


def _from_schema(name: str, schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The call a copied schema stands for: the const/default values it names, when they check."""
    shown = _clip(json.dumps(schema, ensure_ascii=False, default=str))
    taken: dict[str, Any] = {}
    props = schema.get("properties")
    if name not in STATE_CHANGING and isinstance(props, dict):
        for key, prop in props.items():
            if key in _props(name) and isinstance(prop, dict):
                for word in ("const", "default"):
                    if word in prop and prop[word] is not None:
                        taken[key] = prop[word]
                        break
    if taken and _valid(name, taken):
        values = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in taken.items())
        return taken, [f"the arguments were the tool's JSON schema ({shown}), not values: used the values it "
                       f"names ({values})"]
    if name in STATE_CHANGING:
        return {}, [f"the arguments were the tool's JSON schema ({shown}), not values; {name} takes its values only "
                    "as sent: send the argument names and values"]
    return {}, [f"the arguments were the tool's JSON schema ({shown}), not values: called {name} with no "
                "arguments (its defaults apply); next time send only argument names and values"]


def repair(name: str, arguments: Any) -> tuple[Any, list[str]]:
    """(arguments with copied schema or result keys removed, a note per repair) for a call to `name`."""
    if not isinstance(arguments, dict) or name not in TOOL_NAMES:
        return arguments, []
    if _schema_shaped(name, arguments):
        return _from_schema(name, arguments)
    out = dict(arguments)
    notes: list[str] = []
    props = _props(name)
    for key in list(out):
        if key in props:
            continue
        if key in _NEVER_ARGUMENTS or (key == "type" and out[key] in _JSON_TYPES):
            notes.append(f"ignored {key}={_clip(json.dumps(out.pop(key), default=str))}: a JSON-schema keyword, "
                         "not an argument")
    echoed = [k for k in out if k in result_only_keys(name)]
    if echoed:
        rest = {k: v for k, v in out.items() if k not in echoed}
        if _valid(name, rest):
            notes.append(f"ignored {', '.join(sorted(echoed))}: only {name}'s result has "
                         f"{'that key' if len(echoed) == 1 else 'those keys'}, a call does not")
            out = rest
    return out, notes


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
