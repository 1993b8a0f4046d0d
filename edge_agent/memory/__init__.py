"""The device's compact-context memory cache (SQLite, one database per workspace)."""

from __future__ import annotations

from edge_agent.memory.captures import KNOWLEDGE_TYPES, Capture, CaptureSink
from edge_agent.memory.db import register_migrations
from edge_agent.memory.errors import (
    ContentTooLargeError,
    EntryNotFoundError,
    ImportFormatError,
    InvalidEntryError,
    InvalidTimestampError,
    MemoryBusyError,
    MemoryFullError,
    ReadOnlyNamespaceError,
    WorkspaceAccessError,
)
from edge_agent.memory.model import Entry, apply_decay
from edge_agent.memory.store import MemoryStore, should_auto_save
from edge_agent.memory.unit_of_work import UnitOfWork

__all__ = [
    "KNOWLEDGE_TYPES",
    "Capture",
    "CaptureSink",
    "ContentTooLargeError",
    "Entry",
    "EntryNotFoundError",
    "ImportFormatError",
    "InvalidEntryError",
    "InvalidTimestampError",
    "MemoryBusyError",
    "MemoryFullError",
    "MemoryStore",
    "ReadOnlyNamespaceError",
    "UnitOfWork",
    "WorkspaceAccessError",
    "apply_decay",
    "register_migrations",
    "should_auto_save",
]
