"""Property tests: arbitrary user text never breaks recall, and content round-trips exactly."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_agent.config import Settings
from edge_agent.memory import MemoryStore
from edge_agent.memory.model import fts_match_expression, query_terms

# Text without lone surrogates (which UTF-8 cannot encode; the store refuses them with InvalidEntryError).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200)


@settings(max_examples=150, deadline=None)
@given(TEXT)
def test_any_query_becomes_only_quoted_fts_strings(query: str) -> None:
    expr = fts_match_expression(query_terms(query))
    # outside the quoted strings only OR, AND, parentheses, '*' and spaces remain
    outside = expr.split('"')[::2]
    assert all(set(part) <= set(" ORAND()*") for part in outside)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=TEXT.filter(lambda s: s.strip()), query=TEXT)
def test_any_content_round_trips_and_any_query_is_answered(tmp_path: Path, content: str, query: str) -> None:
    with MemoryStore.open(tmp_path, Settings()) as s:
        e = s.store("k", content, category="daily")
        got = s.get_by_id(e.id)
        assert got is not None and got.content == content
        assert isinstance(s.search.recall(query, min_score=0), list)
        assert isinstance(s.search.engage(query)["context"], str)
        buf = io.StringIO()
        s.transfer.export_jsonl(buf, include_superseded=True)
    with MemoryStore.open(tmp_path, Settings(), workspace="copy") as c:
        c.transfer.import_jsonl(buf.getvalue().splitlines())
        assert c.get_by_id(e.id).content == content  # type: ignore[union-attr]
