"""A misspelt question word is read as the word the datasheets write; a word they write is never changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.rag import HardwareRag
from edge_agent.rag.spelling import corrected

_HELD = {"address": 9, "receive": 4, "receiver": 1, "temperature": 7, "reading": 5, "stack": 3, "default": 6,
         "write": 4}


def _held(word: str) -> int:
    return _HELD.get(word, 0)


@pytest.mark.parametrize(("typed", "read"), [
    ("bme280 i2c adress", "bme280 i2c address"),  # a letter left out
    ("uart recieve pin", "uart receive pin"),  # two neighbours swapped
    ("temprature offset", "temperature offset"),
    ("Defualt ADDRESS", "default ADDRESS"),  # the rest of the question keeps its case
    ("temperrature", "temperature"),  # a letter added
    ("raeding", "reading"),
    ("tenperature", "temperature"),  # a neighbouring key struck instead (n for m)
])
def test_a_slip_is_read_as_the_word_the_library_holds(typed: str, read: str) -> None:
    assert corrected(typed, lambda w: _held(w) > 0, _held) == read


@pytest.mark.parametrize("typed", [
    "stuck at 0x80",  # a short word one changed letter from "stack" is another word, not a slip
    "receiver pin",  # a known word stays, even beside a more common neighbour
    "gy-521 module",  # a word joined to a part number is not guessed at
    "config.txt line",
    "tempx",  # nothing one slip away
    "xdefault",  # a slip in the first letter is not guessed at
    "tezperature",  # z is nowhere near m: not a slip of the finger
    "writing",  # a word whose base the library holds is known ("write")
    "readings",
])
def test_a_word_that_is_no_slip_is_left_alone(typed: str) -> None:
    assert corrected(typed, lambda w: _held(w) > 0, _held) == typed


def test_a_slip_is_read_as_a_board_name_only_from_seven_letters_or_as_a_swap() -> None:
    names = {"blinkt", "raspberry", "nucleo"}
    held = {**_HELD, "blinkt": 3, "raspberry": 5, "nucleo": 4}

    def read(typed: str) -> str:
        return corrected(typed, lambda w: w in names or held.get(w, 0) > 0, lambda w: held.get(w, 0), names)

    assert read("raspbery pi") == "raspberry pi"
    assert read("which led can i blink") == "which led can i blink"  # "blinkt" would set the search's scope
    assert read("blinky example") == "blinky example"
    assert read("nulceo pins") == "nucleo pins"  # two neighbouring letters swapped: a slip, whatever the length


def _library(tmp_path: Path) -> HardwareRag:
    (tmp_path / "sensor.md").write_text("# ACME TH1 sensor\n\n## I2C address\n\nThe I2C address is 0x44 (ADDR low).\n\n"
                                        "## Heater\n\nThe heater raises the reading by a few degrees.\n")
    (tmp_path / "relay.md").write_text("# Relay board\n\n## Coil\n\nEach coil draws 70 mA; the board address "
                                       "jumpers are on the back.\n")
    return HardwareRag.load(tmp_path)


def test_a_misspelt_question_finds_what_the_spelt_one_finds(tmp_path: Path) -> None:
    rag = _library(tmp_path)
    right = rag.search("th1 heater raises reading")
    typed = rag.search("th1 haeter riases raeding")
    assert [(c.source, c.heading) for c in typed] == [(c.source, c.heading) for c in right]
    assert rag.spelt("th1 haeter riases raeding") == "th1 heater raises reading"
    assert rag.spelt("th1 heater raises reading") == "th1 heater raises reading"


def test_the_search_tool_says_how_it_read_the_question(tmp_path: Path, state: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    _library(tmp_path)
    assert main(["--state", str(state), "rag", "query", "heatr on the th1", "--datasheets", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "searched for: heater on the th1" in out.err and "Heater" in out.out
    assert main(["--state", str(state), "rag", "query", "heater on the th1", "--datasheets", str(tmp_path)]) == 0
    assert "searched for" not in capsys.readouterr().err  # nothing to say when the question is read as typed


def test_most_keyboard_slips_in_the_tuning_questions_are_read_back(shared_corpus: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._rag_questions import QUESTIONS
    from bench._slips import slipped

    rag = HardwareRag.load(shared_corpus)
    pairs = slipped(q for q in QUESTIONS if q.corpus == "shared")
    assert len(pairs) > 80
    for clean, slip in pairs:  # one slip each, never in a word's first letter
        assert clean.text != slip.text and abs(len(clean.text) - len(slip.text)) <= 1
    back = sum(rag.spelt(slip.text).lower() == clean.text.lower() for clean, slip in pairs)
    assert back >= 0.8 * len(pairs)  # 145 of 151, measured when the rule landed
