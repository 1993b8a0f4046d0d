"""A question word also finds its other forms in the notes: "prescaler" the "prescale" section, "jtag clock" the
TCK row, "invert" the "inverse display" command; only forms the index holds are searched."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag
from edge_agent.rag import forms as rag_forms
from edge_agent.rag.forms import other_forms
from edge_agent.rag.text import query_terms

CHIP = """# ACME Q9 - PWM chip notes

A twelve-channel PWM chip on I2C.

## Frequency

The output frequency is set by the prescale register: prescale = clock / (4096 x f) - 1. Write
the prescale value only while the oscillator sleeps; a change while it runs is ignored.

## Changing settings

Settings change through the MODE register, the prescaler's through the frequency notes. The
outputs follow the MODE register at the next cycle.

## Debug header

| Signal | Pin |
| --- | --- |
| JTAG TCK | P7 |
| JTAG TMS | P8 |

## Clocks

The debug header's clock (for a JTAG probe) runs at 1 MHz; the clock pins of the timers are P2 and
P3.

## Command framing

Every command goes after a 0x00 control byte; a command's arguments follow it in the same transfer.

## Accuracy

Typical accuracy is 0.5 % of the output frequency, after the oscillator settles.

## Display commands

| Command | Code |
| --- | --- |
| Normal / inverse output | 0xA6 / 0xA7 |
| Output on | 0xAF |
"""


def forms(question: str) -> list[str]:
    return other_forms(query_terms(question))


def test_agent_noun_and_ion_forms() -> None:
    assert "prescale" in forms("cannot change prescaler")
    assert "prescaler" in forms("prescale for 50 hz")
    assert "detect" in forms("motion detection") and "detection" in forms("motion detect")
    assert "control" in forms("i2c controller")
    # short words losing an ending are other words: "user" is not "us", "lower" not "low", "timer" not "tim"
    assert not {"us", "low", "tim"} & set(forms("user lower timer"))


def test_adverb_and_quality_forms() -> None:
    assert "typical" in forms("typically") and "accurate" in forms("accuracy") and "accuracy" in forms("accurate")
    assert {"measure", "measur"} <= set(forms("pressure measurement"))  # "measured" is indexed as "measur"
    assert "sensitive" in forms("sensitivity") and "stable" in forms("stability")
    assert "automatic" in forms("automatically")


def test_abbreviations_and_irregular_forms_are_data() -> None:
    assert "ai" in forms("auto increment bit") and "ai" not in forms("increment the auto counter")
    assert "tck" in forms("pi 4 jtag clock gpio")
    assert "pol" in forms("alert pin polarity")  # a register field's mnemonic: COMP_POL
    assert "inverse" in forms("invert colours command")
    assert forms("tck pin") == []  # the abbreviation alone is searched as written


@pytest.mark.parametrize(("question", "wanted"), [
    ("q9 cannot change prescaler", "only while the oscillator sleeps"),
    ("q9 jtag clock pin", "JTAG TCK | P7"),
    ("q9 invert command", "0xA6 / 0xA7"),
    ("how accurate is the q9 output frequency typically", "Typical accuracy is 0.5 %"),
])
def test_the_other_form_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question: str, wanted: str) -> None:
    (tmp_path / "acme-q9.md").write_text(CHIP)
    rag = HardwareRag.load(tmp_path)
    assert wanted in rag.search(question)[0].text
    monkeypatch.setattr(rag_forms, "other_forms", lambda terms: [])
    assert wanted not in rag.search(question)[0].text  # on the question's own spellings another section wins


def test_a_word_written_joined_finds_its_hyphenated_halves() -> None:
    held = {"pre", "charge", "period", "precharge2"}.__contains__
    assert rag_forms.joined_parts(["precharge", "period"], held) == ["pre", "charge"]
    assert rag_forms.joined_parts(["period"], held) == []  # a word the index holds is searched as it is
    assert rag_forms.joined_parts(["prechargex"], held) == []  # no split into two held words: nothing added
