"""The HTTP bearer token: created once, 0600, stable across restarts, repaired when empty."""

from __future__ import annotations

from pathlib import Path

from edge_agent.config import parse_settings
from edge_agent.mcp.token import ensure_token, token_matches, token_path


def test_the_token_is_created_once_with_mode_0600_and_then_reused(state: Path) -> None:
    path = token_path(parse_settings({}), state)
    assert path == state / "mcp-token"
    first = ensure_token(path)
    assert len(first) >= 32 and path.stat().st_mode & 0o777 == 0o600
    assert ensure_token(path) == first


def test_a_loosened_token_file_is_tightened_and_an_empty_one_replaced(state: Path) -> None:
    path = state / "mcp-token"
    token = ensure_token(path)
    path.chmod(0o644)
    assert ensure_token(path) == token and path.stat().st_mode & 0o777 == 0o600
    path.write_text("")
    fresh = ensure_token(path)
    assert fresh and fresh != token and path.read_text().strip() == fresh


def test_a_configured_relative_token_file_resolves_beside_the_config(tmp_path: Path, state: Path) -> None:
    settings = parse_settings({"server": {"token_file": "secrets/mcp.token"}}, source=tmp_path / "edge-agent.toml")
    assert token_path(settings, state) == tmp_path / "secrets" / "mcp.token"


def test_token_comparison_is_exact() -> None:
    assert token_matches("abc", "abc")
    assert not token_matches("abc", "abd") and not token_matches("abc", "") and not token_matches("abc", "abcd")
