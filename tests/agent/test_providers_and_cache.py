"""Provider entries (keys, tool-call modes) and the response cache, through `edge-agent` as a user runs it:
the real openai SDK against the scripted server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.provider import ProviderChain
from edge_agent.cli import main
from edge_agent.config import load_settings

from .conftest import tool_body, type_lines

REPO = Path(__file__).resolve().parents[2]


def _run(capsys: Any, config: Path, state: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--state", str(state), "--config", str(config), "agent", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


# --- api keys ------------------------------------------------------------------------------------------


def test_the_default_providers_key_never_reaches_a_fallback(model: Any, steps: Any, tmp_path: Path, state: Path,
                                                            capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("EDGE_AGENT_API_KEY", "sk-cloud-secret")
    config = steps.write_config(tmp_path / "c.toml", model, fallbacks=[f"custom:{model.url}"])
    config.write_text(config.read_text().replace(f'default_provider = "custom:{model.url}"',
                                                 f'default_provider = "custom:{_dead_url()}"'))
    model.script = [steps.say("Local answer.")]
    code, out, _ = _run(capsys, config, state, "-m", "hello", "--json")
    assert code == 0 and json.loads(out)["response"] == "Local answer."
    assert "authorization" not in model.headers[0]


def test_a_provider_entry_carries_its_own_key(model: Any, steps: Any, tmp_path: Path, state: Path, capsys: Any,
                                              monkeypatch: Any) -> None:
    monkeypatch.setenv("LAB_KEY", "sk-lab")
    config = steps.write_config(tmp_path / "c.toml", model,
                                f'[providers.lab]\nurl = "{model.url}"\napi_key_env = "LAB_KEY"\n')
    config.write_text(config.read_text().replace(f'default_provider = "custom:{model.url}"',
                                                 'default_provider = "lab"'))
    model.script = [steps.say("Hi.")]
    assert _run(capsys, config, state, "-m", "hello")[0] == 0
    assert model.headers[0]["authorization"] == "Bearer sk-lab"


@pytest.mark.parametrize("opt_in,sent", [(False, ""), (True, "sk-lab")])
def test_no_key_over_plain_http_to_another_host_without_opt_in(tmp_path: Path, monkeypatch: Any, opt_in: bool,
                                                               sent: str) -> None:
    monkeypatch.setenv("LAB_KEY", "sk-lab")
    config = tmp_path / "c.toml"
    config.write_text('default_provider = "lab"\n[providers.lab]\nurl = "http://10.0.0.5:8080/v1"\n'
                      f'api_key_env = "LAB_KEY"\nallow_plain_http_key = {str(opt_in).lower()}\n')
    assert ProviderChain(load_settings(config)).providers[0].api_key == sent


@pytest.mark.parametrize("host,sent", [("127.0.0.1", "sk-lab"), ("localhost", "sk-lab"), ("[::1]", "sk-lab"),
                                       ("lab.localhost", ""), ("localhost.example.com", ""), ("127.example", "")])
def test_only_a_loopback_host_gets_a_key_over_plain_http(tmp_path: Path, monkeypatch: Any, host: str,
                                                          sent: str) -> None:
    """A name that merely looks local may resolve to another machine; the key would cross the network in clear."""
    monkeypatch.setenv("LAB_KEY", "sk-lab")
    config = tmp_path / "c.toml"
    config.write_text(f'default_provider = "lab"\n[providers.lab]\nurl = "http://{host}:8080/v1"\n'
                      'api_key_env = "LAB_KEY"\n')
    assert ProviderChain(load_settings(config)).providers[0].api_key == sent


def test_an_unknown_provider_name_is_a_config_error_naming_the_key(tmp_path: Path, state: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('default_provider = "lab"\n')
    assert main(["--state", str(state), "--config", str(config), "config", "check"]) != 0


# --- passwords in provider URLs --------------------------------------------------------------------------


def test_a_password_in_a_provider_url_is_never_printed(model: Any, steps: Any, tmp_path: Path, state: Path,
                                                       capsys: Any) -> None:
    dead = _dead_url().replace("http://", "http://bench:s3cret-pw@")
    config = steps.write_config(tmp_path / "c.toml", model, fallbacks=[f"custom:{dead}"])
    config.write_text(config.read_text().replace(f'"custom:{model.url}"',
                                                 f'"custom:{model.url.replace("http://", "http://bench:s3cret-pw@")}"'))
    model.script = [steps.say("Up.")]
    code, out, err = _run(capsys, config, state, "-m", "hello", "--json")
    assert code == 0 and "s3cret-pw" not in out + err and "bench:***@" in json.loads(out)["provider"]
    model.script = [steps.http_error(404)]
    code, out, err = _run(capsys, config, state, "-m", "hello again", "--json")
    assert code == 3 and "s3cret-pw" not in out + err and "***" in err
    assert main(["--state", str(state), "--config", str(config), "config", "check"]) == 0
    shown = capsys.readouterr().out
    assert "s3cret-pw" not in shown and "bench:***@" in shown


def test_a_password_holding_an_at_sign_is_hidden_whole(model: Any, steps: Any, tmp_path: Path, state: Path,
                                                      capsys: Any) -> None:
    """URL parsers split the user part from the host at the last '@', so an unescaped '@' belongs to the password."""
    dead = _dead_url().replace("http://", "http://bench:s3cret@tail-pw@")
    config = steps.write_config(tmp_path / "c.toml", model, fallbacks=[f"custom:{dead}"])
    model.script = [steps.http_error(404)]
    code, out, err = _run(capsys, config, state, "-m", "hello", "--json")
    assert code == 3 and "tail-pw" not in out + err and "bench:***@127.0.0.1" in out
    assert main(["--state", str(state), "--config", str(config), "config", "check"]) == 0
    shown = capsys.readouterr().out
    assert "tail-pw" not in shown and "s3cret" not in shown and "bench:***@127.0.0.1" in shown


# --- tool-call mode --------------------------------------------------------------------------------------


def test_a_server_refusing_tools_gets_them_in_the_prompt_and_the_probe_is_kept(
        model: Any, steps: Any, config: Path, state: Path, capsys: Any) -> None:
    model.refuse_tools = True
    model.script = [steps.say('{"name": "gpio_read", "arguments": {"pin": "PA5"}}'), steps.say("PA5 reads 0."),
                    steps.say("Hello.")]
    code, out, _ = _run(capsys, config, state, "-m", "read PA5", "--json")
    data = json.loads(out)
    assert code == 0 and data["response"].endswith("reads 0 (low).\nPA5 reads 0.")
    assert data["tool_calls"][0]["result"]["value"] == 0
    first, second = model.requests[:2]
    assert "tools" not in first and "gpio_read(pin: " in first["messages"][0]["content"]
    assert first["messages"][0]["content"].startswith("You are edge-agent")  # the stable prefix stays first
    # The call goes back as the assistant's text, the result as a fenced user message.
    assert second["messages"][-2] == {"role": "assistant",
                                      "content": '{"name": "gpio_read", "arguments": {"pin": "PA5"}}'}
    assert second["messages"][-1]["role"] == "user"
    assert tool_body(second["messages"][-1]["content"])["value"] == 0
    assert len(model.probes) == 1
    _run(capsys, config, state, "-m", "hi there PA5")  # another process: the kept probe result is used
    assert len(model.probes) == 1 and "tools" not in model.requests[2]


def test_the_mode_can_be_set_per_provider_without_a_probe(model: Any, steps: Any, tmp_path: Path, state: Path,
                                                          capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, f'[providers.box]\nurl = "{model.url}"\n'
                                                            'tool_calls = "native"\n')
    config.write_text(config.read_text().replace(f'default_provider = "custom:{model.url}"',
                                                 'default_provider = "box"'))
    model.script = [steps.say("0.")]
    assert _run(capsys, config, state, "-m", "read PA5")[0] == 0
    assert model.probes == [] and "tools" in model.requests[0]


# --- the response cache --------------------------------------------------------------------------------


def _one_shot(config: Path, state: Path, message: str) -> dict[str, Any]:
    """`edge-agent agent -m ... --json` in a fresh interpreter; reports whether the openai SDK was imported."""
    code = ("import json, sys\nfrom edge_agent.cli import main\n"
            f"rc = main(['--state', {str(state)!r}, '--config', {str(config)!r}, 'agent', '-m', {message!r}, "
            "'--json'])\nprint('\\nopenai-imported' if 'openai' in sys.modules else '\\nopenai-not-imported')\n"
            "sys.exit(rc)")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         timeout=120).stdout
    *body, marker = out.strip().splitlines()
    data = json.loads("\n".join(body))
    data["openai_imported"] = marker == "openai-imported"
    return data


def test_the_same_question_is_a_hit_in_the_next_process_without_importing_the_sdk(
        model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.say("LD2 is the user LED, on PA5.")]
    first = _one_shot(config, state, "which pin drives the user led")
    second = _one_shot(config, state, "which pin drives the user led")
    assert first["cached"] is False and first["openai_imported"]
    assert second["cached"] is True and second["response"] == first["response"]
    assert not second["openai_imported"]
    assert len(model.requests) == 1


def test_the_same_question_in_a_chat_is_a_hit(model: Any, steps: Any, config: Path, state: Path, capsys: Any,
                                              monkeypatch: Any) -> None:
    type_lines(monkeypatch, "which pin drives the user led", "which pin drives the user led", "why that one")
    model.script = [steps.say("PA5."), steps.say("Because LD2 is wired there.")]
    code, out, _ = _run(capsys, config, state)
    assert code == 0
    assert len(model.requests) == 2  # the repeat came from the cache; the follow-up ("that") went to the model
    assert "(cached)" in out
    assert [m["role"] for m in model.requests[1]["messages"]][:3] == ["system", "user", "assistant"]
