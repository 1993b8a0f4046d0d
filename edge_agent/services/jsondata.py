"""Any result as JSON data: the one conversion the actions and the remaining operations share.

Standard library only, so a caller that converts a memory or cache result (the agent's turn on a
response-cache hit) does not load the argument models and the bus layer behind them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from edge_agent.jsontypes import JsonObject, JsonValue


def jsonable(obj: object) -> JsonValue:
    """``obj`` as JSON data: records (``to_dict``, dataclasses, pydantic models) as objects, sequences as
    arrays, bytes as hex; anything else by its text."""
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict) and not isinstance(obj, type):
        return jsonable(to_dict())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [jsonable(v) for v in obj]
    if isinstance(obj, bytes):
        return obj.hex()
    if isinstance(obj, int | float | str | bool) or obj is None:
        return obj
    model_dump = getattr(obj, "model_dump", None)
    if callable(model_dump):
        dumped: JsonValue = model_dump(mode="json")
        return dumped
    return str(obj)


def json_object(obj: object) -> JsonObject:
    """:func:`jsonable` of a record, which must come out as a JSON object."""
    data = jsonable(obj)
    if not isinstance(data, dict):
        raise TypeError(f"{type(obj).__name__} is not a record (it gives {type(data).__name__} data)")
    return data
