"""A file's pin-alias entries as the index stores them (edge_agent.rag.aliasrows): the same entries come back, in a
fraction of the text the entries take as objects."""

from __future__ import annotations

import json
from pathlib import Path

from edge_agent.pins.datasheet import parse_aliases
from edge_agent.pins.sections import AliasEntry
from edge_agent.rag import aliasrows
from edge_agent.rag.boards import is_host_board


def test_entries_come_back_as_stored_whatever_their_text() -> None:
    rel = "boards/kit.md"
    entries = [
        AliasEntry("kit", "red_led", "PA5", rel, 12),
        AliasEntry(None, "LED_BUILTIN", "D13", rel, 3, "native", "alias", "Pin Aliases"),
        AliasEntry("kit", 'the "quoted" name', "PB1 \\ PB2", rel, 40, "physical", "table", "Header \u00b5 map"),
        AliasEntry("kit", "SDA", "PB9", "generic-pin-names.md", 7, kind="prose", heading="Pin Aliases"),
        AliasEntry("kit", "D\u0661", "PC1", rel, 41, heading="Header \u00b5 map"),
    ]
    text = aliasrows.encode(entries, rel)
    assert aliasrows.decode(text, rel) == entries
    assert aliasrows.count(text) == len(entries)
    assert aliasrows.values(text) == [e.value for e in entries]
    assert aliasrows.decode(aliasrows.encode([], rel), rel) == [] and aliasrows.count(aliasrows.EMPTY) == 0


def test_a_pin_table_file_is_stored_in_a_third_of_the_text_its_entries_take_as_objects(shared_corpus: Path) -> None:
    # a Mega's pin tables yield hundreds of entries sharing their file, headings and field names
    path = shared_corpus / "arduino-mega2560.md"
    entries, _ = parse_aliases(path.read_text(encoding="utf-8"), path.name, "arduino-mega2560")
    assert len(entries) > 100
    text = aliasrows.encode(entries, path.name)
    assert aliasrows.decode(text, path.name) == entries
    assert len(text) * 3 < len(json.dumps([e.__dict__ for e in entries]))


def test_the_host_board_test_reads_every_name_however_it_is_written() -> None:
    assert is_host_board(["LED_BUILTIN", "D13"]) and is_host_board(["D\u0661"])
    assert not is_host_board(["D100", "DAC1", "D", "d13", "GPIO13"])
