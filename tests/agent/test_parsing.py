"""Reply parsing: the tool-call text forms small local models write, reasoning, streamed display."""

from __future__ import annotations

import pytest

from edge_agent.agent.parsing import StreamFilter, parse_arguments, split_reasoning, text_tool_calls


@pytest.mark.parametrize("text,name,args", [
    ('{"name": "gpio_read", "arguments": {"pin": "PA5"}}', "gpio_read", {"pin": "PA5"}),
    ('{"name": "gpio_read", "parameters": {"pin": "PA5"}}', "gpio_read", {"pin": "PA5"}),
    ('{"name": "gpio_read", "arguments": "{\\"pin\\": \\"PA5\\"}"}', "gpio_read", {"pin": "PA5"}),
    ('<tool_call>{"name": "i2c_scan", "arguments": {}}</tool_call>', "i2c_scan", {}),
    ('<tool_call>{"name": "i2c_scan"}</tool_call>', "i2c_scan", {}),
    ('<tool_call>\n\n   {"name": "i2c_scan", "arguments": {}}  \n\t</tool_call>', "i2c_scan", {}),
    ('```json\n{"name": "i2c_scan", "arguments": {}}\n```', "i2c_scan", {}),
    ('<|python_tag|>{"name": "i2c_scan", "parameters": {}}', "i2c_scan", {}),
    ('[TOOL_CALLS] [{"name": "i2c_scan", "arguments": {}}]', "i2c_scan", {}),
    ('{"type": "function", "function": {"name": "i2c_scan", "arguments": {}}}', "i2c_scan", {}),
    ('<tools>\n{"type": "function", "function": {"name": "i2c_scan", "arguments": {}}}\n</tools>', "i2c_scan", {}),
    ('{{"name": "gpio_write", "arguments": {"pin": "D4", "value": 1}}}', "gpio_write", {"pin": "D4", "value": 1}),
])
def test_text_call_forms(text: str, name: str, args: dict) -> None:
    calls = text_tool_calls(split_reasoning(text)[0])
    assert [(c.name, c.arguments, c.error) for c in calls] == [(name, args, "")]


def test_several_tagged_calls() -> None:
    text = ('<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>\n'
            '<tool_call>{"name": "b", "arguments": {}}</tool_call>')
    assert [c.name for c in text_tool_calls(text)] == ["a", "b"]


def test_reasoning_is_never_parsed_as_a_call() -> None:
    visible, reasoning = split_reasoning('<think>maybe {"name": "gpio_write", "arguments": {}}</think>No.')
    assert visible == "No." and "gpio_write" in reasoning and text_tool_calls(visible) == []


def test_lone_closing_think_hides_what_came_before() -> None:
    assert split_reasoning("planning the answer</think>\nPA5.") == ("PA5.", "planning the answer")


@pytest.mark.parametrize("text", [
    "PA5 is the LED.", '{"temperature_c": 21.5}', "Use `{}` braces", "```python\nprint(1)\n```",
    '{"name": "BME280", "address": "0x76"}', '```json\n{"name": "LD2", "pin": "PA5"}\n```',
    '{"name": "BME280", "addr',
])
def test_answers_are_not_calls(text: str) -> None:
    assert text_tool_calls(text) == []


@pytest.mark.parametrize("text", [
    '{"name": "gpio_read", "arguments": {"pin": ',
    '<tool_call>{"name": gpio_read}</tool_call>',
    '```json\n{"name": "gpio_read", "arguments": {"pin": "PA5"}\n```',
    '{"name": "gpio_read", "arguments": [1, 2]}',
])
def test_malformed_calls_carry_an_error(text: str) -> None:
    calls = text_tool_calls(text)
    assert len(calls) == 1 and calls[0].error


def test_stream_filter_hides_think_and_releases_the_answer() -> None:
    f = StreamFilter()
    shown = "".join(f.feed(d) for d in ["<thi", "nk>secret</th", "ink>PA", "5 is <", "b>the</b> LED"])
    assert "secret" not in shown and shown.startswith("PA5 is")
    assert shown + f.finish("PA5 is <b>the</b> LED") == "PA5 is <b>the</b> LED"


def test_stream_filter_holds_back_a_call() -> None:
    f = StreamFilter()
    assert "".join(f.feed(d) for d in ['{"na', 'me": "x", "arguments": {}}']) == ""
    assert f.finish(None) == ""


def test_calls_written_one_after_another_and_bare_hex_numbers_are_read_as_a_small_model_writes_them() -> None:
    lines = ('{"name": "gpio_read", "arguments": {"pin": "D13"}}\n'
             '{"name": "gpio_write", "arguments": {"pin": "D13", "value": 1}}')
    assert [(c.name, c.arguments, c.error) for c in text_tool_calls(lines)] == [
        ("gpio_read", {"pin": "D13"}, ""), ("gpio_write", {"pin": "D13", "value": 1}, "")]
    fenced = '```json\n{\n  "name": "i2c_read",\n  "arguments": {"addr": 0x76, "register": 0xD0}\n}\n```'
    (call,) = text_tool_calls(fenced)
    assert (call.name, call.arguments, call.error) == ("i2c_read", {"addr": "0x76", "register": "0xD0"}, "")
    assert text_tool_calls('{"ok": true}\n{"ok": false}') == []  # JSON that is not a call stays an answer


@pytest.mark.parametrize("text", [
    '{"name": "gpio_write", "arguments": {"pin": "D7", "value": 1}}\nI have set D7 high. It now reads 1.',
    '```json\n{"name": "gpio_write", "arguments": {"pin": "D7", "value": 1}}\n```\nD7 is now high.',
    '{"name": "gpio_write", "arguments": {"pin": 0x1E, "value": 1}} Done: the pin is high.',
])
def test_a_call_followed_by_prose_is_the_call_and_the_prose_is_dropped_with_a_note(text: str) -> None:
    (call,) = text_tool_calls(text)
    assert call.name == "gpio_write" and call.arguments["value"] == 1 and not call.error
    assert "dropped" in call.note


@pytest.mark.parametrize("text", [
    '{"temperature_c": 21.5} is what the sensor said.',
    '```json\n{"name": "LD2", "pin": "PA5"}\n```\nThat is the LED.',
    'I will call {"name": "gpio_write", "arguments": {"pin": "D7", "value": 1}} now.',
])
def test_json_that_is_not_a_call_at_the_start_stays_an_answer(text: str) -> None:
    assert text_tool_calls(text) == []


def test_arguments_with_stray_text_after_the_object_keep_the_object_and_say_so() -> None:
    assert parse_arguments('{"pin": "D7", "value": 1}}\nI set it.') == (
        {"pin": "D7", "value": 1}, "", "ignored '}\\nI set it.' written after the arguments")
    args, error, note = parse_arguments('{"pin": "D7", "value": ')
    assert error.startswith("the arguments are not valid JSON") and not note


def test_prose_after_a_tagged_call_is_dropped_with_a_note() -> None:
    (call,) = text_tool_calls('<tools>\n{"type": "function", "function": {"name": "sensor_read", "arguments": '
                              '{"addr": 118}}}\n</tools>\nThe temperature is 23.00 C.')
    assert call.name == "sensor_read" and call.arguments == {"addr": 118} and "dropped" in call.note


def test_doubled_braces_with_extra_closing_ones_are_the_call() -> None:
    (call,) = text_tool_calls('{{"name": "gpio_read", "arguments": {"pin": "PA5"}}}}')
    assert (call.name, call.arguments, call.error) == ("gpio_read", {"pin": "PA5"}, "")
