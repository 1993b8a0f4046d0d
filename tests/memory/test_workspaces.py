"""Workspaces: one database each, isolation, opt-in cross-workspace search."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.config import parse_settings
from edge_agent.memory import InvalidEntryError, MemoryStore, WorkspaceAccessError


def ws_settings(**workspace: object) -> object:
    return parse_settings({"workspace": {"enabled": True, **workspace}, "memory": {"min_relevance_score": 0}})


def test_each_workspace_has_its_own_database_and_sees_only_its_entries(state: Path) -> None:
    with MemoryStore.open(state, ws_settings(name="lab")) as lab:
        lab.store("probe", "oscilloscope probe on CH1")
        assert lab.db_path == state / "workspaces" / "lab" / "memory" / "memory.db"
    with MemoryStore.open(state, ws_settings(name="home")) as home:
        assert home.search.recall("oscilloscope probe") == []
        assert home.get("probe") is None and home.count() == 0


def test_cross_workspace_search_is_refused_by_default(state: Path) -> None:
    with MemoryStore.open(state, ws_settings(name="lab")) as lab:
        lab.store("probe", "oscilloscope probe on CH1")
    with MemoryStore.open(state, ws_settings(name="home")) as home, pytest.raises(WorkspaceAccessError) as err:
        home.search.recall("oscilloscope", workspaces=["lab"])
    assert (err.value.workspace, err.value.requested) == ("home", "lab")


def test_cross_workspace_search_when_enabled_tags_results_with_their_workspace(state: Path) -> None:
    with MemoryStore.open(state, ws_settings(name="lab")) as lab:
        lab.store("probe", "oscilloscope probe on CH1")
    settings = ws_settings(name="home", cross_workspace_search=True)
    with MemoryStore.open(state, settings) as home:
        home.store("scope", "the oscilloscope is on the shelf")
        found = home.search.recall("oscilloscope", workspaces=["*"])
        assert sorted((e.workspace, e.key) for e in found) == [("home", "scope"), ("lab", "probe")]
    # the other workspace was only read
    with MemoryStore.open(state, ws_settings(name="lab")) as lab:
        assert lab.count() == 1


def test_without_isolation_all_workspaces_share_one_database(state: Path) -> None:
    with MemoryStore.open(state, ws_settings(name="lab", isolate_memory=False)) as lab:
        lab.store("probe", "oscilloscope probe on CH1")
    with MemoryStore.open(state, ws_settings(name="home", isolate_memory=False)) as home:
        assert home.get("probe") is not None


@pytest.mark.parametrize("name", ["../etc", "a/b", "", ".."])
def test_workspace_names_cannot_escape_the_state_directory(state: Path, name: str) -> None:
    with pytest.raises(InvalidEntryError):
        MemoryStore.open(state, ws_settings(), workspace=name)
