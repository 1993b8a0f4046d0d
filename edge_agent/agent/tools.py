"""The agent's tools: exactly the MCP server's tools, offered in the OpenAI ``tools`` shape.

One definition serves both: each public method of :class:`edge_agent.mcp.tools.Tools` is a tool, its
docstring the description and its typed signature the input schema. The argument model is built the
way the MCP server builds it (a pydantic model named ``<tool>Arguments`` with one field per
parameter), so the schema a model sees here is the schema an MCP client sees.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from edge_agent.errors import InvalidToolCallError
from edge_agent.hub.tools import pre_parse_json
from edge_agent.mcp.messages import sent
from edge_agent.mcp.tools import TOOL_NAMES, Tools

# What a small model needs to work the board: look pins and datasheets up, read and drive GPIO, find
# I2C devices, read the sensor. Board facts, raw I2C reads and writes, SPI and the memory tools stay
# for full mode: together the schemas must fit COMPACT_SCHEMA_CHARS, and the turn already engages and
# reflects memory itself.
COMPACT_TOOLS: tuple[str, ...] = (
    "gpio_write", "gpio_read", "pin_resolve", "datasheet_search", "i2c_scan", "sensor_read",
)
COMPACT_SCHEMA_CHARS = 6000


class _ArgsBase(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")  # as the MCP server: unknown = error


@functools.cache
def argument_model(name: str) -> type[BaseModel]:
    """The pydantic model of one tool's arguments (unknown name: InvalidToolCallError)."""
    if name not in TOOL_NAMES:
        raise InvalidToolCallError(f"there is no tool {name!r}; the tools are: {', '.join(TOOL_NAMES)}",
                                   tool=name)
    fn = getattr(Tools, name)
    fields: dict[str, Any] = {}
    for param in list(inspect.signature(fn, eval_str=True).parameters.values())[1:]:  # drop self
        annotation = param.annotation if param.annotation is not inspect.Parameter.empty else Any
        field_name, extra = param.name, {}
        if callable(getattr(BaseModel, field_name, None)):  # would shadow a BaseModel method
            field_name, extra = f"field_{param.name}", {"alias": param.name}
        typed = Annotated[annotation, Field(**extra)]  # type: ignore[valid-type]
        fields[field_name] = typed if param.default is inspect.Parameter.empty else (typed, param.default)
    return create_model(f"{name}Arguments", __base__=_ArgsBase, **fields)


def description(name: str) -> str:
    argument_model(name)  # checks the name
    return getattr(Tools, name).__doc__ or ""


def input_schema(name: str) -> dict[str, Any]:
    """The JSON schema of a tool's arguments, as the MCP server lists it."""
    return argument_model(name).model_json_schema(by_alias=True)


def openai_tool_specs(names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """OpenAI chat-completions tool specs for `names` (default: every tool), in registration order."""
    wanted = TOOL_NAMES if names is None else tuple(n for n in TOOL_NAMES if n in set(names))
    return [{"type": "function", "function": {"name": n, "description": description(n), "parameters": input_schema(n)}}
            for n in wanted]


def simplified(spec: dict[str, Any], drop: Sequence[str] = ()) -> dict[str, Any]:
    """A tool spec for a small model: the `drop` arguments left out and pydantic's per-field ``title``
    removed (it repeats the argument's name). Calls are still checked against the full schema."""
    fn = dict(spec["function"])
    params = dict(fn.get("parameters") or {})
    props = {k: {kk: vv for kk, vv in v.items() if kk != "title"} if isinstance(v, dict) else v
             for k, v in (params.get("properties") or {}).items() if k not in drop}
    params["properties"] = props
    params.pop("title", None)
    if "required" in params:
        params["required"] = [r for r in params["required"] if r in props]
    fn["parameters"] = params
    return {**spec, "function": fn}


def compact_spec(spec: dict[str, Any], *, boards: int) -> dict[str, Any]:
    """A tool spec trimmed for a small model: only the arguments a call on this bench needs.

    Small models copy optional arguments between tools (a ``"bus": null`` on ``gpio_write``) and take
    an example value literally (``"adapter": "board"``). So the compact form leaves out ``adapter``
    (``board`` names the same thing), ``board`` and ``bus`` when one board is configured (the
    first board's first bus is the default), result limits, and arguments with a single allowed value;
    titles and length limits go too. The tool still accepts every argument of the full schema.
    """
    fn = spec["function"]
    params = fn["parameters"]
    drop = {"adapter", "limit"} | ({"board", "bus"} if boards <= 1 else set())
    props: dict[str, Any] = {}
    for name, prop in params.get("properties", {}).items():
        if name in drop or "const" in prop:
            continue
        props[name] = PIN_PROPERTY if _is_pin(prop) else LEVEL_PROPERTY if _is_level(fn["name"], name) else \
            _address(prop) if _is_address(prop) else _plain(prop)
    out = {"type": "object", "properties": props, "additionalProperties": False}
    required = [r for r in params.get("required", []) if r in props]
    if required:
        out["required"] = required
    return {"type": "function", "function": {"name": fn["name"], "description": fn["description"], "parameters": out}}


# A pin argument for a small model: a name only. The full schema also takes a number (a Pi's BCM line),
# and its example list ended in 17, which a 1.5B model copied as the pin of every call ("pin": 17 for
# LD2); with the type a string, a server that turns the schema into a grammar cannot emit a number.
PIN_PROPERTY: dict[str, Any] = {"type": "string", "description": "The pin's name as the board or the message "
                                "writes it, e.g. 'PA5', 'D13' or an alias like 'LD2'; never a bare number."}


# The level of a write, in the words operators use for it ("turn the fan on": 1).
LEVEL_PROPERTY: dict[str, Any] = {"type": "integer", "enum": [0, 1],
                                  "description": "1 = high = on, 0 = low = off."}


def _is_level(tool: str, name: str) -> bool:
    return tool == "gpio_write" and name == "value"


def _is_address(prop: dict[str, Any]) -> bool:
    return "I2C target address" in str(prop.get("description", ""))


def _address(prop: dict[str, Any]) -> dict[str, Any]:
    """An I2C address as a number only: the full schema's string form let a small model write the chip's
    name ("bme280") where the address goes."""
    out: dict[str, Any] = {"type": "integer", "minimum": 3, "maximum": 119,
                           "description": "7-bit I2C address as a number, e.g. 118 for 0x76."}
    if "default" in prop:
        out["default"] = prop["default"]
    return out


def _is_pin(prop: dict[str, Any]) -> bool:
    return str(prop.get("description", "")).startswith("Pin name")


def _plain(prop: dict[str, Any]) -> dict[str, Any]:
    """A property schema without titles and length limits; ``anyOf`` with null reduced to the other type."""
    out = {k: v for k, v in prop.items() if k not in ("title", "maxLength", "minLength")}
    alts = [a for a in out.pop("anyOf", []) if a.get("type") != "null"]
    if len(alts) == 1:
        out = {**{k: v for k, v in alts[0].items() if k not in ("maxLength", "minLength")}, **out}
    elif alts:
        out["anyOf"] = [{k: v for k, v in a.items() if k not in ("maxLength", "minLength")} for a in alts]
    if out.get("default", 0) is None:
        del out["default"]
    return out


def specs_chars(specs: list[dict[str, Any]]) -> int:
    """Characters of the tool specs as sent (compact JSON)."""
    return len(json.dumps(specs, separators=(",", ":")))


def valid_call(name: str) -> str:
    """A one-line example of a well-formed call to `name`, built from its schema."""
    schema = input_schema(name)
    props: dict[str, Any] = schema.get("properties", {})
    required = [p for p in schema.get("required", []) if p in props]
    example = {p: _placeholder(props[p]) for p in required}
    optional = [p for p in props if p not in required]
    text = json.dumps({"name": name, "arguments": example})
    return text + (f" (optional arguments: {', '.join(optional)})" if optional else "")


def _placeholder(prop: dict[str, Any]) -> Any:
    types = [prop.get("type")] + [alt.get("type") for alt in prop.get("anyOf", [])]
    if "string" in types:
        return "..."
    if "integer" in types:
        return 0
    if "number" in types:
        return 0.0
    if "array" in types:
        return []
    if "object" in types:
        return {}
    return "..."


def check_arguments(name: str, arguments: Any) -> dict[str, Any]:
    """Validate a call's arguments: the keyword arguments for the tool, or InvalidToolCallError saying what is wrong."""
    model = argument_model(name)
    if not isinstance(arguments, dict):
        raise InvalidToolCallError(
            f"{name}: arguments must be a JSON object; a valid call looks like {valid_call(name)}", tool=name)
    known = {f.alias or key for key, f in model.model_fields.items()}
    unknown = sorted(set(arguments) - known)
    if unknown:
        raise InvalidToolCallError(
            f"{name} has no argument {', '.join(unknown)}; its arguments are {', '.join(sorted(known))}. "
            f"A valid call looks like {valid_call(name)}", tool=name)
    try:
        parsed = model.model_validate(pre_parse_json(arguments))
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            where = ".".join(str(p) for p in err["loc"]) or "arguments"
            problems.append(f"{where}: {err['msg']} (got {sent(err.get('input'))})")
        raise InvalidToolCallError(f"{name}: invalid arguments: {'; '.join(problems)}. "
                                   f"A valid call looks like {valid_call(name)}", tool=name) from None
    return {(f.alias or key): getattr(parsed, key) for key, f in model.model_fields.items()}

