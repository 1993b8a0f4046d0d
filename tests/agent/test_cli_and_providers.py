"""`edge-agent agent` as a user runs it, and what happens when model providers fail."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from edge_agent.cli import main

from .conftest import type_lines


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(capsys: Any, config: Path, state: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--state", str(state), "--config", str(config), "agent", *args])
    out = capsys.readouterr()
    return code, out.out, out.err



def test_json_output_shape(model: Any, steps: Any, config: Path, state: Path, capsys: Any) -> None:
    model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})), steps.say("On.")]
    code, out, _ = _run(capsys, config, state, "-m", "turn the red led on", "--json")
    data = json.loads(out)
    assert code == 0 and data["response"] == "Done: pin red_led (= PA5, LED LD2) set to 1 (high).\nOn."
    assert data["cached"] is False
    assert data["provider"] == f"custom:{model.url}"
    assert data["tool_calls"] == [{"name": "gpio_write", "arguments": {"pin": "red_led", "value": 1}, "outcome": "ok",
                                   "result": data["tool_calls"][0]["result"]}]
    assert data["tool_calls"][0]["result"]["pin"] == "PA5"
    assert data["usage"] == {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220}


def test_plain_answer_and_tool_lines_on_stderr(model: Any, steps: Any, config: Path, state: Path,
                                               capsys: Any) -> None:
    model.script = [steps.call(("gpio_read", {"pin": "PA5"})), steps.say("PA5 reads 0.")]
    code, out, err = _run(capsys, config, state, "-m", "read PA5")
    assert code == 0 and out == "Read: pin PA5 (LED LD2) reads 0 (low).\nPA5 reads 0.\n" and "[tool] gpio_read" in err


@pytest.mark.parametrize("args", [["-m", ""], ["-m", "   "], ["--json"]])
def test_empty_message_is_a_usage_error(config: Path, state: Path, capsys: Any, args: list[str]) -> None:
    code, out, err = _run(capsys, config, state, *args)
    assert code == 2 and out == "" and "usage:" in err


def test_no_authorization_header_without_a_key(model: Any, steps: Any, config: Path, state: Path,
                                               capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.delenv("EDGE_AGENT_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "ambient-key-must-not-leak")
    model.script = [steps.say("hi")]
    assert _run(capsys, config, state, "-m", "hello there")[0] == 0
    assert "authorization" not in model.headers[0]


def test_env_key_wins_over_the_config_key(model: Any, steps: Any, tmp_path: Path, state: Path, capsys: Any,
                                          monkeypatch: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, 'api_key = "from-config"')
    monkeypatch.setenv("EDGE_AGENT_API_KEY", "from-env")
    model.script = [steps.say("hi")]
    code, out, err = _run(capsys, config, state, "-m", "hello there", "-v")
    assert code == 0 and model.headers[0]["authorization"] == "Bearer from-env"
    assert "from-env" not in out + err and "from-config" not in out + err


def test_retry_after_a_500(model: Any, steps: Any, tmp_path: Path, state: Path, capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, retries=1)
    model.script = [steps.http_error(500), steps.say("Second time lucky.")]
    code, out, _ = _run(capsys, config, state, "-m", "hello there")
    assert code == 0 and out == "Second time lucky.\n" and len(model.requests) == 2


def test_garbage_then_the_fallback_answers(model: Any, steps: Any, tmp_path: Path, state: Path,
                                           capsys: Any) -> None:
    backup = steps.ScriptedModel()
    try:
        config = steps.write_config(tmp_path / "c.toml", model, fallbacks=[f"custom:{backup.url}"])
        model.script = [steps.garbage()]
        backup.script = [steps.say("From the backup.")]
        code, out, _ = _run(capsys, config, state, "-m", "hello there", "--json")
    finally:
        backup.close()
    data = json.loads(out)
    assert code == 0 and data["response"] == "From the backup." and data["provider"] == f"custom:{backup.url}"


def test_every_provider_down_exit_3_one_line_and_the_offline_answer(model: Any, steps: Any, tmp_path: Path,
                                                                    state: Path, capsys: Any) -> None:
    dead = f"http://127.0.0.1:{_free_port()}/v1"
    config = steps.write_config(tmp_path / "c.toml", model, retries=1, fallbacks=[f"custom:{dead}"])
    config.write_text(config.read_text().replace("provider_timeout_secs = 5", "provider_timeout_secs = 0.5"))
    model.script = [steps.http_error(503), steps.hang(2.0)]
    code, out, err = _run(capsys, config, state, "-m", "which pin is the red led on the nucleo")
    assert code == 3
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert model.url in lines[0] and dead in lines[0]
    assert "0.5 s" in lines[0] and "connection refused" in lines[0]
    assert "red_led = pin PA5" in out  # the offline answer: resolved pins and the best datasheet chunk
    assert "Best datasheet match:" in out
    assert len(model.requests) == 2  # the primary was retried once


def test_offline_answer_in_json(steps: Any, tmp_path: Path, state: Path, capsys: Any) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'default_provider = "custom:http://127.0.0.1:{_free_port()}/v1"\n'
                      "[reliability]\nprovider_retries = 0\n")
    code, out, _ = _run(capsys, config, state, "-m", "red led pin", "--json")
    data = json.loads(out)
    assert code == 3 and data["offline"] is True and data["provider"] is None and "PA5" in data["response"]
    assert data["providers_tried"][0]["error"].startswith("connection refused")


def test_wrong_model_name_is_not_retried(model: Any, steps: Any, tmp_path: Path, state: Path, capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, retries=3)
    model.script = [steps.http_error(404)]
    code, _, err = _run(capsys, config, state, "-m", "hello there")
    assert code == 3 and len(model.requests) == 1 and "test-model" in err


def test_chat_streams_tokens_shows_tools_and_quits(model: Any, steps: Any, config: Path, state: Path,
                                                   capsys: Any, monkeypatch: Any) -> None:
    lines = iter(["blink the red led", "", "/quit", "never read"])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(lines))
    model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})),
                    steps.call(("gpio_write", {"pin": "red_led", "value": 0})),
                    steps.say("<think>both done</think>Blinked it once for you.")]
    code, out, _ = _run(capsys, config, state)
    assert code == 0
    assert all(r.get("stream") for r in model.requests) and len(model.requests) == 3
    assert out.count("[tool] gpio_write") == 4  # each call shown as it starts and when it is done
    assert "Blinked it once for you." in out and "both done" not in out and "never read" not in out


def test_chat_hides_a_streamed_text_call(model: Any, steps: Any, config: Path, state: Path, capsys: Any,
                                         monkeypatch: Any) -> None:
    lines = iter(["led on please"])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(lines))  # then EOF ends the chat
    model.script = [steps.say('{"name": "gpio_write", "arguments": {"pin": "PA5", "value": 1}}'),
                    steps.say("Done: PA5 is high.")]

    def stop(_prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", lambda _p="": next(lines, None) or stop())
    code, out, _ = _run(capsys, config, state)
    assert code == 0 and '"arguments"' not in out and "Done: PA5 is high." in out


def test_a_stream_cut_half_way_is_retried_and_the_display_restarts(model: Any, steps: Any, tmp_path: Path,
                                                                   state: Path, capsys: Any,
                                                                   monkeypatch: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, retries=1)
    type_lines(monkeypatch, "tell me about the led")
    model.script = [steps.cut(), steps.say("The whole answer.")]
    code, out, err = _run(capsys, config, state)
    assert code == 0 and len(model.requests) == 2 and "Traceback" not in err
    assert "Half an ans [connection lost, retrying]\nThe whole answer." in out


def test_cache_stats_show_the_hit_and_the_tokens_saved(model: Any, steps: Any, config: Path, state: Path,
                                                       capsys: Any) -> None:
    model.script = [steps.say("PA5.", usage={"prompt_tokens": 500, "completion_tokens": 7, "total_tokens": 507})]
    assert _run(capsys, config, state, "-m", "which pin drives the user led")[0] == 0
    code, out, _ = _run(capsys, config, state, "-m", "which pin drives the user led", "--json")
    assert code == 0 and json.loads(out)["cached"] is True and len(model.requests) == 1
    assert main(["--state", str(state), "--config", str(config), "cache", "stats"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["hits"] == 1 and stats["tokens_saved"] == 7 and stats["entries"] == 1


def test_board_scopes_the_hardware_context(model: Any, steps: Any, config: Path, state: Path, capsys: Any) -> None:
    model.script = [steps.say("D13.")]
    assert _run(capsys, config, state, "-m", "where is the red led", "--board", "arduino-uno")[0] == 0
    user = model.requests[0]["messages"][1]["content"]
    assert "arduino-uno: red_led = pin" in user and "nucleo-f401re: red_led" not in user


def test_unknown_board_is_an_error_naming_the_known_ones(config: Path, state: Path, capsys: Any) -> None:
    code, _, err = _run(capsys, config, state, "-m", "where is the red led", "--board", "nucleo-f999")
    assert code == 1 and "nucleo-f999" in err and "nucleo-f401re" in err


def test_a_server_that_ignores_stream_is_asked_again_without_it(model: Any, steps: Any, config: Path, state: Path,
                                                                capsys: Any, monkeypatch: Any) -> None:
    type_lines(monkeypatch, "hello there")
    ignored = steps.say("ignored")
    ignored.no_stream = True
    model.script = [ignored, steps.say("Hello from the plain reply.")]
    code, out, _ = _run(capsys, config, state)
    assert code == 0 and "Hello from the plain reply." in out
    assert [bool(r.get("stream")) for r in model.requests] == [True, False]


def test_missing_sdk_names_the_extra(config: Path, state: Path, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setitem(__import__("sys").modules, "openai", None)  # as if the agent extra were not installed
    code, _, err = _run(capsys, config, state, "-m", "hello there")
    assert code == 1 and "edge-agent[agent]" in err and "Traceback" not in err


def test_a_message_too_long_for_compact_mode_is_refused_clearly(model: Any, steps: Any, tmp_path: Path, state: Path,
                                                               capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, compact=True)
    code, out, err = _run(capsys, config, state, "-m", "why " * 1700)
    assert code == 1 and out == "" and "compact_context" in err and model.requests == []


def test_the_offline_json_answer_has_the_keys_of_a_model_answer(model: Any, steps: Any, config: Path, tmp_path: Path,
                                                               state: Path, capsys: Any) -> None:
    # A script reading `agent --json` must not need to know which path answered to find a key.
    model.script = [steps.say("On.")]
    code, out, _ = _run(capsys, config, state, "-m", "is the red led on", "--json")
    online = json.loads(out)
    down = tmp_path / "down.toml"
    down.write_text(f'default_provider = "custom:http://127.0.0.1:{_free_port()}/v1"\n'
                    "[reliability]\nprovider_retries = 0\n")
    code_down, out, _ = _run(capsys, down, state, "-m", "is the red led on", "--json")
    offline = json.loads(out)
    assert (code, code_down) == (0, 3)
    assert set(offline) == set(online)
    assert online["offline"] is False and offline["offline"] is True
