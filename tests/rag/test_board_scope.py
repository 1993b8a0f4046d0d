"""Which file a question is about: boards without a board file, questions asking every board at once, and the
words that name a board."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag
from edge_agent.rag import boards as rag_boards
from edge_agent.rag.boards import asks_every_board, is_host_board, naming_terms
from edge_agent.rag.query import exact_terms
from edge_agent.rag.text import query_terms


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).write_text(text)


def test_a_datasheet_numbering_its_digital_pins_the_arduino_way_is_a_host_boards() -> None:
    assert is_host_board(["LED_BUILTIN", "D13"])
    # an add-on board names the host's GPIOs, a part its own signals
    assert not is_host_board(["relay_1", "GPIO6"]) and not is_host_board(["A0", "OE"])
    assert not is_host_board(["D100", "DAC1"])


def _host(name: str, mcu: str, spec_heading: str, spec: str) -> str:
    return (f"# Kit {name} ({mcu}) - board notes\n\nA development board with an Arduino-style header.\n\n"
            f"## {spec_heading}\n\n{spec}\n\n## Pin Aliases\n\nLED_BUILTIN: PB7\nD13: PB7\nD12: PB6\nD11: PB5\n")


@pytest.fixture
def hosts(tmp_path: Path) -> Path:
    _write(tmp_path, "kit-m100.md", _host("M100", "MCU-A", "Key specifications",
                                          "| Item | Value |\n| --- | --- |\n| Flash for sketches | 253952 bytes |\n"
                                          "| Clock | 16 MHz |\n| Operating voltage | 5 V |\n"))
    _write(tmp_path, "kit-n200.md", _host("N200", "MCU-B", "Upload options",
                                          "| Menu entry | Upload speed | Max sketch size |\n| --- | --- | --- |\n"
                                          "| new bootloader | 115200 | 30720 bytes sketch size limit |\n"
                                          "| old bootloader | 57600 | 30720 bytes sketch size limit |\n"))
    _write(tmp_path, "sensor-s1.md", "# Sensor S1 - humidity sensor\n\n## Driver\n\nThe driver adds about 2 KB "
                                     "to a sketch's size.\n")
    return tmp_path


def test_a_board_named_without_a_board_file_puts_other_boards_after_it(hosts: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rag = HardwareRag.load(hosts)
    assert rag.detect_boards("m100 sketch size limit") == ["kit-m100"]
    got = [c.source for c in rag.search("m100 sketch size limit")]
    assert got[0] == "kit-m100.md"
    # another host board's chunk never outranks the named board's; a part counts less but still competes
    assert "kit-n200.md" not in got or got.index("kit-n200.md") > max(
        i for i, s in enumerate(got) if s == "kit-m100.md")
    # with the other kit configured, naming this one sets the configured kit aside
    assert rag.search("m100 sketch size limit", ["kit-n200"])[0].source == "kit-m100.md"
    # without the rule the other kit, whose table repeats the question's words, comes first
    monkeypatch.setattr(rag_boards, "is_host_board", lambda names: False)
    assert HardwareRag.load(hosts).search("m100 sketch size limit")[0].source != "kit-m100.md"


def test_a_question_asking_every_board_is_answered_by_the_table_with_a_column_per_board(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert asks_every_board("D15 scl pin on each board with an uno header")
    assert asks_every_board("SPI pins across boards") and asks_every_board("which boards have a DAC")
    assert not asks_every_board("the board's user LED") and not asks_every_board("each pin of the board")
    for tag, port in (("kit-x100", "PA"), ("kit-y200", "PB"), ("kit-z300", "PC")):
        rows = "".join(f"| D{n} | {port}{n} | header pin |\n" for n in range(2, 16))
        _write(tmp_path, f"{tag}.md", f"# Kit {tag[4:].upper()} - board notes\n\n## Arduino header mapping\n\n"
                                      f"| Header | MCU pin | Notes |\n| --- | --- | --- |\n{rows}\n"
                                      f"D15 is the SCL pin of this kit's header.\n\n## Pin Aliases\n\nD13: {port}13\n")
    _write(tmp_path, "generic-header.md",
           "# Generic notes - the header on every kit\n\n## Mapping comparison\n\n| Header | X100 | Y200 | Z300 |\n"
           "| --- | --- | --- | --- |\n| D14 (SDA) | PA14 | PB14 | PC14 |\n| D15 (SCL) | PA15 | PB15 | PC15 |\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("D15 scl pin on each board")[0].source == "generic-header.md"
    monkeypatch.setattr(rag_boards, "asks_every_board", lambda query: False)
    assert HardwareRag.load(tmp_path).search("D15 scl pin on each board")[0].source != "generic-header.md"


def test_the_words_naming_a_board_are_not_values_to_look_for_in_its_files() -> None:
    assert naming_terms(["l476", "pi 5"]) == {"l476", "pi", "5"}
    assert naming_terms(["stm32l476"]) == frozenset()  # a chip's name is written in its tables
    terms = query_terms("l476 usart3 not working")
    assert exact_terms(terms, naming_terms(["l476"])) == ["usart3"]


def test_a_generic_note_that_never_mentions_the_named_board_counts_less(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, "kit-x100.md", _host("X100", "MCU-A", "Power and clocks",
                                          "The MCU runs at 3.3 V and 84 MHz; draw no more than about 20 mA "
                                          "from one output, 120 mA in all."))
    _write(tmp_path, "generic-levels.md",
           "# Generic notes - logic levels\n\n## Current per pin\n\n| Source | Current per pin |\n| --- | --- |\n"
           "| Other host pins | 16 mA per pin, current limited |\n| Relay outputs | 500 mA per pin current |\n")
    question = "how much current per pin on the x100"
    assert HardwareRag.load(tmp_path).search(question)[0].source == "kit-x100.md"
    # a note that mentions the board keeps its standing: its row may be the answer
    _write(tmp_path, "generic-levels.md",
           "# Generic notes - logic levels\n\n## Current per pin\n\n| Source | Current per pin |\n| --- | --- |\n"
           "| X100 pins | 16 mA per pin, current limited |\n| Relay outputs | 500 mA per pin current |\n")
    assert HardwareRag.load(tmp_path).search(question)[0].source == "generic-levels.md"
    # without the rule the note that repeats the question's words comes first
    _write(tmp_path, "generic-levels.md",
           "# Generic notes - logic levels\n\n## Current per pin\n\n| Source | Current per pin |\n| --- | --- |\n"
           "| Other host pins | 16 mA per pin, current limited |\n| Relay outputs | 500 mA per pin current |\n")
    monkeypatch.setattr(rag_boards, "name_words", lambda names: frozenset({"current"}))
    assert HardwareRag.load(tmp_path).search(question)[0].source == "generic-levels.md"


def _kit(name: str, body: str) -> str:
    return (f"# Kit {name} - board notes\n\nA development board with an Arduino-style header.\n\n{body}\n\n"
            "## Pin Aliases\n\nLED_BUILTIN: PB7\nD13: PB7\nD12: PB6\n")


def test_other_boards_ranked_after_the_named_one_leave_room_for_its_own_sections(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent.rag import search as rag_search

    # a dozen other boards whose notes repeat the question's words fill the candidates BM25 proposes; the short
    # name the question gives the board (q500) is not written in its notes (Kit Q500RG)
    for n in range(12):
        _write(tmp_path, f"kit-o{n:02d}.md", _kit(f"O{n:02d}", "## User button and user LED\n\nThe user button pin "
                                                  f"is PC{n} and the user LED pin is PA{n}; the user button is on "
                                                  "the pin labelled B1 user."))
    _write(tmp_path, "kit-q500rg.md", _kit("Q500RG", "## Buttons\n\n| Button | Pin | Zephyr alias |\n"
                                           "| --- | --- | --- |\n| Button 1 | P0.11 | sw0 |\n"
                                           "| Button 2 | P0.12 | sw1 |\n\n"
                                           "## Power\n\nThe board runs from USB; an external pin header takes 5 V."))
    rag = HardwareRag.load(tmp_path)
    got = rag.search("q500 user button pin")
    # the named board's table answers; another board's chunk never outranks the named board's
    assert got[0].source == "kit-q500rg.md" and "P0.11" in got[0].text
    # configured, not named, the board may not be what the question is about: its weak chunks do not join the
    # candidates to set every other board's answer after them
    assert rag.search("user button pin", ["kit-q500rg"])[0].source != "kit-q500rg.md"
    # without the slots the named board's section is not among the candidates, and another board's notes answer
    monkeypatch.setattr(rag_search, "BOARD_SLOTS", 0)
    assert HardwareRag.load(tmp_path).search("q500 user button pin")[0].source != "kit-q500rg.md"