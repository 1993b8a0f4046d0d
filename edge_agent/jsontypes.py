"""The JSON kinds, named once: what a socket frame, a tool's arguments or an HTTP body may hold.

Data that crosses a package boundary as JSON is typed with these, never with ``Any``: a receiver
narrows a ``JsonValue`` (``isinstance``) or validates it into a pydantic model before using it.
"""

from __future__ import annotations

from typing import TypeAlias

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
#: A JSON object: the usual shape of a request, a reply or a record.
JsonObject: TypeAlias = dict[str, JsonValue]

__all__ = ["JsonObject", "JsonScalar", "JsonValue"]
