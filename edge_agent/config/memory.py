"""``[memory]``, its ``[memory.policy]``, and ``[workspace]``: the device cache and which database it uses."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from edge_agent.config._base import _checked, _Section
from edge_agent.names import namespace_problem, workspace_problem


class MemoryPolicy(_Section):
    max_entries_per_namespace: int = Field(0, ge=0, description="Cap per namespace (0 = unlimited): superseded "
                                           "versions go first, then the least important, then the oldest.")
    max_entries_per_category: int = Field(0, ge=0, description="Cap per category (0 = unlimited), evicted in the same "
                                          "order.")
    read_only_namespaces: list[str] = Field(default_factory=list, description="Namespaces where store, reflect, "
                                            "forget, purge and import are refused.")
    retention_days_by_category: dict[str, int] = Field(default_factory=dict, description="Days after which hygiene "
                                                       "deletes a category's entries (0 keeps them).")

    @field_validator("read_only_namespaces")
    @classmethod
    def _namespaces(cls, v: list[str]) -> list[str]:
        return [_checked(n.strip(), namespace_problem) for n in v]

    @field_validator("retention_days_by_category")
    @classmethod
    def _retention(cls, v: dict[str, int]) -> dict[str, int]:
        out: dict[str, int] = {}
        for category, days in v.items():
            if days < 0:
                raise ValueError(f"{category}: days must be >= 0 (0 keeps entries forever), got {days}")
            out[category.strip().lower()] = days  # categories are stored lowercase
        return out


class MemoryConfig(_Section):
    backend: Literal["kumiho", "none"] = Field("kumiho", description="kumiho: the local cache, synced upstream when "
                                               "[kumiho] enabled; none: memory off.")
    auto_save: bool = Field(True, description="Store user inputs given to auto_save as conversation entries.")
    hygiene_enabled: bool = Field(True, description="Run memory hygiene every 6 h in the daemon.")
    archive_after_days: int = Field(7, ge=0, description="Archive daily entries older than this (they leave recall); "
                                    "0 disables.")
    purge_after_days: int = Field(30, ge=0, description="Delete archived entries and superseded versions older than "
                                  "this; 0 disables.")
    conversation_retention_days: int = Field(30, ge=0, description="Delete conversation entries older than this; 0 "
                                             "disables.")
    min_relevance_score: float = Field(0.4, ge=0.0, le=1.0, description="Recall and engage drop results scoring below "
                                       "this.")
    default_namespace: str = Field("default", description="Namespace of entries stored without one.")
    half_life_days: float = Field(7.0, description="Recall scores halve every this many days (core never decays; <= 0 "
                                  "means 7).")
    audit_enabled: bool = Field(False, description="Log every store, supersede, evict, forget, purge, archive, import "
                                "and set_kref.")
    audit_retention_days: int = Field(30, ge=0, description="Hygiene deletes audit rows older than this; 0 keeps "
                                      "them.")
    snapshot_enabled: bool = Field(False, description="Hygiene first writes a JSON Lines export to snapshots/ once a "
                                   "day (newest 5 kept).")
    snapshot_on_hygiene: bool = Field(False, description="Snapshot on every hygiene run, not once a day.")
    context_budget_tokens: int = Field(1200, ge=64, description="Token budget of the engage context (a third with "
                                       "[agent] compact_context).")
    max_content_bytes: int = Field(64 * 1024, ge=256, description="Larger content is refused with "
                                   "ContentTooLargeError.")
    response_cache_enabled: bool = Field(
        True, description="Keep LLM responses in response_cache.db: the agent answers an unchanged question "
        "from it without calling the model.")
    response_cache_hot_entries: int = Field(256, ge=0, description="In-process LRU tier of the response cache.")
    response_cache_max_entries: int = Field(5000, ge=0, description="SQLite tier of the response cache; least "
                                            "recently used evicted beyond.")
    response_cache_ttl_minutes: int = Field(60, ge=0, description="Response cache entries expire this long after they "
                                            "were stored; 0 = never.")
    policy: MemoryPolicy = Field(default_factory=MemoryPolicy)

    @field_validator("default_namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        return _checked(v.strip(), namespace_problem)

    @field_validator("backend", mode="before")
    @classmethod
    def _backend_names(cls, v: object) -> object:
        if isinstance(v, str) and v.lower() not in ("kumiho", "none"):
            raise ValueError(
                f"backend {v!r} is not supported: the device cache always runs locally and syncs to "
                "Kumiho; use 'kumiho' (sync captures upstream) or 'none' (memory off)"
            )
        return v.lower() if isinstance(v, str) else v


class WorkspaceConfig(_Section):
    enabled: bool = Field(False, description="Use the workspace `name` instead of default.")
    name: str = Field("default", description="Workspace name (a directory name: no '/', no '..').")
    isolate_memory: bool = Field(True, description="Each workspace gets its own database; false shares the default "
                                 "one.")
    cross_workspace_search: bool = Field(False, description="Allow recall to read other workspaces (read-only).")

    @field_validator("name")
    @classmethod
    def _workspace(cls, v: str) -> str:
        return _checked(v, workspace_problem)
