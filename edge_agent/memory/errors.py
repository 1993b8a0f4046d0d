"""Errors of the memory cache: leaves of ``MemoryStoreError`` carrying structured fields."""

from __future__ import annotations

from edge_agent.errors import MemoryStoreError


class InvalidEntryError(MemoryStoreError, ValueError):
    """A field of an entry or capture is invalid; ``field`` names it."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class ContentTooLargeError(InvalidEntryError):
    """Content is larger than ``[memory] max_content_bytes``."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            f"content is {size} bytes, over the limit of {limit} bytes ([memory] max_content_bytes); "
            "store a summary, or split it into several entries",
            field="content",
        )
        self.size, self.limit = size, limit


class InvalidTimestampError(InvalidEntryError):
    """A timestamp is not RFC 3339 with a UTC offset."""

    def __init__(self, value: object, *, field: str = "timestamp") -> None:
        super().__init__(
            f"{field} {value!r} is not an RFC 3339 timestamp with an offset; use e.g. 2026-01-31T12:00:00Z",
            field=field,
        )
        self.value = value


class ReadOnlyNamespaceError(MemoryStoreError, PermissionError):
    """The namespace is listed in ``[memory.policy] read_only_namespaces``."""

    def __init__(self, namespace: str, operation: str) -> None:
        super().__init__(
            f"namespace {namespace!r} is read-only ([memory.policy] read_only_namespaces), so {operation} "
            "was refused; use another namespace or remove it from that list"
        )
        self.namespace, self.operation = namespace, operation


class EntryNotFoundError(MemoryStoreError, LookupError):
    """No entry has that key (or id) in the namespace."""

    def __init__(self, key: str, namespace: str) -> None:
        super().__init__(
            f"no memory entry with key {key!r} in namespace {namespace!r}; "
            "`edge-agent memory list` shows the stored keys"
        )
        self.key, self.namespace = key, namespace


class MemoryFullError(MemoryStoreError, OSError):
    """The disk (or the database size limit) is full; the write was rolled back."""

    def __init__(self, path: str, operation: str) -> None:
        super().__init__(
            f"{path}: {operation} failed because the disk or the database size limit is full; nothing of "
            "this write was kept and earlier entries are intact. Free space (or run `edge-agent memory "
            "hygiene`) and retry"
        )
        self.path, self.operation = path, operation

    def __str__(self) -> str:  # OSError's __str__ would print an errno tuple
        return str(self.args[0]) if self.args else ""


class MemoryBusyError(MemoryStoreError):
    """Another process held the database lock longer than the store waits."""

    def __init__(self, path: str, waited_s: float) -> None:
        super().__init__(
            f"{path}: another process kept the memory database locked for {waited_s:.0f} s; retry later"
        )
        self.path, self.waited_s = path, waited_s


class WorkspaceAccessError(MemoryStoreError, PermissionError):
    """A request tried to read another workspace's memory while that is not allowed."""

    def __init__(self, workspace: str, requested: str) -> None:
        super().__init__(
            f"workspace {workspace!r} cannot read workspace {requested!r}: memory is isolated per workspace; "
            "set [workspace] cross_workspace_search = true to allow it"
        )
        self.workspace, self.requested = workspace, requested


class ImportFormatError(InvalidEntryError):
    """A line of an import file is not a valid exported entry; ``line`` is 1-based."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"import line {line}: {reason}; nothing was imported", field="line")
        self.line = line
