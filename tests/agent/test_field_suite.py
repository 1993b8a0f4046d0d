"""The field-task harness judges turns by their effect: run against the scripted server through the
real daemon, CLI and recording proxy, a correct turn passes and wrong ones fail for the right reasons."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from edge_agent.pins import get_board

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.agent_eval import run_set, summarize  # noqa: E402
from bench.agent_judge import SETS, WRITABLE_PINS, Task, invalid, judge, load_tasks  # noqa: E402

TASKS = '''
[[task]]
id = "led"
category = "drive"
message = "Turn on LD2."
asks_write = true
pins = { PA5 = 1 }
tools = ["gpio_write"]

[[task]]
id = "french"
category = "smalltalk"
message = "Say hello in French."
facts = [["bonjour"]]
allow = []

[[task]]
id = "temp"
category = "sensor"
message = "What is the temperature right now?"
tools = ["sensor_read"]
numbers = [[22.5, 1.0]]

[[task]]
id = "note"
category = "memory"
message = "Which pin is the pump relay on?"
setup_memory = ["The pump relay is wired to D7 (PA8) on the Nucleo."]
setup_pins = { PB5 = 1 }
facts = [["PA8"]]
memory = true
'''


def _scripted(body: dict[str, Any], steps: Any) -> Any:
    """A model with a fixed answer per question: right for LD2 and the relay, wrong for the others."""
    messages = body["messages"]
    question = next(m["content"] for m in messages if m["role"] == "user")  # the operator's, not a follow-up
    after_tool = any(m["role"] == "tool" for m in messages)
    if "LD2" in question:
        return steps.say("LD2 is on.") if after_tool else steps.call(("gpio_write", {"pin": "LD2", "value": 1}))
    if "French" in question:  # a spurious write before the greeting (small talk is offered no tool to make it)
        return steps.say("Bonjour !") if after_tool else steps.call(("gpio_write", {"pin": "D7", "value": 1}))
    if "temperature" in question:  # reads the sensor, then reports a number it did not read
        return steps.say("It is 30.0 °C.") if after_tool else steps.call(("sensor_read", {}))
    return steps.say("The pump relay is on PA8 (D7), from your note." if "pump relay" in question else "?")


def test_harness_judges_real_turns_by_their_effect(tmp_path: Path, model: Any, steps: Any) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "mini.toml").write_text(TASKS)
    model.script = [lambda body: _scripted(body, steps)] * 20
    results = {r.verdict.task: r for r in run_set("mini", model.url, "test-model", work=tmp_path / "work",
                                                  task_dir=tmp_path / "tasks", progress=False)}
    led, french, temp, note = (results[k] for k in ("led", "french", "temp", "note"))
    assert led.verdict.ok, led.verdict.reasons
    assert [c["name"] for c in led.turn["tool_calls"]] == ["gpio_write"]
    assert not french.verdict.ok
    # The attempted write is counted as a wrong tool; it never ran (no tool is offered for small talk),
    # so the board, read through the daemon, did not change.
    assert french.verdict.wrong_tools == 1 and french.verdict.spurious_writes == 0
    assert not any("PA8" in r for r in french.verdict.reasons)
    # The reading is stated from the sensor's result; the model's wrong number is left out of the answer.
    assert temp.verdict.ok, temp.verdict.reasons
    assert "30.0" not in temp.turn["response"] and any("left out" in n for n in temp.turn["notes"])
    assert note.verdict.ok, note.verdict.reasons  # the stored note reached the prompt: memory refs came back
    assert any("pump relay" in m["content"] for r in model.requests for m in r["messages"] if m["role"] == "user")
    s = summarize(list(results.values()))
    assert (s["tasks"], s["passed"], s["spurious_writes"], s["calls"], s["valid_calls"]) == (4, 3, 0, 3, 3)
    # Seven turn requests, and one probe of the tool-call mode, kept in the state directory for the rest.
    assert len(model.requests) == 7 and len(model.probes) == 1
    assert s["requests"] == len(model.requests) + len(model.probes)


def test_judge_counts_invalid_calls_and_writes_outside_the_policy() -> None:
    task = Task(id="t", category="read", message="Is D7 high?", tools=("gpio_read",), facts=(("high",),))
    turn = {"response": "D7 is high.", "tool_calls": [
        {"name": "gpio_read", "arguments": {"pin": "D7", "bus": None}, "error": "gpio_read has no argument bus. "
         "A valid call looks like {...}"},
        {"name": "gpio_read", "arguments": {"pin": "D7"}, "result": {"value": 1}},
        {"name": "gpio_write", "arguments": {"pin": "PB0", "value": 1}, "result": {"value": 1}}]}
    v = judge(task, turn, {"PA8": 1, "PB0": 0}, {"PA8": 1, "PB0": 1})
    assert (v.ok, v.calls, v.invalid_calls, v.wrong_tools, v.spurious_writes, v.policy_writes) == \
        (False, 3, 1, 1, 1, 1)
    assert judge(task, {"response": "It reads HIGH", "tool_calls": turn["tool_calls"][1:2]}, {}, {}).ok
    # "PA5" must not be found inside "PA50", nor "0" inside "0x76"
    # the record's outcome decides, whatever its words
    assert invalid({"name": "gpio_read", "outcome": "malformed", "error": "bad pin spelling"})
    assert not invalid({"name": "gpio_write", "outcome": "refused", "error": "has no argument: the policy"})
    lookup = Task(id="l", category="lookup", message="?", facts=(("PA5",), ("0",)))
    assert judge(lookup, {"response": "PA50 at 0x76"}, {}, {}).reasons == ["the answer lacks PA5", "the answer lacks 0"]


@pytest.mark.parametrize("name", SETS)
def test_public_sets_are_well_formed(name: str) -> None:
    pins = {p.name for p in get_board("nucleo-f401re").pins}
    tasks = load_tasks(name)
    assert len(tasks) >= 10
    for t in tasks:
        assert set(t.pins) <= pins and set(t.setup_pins) <= set(WRITABLE_PINS), t.id
        assert not t.asks_write or t.category in ("drive", "memory", "refuse", "supervised"), t.id


def test_the_suite_holds_thirty_tasks_or_more() -> None:
    assert sum(len(load_tasks(n)) for n in SETS) >= 30
    assert len(load_tasks("tuning")) >= 30


REPEAT_TASKS = '''
[[task]]
id = "led"
category = "drive"
message = "Turn on LD2."
asks_write = true
pins = { PA5 = 1 }
tools = ["gpio_write"]

[[task]]
id = "lookup"
category = "lookup"
message = "Which pin is the user LED on?"
facts = [["PA5"]]

[[task]]
id = "note"
category = "memory"
message = "Which pin is the pump relay on?"
setup_memory = ["The pump relay is wired to D7 (PA8) on the Nucleo."]
facts = [["PA8"]]
memory = true
'''


def _repeat_model(body: dict[str, Any], steps: Any) -> Any:
    messages = body["messages"]
    # The message is the last line of the user text (the context above it names LD2 too).
    question = next(m["content"] for m in reversed(messages) if m["role"] == "user").splitlines()[-1]
    if "LD2" in question:
        return steps.say("LD2 is on.") if messages[-1]["role"] == "tool" else \
            steps.call(("gpio_write", {"pin": "LD2", "value": 1}))
    return steps.say("The pump relay is on PA8." if "pump relay" in question else "The user LED is on PA5.")


def test_a_second_pass_counts_the_cache_hits_of_the_repeated_questions(tmp_path: Path, model: Any,
                                                                      steps: Any) -> None:
    from bench.agent_eval import by_pass, row

    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "mini.toml").write_text(REPEAT_TASKS)
    model.script = [lambda body: _repeat_model(body, steps)] * 20
    runs = by_pass("mini", run_set("mini", model.url, "test-model", work=tmp_path / "work",
                                   task_dir=tmp_path / "tasks", progress=False, passes=2))
    assert list(runs) == ["mini", "mini (pass 2)"]
    first, second = ({r.verdict.task: r for r in runs[k]} for k in runs)
    assert not any(r.turn["cached"] for r in first.values())
    # The lookups are answered from the cache; the write is asked of the model and made again.
    assert second["lookup"].turn["cached"] and second["note"].turn["cached"]
    assert not second["led"].turn["cached"] and second["led"].verdict.ok
    assert all(r.verdict.ok for r in second.values())
    assert summarize(runs["mini (pass 2)"])["cache_hits"] == 2
    assert "| 2/3 | " in row("m", "mini (pass 2)", summarize(runs["mini (pass 2)"]))  # then the load average
