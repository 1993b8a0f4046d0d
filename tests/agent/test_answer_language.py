"""An answer in English to a message that asks for another language is asked for once more in that
language, right after it; if it comes back in English again, the answer says so and is neither cached
nor remembered. Replayed through the scripted server with the replies small models gave."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.answerlang import NOT_IN, REWRITE, in_language
from edge_agent.agent.assemble import open_agent
from edge_agent.cli import main
from edge_agent.config import load_settings

from .conftest import type_lines, write_config


@pytest.mark.parametrize(("text", "lang", "reads_as"), [
    ("Good morning!", "Spanish", False),
    ("Sure! Here's how you say good morning in Spanish: Buenos días.", "Spanish", False),
    ("¡Buenos días!", "Spanish", True),
    ("Bonjour ! Comment allez-vous ?", "French", True),
    ("Hallo! Wie geht es dir?", "German", True),
    ("Goedemorgen! Hoe is het?", "Dutch", True),  # "is" and "het" are Dutch words too
    ("Buona notte a tutti!", "Italian", True),
    ("おはようございます", "Japanese", True),
    ("Good morning", "Japanese", False),
    ("Hello! In French, hello is 'Bonjour'.", "French", None),  # half and half: cannot tell, not asked again
    ("The LED is on.", "French", None),
    ("Good morning!", "English", None),
])
def test_what_reads_as_english(text: str, lang: str, reads_as: bool | None) -> None:
    assert in_language(text, lang) is reads_as


@pytest.fixture
def config(tmp_path: Path, model: Any) -> Path:
    return write_config(tmp_path / "edge-agent.toml", model, compact=True, tool_choice=None, cache=True)


def _turn(config: Path, state: Path, message: str) -> Any:
    with open_agent(load_settings(config), state) as agent:
        return agent.turn(message)


def test_an_english_answer_is_asked_for_once_in_the_language(model: Any, steps: Any, config: Path,
                                                               state: Path) -> None:
    model.script = [steps.say("Good morning!"), steps.say("¡Buenos días!")]
    result = _turn(config, state, "Say good morning in Spanish.")
    assert result.response == "¡Buenos días!" and result.succeeded
    assert len(model.requests) == 2
    again = model.requests[1]["messages"]
    assert again[:-2] == model.requests[0]["messages"]  # the same conversation continued: the cached prefix serves
    assert again[-2] == {"role": "assistant", "content": "Good morning!"}
    assert again[-1] == {"role": "user", "content": REWRITE.format(lang="Spanish")}
    assert any("not in Spanish" in n for n in result.notes)
    # answered in the language, it is cached like any answer
    assert _turn(config, state, "Say good morning in Spanish.").cached


def test_an_answer_in_the_language_is_not_asked_again(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.say("Bonjour !")]
    result = _turn(config, state, "Say hello in French.")
    assert result.response == "Bonjour !" and len(model.requests) == 1 and not result.notes


@pytest.mark.parametrize("second", ["Good morning to you!", ""])
def test_english_twice_is_stated_and_not_cached(model: Any, steps: Any, config: Path,
                                                                    state: Path, second: str) -> None:
    model.script = [steps.say("Good morning!"), steps.say(second)]
    result = _turn(config, state, "Say good morning in Spanish.")
    assert result.response == "Good morning!\n" + NOT_IN.format(lang="Spanish")
    assert not result.succeeded and len(model.requests) == 2
    model.script = [steps.say("¡Buenos días!")]
    again = _turn(config, state, "Say good morning in Spanish.")  # not a cache hit: the model is asked
    assert not again.cached and again.response == "¡Buenos días!" and len(model.requests) == 3


def test_a_turn_that_ran_tools_is_not_asked_again(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = write_config(tmp_path / "c.toml", model)  # every tool offered: the model reads a pin
    model.script = [steps.call(("gpio_read", {"pin": "B1"})), steps.say("The button reads high.")]
    result = _turn(config, state, "Read the user button and answer in French.")
    assert result.response.startswith("Read: pin B1") and len(model.requests) == 2


def test_the_chat_shows_only_the_answer_in_the_language(model: Any, steps: Any, config: Path, state: Path,
                                                        capsys: Any, monkeypatch: Any) -> None:
    model.script = [steps.say("Good morning!"), steps.say("¡Buenos días!")]
    type_lines(monkeypatch, "say good morning in Spanish")
    assert main(["--state", str(state), "--config", str(config), "agent"]) == 0
    out = capsys.readouterr().out
    assert "¡Buenos días!" in out and "Good morning" not in out
