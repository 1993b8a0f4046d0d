"""The agent turn end to end: the real openai SDK against the scripted server, the real runtime on the
simulated board, real datasheet index, memory store and response cache."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.agent.loop import FINAL_NO_TOOLS
from edge_agent.agent.prompt import COMPACT_PROMPT_CHARS
from edge_agent.agent.tools import COMPACT_TOOLS, specs_chars
from edge_agent.bus.sim.world import GPIOWrite
from edge_agent.config import load_settings
from edge_agent.mcp.tools import TOOL_NAMES

from .conftest import kept_store, tool_body


@contextlib.contextmanager
def _agent(config: Path, state: Path) -> Iterator[Any]:
    with open_agent(load_settings(config), state) as agent:
        yield agent


def _sim(agent: Any) -> Any:
    return agent.caller.runtime.adapters["nucleo-f401re"].adapter


def _tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def test_blink_the_red_led_drives_the_simulated_pin(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})),
                    steps.call(("gpio_write", {"pin": "red_led", "value": 0})),
                    steps.say("Blinked the red LED (PA5) once.")]
    with _agent(config, state) as agent:
        result = agent.turn("blink the red led")
        writes = [t for t in _sim(agent).log if isinstance(t, GPIOWrite)]
    assert [(w.pin, w.value) for w in writes] == [("PA5", 1), ("PA5", 0)]
    assert result.response == ("Done: pin red_led (= PA5, LED LD2) set to 1 (high).\n"
                               "Done: pin red_led (= PA5, LED LD2) set to 0 (low).\nBlinked the red LED (PA5) once.")
    assert [(t.name, t.result["pin"], t.result["value"]) for t in result.tool_calls] == \
        [("gpio_write", "PA5", 1), ("gpio_write", "PA5", 0)]
    assert not result.cached and result.provider == f"custom:{model.url}" and result.rounds == 2
    assert result.usage["completion_tokens"] == 30
    first = model.requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == list(TOOL_NAMES)
    assert first["messages"][0]["role"] == "system" and first["model"] == "test-model"
    user = first["messages"][1]["content"]
    assert "red_led = pin PA5" in user  # the pin alias is in the hardware context
    assert re.search(r"\[\d{4}-\d{2}-\d{2}\] blink the red led$", user)  # the date, no time of day
    assert not re.search(r"\[\d{4}-\d{2}-\d{2}[ T]\d", user)
    # The system prompt comes first and is the same text on every request of every turn.
    assert {r["messages"][0]["content"] for r in model.requests} == {first["messages"][0]["content"]}
    # The results go back as tool messages carrying the call's id.
    second = model.requests[1]
    assistant = second["messages"][-2]
    assert assistant["tool_calls"][0]["id"] == "call_0" and _tool_messages(second)[0]["tool_call_id"] == "call_0"
    assert tool_body(_tool_messages(second)[0]["content"])["pin"] == "PA5"


def test_a_refused_write_goes_back_to_the_model_and_the_loop_continues(
        model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, "[hardware.safety]\nread_only = true")
    model.script = [steps.call(("gpio_write", {"pin": "PA5", "value": 1})), steps.say("The board is read-only.")]
    with _agent(config, state) as agent:
        result = agent.turn("turn the led on")
        assert not [t for t in _sim(agent).log if isinstance(t, GPIOWrite)]
    assert result.tool_calls[0].error and result.response.endswith("\nThe board is read-only.")
    assert result.response.startswith("Refused, not done: gpio_write PA5 = 1: refused to drive GPIO PA5 to 1")
    sent = tool_body(_tool_messages(model.requests[1])[0]["content"])
    assert "read_only" in sent["error"]  # the refusal names the key that would allow the write


@pytest.mark.parametrize("text", [
    '{"name": "gpio_write", "arguments": {"pin": "red_led", "value": 1}}',
    '<think>the user wants the led on</think>\n<tool_call>\n  {"name": "gpio_write", "arguments": '
    '{"pin": "red_led", "value": 1}}\n</tool_call>',
    '```json\n{"name": "gpio_write", "parameters": {"pin": "red_led", "value": 1}}\n```',
])
def test_calls_written_as_text_run(model: Any, steps: Any, config: Path, state: Path, text: str) -> None:
    model.script = [steps.say(text), steps.say("<think>done</think>The LED is on.")]
    with _agent(config, state) as agent:
        result = agent.turn("switch the red led on")
        assert _sim(agent).led("LD2") == 1
    assert result.response.endswith("set to 1 (high).\nThe LED is on.")
    assert [t.name for t in result.tool_calls] == ["gpio_write"]
    assert _tool_messages(model.requests[1])[0]["tool_call_id"]


@pytest.mark.parametrize("step_args,expect", [
    (("gpio_wrte", {"pin": "PA5", "value": 1}), "there is no tool 'gpio_wrte'"),
    (("gpio_write", {"pin": "PA5", "value": 7}), "gpio_write: invalid arguments: value"),
    (("gpio_write", {"pin": "PA5", "level": 1}), "gpio_write has no argument level"),
    (("gpio_write", '{"pin": "PA5", "value": '), "not valid JSON"),
])
def test_bad_calls_come_back_as_errors_showing_a_valid_call(model: Any, steps: Any, config: Path, state: Path,
                                                          step_args: tuple[str, Any], expect: str) -> None:
    model.script = [steps.call(step_args), steps.say("Sorry, I could not do that.")]
    with _agent(config, state) as agent:
        result = agent.turn("set the led")
    error = tool_body(_tool_messages(model.requests[1])[0]["content"])["error"]
    assert expect in error and "A valid call looks like" in error and '"name": ' in error
    assert result.tool_calls[0].error == error and result.response == "Sorry, I could not do that."


def test_malformed_text_call_is_an_error_not_the_answer(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.say('<tool_call>{"name": "gpio_read", "arguments": {"pin": </tool_call>'),
                    steps.say("The button reads 1.")]
    with _agent(config, state) as agent:
        result = agent.turn("read the button")
    # Nothing ran, so no tool call is recorded; the model is told what was wrong, and no call with an
    # empty or made-up tool name goes into the conversation (a small model copies such a name).
    assert result.tool_calls == [] and any("not a readable tool call" in n for n in result.notes)
    second = model.requests[1]["messages"]
    assert not any(m.get("tool_calls") for m in second)
    assert second[-1]["role"] == "user" and "Nothing ran" in second[-1]["content"]
    assert '"name": "<tool>"' in second[-1]["content"] and "<tool_call> body" in second[-1]["content"]


def test_reasoning_only_reply_is_retried_once_with_a_nudge(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.say("<think>Let me think about pins.</think>", reasoning="more thoughts"),
                    steps.say("PA5 drives the user LED.", reasoning="hidden")]
    with _agent(config, state) as agent:
        result = agent.turn("which pin is the led")
    assert result.response == "PA5 drives the user LED."
    # The answer is asked for once; the tools stay, so the request prefix (and the server's cache) holds.
    assert model.requests[1]["messages"][-1] == {"role": "user", "content": FINAL_NO_TOOLS}
    assert model.requests[1]["tools"] == model.requests[0]["tools"] and len(model.requests) == 2


def test_only_reasoning_twice_says_so(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.say("<think>a</think>"), steps.say("", reasoning="b")]
    with _agent(config, state) as agent:
        result = agent.turn("which pin is the led")
        stats = kept_store(agent).response_cache.stats()
        remembered = [e for e in kept_store(agent).search.recall("which pin is the led", 5)
                      if e.category == "conversation"]
    assert "no answer" in result.response and len(model.requests) == 2
    assert stats["entries"] == 0 and remembered == []  # a non-answer is neither cached nor remembered


def test_tool_round_limit_stops_with_a_clear_message(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model)
    config.write_text(config.read_text().replace("compact_context = false", "compact_context = false\n"
                                                                            "max_tool_iterations = 2"))
    # Each call differs (an identical one would be answered from the first and end the turn).
    model.script = [steps.call(("gpio_read", {"pin": f"PA{i}"})) for i in range(5)]
    with _agent(config, state) as agent:
        result = agent.turn("keep reading")
    assert result.limit_reached and result.rounds == 2 and len(result.tool_calls) == 2
    assert "max_tool_iterations = 2" in result.response and len(model.requests) == 3


def test_parallel_tools_run_every_call_of_a_reply(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model)
    config.write_text(config.read_text().replace("compact_context = false", "compact_context = false\n"
                                                                            "parallel_tools = true"))
    model.script = [steps.call(("gpio_read", {"pin": "PA5"}), ("pin_resolve", {"name": "LD2"})), steps.say("ok")]
    with _agent(config, state) as agent:
        result = agent.turn("read and resolve")
    assert [t.name for t in result.tool_calls] == ["gpio_read", "pin_resolve"]
    assert all(t.error is None for t in result.tool_calls)
    assert [m["tool_call_id"] for m in _tool_messages(model.requests[1])] == ["call_0", "call_1"]


def test_identical_question_twice_is_answered_from_the_cache(model: Any, steps: Any, config: Path,
                                                            state: Path) -> None:
    assert "response_cache_enabled" not in config.read_text()  # the default settings
    model.script = [steps.say("PA5 is the user LED on the Nucleo.", usage={"prompt_tokens": 900,
                                                                          "completion_tokens": 12,
                                                                          "total_tokens": 912})]
    with _agent(config, state) as agent:
        first = agent.turn("which pin is the user led")
    with _agent(config, state) as agent:  # a new process: the warm tier answers
        second = agent.turn("which pin is the user led")
        stats = kept_store(agent).response_cache.stats()
    assert len(model.requests) == 1
    assert second.cached and second.provider == "cache" and second.response == first.response
    assert stats["hits"] == 1 and stats["tokens_saved"] == 12


def test_the_stored_exchange_does_not_change_the_next_identical_prompt(model: Any, steps: Any, tmp_path: Path,
                                                                      state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, cache=False)
    model.script = [steps.say("PA5."), steps.say("PA5.")]
    with _agent(config, state) as agent:
        agent.turn("which pin is the user led")
        agent.turn("which pin is the user led")
        found = kept_store(agent).search.recall("which pin is the user led", 5)
    assert model.requests[0]["messages"] == model.requests[1]["messages"]
    assert any(e.category == "conversation" for e in found)  # the exchange itself is remembered


def test_a_turn_with_tools_is_never_cached(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.call(("gpio_read", {"pin": "PA5"})), steps.say("It reads 0."),
                    steps.call(("gpio_read", {"pin": "PA5"})), steps.say("It reads 0.")]
    with _agent(config, state) as agent:
        agent.turn("read the led pin")
        again = agent.turn("read the led pin")
        stats = kept_store(agent).response_cache.stats()
    assert not again.cached and len(model.requests) == 4 and stats["entries"] == 0


def test_reflect_keeps_the_exchange_with_engage_source_refs(model: Any, steps: Any, config: Path,
                                                          state: Path) -> None:
    model.script = [steps.say("Use 3.3 V on the BME280.")]
    with _agent(config, state) as agent:
        note = kept_store(agent).store("bme280 supply", "The bench BME280 breakout must run from 3.3 V, never 5 V.",
                                  category="fact")
        result = agent.turn("what supply does the bme280 breakout need")
        exchange = [e for e in kept_store(agent).search.recall("bme280 supply breakout", 10)
                    if e.category == "conversation"]
        capture = kept_store(agent).captures.capture_for(exchange[0].id)
    assert note.source_ref in result.source_krefs
    assert "3.3 V, never 5 V" in model.requests[0]["messages"][1]["content"]  # the memory context
    assert capture is not None and note.source_ref in capture.source_refs
    assert "Use 3.3 V on the BME280." in exchange[0].content


def test_compact_mode_caps_prompt_and_tool_schemas(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, compact=True)
    model.script = [steps.say("ok")]
    message = "what does the datasheet say about the led pin, i2c bus, spi clock and uart " * 3
    with _agent(config, state) as agent:
        store = kept_store(agent)
        for i in range(40):  # plenty of relevant memory
            store.store(f"note {i}", f"led pin i2c bus spi clock uart detail number {i} " * 8, category="fact")
        agent.turn(message)
    sent = model.requests[0]
    assert sum(len(m["content"]) for m in sent["messages"]) <= COMPACT_PROMPT_CHARS
    assert len(json.dumps(sent["tools"], separators=(",", ":"))) <= 6000
    assert [t["function"]["name"] for t in sent["tools"]] == [n for n in TOOL_NAMES if n in COMPACT_TOOLS]
    assert specs_chars(sent["tools"]) <= 6000
    assert sent["messages"][1]["content"].endswith(message)  # the message itself is never cut


def test_session_history_is_bounded(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model)
    config.write_text(config.read_text().replace("compact_context = false", "compact_context = false\n"
                                                                            "max_history_messages = 2"))
    model.script = [steps.say("one"), steps.say("two"), steps.say("three")]
    with _agent(config, state) as agent:
        for q in ("first question", "second question", "third question"):
            agent.turn(q, session="bench")
    third = model.requests[2]["messages"]
    assert [m["role"] for m in third] == ["system", "user", "assistant", "user"]
    assert third[1]["content"] == "second question" and third[2]["content"] == "two"
    assert model.requests[0]["messages"][1:-1] == []


def test_identical_question_with_a_word_new_to_memory_is_a_hit_the_second_time(model: Any, steps: Any,
                                                                               config: Path, state: Path) -> None:
    # "temperature" is in no entry until the first exchange is remembered; that exchange must not change the
    # memory context (and so the cache key) of the identical next question.
    model.script = [steps.say("-40 to 85 C.")]
    with _agent(config, state) as agent:
        kept_store(agent).store("bme280 note", "the bme280 pressure range is 300 to 1100 hPa", category="fact")
        first = agent.turn("what is the bme280 temperature range")
        second = agent.turn("what is the bme280 temperature range")
    assert "300 to 1100 hPa" in model.requests[0]["messages"][-1]["content"]
    assert len(model.requests) == 1 and not first.cached and second.cached
