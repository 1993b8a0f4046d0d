"""Which tools the agent can offer, and a digest of each one's schema, known without building the schemas.

The response cache's key names the tool schemas a message was offered: the same question offered a
changed schema may get a different answer. Building the schemas means importing the MCP tool
definitions and the services behind them (the runtime, the bus layer, the memory services): about
0.3 s on an idle PC and seconds on a busy Pi, which would be most of a cache hit.

So the schemas are built once per installed version of the package and summed up in a
:class:`ToolSet` (the tool names in registration order, one SHA-256 per tool over its spec exactly as
sent) kept in ``<state>/agent/agent.db``. The record is keyed by

- the package's fingerprint: path, size and modification time of every ``.py`` file of the
  ``edge_agent`` package, the Python version and the pydantic version (pydantic writes the JSON
  schemas), so an upgrade or an edited source file makes a new record;
- the variant: compact or full mode, and how many boards are configured (with one board the compact
  schemas leave out ``adapter`` and ``board``).

A turn reads the record (a few milliseconds of ``stat``). A turn that builds the schemas anyway,
because the model is asked with tools, checks them against the record and corrects it if they differ.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # the edge_agent package


class ToolSetStore(Protocol):
    """Where the records are kept between processes (:class:`edge_agent.agent.state.AgentState`)."""

    def tool_set(self, fingerprint: str, variant: str) -> str | None: ...

    def note_tool_set(self, fingerprint: str, variant: str, record: str) -> None: ...


@functools.cache
def package_fingerprint(root: Path = PACKAGE_DIR) -> str:
    """A digest of what the installed schemas are built from: every ``.py`` file's path, size and
    modification time under ``root``, the Python version and the pydantic version."""
    h = hashlib.sha256()
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in filenames:
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                st = os.stat(path)
                files.append(f"{os.path.relpath(path, root)}\0{st.st_size}\0{st.st_mtime_ns}")
    for line in sorted(files):
        h.update(line.encode() + b"\n")
    h.update(sys.version.encode())
    h.update(_pydantic_version().encode())
    return h.hexdigest()[:32]


def _pydantic_version() -> str:
    from pydantic.version import VERSION  # already imported by the configuration

    return str(VERSION)


def variant(compact: bool, boards: int) -> str:
    """The record's variant: the mode and the number of configured boards (they shape the schemas)."""
    return f"{'compact' if compact else 'full'}/{boards}"


def spec_digest(spec: Mapping[str, object]) -> str:
    """SHA-256 of one tool spec as sent (keys sorted)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]


@dataclass(frozen=True)
class ToolSet:
    """The tools of one mode in registration order, and the digest of each one's spec."""

    available: tuple[str, ...]
    digests: Mapping[str, str]

    @classmethod
    def of(cls, specs: Mapping[str, Mapping[str, object]]) -> ToolSet:
        """The tool set of built specs (name -> spec, in registration order)."""
        return cls(tuple(specs), {name: spec_digest(spec) for name, spec in specs.items()})

    def identity(self, names: Iterable[str]) -> str:
        """The identity of the tools `names` offered together: their names and schema digests."""
        wanted = set(names)
        parts = [[n, self.digests[n]] for n in self.available if n in wanted]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]

    def dumps(self) -> str:
        return json.dumps({"available": list(self.available), "digests": dict(self.digests)})

    @classmethod
    def loads(cls, text: str) -> ToolSet | None:
        """The record, or None when it is not one (written by another version, damaged)."""
        try:
            data = json.loads(text)
            available = tuple(str(n) for n in data["available"])
            digests = {str(k): str(v) for k, v in data["digests"].items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        if set(digests) != set(available):
            return None
        return cls(available, digests)


def build_specs(compact: bool, boards: int) -> dict[str, dict[str, Any]]:
    """The tool specs this mode offers, name -> spec as sent, in registration order (imports the tools)."""
    from edge_agent.agent.tools import COMPACT_TOOLS, compact_spec, openai_tool_specs, simplified

    tools = openai_tool_specs(COMPACT_TOOLS if compact else None)
    if compact:
        tools = [compact_spec(t, boards=boards) for t in tools]
    # With one board there is nothing to choose: `adapter` and `board` leave the compact schemas, one
    # less thing for a small model to copy wrongly ("adapter": "board") and fewer tokens to read.
    drop = ("adapter", "board") if compact and boards == 1 else ()
    return {t["function"]["name"]: simplified(t, drop) if compact else t for t in tools}


def recorded(store: ToolSetStore | None, compact: bool, boards: int) -> ToolSet | None:
    """The kept record for this package version and variant, if there is one."""
    if store is None:
        return None
    text = store.tool_set(package_fingerprint(), variant(compact, boards))
    return None if text is None else ToolSet.loads(text)


def remember(store: ToolSetStore | None, compact: bool, boards: int, tools: ToolSet) -> None:
    if store is not None:
        store.note_tool_set(package_fingerprint(), variant(compact, boards), tools.dumps())
