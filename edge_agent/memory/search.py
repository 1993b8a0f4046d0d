"""Full-text candidate retrieval and relevance for recall.

Relevance is the IDF-weighted share of the query's terms an entry contains (terms absent from the
whole store carry no information and are left out), so it is an absolute figure from 0 to 1 that
``min_relevance_score`` can be compared with. Ranking every full-text match by bm25 costs one
document-size lookup per match (about 50 ms for a common word at 100k entries on a small board),
so candidates come from three bounded FTS5 queries instead, all streamed newest first:

1. entries containing every one of the (up to six) most informative terms;
2. every entry containing a rare term (document count <= ``RARE_DOCS``), wherever it is in time;
3. the newest ``WINDOW`` (at least 4 x limit) entries containing any of the terms.

Each candidate is then scored in Python with the same prefix rule the index used.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from edge_agent.memory.model import (
    Entry,
    TermMatcher,
    decay_factor,
    entry_from_row,
    fts_match_expression,
    fts_term,
    idf,
    is_prefix_term,
    term_forms,
)

MAX_CHOSEN_TERMS = 6
RARE_DOCS = 96
WINDOW = 32
STATS_TTL_S = 300.0
MAX_CACHED_TERMS = 512


class TermStats:
    """Cached entry count and per-term document counts (the IDF inputs) of one database.

    Counts are kept current for this process's own inserts (:meth:`note_insert`) and dropped on
    deletes; other processes' writes show after ``STATS_TTL_S``. A zero count is never cached, so a
    term first stored by another process is found at once.
    """

    def __init__(self, ttl_s: float = STATS_TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s, self._clock = ttl_s, clock
        self._docs: dict[str, tuple[int, float]] = {}
        self._total: tuple[int, float] | None = None
        self._matcher: TermMatcher | None = None

    def clear(self) -> None:
        """Forget every cached count (after deletes)."""
        self._docs.clear()
        self._total = None
        self._matcher = None

    def _fresh(self, at: float) -> bool:
        return self._clock() - at < self.ttl_s

    def total(self, conn: sqlite3.Connection) -> int:
        """Number of rows in the full-text index."""
        if self._total is not None and self._fresh(self._total[1]):
            return self._total[0]
        (n,) = conn.execute("SELECT count(*) FROM entries").fetchone()
        self._total = (int(n), self._clock())
        return int(n)

    def docs(self, conn: sqlite3.Connection, term: str) -> int:
        """How many entries contain the term (for a prefix term: the sum over the words it starts)."""
        hit = self._docs.get(term)
        if hit is not None and self._fresh(hit[1]):
            return hit[0]
        if is_prefix_term(term):
            upper = term[:-1] + chr(ord(term[-1]) + 1)
            row = conn.execute("SELECT coalesce(sum(doc), 0) FROM entries_vocab WHERE term >= ? AND term < ?",
                               (term, upper)).fetchone()
        else:
            forms = term_forms(term)
            row = conn.execute(f"SELECT coalesce(sum(doc), 0) FROM entries_vocab WHERE term IN "
                               f"({','.join('?' * len(forms))})", forms).fetchone()
        n = int(row[0])
        if n:
            if len(self._docs) >= MAX_CACHED_TERMS:
                self._docs.clear()
            self._docs[term] = (n, self._clock())
            self._matcher = None
        return n

    def note_insert(self, *texts: str) -> None:
        """Keep cached counts current after this process inserted an entry with these texts."""
        if self._total is not None:
            self._total = (self._total[0] + 1, self._total[1])
        if self._docs:
            if self._matcher is None:
                self._matcher = TermMatcher(list(self._docs))
            for term, added in self._matcher.doc_counts(*texts).items():
                n, at = self._docs[term]
                self._docs[term] = (n + added, at)


def search(conn: sqlite3.Connection, workspace: str, terms: list[str], limit: int, where: Sequence[str],
           params: Sequence[Any], stats: TermStats, *, now: datetime, half_life_days: float | None,
           min_score: float, exclude_ids: Sequence[str] = ()) -> list[Entry]:
    """The best ``limit`` entries for ``terms``, each with its final score (relevance x importance
    weight x decay), all at or above ``min_score``, best first.

    Entries whose id is in ``exclude_ids`` are scored as if they did not exist: they are not returned and
    their terms are taken out of the entry and document counts, so a newly stored entry that is excluded
    does not change which terms count or how much each weighs for the rest.
    """
    total = stats.total(conn)
    if total == 0 or not terms:
        return []
    counts = {t: stats.docs(conn, t) for t in terms}
    skip_seqs: set[int] = set()
    if exclude_ids:
        ids = list(dict.fromkeys(exclude_ids))
        excluded = conn.execute(f"SELECT seq, key, title, content FROM entries WHERE id IN "
                                f"({','.join('?' * len(ids))})", ids).fetchall()
        matcher = TermMatcher(terms)
        for seq, key, title, content in excluded:
            skip_seqs.add(int(seq))
            # As many as the entry added to the count: one per distinct word form it holds.
            for t, n in matcher.doc_counts(key, title, content).items():
                counts[t] = max(0, counts[t] - n)
        total = max(0, total - len(excluded))
        if total == 0:
            return []
    present = [t for t in terms if counts[t] > 0]
    if not present:
        return []
    weight = {t: idf(min(counts[t], total), total) for t in present}
    weight_sum = sum(weight.values())
    chosen = sorted(present, key=lambda t: -weight[t])[:MAX_CHOSEN_TERMS]
    pool = max(limit * 4, 24)
    clause = " AND ".join(["entries_fts MATCH ?", *where])
    sql = (f"SELECT e.seq, e.key, e.title, e.content, e.category, e.timestamp, e.importance FROM entries_fts "
           f"JOIN entries e ON e.seq = entries_fts.rowid WHERE {clause} ORDER BY entries_fts.rowid DESC LIMIT ?")
    rows: dict[int, tuple[Any, ...]] = {}

    def fetch(expression: str, cap: int) -> None:
        for r in conn.execute(sql, (expression, *params, cap)):
            rows.setdefault(r[0], tuple(r))

    if len(chosen) > 1:
        fetch(fts_match_expression(chosen, "AND"), pool)
    for t in chosen:
        if counts[t] <= RARE_DOCS:
            fetch(fts_term(t), RARE_DOCS)
    fetch(fts_match_expression(chosen, "OR"), max(WINDOW, pool))
    matcher = TermMatcher(present)
    scored: list[tuple[float, str, int]] = []
    for seq, key, title, content, category, timestamp, importance in rows.values():
        if seq in skip_seqs:
            continue
        relevance = sum(weight[t] for t in matcher.matched(key, title, content)) / weight_sum
        score = relevance * (0.7 + 0.3 * importance)
        if category != "core":
            factor = decay_factor(timestamp, now, half_life_days)
            if factor is not None:  # an unparseable timestamp leaves the score unchanged
                score *= factor
        if score >= min_score:
            scored.append((score, timestamp, seq))
    scored.sort(reverse=True)
    best = scored[:limit]
    if not best:
        return []
    by_seq = {r["seq"]: r for r in conn.execute(
        f"SELECT * FROM entries WHERE seq IN ({','.join('?' * len(best))})", [seq for *_, seq in best])}
    out = []
    for score, _, seq in best:
        e = entry_from_row(by_seq[seq], workspace)
        e.score = score
        out.append(e)
    return out
