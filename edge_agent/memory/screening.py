"""Credential screening of what the store writes: entries and captures hold no secret once stored.

Every write is screened before its content hash (the deduplication key) is taken, so a secret never
reaches the database file, its full-text index, an export, recall or engage, the outbox or the server,
whether or not sync is on. Each secret becomes ``[REDACTED:<kind>:<tag>]``, the tag a keyed hash of the
secret under the device's key (:mod:`edge_agent.credentials`): two writes that differ only in their
secret stay two entries, and the same write twice is still recognised as one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from edge_agent.credentials import Screen, scan
from edge_agent.memory.captures import Capture
from edge_agent.memory.errors import InvalidEntryError


def screen_entry(screen: Screen, key: object, title: object, content: object,
                 metadata: object) -> tuple[object, object, object, dict[str, int]]:
    """(title, content, metadata) of an entry with each credential redacted, and the counts per kind.

    Values of the wrong type are passed through for validation to name. A key is a name the caller looks the
    entry up by, so one holding a credential is refused (InvalidEntryError) rather than changed.
    """
    if isinstance(key, str) and scan(key, "key"):
        raise InvalidEntryError("the key holds what looks like a credential; keys are names that are listed "
                                "and exported as they are: use a key without it", field="key")
    values: dict[str, str] = {}
    if isinstance(title, str):
        values["title"] = title
    if isinstance(content, str):
        values["content"] = content
    if isinstance(metadata, dict):
        _leaves(metadata, "metadata", values)
    changed, kinds = screen.fields(values)
    if not changed:
        return title, content, metadata, {}
    title = changed.get("title", title)
    content = changed.get("content", content)
    if isinstance(metadata, dict):
        metadata = _replaced(metadata, "metadata", changed)
    return title, content, metadata, kinds


def screen_capture(screen: Screen, cap: Capture) -> tuple[Capture, dict[str, int]]:
    """The capture with each credential in its title, content, tags and metadata redacted, and the counts."""
    values = {"title": cap.title, "content": cap.content,
              **{f"tags[{i}]": t for i, t in enumerate(cap.tags) if isinstance(t, str)},
              **{f"metadata.{k}": v for k, v in cap.metadata.items() if isinstance(v, str)}}
    changed, kinds = screen.fields(values)
    if not changed:
        return cap, {}
    title = changed.get("title", cap.title)
    if "content" in changed and cap.title and cap.content.startswith(cap.title):
        # A title cut from the content (reflect's default) may end inside a secret, where a detector would no
        # longer recognise it: take the same length of the redacted content instead.
        title = changed["content"][:len(cap.title)]
    return replace(
        cap, title=title, content=changed.get("content", cap.content),
        tags=tuple(changed.get(f"tags[{i}]", t) for i, t in enumerate(cap.tags)),
        metadata={k: changed.get(f"metadata.{k}", v) for k, v in cap.metadata.items()},
    ), kinds


def screen_capture_record(screen: Screen, record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
    """An export line's capture record (title, tags, metadata) with each credential redacted, and the counts."""
    values: dict[str, str] = {}
    if isinstance(record.get("title"), str):
        values["title"] = record["title"]
    _leaves(record.get("tags"), "tags", values)
    _leaves(record.get("metadata"), "metadata", values)
    changed, kinds = screen.fields(values)
    if not changed:
        return record, {}
    out = dict(record)
    if "title" in changed:
        out["title"] = changed["title"]
    for name in ("tags", "metadata"):
        if name in out:
            out[name] = _replaced(out[name], name, changed)
    return out, kinds


def _leaves(value: Any, path: str, out: dict[str, str]) -> None:
    """Every string inside a JSON value, by its path."""
    if isinstance(value, str):
        out[path] = value
    elif isinstance(value, dict):
        for k, v in value.items():
            _leaves(v, f"{path}.{k}", out)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _leaves(v, f"{path}[{i}]", out)


def _replaced(value: Any, path: str, changed: dict[str, str]) -> Any:
    """``value`` with the strings at the paths in ``changed`` replaced."""
    if isinstance(value, str):
        return changed.get(path, value)
    if isinstance(value, dict):
        return {k: _replaced(v, f"{path}.{k}", changed) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replaced(v, f"{path}[{i}]", changed) for i, v in enumerate(value)]
    return value
