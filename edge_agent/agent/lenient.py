"""Harmless slips of a small model's tool call, repaired before the call and said out loud.

Small models copy arguments between the tool schemas they see: ``gpio_write`` gets ``"bus": null``
because ``i2c_scan`` has a ``bus``, ``sensor_read`` gets ``"limit": ""``, and ``"adapter": "board"``
is the schema's word taken literally. Refusing such a call makes the model send it again until the
round limit. Here, before the arguments are checked, and only for the agent (MCP clients stay
strict: a client that sends an unknown argument gets an error):

- an argument the tool does not have, whose value is empty (null, "", [] or {}) and which some other
  tool does have, is dropped;
- an optional argument sent empty (``"adapter": ""``, ``"bus": null``) is dropped, so its default
  applies;
- ``adapter`` or ``board`` given as a placeholder word ("board", "default", "auto"...) is dropped,
  and ``adapter`` naming a configured board id is replaced by that board's adapter name.

Each repair becomes a note in the tool result, so the model (and the operator reading ``--json``)
sees what was ignored. Arguments copied from a tool's schema or from an earlier result are repaired
first (:mod:`edge_agent.agent.echoed`). Anything else stays as sent: an unknown argument with a value, an adapter
that is neither configured nor a placeholder, a wrong type, all remain errors from the check.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from edge_agent.agent.echoed import repair
from edge_agent.agent.tools import input_schema
from edge_agent.mcp.tools import TOOL_NAMES

# Words a model writes for "whichever board this is": never the name of an adapter or board id.
PLACEHOLDERS = frozenset({"board", "the board", "my board", "default", "auto", "any", "current", "this",
                          "main", "none", "null", "adapter", "default adapter", "<adapter>", "<board>"})


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | dict) and not value


@functools.cache
def _all_argument_names() -> frozenset[str]:
    names: set[str] = set()
    for tool in TOOL_NAMES:
        names.update(input_schema(tool).get("properties", {}))
    return frozenset(names)


def soften(name: str, arguments: Any, *, adapters: Mapping[str, str] | None = None,
           boards: Sequence[str] = ()) -> tuple[Any, list[str]]:
    """(arguments with harmless slips removed, a note per repair) for a call to tool `name`.

    `adapters` maps each configured board id to its adapter name; `boards` lists the configured board
    ids. Arguments that are not a JSON object are returned unchanged (the check says what is wrong).
    """
    if not isinstance(arguments, dict) or name not in TOOL_NAMES:
        return arguments, []
    arguments, notes = repair(name, arguments)
    schema = input_schema(name)
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    adapters = dict(adapters or {})
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        if key not in props:
            if _empty(value) and key in _all_argument_names():
                notes.append(f"ignored {key}={_show(value)}: {name} has no argument {key}")
                continue
            out[key] = value  # an unknown argument with a value stays an error
            continue
        if key not in required and _empty(value):
            notes.append(f"ignored empty {key}={_show(value)}; the default applies")
            continue
        if key in ("adapter", "board") and isinstance(value, str):
            word = value.strip().lower()
            if key == "adapter" and word not in adapters.values() and word in adapters:
                notes.append(f"adapter={value!r} is a board id: used its adapter {adapters[word]!r}")
                out[key] = adapters[word]
                continue
            if word in PLACEHOLDERS and word not in adapters.values() and word not in boards:
                notes.append(f"ignored {key}={value!r}: it names no configured {key}; the default applies")
                continue
        out[key] = value
    return out, notes


def _show(value: Any) -> str:
    return "null" if value is None else repr(value)
