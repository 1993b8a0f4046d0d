"""Names from datasheets: exact case wins, look-alike spellings of different pins are ambiguous, pin
tables feed the index, board files stay the authority, unknown names get the closest names with sources."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from edge_agent import pins
from edge_agent.errors import AmbiguousPinError, PinError, UnknownPinError
from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins import PinIndex, name_key, parse_aliases
from edge_agent.pins.datasheet import AliasEntry
from edge_agent.rag import pin_index_for
from edge_agent.rag.files import scan

BUNDLED = bundled_datasheets_dir()


def _sheet(root: Path, name: str, body: str) -> Path:
    (root / name).write_text(body)
    return root


# --- case and separators ---------------------------------------------------------------------------------


def test_exact_case_wins_and_a_case_only_difference_is_ambiguous(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("nrf52840dk", "LED1").raw == "P0.13"  # silkscreen LED1
    assert index.resolve("nrf52840dk", "led1").raw == "P0.14"  # devicetree led1 is LED2
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("nrf52840dk", "Led1")
    found = {(name, pin) for name, pin, _ in err.value.matches}
    assert {("LED1", "P0.13"), ("led1", "P0.14")} <= found
    assert all("nrf52840dk.md line" in src for _, _, src in err.value.matches)
    assert "P0.13" in str(err.value) and "P0.14" in str(err.value)


def test_separator_look_alikes_of_different_pins_are_ambiguous_on_a_board_file_board(tmp_path: Path) -> None:
    _sheet(tmp_path, "nucleo-f401re.md", "# N\n## Pin Aliases\nmotor_a: PB4\nmotor-a: PB5\nFan: PB10\nfan: PB3\n")
    index = pin_index_for(tmp_path)
    assert index.resolve("nucleo-f401re", "motor_a").name == "PB4"
    assert index.resolve("nucleo-f401re", "motor-a").name == "PB5"
    assert index.resolve("nucleo-f401re", "Fan").name == "PB10"
    assert index.resolve("nucleo-f401re", "fan").name == "PB3"
    for name in ("motor a", "MOTOR_A", "FAN", "f_an"):
        with pytest.raises(AmbiguousPinError) as err:
            index.resolve("nucleo-f401re", name)
        assert len({pin for _, pin, _ in err.value.matches}) == 2
        assert all("nucleo-f401re.md line" in src for _, _, src in err.value.matches)


def test_spellings_of_one_pin_still_resolve_without_exact_case(tmp_path: Path) -> None:
    _sheet(tmp_path, "nucleo-f401re.md", "# N\n## Pin Aliases\nRed LED: PA5\nred_led: PA5\n")
    index = pin_index_for(tmp_path)
    assert index.resolve("nucleo-f401re", "RED-led").name == "PA5"
    assert index.resolve("nucleo-f401re", "pa_5").name == "PA5"


# --- pin tables and datasheet-only boards ------------------------------------------------------------------


@pytest.mark.parametrize(("board", "name", "raw"), [
    ("nrf52840dk", "Button 3", "P0.24"),
    ("nrf52840dk", "button3", "P0.24"),
    ("nrf52840dk", "D8", "P1.10"),
    ("nrf52840dk", "A2", "P0.28"),
    ("nrf52840dk", "P0_13", "P0.13"),  # the port and pin apart by an underscore, as nRF SDK macros write them
    ("nrf52840dk", "p1_04", "P1.04"),
    ("automation-hat", "Input 3", "GPIO21"),
    ("automation-hat", "Relay 2", "GPIO19"),
    ("explorer-hat-pro", "Motor 1 +", "GPIO19"),
    ("traffic-hat", "Amber", "GPIO23"),
    ("nucleo-g071rb", "D4", "PB5"),
    ("arduino-nano", "A6", "ADC6"),
    ("fan-shim", "tactile button", "GPIO17"),
])
def test_names_from_pin_tables_resolve_on_datasheet_only_boards(shared_corpus: Path, board: str, name: str,
                                                                raw: str) -> None:
    pin = pin_index_for(shared_corpus).resolve(board, name)
    assert (pin.board, pin.raw) == (board, raw)


def test_pin_table_names_resolve_on_board_file_boards_too(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("rpi-4b", "PCM CLK").name == "GPIO18"  # rpi-gpio.txt header map, shared by the Pis
    assert index.resolve("rpi-5", "EEPROM SDA").name == "GPIO0"
    assert index.resolve("esp32-devkitc", "TOUCH7").name == "GPIO27"


def test_a_name_two_rows_of_one_table_give_different_pins_is_ambiguous(shared_corpus: Path) -> None:
    with pytest.raises(AmbiguousPinError):
        pin_index_for(shared_corpus).resolve("enviro-plus", "PMS5003 serial")  # TX and RX rows


def test_table_names_cite_file_and_heading(shared_corpus: Path) -> None:
    with pytest.raises(UnknownPinError) as err:
        pin_index_for(shared_corpus).resolve("automation-hat", "Input 9")
    assert err.value.suggestions[:1] and any("automation-hat.md line" in s for s in err.value.sources)
    assert any("Inputs (buffered)" in s for s in err.value.sources)


def _datasheet_dirs() -> list[Path]:
    dirs = [BUNDLED]
    shared = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "datasheets"
    return dirs + ([shared] if shared.is_dir() else [])


def _entries(root: Path) -> list[AliasEntry]:
    out: list[AliasEntry] = []
    for f in scan(root)[0]:
        out.extend(parse_aliases(f.path.read_text(encoding="utf-8", errors="replace"), f.rel, f.board)[0])
    return out


@pytest.mark.parametrize("root", _datasheet_dirs(), ids=lambda p: p.parent.name + "/" + p.name)
def test_every_name_in_every_pin_table_and_alias_section_resolves_to_its_pin(root: Path) -> None:
    """The whole class: each name resolves to the pin its row gives, unless the board file or a more specific
    datasheet gives that name another pin (reported by `pins check` or a conflict warning), or the same
    datasheets give it several pins (an ambiguity error naming them)."""
    entries = _entries(root)
    index = PinIndex(entries)
    checked = 0
    for e in entries:
        if e.tag is None or e.kind == "description":  # what a pin does, read only when no name answers
            continue
        board = index.board(e.tag)
        # a tag several board files share (rpi-gpio) answers on its own and on every one of them
        boards = [board.id] if board else [e.tag, *(index.applies_to(e.tag) if len(index.applies_to(e.tag)) > 1
                                                   else [])]
        for b in boards:
            value = f"pin {e.value}" if e.numbering == "physical" and index.applies_to(b) else e.value
            try:
                want = index.resolve(b, value).name
            except PinError:
                assert index.board(b) is not None, (e, b)  # only a board file can reject a value (ADC4 on a Pico)
                continue
            try:
                got = index.resolve(b, e.alias).name
            except AmbiguousPinError as exc:
                assert want in exc.candidates or want in {p for _, p, _ in exc.matches}, (e, b, exc)
                continue
            checked += 1
            if got == want:
                continue
            contradicted = any(c.board == b and name_key(c.name) == name_key(e.alias) for c in index.check([b]))
            overridden = any(o.alias == e.alias and o is not e and (o.tag == b or o.tag in (b, e.tag))
                             for o in entries)
            # a bus signal the board file maps (USART1_TX on PA9) answers from the board file; a datasheet table
            # giving another mapping of the same peripheral (PB6 in Zephyr's devicetree) is not a contradiction
            board_file = index.board(b)
            remapped = board_file is not None and name_key(e.alias) in {
                name_key(f"{bus}{role}") for bus, roles in board_file.buses.items() for role in roles}
            assert contradicted or overridden or remapped, \
                f"{e.source} line {e.line}: {e.alias} -> {got}, table says {want}"
    assert checked > (50 if root == BUNDLED else 400)


def test_the_bundled_datasheets_do_not_contradict_the_board_files() -> None:
    assert pin_index_for(BUNDLED).check() == []


# --- authority, bad input ------------------------------------------------------------------------------------


def test_a_datasheet_contradicting_the_board_file_is_reported_by_pins_check(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _sheet(tmp_path, "nucleo-f401re.md", "# N\n\n## LEDs\n\n| Label | STM32 pin |\n| --- | --- |\n"
                                         "| LD2 | PA6 |\n| probe | PA7 |\n")
    with caplog.at_level(logging.WARNING):
        index = pin_index_for(tmp_path)
        assert index.resolve("nucleo-f401re", "LD2").name == "PA5"  # the board file wins
    assert index.resolve("nucleo-f401re", "probe").name == "PA7"  # the rest of the table is indexed
    [c] = index.check()
    assert (c.board, c.name, c.datasheet_pin, c.board_pin) == ("nucleo-f401re", "LD2", "PA6", "PA5")
    assert c.source.startswith("nucleo-f401re.md line 7")
    assert any("contradicts the board file" in r.getMessage() for r in caplog.records)


def test_pins_check_command_exits_1_and_names_the_contradiction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from edge_agent.cli import main

    _sheet(tmp_path, "rpi-4b.md", "# Pi\n## Pin Aliases\nGPIO17: GPIO4\n")
    assert main(["pins", "check", "--datasheets", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "rpi-4b.md line 3" in out and "GPIO17" in out and "GPIO4" in out
    assert main(["pins", "check", "--datasheets", str(BUNDLED)]) == 0


def test_unknown_names_list_the_three_closest_with_their_sources(tmp_path: Path) -> None:
    _sheet(tmp_path, "nucleo-f401re.md", "# N\n## Pin Aliases\nred_led: PA5\nred_lamp: PB4\n")
    with pytest.raises(UnknownPinError) as err:
        pin_index_for(tmp_path).resolve("nucleo-f401re", "red_lde")
    assert len(err.value.suggestions) == 3 and err.value.suggestions[0] == "red_led"
    assert err.value.sources[0] == "nucleo-f401re.md line 3"
    assert "red_led (nucleo-f401re.md line 3)" in str(err.value)
    with pytest.raises(UnknownPinError) as err:
        pins.resolve("nucleo-f401re", "PA55")
    assert "PA5" in err.value.suggestions and "board file nucleo-f401re.toml" in err.value.sources


def test_a_malformed_pin_table_row_is_a_warning_naming_file_and_line(tmp_path: Path) -> None:
    text = "# Hat\n\n## Outputs\n\n| Output | BCM |\n| --- | --- |\n| Out 1 | GPIO5 |\n| Out 2 |\n| Out 3 | GPIO6 |\n"
    entries, problems = parse_aliases(text, "my-hat.md", "my-hat")
    assert [(e.alias, e.value, e.line, e.heading) for e in entries] == [
        ("Out 1", "GPIO5", 7, "Hat > Outputs"), ("Out 3", "GPIO6", 9, "Hat > Outputs")]
    assert len(problems) == 1 and problems[0].source == "my-hat.md" and "line 8" in problems[0].message


def test_generic_files_tables_name_no_board() -> None:
    text = "# Header\n\n| Arduino | STM32 pin |\n| --- | --- |\n| D13 | PA5 |\n"
    assert parse_aliases(text, "generic-x.md", None)[0] == []
