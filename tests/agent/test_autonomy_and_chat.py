"""Supervised autonomy and the chat as an operator uses them: `edge-agent agent` against the scripted
server, the real runtime on the simulated board."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edge_agent.cli import main
from edge_agent.config import Settings

from .conftest import tool_body, type_lines


def _run(capsys: Any, config: Path, state: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--state", str(state), "--config", str(config), "agent", *args])
    out = capsys.readouterr()
    return code, out.out, out.err



def _led(state: Path, config: Path, capsys: Any) -> int:
    assert main(["--state", str(state), "--config", str(config), "gpio", "read", "PA5", "--json"]) == 0
    return int(json.loads(capsys.readouterr().out)["value"])


def test_a_new_install_is_supervised() -> None:
    assert Settings().autonomy.level == "supervised"


def test_a_supervised_one_shot_refuses_a_write_and_tells_the_model(model: Any, steps: Any, tmp_path: Path,
                                                                    state: Path, capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, autonomy=None)
    model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})),
                    steps.say("I need your approval to switch it on.")]
    code, out, _ = _run(capsys, config, state, "-m", "turn the red led on", "--json")
    data = json.loads(out)
    # The refusal is stated first, from the tool result; the model's words follow.
    assert code == 0 and data["response"].startswith("Refused, not done: gpio_write: drive pin 'red_led' (= PA5)")
    assert data["response"].endswith("\nI need your approval to switch it on.") and "--yes" in data["response"]
    error = tool_body(model.requests[1]["messages"][-1]["content"])["error"]
    assert "--yes" in error and "supervised" in error and "red_led" in error
    assert _led(state, config, capsys) == 0


def test_yes_approves_the_writes_of_a_one_shot(model: Any, steps: Any, tmp_path: Path, state: Path,
                                               capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, autonomy=None)
    model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})), steps.say("On.")]
    code, out, _ = _run(capsys, config, state, "-m", "turn the red led on", "--json", "--yes")
    assert code == 0 and json.loads(out)["tool_calls"][0]["result"]["pin"] == "PA5"
    assert _led(state, config, capsys) == 1


@pytest.mark.parametrize("answer,lit", [("y", 1), ("n", 0)])
def test_the_chat_shows_the_exact_write_and_runs_it_only_after_yes(
        model: Any, steps: Any, tmp_path: Path, state: Path, capsys: Any, monkeypatch: Any,
        answer: str, lit: int) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, autonomy=None)
    model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})), steps.say("Done.")]
    prompts = type_lines(monkeypatch, "turn the red led on", answer)
    code, out, _ = _run(capsys, config, state)
    assert code == 0 and "[approve] gpio_write: drive pin 'red_led' (= PA5) on nucleo-f401re to 1 (high)" in out
    assert any("run it?" in p for p in prompts)
    assert _led(state, config, capsys) == lit
    result = tool_body(model.requests[1]["messages"][-1]["content"])
    assert ("error" in result and "declined" in result["error"]) == (lit == 0)


def test_readonly_autonomy_refuses_every_write(model: Any, steps: Any, tmp_path: Path, state: Path,
                                               capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, autonomy="readonly")
    model.script = [steps.call(("gpio_write", {"pin": "PA5", "value": 1})), steps.say("I may only read.")]
    code, _, _ = _run(capsys, config, state, "-m", "turn PA5 on", "--yes")
    assert code == 0 and "readonly" in tool_body(model.requests[1]["messages"][-1]["content"])["error"]
    assert _led(state, config, capsys) == 0


def test_the_hourly_cap_holds_across_processes(model: Any, steps: Any, tmp_path: Path, state: Path,
                                               capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, '[autonomy]\nlevel = "full"\nmax_actions_per_hour = 2',
                                autonomy=None)
    for value in (1, 0):
        model.script = [steps.call(("gpio_write", {"pin": "PA5", "value": value})), steps.say("ok")]
        assert _run(capsys, config, state, "-m", f"set PA5 to {value}")[0] == 0
    model.script = [steps.call(("gpio_write", {"pin": "PA5", "value": 1})), steps.say("Capped.")]
    _run(capsys, config, state, "-m", "set PA5 to 1")
    assert "max_actions_per_hour" in tool_body(model.requests[-1]["messages"][-1]["content"])["error"]
    assert _led(state, config, capsys) == 0


def test_chat_commands_are_local_and_never_reach_the_model(model: Any, steps: Any, config: Path, state: Path,
                                                           capsys: Any, monkeypatch: Any) -> None:
    model.script = [steps.say("Bonjour."), steps.say("Hello again.")]
    type_lines(monkeypatch, "/help", "/tools", "say hello in French", "/reset", "say hello", "/quit")
    code, out, _ = _run(capsys, config, state)
    assert code == 0 and "/reset" in out and "gpio_write" in out and "autonomy" in out
    assert "Chat history cleared." in out
    assert len(model.requests) == 2
    sent = [m["content"] for r in model.requests for m in r["messages"] if m["role"] == "user"]
    assert not any("/help" in s or "/tools" in s for s in sent)
    # After /reset the second message carries no history of the first.
    assert [m["role"] for m in model.requests[1]["messages"]] == ["system", "user"]


def test_ctrl_c_cancels_the_turn_and_keeps_the_chat(model: Any, steps: Any, config: Path, state: Path,
                                                    capsys: Any, monkeypatch: Any) -> None:
    from edge_agent.agent.loop import Agent

    real = Agent.turn
    calls = {"n": 0}

    def interrupted_once(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Agent, "turn", interrupted_once)
    model.script = [steps.say("Still here.")]
    type_lines(monkeypatch, "a long question", "are you there")
    code, out, _ = _run(capsys, config, state)
    assert code == 0 and "[cancelled" in out and "Still here." in out


def test_the_chat_shows_the_tool_result_not_just_ok(model: Any, steps: Any, config: Path, state: Path,
                                                    capsys: Any, monkeypatch: Any) -> None:
    model.script = [steps.call(("i2c_scan", {})), steps.say("Five devices.")]
    type_lines(monkeypatch, "scan the i2c bus")
    _, out, _ = _run(capsys, config, state)
    assert "[tool] i2c_scan -> " in out and "0x76" in out


def test_provider_model_and_compact_flags_need_no_config_file(model: Any, steps: Any, tmp_path: Path,
                                                              state: Path, capsys: Any) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    model.script = [steps.say("Hi.")]
    code, out, _ = _run(capsys, empty, state, "-m", "hello", "--json", "--provider", f"custom:{model.url}",
                        "--model", "qwen-small", "--compact")
    assert code == 0 and json.loads(out)["response"] == "Hi."
    assert model.requests[0]["model"] == "qwen-small"
    assert len(model.requests[0]["messages"][1]["content"]) < 6000


def test_a_bad_provider_flag_is_a_clear_error(steps: Any, tmp_path: Path, state: Path, capsys: Any) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    code, _, err = _run(capsys, empty, state, "-m", "hello", "--provider", "olama")
    assert code != 0 and "unknown provider 'olama'" in err and "custom:" in err


def test_small_talk_gets_no_tools_and_a_write_request_gets_the_write_tool(model: Any, steps: Any, tmp_path: Path,
                                                                          state: Path, capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.say("Bonjour !"), steps.call(("gpio_write", {"pin": "red_led", "value": 1})),
                    steps.say("Not approved."), steps.call(("sensor_read", {})), steps.say("21 C.")]
    _run(capsys, config, state, "-m", "say hello in French")
    _run(capsys, config, state, "-m", "turn on the red led")
    _run(capsys, config, state, "-m", "what is the temperature")
    offered = [[t["function"]["name"] for t in r.get("tools", [])] for r in model.requests]
    assert offered[0] == []
    assert "gpio_write" in offered[1] and offered[1] == offered[3]  # one tool block: the cached prefix serves
    # what the call may be is narrowed per question: the write for the write, the sensor for the reading
    schema = json.dumps(model.requests[1]["response_format"])
    assert '"const": "gpio_write"' in schema and "sensor_read" not in schema
    schema = json.dumps(model.requests[3]["response_format"])
    assert '"const": "sensor_read"' in schema and "gpio_write" not in schema
