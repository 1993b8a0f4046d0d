"""What every part of the runtime shares: a component's health, the error for a missing one, small helpers."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from edge_agent.errors import ComponentUnavailable, EdgeAgentError
from edge_agent.jsontypes import JsonObject, JsonValue

T = TypeVar("T")
D = TypeVar("D")

__all__ = ["Component", "ComponentUnavailable"]  # the error lives in the one error tree; re-exported here


@dataclass
class Component:
    """Health of one part of the runtime, as runtime_status reports it."""

    ok: bool
    detail: str = ""
    extra: dict[str, JsonValue] = field(default_factory=dict)

    def as_dict(self) -> JsonObject:
        return {"ok": self.ok, "detail": self.detail, **self.extra}


def describe_exc(exc: BaseException) -> str:
    """One line for a component's failure: our errors as they are, a missing module as the extra to install."""
    if isinstance(exc, EdgeAgentError):
        return str(exc)
    if isinstance(exc, ImportError):
        return f"a module is missing ({exc.name or exc}); install the matching edge-agent extra"
    return f"{type(exc).__name__}: {exc}"


def datasheet_fingerprint(directory: Path) -> str:
    """A cheap digest of file names, sizes and mtimes: changes when any datasheet changes."""
    h = hashlib.sha1()
    try:
        entries = sorted(p for p in directory.rglob("*") if p.is_file())
    except OSError:
        return ""
    for p in entries:
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.relative_to(directory)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def safe(fn: Callable[[], T], default: D) -> T | D:
    """``fn()``, or ``default`` when it raises (for status fields that must never fail the whole status)."""
    try:
        return fn()
    except Exception:
        return default
