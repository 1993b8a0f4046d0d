"""Each tool record says how its call ended: ok, refused, needs_approval, malformed, not_offered or failed.

The outcome is set where the call is decided, from the class of the error raised (a policy refusal, the
autonomy check, an invalid call, a failure), in this process or through the daemon; the answer's fact
lines and ``--json`` go by it, never by the words of the error, which are written for the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.agent.facts import answer, fact
from edge_agent.agent.records import Outcome, ToolRecord, outcome_of
from edge_agent.cli import main
from edge_agent.config import load_settings
from edge_agent.errors import (
    ApprovalNeededError,
    BusError,
    InvalidToolCallError,
    RefusedError,
    SecretRejectedError,
    ToolCallError,
    UnknownPinError,
    WriteRefusedError,
)
from edge_agent.hub.client import SocketServices

from .conftest import write_config
from .test_daemon_path import daemon  # noqa: F401 - the fixture

POLICY = '[hardware.safety.adapters.nucleo-f401re]\nwritable_gpio = ["PA5"]'


@pytest.fixture
def config(tmp_path: Path, model: Any) -> Path:
    return write_config(tmp_path / "edge-agent.toml", model, POLICY)


def _wrapped(exc: Exception) -> ToolCallError:
    """`exc` as a tool caller raises it: reworded for the model, the original kept as the cause."""
    try:
        raise ToolCallError(f"Error executing tool gpio_write: {exc}", tool="gpio_write") from exc
    except ToolCallError as wrapped:
        return wrapped


@pytest.mark.parametrize(("error", "outcome"), [
    (WriteRefusedError("refused to drive GPIO PB0", adapter="sim"), Outcome.REFUSED),
    (SecretRejectedError({"api_key": 1}, ["content"]), Outcome.REFUSED),
    (RefusedError("the operator declined"), Outcome.REFUSED),
    (ApprovalNeededError("needs the operator's approval"), Outcome.NEEDS_APPROVAL),
    (InvalidToolCallError("gpio_write has no argument speed", tool="gpio_write"), Outcome.MALFORMED),
    (UnknownPinError("nucleo-f401re", "PZ9", ["PA9"]), Outcome.FAILED),
    (BusError("the write was not allowed to finish: bus timeout"), Outcome.FAILED),
])
def test_the_outcome_comes_from_the_error_class_alone_or_under_a_tool_callers_wrapper(
        error: Exception, outcome: Outcome) -> None:
    assert outcome_of(error) is outcome
    assert outcome_of(_wrapped(error)) is outcome
    assert outcome_of(ToolCallError("refused, not permitted, read-only, needs approval")) is Outcome.FAILED


def test_a_refusal_in_words_without_the_usual_ones_is_still_stated_as_refused() -> None:
    rec = ToolRecord("gpio_write", {"pin": "D7", "value": 1}, outcome=Outcome.REFUSED,
                     error="the bench lamp stays as it is until the operator says so")
    assert fact(rec) == "Refused, not done: gpio_write D7 = 1: the bench lamp stays as it is until the operator says so"
    approval = ToolRecord("gpio_write", {"pin": "D7", "value": 1}, outcome=Outcome.NEEDS_APPROVAL, error="ask first")
    assert (fact(approval) or "").startswith("Refused, not done:")


def test_a_failure_whose_words_sound_like_a_refusal_is_stated_as_a_failure() -> None:
    write = ToolRecord("gpio_write", {"pin": "D7", "value": 1}, outcome=Outcome.FAILED,
                       error="not permitted: /dev/gpiochip0 is read-only for this user; approval of the group needed")
    assert (fact(write) or "").startswith("Failed, not done: gpio_write D7 = 1: not permitted")
    read = ToolRecord("i2c_read", {"addr": 0x50}, outcome=Outcome.FAILED, error="refused by the target (NACK)")
    assert (fact(read) or "").startswith("Failed: i2c_read at 80: refused by the target")
    # a claim that the failed write happened is still left out of the answer
    text, notes = answer([write], "I set D7 high.")
    assert text.startswith("Failed, not done") and "I set D7 high" not in text and notes


def test_a_malformed_call_whose_error_does_not_show_a_valid_call_gets_no_fact_line() -> None:
    rec = ToolRecord("gpio_write", {"pin": "D7", "speed": 3}, outcome=Outcome.MALFORMED, error="speed: what?")
    assert fact(rec) is None
    assert answer([rec], "I could not run it.") == ("I could not run it.", [])


def test_a_record_never_has_an_error_and_outcome_ok_or_the_reverse() -> None:
    with pytest.raises(ValueError):
        ToolRecord("gpio_read", {"pin": "D7"}, error="boom", outcome=Outcome.OK)
    with pytest.raises(ValueError):
        ToolRecord("gpio_read", {"pin": "D7"}, outcome=Outcome.FAILED)
    assert ToolRecord("gpio_read", {"pin": "D7"}, error="boom").outcome is Outcome.FAILED


def _json(capsys: Any, config: Path, state: Path, message: str, *extra: str) -> dict[str, Any]:
    code = main(["--state", str(state), "--config", str(config), "agent", "-m", message, "--json", *extra])
    out = capsys.readouterr().out
    assert code == 0, out
    data: dict[str, Any] = json.loads(out)
    return data


def test_json_gives_each_call_its_outcome(model: Any, steps: Any, config: Path, state: Path, capsys: Any) -> None:
    model.script = [steps.call(("gpio_write", {"pin": "PA5", "value": 1}),
                               ("gpio_write", {"pin": "PB0", "value": 1}),
                               ("gpio_read", {"pin": "PZ9"}),
                               ("gpio_read", {"pin": "PA5", "speed": "fast"})),
                    steps.say("Done.")]
    data = _json(capsys, config, state, "Set LD2 and PB0 high, read PZ9 and LD2.")
    assert [(c["name"], c["outcome"]) for c in data["tool_calls"]] == [
        ("gpio_write", "ok"), ("gpio_write", "refused"), ("gpio_read", "failed"), ("gpio_read", "malformed")]
    assert "error" not in data["tool_calls"][0] and all("error" in c for c in data["tool_calls"][1:])
    lines = data["response"].splitlines()
    assert lines[0].startswith("Done: pin PA5") and lines[1].startswith("Refused, not done: gpio_write PB0 = 1")
    assert lines[2].startswith("Failed: gpio_read PZ9") and not any("speed" in line for line in lines)


def test_a_one_shot_write_under_supervised_autonomy_needs_approval(model: Any, steps: Any, tmp_path: Path,
                                                                  state: Path, capsys: Any) -> None:
    config = write_config(tmp_path / "s.toml", model, POLICY, autonomy="supervised")
    model.script = [steps.call(("gpio_write", {"pin": "PA5", "value": 1})), steps.say("It is on.")]
    data = _json(capsys, config, state, "Turn LD2 on.")
    assert data["tool_calls"][0]["outcome"] == "needs_approval" and "--yes" in data["tool_calls"][0]["error"]
    assert data["response"].startswith("Refused, not done: gpio_write") and "It is on" not in data["response"]
    model.script = [steps.call(("gpio_write", {"pin": "PA5", "value": 1})), steps.say("It is on.")]
    assert _json(capsys, config, state, "Turn LD2 on.", "--yes")["tool_calls"][0]["outcome"] == "ok"


def test_through_the_daemon_a_refusal_is_still_a_refusal_and_a_failure_a_failure(
        model: Any, steps: Any, config: Path, state: Path, daemon: Any) -> None:  # noqa: F811 - the fixture
    model.script = [steps.call(("gpio_write", {"pin": "PB0", "value": 1}), ("gpio_read", {"pin": "PZ9"})),
                    steps.say("Done.")]
    with open_agent(load_settings(config), state) as agent:
        result = agent.turn("Set PB0 high and read PZ9.")
        assert isinstance(agent.caller, SocketServices)
    assert [r.outcome for r in result.tool_calls] == [Outcome.REFUSED, Outcome.FAILED]
    first, second = result.response.splitlines()[:2]
    assert first.startswith("Refused, not done: gpio_write PB0 = 1") and second.startswith("Failed: gpio_read PZ9")
