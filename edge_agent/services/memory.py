"""The memory and response-cache actions: the device's local memory, one definition for every face.

The MCP memory tools, the ``edge-agent memory`` and ``cache`` commands and the agent's engage, reflect
and cache calls all run these. Arguments are named as the MCP tools name them (``space_path``,
``memory_type``, ``source_krefs``); the commands map their options onto them. What only a person at the
command line asks for (a key of one's choosing, several namespaces, other workspaces, a backup file)
is an optional argument the tools do not offer. The tools' caps for a model (``[kumiho]
memory_retrieval_limit``, the ``[memory] min_relevance_score`` floor) are applied by the tool face.
"""

from __future__ import annotations

import io
from typing import Annotated

from pydantic import Field, JsonValue

from edge_agent.memory import EntryNotFoundError, ReadOnlyNamespaceError
from edge_agent.services.core import ActionInput, Resources, action
from edge_agent.services.jsondata import json_object, jsonable
from edge_agent.services.results import (
    CacheCleared,
    CacheKey,
    CacheResponse,
    CacheStats,
    EngageResult,
    ExportFile,
    ExportResult,
    ForgetResult,
    ImportResult,
    MemoryAudit,
    MemoryEntries,
    MemoryEntry,
    MemoryHealth,
    MemoryReport,
    ProvenanceResult,
    RecallResult,
    ReflectResult,
    SnapshotResult,
)
from edge_agent.services.textargs import CaptureIn, LimitArg, MemoryTypes, MessageArg, MinScore, QueryArg, SpacePath

Workspace = Annotated[str | None, Field(description="Workspace whose memory to use (command line only; default "
                                        "[workspace] name).", max_length=200)]
Names = Annotated[list[Annotated[str, Field(max_length=300)]] | None, Field(max_length=32)]
Key = Annotated[str, Field(min_length=1, max_length=500, description="Entry key or id.")]
SessionId = Annotated[str | None, Field(max_length=200)]
Stamp = Annotated[str | None, Field(max_length=40, description="RFC 3339 time.")]


def _entry(obj: object) -> MemoryEntry:
    return MemoryEntry.model_validate(jsonable(obj))


def _namespaces(space_path: str | None, namespaces: list[str] | None) -> list[str] | None:
    found = [n.strip() for n in ([space_path] if space_path else []) + list(namespaces or []) if n.strip()]
    return found or None


# --- entries ---------------------------------------------------------------------------------------


class StoreIn(ActionInput):
    # The store bounds the size itself, by [memory] max_content_bytes, and says which setting to change.
    content: Annotated[str, Field(min_length=1)]
    title: Annotated[str | None, Field(max_length=300)] = None
    memory_type: Annotated[str, Field(max_length=40)] = "summary"
    space_path: SpacePath = None
    tags: Annotated[list[Annotated[str, Field(max_length=100)]] | None, Field(max_length=32)] = None
    importance: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    session_id: SessionId = None
    key: Annotated[str | None, Field(max_length=500, description="Key to store under (command line only; "
                                     "default: the title, else the start of the content).")] = None
    timestamp: Stamp = None
    workspace: Workspace = None


@action("memory_store", StoreIn, MemoryEntry, writes=True)
def memory_store(res: Resources, a: StoreIn) -> MemoryEntry:
    """Store one memory locally (kept on the device; use memory_reflect for captures that sync upstream)."""
    with res.store(a.workspace) as store:
        entry = store.store(a.key or a.title or a.content[:80], a.content, category=a.memory_type,
                            namespace=a.space_path, session_id=a.session_id, importance=a.importance,
                            timestamp=a.timestamp, title=a.title or "",
                            metadata={"tags": list(a.tags)} if a.tags else None)
        return _entry(entry)


class GetIn(ActionInput):
    key: Key
    space_path: SpacePath = None
    workspace: Workspace = None


@action("memory_get", GetIn, MemoryEntry)
def memory_get(res: Resources, a: GetIn) -> MemoryEntry:
    """The live entry stored under `key` in a space."""
    with res.store(a.workspace) as store:
        entry = store.get(a.key, a.space_path)
        if entry is None:
            raise EntryNotFoundError(a.key, a.space_path or store.default_namespace)
        return _entry(entry)


class ListIn(ActionInput):
    memory_type: Annotated[str | None, Field(max_length=40)] = None
    space_path: SpacePath = None
    session_id: SessionId = None
    limit: Annotated[int, Field(ge=1, le=100_000)] = 50
    include_superseded: bool = False
    workspace: Workspace = None


@action("memory_list", ListIn, MemoryEntries)
def memory_list(res: Resources, a: ListIn) -> MemoryEntries:
    """Entries newest first, filtered by type, space and session."""
    with res.store(a.workspace) as store:
        entries = store.list(category=a.memory_type, namespace=a.space_path, session_id=a.session_id,
                             limit=a.limit, include_superseded=a.include_superseded)
        return MemoryEntries(entries=[jsonable(e) for e in entries])


class RecallIn(ActionInput):
    query: QueryArg
    limit: LimitArg = None
    memory_types: MemoryTypes = None
    min_score: MinScore = None
    space_path: SpacePath = None
    namespaces: Names = None
    other_workspaces: Annotated[list[Annotated[str, Field(max_length=200)]] | None, Field(
        max_length=32, description="Other workspaces to search too ('*' for all; command line only).")] = None
    workspace: Workspace = None


@action("memory_recall", RecallIn, RecallResult)
def memory_recall(res: Resources, a: RecallIn) -> RecallResult:
    """Ranked memory entries matching `query`, each with its decayed relevance score."""
    with res.store(a.workspace) as store:
        entries = store.search.recall(a.query, a.limit or 5, namespaces=_namespaces(a.space_path, a.namespaces),
                                      categories=a.memory_types, min_score=a.min_score, workspaces=a.other_workspaces)
        return RecallResult(query=a.query, results=[jsonable(e) for e in entries], workspace=store.workspace)


class EngageIn(ActionInput):
    query: MessageArg  # the MCP tool bounds it as QueryArg; the agent engages with the whole message
    limit: LimitArg = None
    memory_types: MemoryTypes = None
    min_score: MinScore = None
    space_path: SpacePath = None
    namespaces: Names = None
    exclude_ids: Annotated[list[Annotated[str, Field(max_length=200)]] | None, Field(
        max_length=1000, description="Entry ids to leave out (the agent's own earlier exchanges).")] = None
    workspace: Workspace = None


@action("memory_engage", EngageIn, EngageResult)
def memory_engage(res: Resources, a: EngageIn) -> EngageResult:
    """Before answering: recall what is known about `query`; returns a compact context and source_krefs."""
    with res.store(a.workspace) as store:
        found = json_object(store.search.engage(a.query, a.limit or 5, categories=a.memory_types,
                                             namespaces=_namespaces(a.space_path, a.namespaces),
                                             min_score=a.min_score or 0, exclude_ids=a.exclude_ids or ()))
    found.setdefault("source_krefs", found.get("source_refs", []))
    return EngageResult.model_validate(found)


class ReflectIn(ActionInput):
    session_id: Annotated[str, Field(min_length=1, max_length=200)]
    response: Annotated[str, Field(max_length=65536, description="The answer just given.")] = ""
    captures: Annotated[list[CaptureIn], Field(max_length=50)] | None = None
    source_krefs: Annotated[list[Annotated[str, Field(max_length=500)]] | None, Field(max_length=100)] = None
    space_path: SpacePath = None
    workspace: Workspace = None


@action("memory_reflect", ReflectIn, ReflectResult, writes=True)
def memory_reflect(res: Resources, a: ReflectIn) -> ReflectResult:
    """After answering: record the response and captures (durably queued for Kumiho when sync is on)."""
    space = (a.space_path or "").strip()
    if space and space in res.settings.memory.policy.read_only_namespaces:
        raise ReadOnlyNamespaceError(space, "memory_reflect")  # refused before anything is kept
    # The captures are kept in the space's namespace locally and filed under it upstream.
    where = {"namespace": space} if space else {}
    caps: list[dict[str, JsonValue]] = [
        {**c.model_dump(exclude_none=True), **where, "space_hint": c.space_hint or space} for c in (a.captures or [])]
    with res.store(a.workspace) as store:
        result = store.captures.reflect(a.session_id, a.response, captures=caps, source_refs=list(a.source_krefs or []))
    return ReflectResult.model_validate(jsonable(result))


class ForgetIn(ActionInput):
    key: Annotated[str, Field(min_length=1, max_length=500, description="Entry key or id to forget.")]
    space_path: SpacePath = None
    workspace: Workspace = None


@action("memory_forget", ForgetIn, ForgetResult, writes=True)
def memory_forget(res: Resources, a: ForgetIn) -> ForgetResult:
    """Forget one memory entry by key (every version) or by id."""
    with res.store(a.workspace) as store:
        count = store.forget(a.key, namespace=a.space_path)
        if not count and store.forget_id(a.key):
            count = 1
        if not count:
            raise EntryNotFoundError(a.key, a.space_path or store.default_namespace)
    return ForgetResult(forgotten=count, key=a.key)


class ExportIn(ActionInput):
    space_path: SpacePath = None
    limit: Annotated[int, Field(ge=1, le=1000)] = 100
    workspace: Workspace = None


@action("memory_export", ExportIn, ExportResult)
def memory_export(res: Resources, a: ExportIn) -> ExportResult:
    """Export memory entries (newest first) as structured records."""
    with res.store(a.workspace) as store:
        entries = list(store.transfer.export(namespace=a.space_path, include_superseded=False))[-a.limit:][::-1]
    return ExportResult(entries=[jsonable(e) for e in entries], count=len(entries))


class ExportFileIn(ActionInput):
    space_path: SpacePath = None
    session_id: SessionId = None
    memory_type: Annotated[str | None, Field(max_length=40)] = None
    since: Stamp = None
    until: Stamp = None
    include_superseded: bool = True
    workspace: Workspace = None


@action("memory_export_file", ExportFileIn, ExportFile)
def memory_export_file(res: Resources, a: ExportFileIn) -> ExportFile:
    """Every entry matching the filters as a JSON Lines backup, oldest first (what `memory import` reads)."""
    out = io.StringIO()
    with res.store(a.workspace) as store:
        n = store.transfer.export_jsonl(out, namespace=a.space_path, session_id=a.session_id, category=a.memory_type,
                                        since=a.since, until=a.until, include_superseded=a.include_superseded)
    return ExportFile(text=out.getvalue(), count=n)


class ImportIn(ActionInput):
    text: Annotated[str, Field(max_length=64 * 1024 * 1024, description="A memory_export_file backup.")]
    workspace: Workspace = None


@action("memory_import", ImportIn, ImportResult, writes=True)
def memory_import(res: Resources, a: ImportIn) -> ImportResult:
    """Restore entries from a JSON Lines backup (entries already there are left as they are)."""
    with res.store(a.workspace) as store:
        return ImportResult.model_validate(jsonable(store.transfer.import_jsonl(a.text.split("\n"))))


# --- upkeep ----------------------------------------------------------------------------------------


class WorkspaceIn(ActionInput):
    workspace: Workspace = None


@action("memory_stats", WorkspaceIn, MemoryReport)
def memory_stats(res: Resources, a: WorkspaceIn) -> MemoryReport:
    """Counts by category and namespace, evictions, file sizes."""
    with res.store(a.workspace) as store:
        return MemoryReport.model_validate(jsonable(store.maintenance.stats()))


@action("memory_health", WorkspaceIn, MemoryHealth)
def memory_health(res: Resources, a: WorkspaceIn) -> MemoryHealth:
    """Integrity check and schema state."""
    with res.store(a.workspace) as store:
        return MemoryHealth.model_validate(jsonable(store.maintenance.health_check()))


class HygieneIn(ActionInput):
    force: bool = False
    workspace: Workspace = None


@action("memory_hygiene", HygieneIn, MemoryReport, writes=True)
def memory_hygiene(res: Resources, a: HygieneIn) -> MemoryReport:
    """Archive, purge and apply retention now."""
    with res.store(a.workspace) as store:
        return MemoryReport.model_validate(jsonable(store.maintenance.hygiene(force=a.force)))


@action("memory_snapshot", WorkspaceIn, SnapshotResult, writes=True)
def memory_snapshot(res: Resources, a: WorkspaceIn) -> SnapshotResult:
    """Write a JSON Lines backup into the memory folder."""
    with res.store(a.workspace) as store:
        return SnapshotResult(snapshot=str(store.maintenance.snapshot()))


class ProvenanceIn(ActionInput):
    entry_id: Annotated[str, Field(min_length=1, max_length=200)]
    workspace: Workspace = None


@action("memory_provenance", ProvenanceIn, ProvenanceResult)
def memory_provenance(res: Resources, a: ProvenanceIn) -> ProvenanceResult:
    """What an entry was derived from, and what was derived from it."""
    with res.store(a.workspace) as store:
        if store.get_by_id(a.entry_id) is None:
            raise EntryNotFoundError(a.entry_id, "(any; looked up by id)")
        return ProvenanceResult.model_validate(jsonable(store.captures.provenance(a.entry_id)))


class AuditIn(ActionInput):
    limit: Annotated[int, Field(ge=1, le=100_000)] = 50
    workspace: Workspace = None


@action("memory_audit", AuditIn, MemoryAudit)
def memory_audit(res: Resources, a: AuditIn) -> MemoryAudit:
    """The audit trail of writes and deletes, newest first."""
    with res.store(a.workspace) as store:
        return MemoryAudit(rows=jsonable(store.maintenance.audit_log(a.limit)))


# --- response cache ----------------------------------------------------------------------------------


class CacheKeyIn(ActionInput):
    model: Annotated[str, Field(min_length=1, max_length=500)]
    system: Annotated[str, Field(max_length=1_000_000)] = ""
    prompt: Annotated[str, Field(max_length=1_000_000)]
    workspace: Workspace = None


class CachePutIn(CacheKeyIn):
    response: Annotated[str, Field(max_length=4_000_000)]
    tokens: Annotated[int | None, Field(ge=0)] = None


@action("cache_stats", WorkspaceIn, CacheStats)
def cache_stats(res: Resources, a: WorkspaceIn) -> CacheStats:
    """Entries, hits, hit rate and tokens saved of the LLM response cache."""
    with res.cache(a.workspace) as cache:
        return CacheStats.model_validate({"enabled": res.settings.memory.response_cache_enabled,
                                          **json_object(cache.stats())})


@action("cache_get", CacheKeyIn, CacheResponse)
def cache_get(res: Resources, a: CacheKeyIn) -> CacheResponse:
    """The cached response for (model, system prompt, user prompt), or null."""
    with res.cache(a.workspace) as cache:
        return CacheResponse(response=cache.get(a.model, a.system, a.prompt))


@action("cache_put", CachePutIn, CacheKey, writes=True)
def cache_put(res: Resources, a: CachePutIn) -> CacheKey:
    """Cache a response under (model, system prompt, user prompt)."""
    with res.cache(a.workspace) as cache:
        return CacheKey(key=cache.put(a.model, a.system, a.prompt, a.response, tokens=a.tokens))


@action("cache_clear", WorkspaceIn, CacheCleared, writes=True)
def cache_clear(res: Resources, a: WorkspaceIn) -> CacheCleared:
    """Drop every cached response."""
    with res.cache(a.workspace) as cache:
        return CacheCleared(cleared=cache.clear())
