"""The agent's configuration keys: defaults, provider forms, and errors that name the key."""

from __future__ import annotations

import pytest

from edge_agent.config import PROVIDER_URLS, load_settings, parse_settings, provider_url, to_toml
from edge_agent.errors import ConfigError


def test_defaults() -> None:
    s = parse_settings({})
    assert (s.default_provider, s.default_temperature, s.api_key, s.provider_timeout_secs) == ("ollama", 0.7, "", 120)
    assert (s.agent.max_tool_iterations, s.agent.max_history_messages, s.agent.parallel_tools) == (10, 50, False)
    r = s.reliability
    assert (r.provider_retries, r.provider_backoff_ms, r.fallback_providers) == (2, 500, [])


@pytest.mark.parametrize("spec,url", [
    ("ollama", "http://127.0.0.1:11434/v1"), ("llamacpp", "http://127.0.0.1:8080/v1"),
    ("LMStudio", "http://127.0.0.1:1234/v1"), ("vllm", "http://127.0.0.1:8000/v1"),
    ("openai", "https://api.openai.com/v1"), ("custom:http://10.0.0.5:8080/v1/", "http://10.0.0.5:8080/v1"),
])
def test_provider_forms(spec: str, url: str) -> None:
    assert provider_url(spec) == url
    assert parse_settings({"default_provider": spec}).default_provider == spec.strip()


@pytest.mark.parametrize("data,path", [
    ({"default_provider": "olama"}, "default_provider"),
    ({"default_provider": "custom:10.0.0.5:8080"}, "default_provider"),
    ({"reliability": {"fallback_providers": ["ollama", "gpt"]}}, "reliability.fallback_providers"),
    ({"default_model": "  "}, "default_model"),
    ({"default_temperature": 3}, "default_temperature"),
    ({"provider_timeout_secs": 0}, "provider_timeout_secs"),
    ({"agent": {"max_tool_iterations": -1}}, "agent.max_tool_iterations"),
    ({"agent": {"max_history_messages": -5}}, "agent.max_history_messages"),
    ({"reliability": {"provider_retries": -1}}, "reliability.provider_retries"),
    ({"reliability": {"backoff_ms": 10}}, "reliability.backoff_ms"),
])
def test_invalid_values_name_the_key(data: dict, path: str) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_settings(data)
    assert f"  {path}:" in str(exc.value)


def test_unknown_provider_lists_every_form() -> None:
    with pytest.raises(ConfigError) as exc:
        parse_settings({"default_provider": "olama"})
    for name in [*PROVIDER_URLS, "custom:"]:
        assert name in str(exc.value)


def test_api_key_is_never_echoed(tmp_path) -> None:
    cfg = tmp_path / "edge-agent.toml"
    cfg.write_text('api_key = "sk-very-secret"\ndefault_provider = "openai"\n')
    s = load_settings(cfg)
    assert s.api_key == "sk-very-secret"
    assert "sk-very-secret" not in to_toml(s) and "sk-very-secret" not in repr(s)
