"""Tests never read the developer's configuration: a checkout's edge-agent.toml, or an installed
service's /etc/edge-agent/edge-agent.toml, is not the test's."""

from __future__ import annotations

from pathlib import Path

from edge_agent.paths import find_config

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_a_test_runs_outside_the_checkout_and_finds_no_config_there() -> None:
    assert Path.cwd().resolve() != REPO_ROOT
    assert not Path("edge-agent.toml").exists()
    found = find_config()
    assert found is None or found.resolve().parent != REPO_ROOT


def test_a_test_never_finds_the_installed_services_config() -> None:
    from edge_agent import paths

    assert Path("/etc/edge-agent/edge-agent.toml") != paths.SYSTEM_CONFIG
    found = find_config()
    assert found is None or not str(found.resolve()).startswith("/etc/")
