"""Within a file, the section with one line holding most of the question's words answers first."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag
from edge_agent.rag import query as rag_query
from edge_agent.rag.lines import answer_kind, asked_weights, line_share
from edge_agent.rag.query import Candidate, rerank

_REGISTERS = "".join(f"| 0x{0x20 + n:02X} | DATA_{n} | sample word {n} of the output buffer |\n" for n in range(40))

IMU = f"""# ACME IMU9 - motion sensor

Nine-axis motion sensor with an I2C interface.

## I2C address

| SA0 pin | Address |
| --- | --- |
| SA0 low | 0x68 |
| SA0 high | 0x69 |

Put one module at 0x69 when two share a bus.
The gyro answers at the same address.

## Register map

| Register | Name | Purpose |
| --- | --- | --- |
| 0x10 | CTRL_A | sample rate divider |
{_REGISTERS}| 0x6C | PWR_CTL_2 | per-axis standby of the gyro |
| 0x75 | WHO_AM_I | device id |
"""

OTHER = """# Relay board

## Wiring

One relay per channel; put a flyback diode across each coil. The board has no gyro.
"""


def _library(tmp_path: Path) -> HardwareRag:
    (tmp_path / "imu9.md").write_text(IMU)
    (tmp_path / "relay.md").write_text(OTHER)
    return HardwareRag.load(tmp_path)


def test_the_row_holding_the_question_words_beats_a_short_section_sharing_some(tmp_path: Path) -> None:
    rag = _library(tmp_path)
    question = "imu9 put one gyro axis in standby"
    rag.weights = replace(rag_query.WEIGHTS, one_line=0.0)
    off = rag.search(question)
    assert off[0].heading.endswith("I2C address")  # the short section wins on BM25 alone
    rag.weights = replace(rag_query.WEIGHTS, one_line=1.0)
    got = rag.search(question)
    assert got[0].heading.endswith("Register map") and "PWR_CTL_2" in got[0].text
    assert got[0].score == pytest.approx(off[0].score)  # the file keeps its standing; its sections swap


def test_a_line_is_read_with_its_heading_and_its_table_header_row() -> None:
    weights = {"alarm": 2.0, "register": 1.0, "first": 1.0}
    table = "| Register | Name |\n| --- | --- |\n| 0x07 | Alarm first second |\n| 0x0E | Control |"
    assert line_share(table, "RTC > Register map", weights, []) == pytest.approx(1.0)
    scattered = "The alarm fires once.\nThe first register is seconds."
    assert line_share(scattered, "RTC > Notes", weights, []) == pytest.approx(0.5)  # alarm, or first and register
    assert line_share(scattered, "RTC > Alarm", weights, []) == pytest.approx(1.0)  # the heading names the alarm
    assert line_share("Any text", "RTC", {"rtc": 1.0}, []) == 0.0  # a file title is not a section heading


def test_words_are_found_as_the_text_writes_them() -> None:
    assert line_share("| MPU-6050 | 2.375 V to 3.46 V |", "Notes > Supply", {"mpu6050": 1.0}, []) == 1.0
    assert line_share("| 11 | GPIO11 |\n| 1 | GPIO1 |", "Map > Pins", {"1": 1.0, "gpio1": 1.0}, ["1", "gpio1"]) == 1.0
    assert line_share("| 11 | GPIO11 |", "Map > Pins", {"1": 1.0}, ["1"]) == 0.0  # a whole token, not a digit of 11


def test_a_file_keeps_its_place_among_files_and_only_its_sections_reorder() -> None:
    def order(shares: tuple[float, float], far: bool = False) -> list[tuple[str, int]]:
        found = [Candidate(10.0, "a.md", 1, 1, None), Candidate(4.0 if far else 8.0, "a.md", 2, 2, None),
                 Candidate(9.0, "b.md", 1, 3, None), Candidate(3.0, "b.md", 2, 4, None)]
        share = {1: shares[0], 2: shares[1], 3: 0.0, 4: 1.0}
        return [(c.source, c.cid) for _, c in rerank(found, 3, read_lines=lambda c: share[c.cid])]

    assert order((0.0, 0.0)) == [("a.md", 1), ("b.md", 3), ("a.md", 2)]
    # a.md's second section holds the answering line: it comes first, at a.md's best score, still ahead of b.md
    assert order((0.1, 0.9)) == [("a.md", 2), ("b.md", 3), ("a.md", 1)]
    assert order((0.9, 0.1)) == [("a.md", 1), ("b.md", 3), ("a.md", 2)]
    # a section the bonus cannot lift to its file's best score (less than half of it) is not read and stays after
    assert order((0.0, 1.0), far=True) == [("a.md", 1), ("b.md", 3), ("a.md", 2)]


def test_the_word_gpio_is_an_answer_only_where_a_numbered_line_is_written() -> None:
    # "which gpio" asks for a number: prose about "any two GPIOs" does not answer it, a row naming GPIO24 does
    weights = {"clock": 1.0, "gpio": 1.0}
    prose = "The LEDs are clocked parts; any two GPIOs could drive them."
    row = "| Pin | BCM | Use |\n| --- | --- | --- |\n| 18 | GPIO24 | clock (CLK) |"
    assert line_share(prose, "Strip > Electrical notes", weights, []) == pytest.approx(0.5)
    assert line_share(row, "Strip > Header usage", weights, []) == pytest.approx(1.0)
    column = "| Use | GPIO |\n| --- | --- |\n| clock | 24 |"  # the number under a GPIO column
    assert line_share(column, "Strip > Header usage", weights, []) == pytest.approx(1.0)


def test_which_gpio_weighs_as_the_question_s_most_telling_word() -> None:
    # every board writes GPIO, so by idf alone the device table's line holding the rarer "white" beats the header
    # row that answers with a number; asked for a gpio, the numbered row is the line that answers
    idf = {"gpio": 0.2, "turn": 0.5, "white": 2.0, "illumination": 1.5, "led": 0.8}
    prose = "| Light level | TCS3472 | 0x29 | two white illumination LEDs beside it |"
    row = "| 7 | GPIO4 | high turns the illumination LEDs on |"
    assert line_share(prose, "HAT > On-board devices", idf, []) > line_share(row, "HAT > Header usage", idf, [])
    weights = asked_weights(dict(idf))
    assert weights["gpio"] == 2.0 and weights["white"] == 2.0
    assert line_share(row, "HAT > Header usage", weights, []) > line_share(prose, "HAT > On-board devices", weights, [])
    assert asked_weights({"white": 2.0}) == {"white": 2.0} and asked_weights({"gpio": 0.2}) == {"gpio": 0.2}


def test_a_line_writing_the_kind_of_value_asked_for_answers_before_one_holding_only_the_words() -> None:
    # "which address": the row writing 0x29 answers, not the sentence that repeats more of the question's words
    typed = answer_kind("what i2c address does the light sensor answer on")
    assert typed is not None and answer_kind("why does the light sensor read zero") is None
    idf = {"i2c": 0.5, "address": 1.0, "light": 1.0, "sensor": 0.5}
    prose = "The light sensor shares the I2C bus; its address cannot be changed."
    row = "| Light sensor | TCS3472 | 0x29 |"
    assert line_share(prose, "HAT > Notes", idf, []) > line_share(row, "HAT > Devices", idf, [])
    assert line_share(row, "HAT > Devices", idf, [], typed) > line_share(prose, "HAT > Notes", idf, [], typed)
    assert answer_kind("which gpio is the buzzer on") is not None and answer_kind("supply voltage range") is not None
