"""Recall and engage: the entries relevant to a question, and a prompt-ready context of them.

Recall is FTS5 bm25 relevance blended with query-term coverage, weighted by importance and decayed by
age (``score x 2^(-age_days / half_life_days)``; ``core`` never decays); engage packs the best entries,
whole, into a token budget.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from edge_agent.jsontypes import JsonObject
from edge_agent.memory import db as dbmod
from edge_agent.memory.core import StoreCore, check_workspace, memory_dir
from edge_agent.memory.errors import InvalidEntryError, WorkspaceAccessError
from edge_agent.memory.model import Entry, check_category, check_namespace, estimate_tokens, query_terms
from edge_agent.memory.search import TermStats, search

log = logging.getLogger(__name__)

COMPACT_BUDGET_DIVISOR = 3


class Recall:
    """Relevance search and context building over one store (and, when allowed, other workspaces)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def recall(self, query: str, limit: int = 5, *, namespace: str | None = None,
               namespaces: Sequence[str] | None = None, categories: Sequence[str] | None = None,
               session_id: str | None = None, min_score: float | None = None, include_archived: bool = False,
               workspaces: Sequence[str] | None = None, now: datetime | None = None,
               exclude_ids: Sequence[str] = ()) -> list[Entry]:
        """Entries relevant to ``query``, best first, each with its final decayed ``score``.

        Relevance is the IDF-weighted share of the query's terms the entry contains (see
        :mod:`edge_agent.memory.search`), weighted by importance (x0.7..x1.0), then decayed by age;
        superseded and archived entries are excluded and scores under ``min_score`` (default
        ``[memory] min_relevance_score``) dropped. ``workspaces`` searches other workspaces too, only if
        cross_workspace_search is on. Entries whose id is in ``exclude_ids`` are left out as if they did not
        exist (their terms do not count in the relevance weights either).
        """
        if not isinstance(query, str):
            raise InvalidEntryError("query must be text", field="query")
        limit = int(limit)
        if limit <= 0:
            return []
        floor = self.core.settings.memory.min_relevance_score if min_score is None else float(min_score)
        ns_list = [check_namespace(namespace)] if namespace is not None else None
        if namespaces:
            ns_list = [*(ns_list or []), *(check_namespace(n) for n in namespaces)]
        cats = [check_category(c) for c in categories] if categories else None
        terms = query_terms(query)
        if not terms:
            return []
        now = now or datetime.now(UTC)
        where, params = self._recall_filters(ns_list, cats, session_id, include_archived)
        rank: dict[str, Any] = {"now": now, "half_life_days": self.core.settings.memory.half_life_days,
                                "min_score": floor}
        with self.core.read() as conn:
            found = search(conn, self.core.workspace, terms, limit, where, params, self.core.term_stats, **rank,
                           exclude_ids=exclude_ids)
        for ws, path in self._other_workspaces(workspaces):
            try:
                other = dbmod.connect(path, read_only=True)
            except sqlite3.Error as exc:
                log.warning("cross-workspace recall skipped %s: %s", path, exc)
                continue
            try:
                found += search(other, ws, terms, limit, where, params, TermStats(), **rank)
            except sqlite3.Error as exc:
                log.warning("cross-workspace recall skipped %s: %s", path, exc)
            finally:
                other.close()
        kept = sorted(found, key=lambda e: (e.score or 0.0, e.timestamp), reverse=True)
        kept = kept[:limit]
        self.core.note_access(e.id for e in kept if e.workspace == self.core.workspace)
        return kept

    def recall_namespaced(self, namespace: str, query: str, limit: int = 5, *,
                          categories: Sequence[str] | None = None, session_id: str | None = None,
                          min_score: float | None = None, include_archived: bool = False,
                          workspaces: Sequence[str] | None = None, now: datetime | None = None) -> list[Entry]:
        """Recall restricted to one namespace."""
        return self.recall(query, limit, namespace=namespace, categories=categories, session_id=session_id,
                           min_score=min_score, include_archived=include_archived, workspaces=workspaces, now=now)

    def _other_workspaces(self, workspaces: Sequence[str] | None) -> list[tuple[str, Path]]:
        if not workspaces:
            return []
        root = self.core.state_dir / "workspaces"
        if list(workspaces) == ["*"]:
            names = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        else:
            names = [check_workspace(w) for w in workspaces]
        names = [n for n in dict.fromkeys(names) if n != self.core.workspace]
        if names and not self.core.settings.workspace.cross_workspace_search:
            raise WorkspaceAccessError(self.core.workspace, names[0])
        out = []
        for n in names:
            path = memory_dir(self.core.state_dir, n) / "memory.db"
            if path.is_file():
                out.append((n, path))
        return out

    @staticmethod
    def _recall_filters(namespaces: list[str] | None, categories: list[str] | None, session_id: str | None,
                        include_archived: bool) -> tuple[list[str], list[Any]]:
        where = ["e.superseded_by IS NULL"]
        params: list[Any] = []
        if not include_archived:
            where.append("e.archived = 0")
        if namespaces:
            where.append(f"e.namespace IN ({','.join('?' * len(namespaces))})")
            params += namespaces
        if categories:
            # A memory type (decision, fact, ...) given as a category finds captures of that type too.
            marks = ",".join("?" * len(categories))
            where.append(f"(e.category IN ({marks}) OR e.memory_type IN ({marks}))")
            params += [*categories, *categories]
        if session_id is not None:
            where.append("e.session_id = ?")
            params.append(session_id)
        return where, params

    def context_budget(self) -> int:
        """Token budget of engage's context (a third of it in ``[agent] compact_context`` mode)."""
        budget = self.core.settings.memory.context_budget_tokens
        if self.core.settings.agent.compact_context:
            budget = max(64, budget // COMPACT_BUDGET_DIVISOR)
        return budget

    def engage(self, query: str, limit: int = 5, categories: Sequence[str] | None = None,
               namespaces: Sequence[str] | None = None, min_score: float = 0, *,
               budget_tokens: int | None = None, now: datetime | None = None,
               exclude_ids: Sequence[str] = ()) -> JsonObject:
        """A prompt-ready context of the most relevant entries within the token budget.

        Returns ``{context, results, source_refs}`` (plus ``tokens``, ``budget_tokens``, ``omitted``).
        Entries are whole or absent, most relevant first; one too large for the space left is skipped.
        Entries whose id is in ``exclude_ids`` are left out as if they did not exist.
        """
        floor = max(float(min_score or 0), self.core.settings.memory.min_relevance_score)
        skip = set(exclude_ids)
        found = self.recall(query, limit + len(skip), namespaces=namespaces, categories=categories, min_score=floor,
                            now=now, exclude_ids=list(skip))
        found = [e for e in found if e.id not in skip][:limit] if skip else found
        budget = budget_tokens if budget_tokens is not None else self.context_budget()
        header = "Relevant memory (most relevant first):"
        used = estimate_tokens(header) + 1
        blocks: list[str] = []
        included: list[Entry] = []
        omitted = 0
        for e in found:
            block = render_entry(e)
            cost = estimate_tokens(block) + 1
            if used + cost > budget:
                omitted += 1
                continue
            used += cost
            blocks.append(block)
            included.append(e)
        context = "\n".join([header, *blocks]) if blocks else ""
        return {
            "context": context,
            "results": [e.to_dict() for e in included],
            "source_refs": [e.source_ref for e in included],
            "tokens": used if blocks else 0,
            "budget_tokens": budget,
            "omitted": omitted,
        }


def render_entry(e: Entry) -> str:
    """One context block: ``- [category] title-or-key: content (date, ref)``."""
    label = e.title or e.key
    content = e.content.strip().replace("\n", "\n  ")
    return f"- [{e.category}] {label}: {content} ({e.timestamp[:10]}, {e.source_ref})"
