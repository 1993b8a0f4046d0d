"""The pin resolver: board data, native/header/Arduino names, integers, datasheet aliases, errors."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from edge_agent import pins
from edge_agent.errors import AmbiguousPinError, UnknownBoardError, UnknownPinError
from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins.boards import get_board
from edge_agent.rag import HardwareRag, pin_index_for

BUNDLED = bundled_datasheets_dir()


@pytest.mark.parametrize(("board", "name", "expected"), [
    ("nucleo-f401re", 13, "PA5"),
    ("nucleo-f401re", "13", "PA5"),
    ("nucleo-f401re", "D13", "PA5"),
    ("nucleo-f401re", "pa_5", "PA5"),
    ("nucleo-f401re", "CN10-11", "PA5"),
    ("nucleo-f401re", "CN5-6", "PA5"),
    ("nucleo-f401re", "LD2", "PA5"),
    ("nucleo-f401re", "LED_BUILTIN", "PA5"),
    ("nucleo-f401re", "B1", "PC13"),
    ("nucleo-f401re", "A0", "PA0"),
    ("nucleo-f401re", "i2c1.scl", "PB8"),
    ("nucleo-f401re", "I2C1_SDA", "PB9"),
    ("nucleo-f401re", "TIM2_CH1", "PA5"),
    ("rpi-4b", 17, "GPIO17"),
    ("rpi-4b", "BCM17", "GPIO17"),
    ("rpi-4b", "gpio 17", "GPIO17"),
    ("rpi-4b", "J8:11", "GPIO17"),
    ("rpi-4b", "J8-11", "GPIO17"),
    ("rpi-4b", "pin 11", "GPIO17"),
    ("rpi-4b", "BOARD11", "GPIO17"),
    ("rpi-4b", "ACT", "GPIO42"),
    ("rpi-5", "spi0.sck", "GPIO11"),
    ("rpi-zero-2w", 29, "GPIO29"),
    ("arduino-uno", 13, "PB5"),
    ("arduino-uno", "A0", "PC0"),
    ("arduino-uno", 14, "PC0"),
    ("arduino-uno", "LED_BUILTIN", "PB5"),
    ("esp32-devkitc", 2, "GPIO2"),
    ("esp32-devkitc", "IO2", "GPIO2"),
    ("esp32-devkitc", "J3-15", "GPIO2"),
    ("esp32-devkitc", "BOOT", "GPIO0"),
    ("rpi-pico", 25, "GP25"),
    ("rpi-pico", "LED", "GP25"),
    ("rpi-pico", "GPIO25", "GP25"),  # the RP2040's own name of the Pico's GP25
    ("rpi-pico", "gpio 0", "GP0"),
    ("rpi-pico", "pin 34", "GP28"),
    ("rpi-pico", "i2c0.sda", "GP4"),
    ("nucleo-l476rg", "CN10-18", "PB11"),
    ("nucleo-f446re", "D15", "PB8"),
])
def test_native_header_arduino_and_integer_names_resolve(board: str, name: str | int, expected: str) -> None:
    pin = pins.resolve(board, name, pin_index_for(BUNDLED))
    assert pin.name == expected and pin.board == board and pin.raw is None


def test_a_resolved_pin_carries_number_headers_and_functions() -> None:
    pin = pins.resolve("nucleo-f401re", "PA5", pin_index_for(BUNDLED))
    assert pin.number == 13
    assert set(pin.headers) == {"CN10-11", "CN5-6", "D13"}
    assert {"SPI1_SCK", "LED LD2"} <= set(pin.functions)


def test_red_led_alias_of_the_embedded_default_board_resolves_to_ld2() -> None:
    index = pin_index_for(BUNDLED)  # the embedded default's datasheet directory, passed explicitly
    pin = pins.resolve("nucleo-f401re", "red_led", index)
    assert (pin.name, pin.number, pin.raw) == ("PA5", 13, "PA5")
    assert pins.resolve("nucleo-f401re", "Red LED", index).name == "PA5"  # spaces and case do not matter


def test_aliases_shared_through_datasheet_tags_reach_every_pi_board() -> None:
    for board in ("rpi-4b", "rpi-5", "rpi-zero-2w"):
        assert pins.resolve(board, "spi_ce0", pin_index_for(BUNDLED)).name == "GPIO8"


def test_board_specific_aliases_stay_on_their_board() -> None:
    assert pins.resolve("rpi-4b", "act_led", pin_index_for(BUNDLED)).name == "GPIO42"
    with pytest.raises(UnknownPinError):
        pins.resolve("rpi-5", "act_led", pin_index_for(BUNDLED))


def test_every_board_has_its_bundled_datasheet_and_aliases() -> None:
    rag = HardwareRag.load(BUNDLED)
    for board in pins.list_boards():
        assert any(f.source == f"{board}.md" for f in rag.files()), board
        assert rag.aliases(board), board


# --- datasheet alias formats -------------------------------------------------------------------------------


def _sheet(tmp_path: Path, name: str, body: str) -> Path:
    (tmp_path / name).write_text(body)
    return tmp_path


def test_alias_tables_are_read_by_header_name_in_any_column_order(tmp_path: Path) -> None:
    _sheet(tmp_path, "nucleo-f401re.md", "# N\n## Pin Aliases\n| Notes | Pin | Alias |\n| --- | --- | --- |\n"
                                         "| motor | PB4 | motor_pwm |\n| button | 13 | d13_alias |\n")
    assert pins.resolve("nucleo-f401re", "motor_pwm", pin_index_for(tmp_path)).name == "PB4"
    assert pins.resolve("nucleo-f401re", "d13_alias", pin_index_for(tmp_path)).name == "PA5"


def test_key_value_lines_strip_bullets_and_backticks(tmp_path: Path) -> None:
    _sheet(tmp_path, "nucleo-f401re.md", "# N\n## Pin Alias\n- `fan`: PB10\n* **pump** = `D7`\n1. valve: CN10-29\n")
    index = pin_index_for(tmp_path)
    assert [pins.resolve("nucleo-f401re", a, index).name for a in ("fan", "pump", "valve")] == ["PB10", "PA8", "PB5"]


def test_alias_section_ends_at_the_next_same_or_higher_heading(tmp_path: Path) -> None:
    _sheet(tmp_path, "nucleo-f401re.md", "# N\n## Pins\nfan: PB10\n### Extra\npump: PB4\n## Clock\nhse: PH0\n")
    assert pins.resolve("nucleo-f401re", "pump", pin_index_for(tmp_path)).name == "PB4"
    with pytest.raises(UnknownPinError):
        pins.resolve("nucleo-f401re", "hse", pin_index_for(tmp_path))


def test_physical_numbering_note_makes_integers_header_positions(tmp_path: Path) -> None:
    _sheet(tmp_path, "rpi-gpio.txt", "# Pi\n## Pin Aliases\nValues below are physical header pin numbers.\n"
                                     "SDA: 3\nCE0: 24\n")
    assert pins.resolve("rpi-4b", "SDA", pin_index_for(tmp_path)).name == "GPIO2"
    pin = pins.resolve("rpi-5", "CE0", pin_index_for(tmp_path))
    assert (pin.name, pin.raw) == ("GPIO8", "24")


def test_bare_integer_alias_values_follow_the_board_convention(tmp_path: Path) -> None:
    _sheet(tmp_path, "rpi-4b.md", "# Pi\n## Pin Aliases\nrelay: 17\n")
    _sheet(tmp_path, "arduino-uno.md", "# Uno\n## Pin Aliases\nbuzzer: 9\n")
    assert pins.resolve("rpi-4b", "relay", pin_index_for(tmp_path)).name == "GPIO17"
    assert pins.resolve("arduino-uno", "buzzer", pin_index_for(tmp_path)).name == "PB1"


def test_shared_corpus_aliases_resolve_on_real_boards(shared_corpus: Path) -> None:
    assert pins.resolve("rpi-4b", "SDA", pin_index_for(shared_corpus)).name == "GPIO2"  # rpi-gpio.txt, physical numbers
    assert pins.resolve("rpi-4b", "JTAG_TMS", pin_index_for(shared_corpus)).name == "GPIO27"
    assert pins.resolve("nucleo-f446re", "CAN1_RX", pin_index_for(shared_corpus)).name == "PB8"
    assert pins.resolve("arduino-uno", "INT0", pin_index_for(shared_corpus)).name == "PD2"


def test_boards_known_only_from_datasheets_resolve_to_the_raw_value(shared_corpus: Path) -> None:
    pin = pins.resolve("traffic-hat", "buzzer", pin_index_for(shared_corpus))
    assert (pin.board, pin.name, pin.raw, pin.number) == ("traffic-hat", "GPIO5", "GPIO5", None)
    assert pins.resolve("nrf52840dk", "led0", pin_index_for(shared_corpus)).raw == "P0.13"


def test_conflicting_aliases_warn_naming_both_files_and_the_board_file_wins(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _sheet(tmp_path, "rpi-gpio.md", "# Pi\n## Pin Aliases\nfan: GPIO18\n")
    _sheet(tmp_path, "rpi-4b.md", "# Pi 4\n## Pin Aliases\nfan: GPIO14\n")
    with caplog.at_level(logging.WARNING):
        assert pins.resolve("rpi-4b", "fan", pin_index_for(tmp_path)).name == "GPIO14"
    conflict = [r.getMessage() for r in caplog.records if "conflicting" in r.getMessage()]
    assert len(conflict) == 1 and "rpi-gpio.md" in conflict[0] and "rpi-4b.md" in conflict[0]
    assert pins.resolve("rpi-5", "fan", pin_index_for(tmp_path)).name == "GPIO18"  # no conflict on the Pi 5


def test_same_rank_conflicts_are_decided_by_path_order(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "rpi-4b.md").write_text("## Pin Aliases\nfan: GPIO14\n")
    (tmp_path / "a" / "rpi-4b.md").write_text("## Pin Aliases\nfan: GPIO18\n")
    with caplog.at_level(logging.WARNING):
        assert pins.resolve("rpi-4b", "fan", pin_index_for(tmp_path)).name == "GPIO18"
    assert any("a/rpi-4b.md" in r.getMessage() and "b/rpi-4b.md" in r.getMessage() for r in caplog.records)


def test_an_alias_cannot_redefine_a_native_name(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    _sheet(tmp_path, "rpi-4b.md", "# Pi\n## Pin Aliases\nGPIO17: GPIO4\n")
    with caplog.at_level(logging.WARNING):
        assert pins.resolve("rpi-4b", "GPIO17", pin_index_for(tmp_path)).name == "GPIO17"
        assert pins.aliases_for("rpi-4b", pin_index_for(tmp_path)) == {}
    assert any("GPIO17" in r.getMessage() and "rpi-4b.md" in r.getMessage() for r in caplog.records)


def test_alias_values_that_are_not_pins_of_the_board_are_reported_and_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _sheet(tmp_path, "nucleo-f401re.md", "# N\n## Pin Aliases\nheater: PZ9\nfan: the left one\nok: PB4\n")
    with caplog.at_level(logging.WARNING):
        assert pins.resolve("nucleo-f401re", "ok", pin_index_for(tmp_path)).name == "PB4"
        with pytest.raises(UnknownPinError):
            pins.resolve("nucleo-f401re", "heater", pin_index_for(tmp_path))
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "'heater'" in messages and "'fan'" in messages


# --- errors ----------------------------------------------------------------------------------------------


def test_unknown_names_suggest_the_closest_spellings() -> None:
    with pytest.raises(UnknownPinError) as err:
        pins.resolve("nucleo-f401re", "PA55", pin_index_for(BUNDLED))
    assert err.value.board == "nucleo-f401re" and err.value.name == "PA55"
    assert "PA5" in err.value.suggestions


def test_alias_typos_suggest_the_alias() -> None:
    with pytest.raises(UnknownPinError) as err:
        pins.resolve("nucleo-f401re", "red_lde", pin_index_for(BUNDLED))
    assert "red_led" in err.value.suggestions


def test_a_function_on_several_pins_is_ambiguous_and_lists_the_candidates() -> None:
    with pytest.raises(AmbiguousPinError) as err:
        pins.resolve("rpi-pico", "SPI0_RX", pin_index_for(BUNDLED))
    assert err.value.candidates == ["GP0", "GP4", "GP16", "GP20"]


def test_integers_outside_the_board_numbering_are_unknown() -> None:
    with pytest.raises(UnknownPinError):
        pins.resolve("rpi-4b", 99, pin_index_for(BUNDLED))
    with pytest.raises(UnknownPinError):
        pins.resolve("nucleo-f401re", 16, pin_index_for(BUNDLED))  # Arduino numbering stops at D15


def test_unknown_boards_list_the_known_ones() -> None:
    with pytest.raises(UnknownBoardError) as err:
        pins.resolve("nucleo-f999", "PA5", pin_index_for(BUNDLED))
    assert "nucleo-f401re" in err.value.known and "rpi-4b" in err.value.known


def test_empty_names_are_unknown() -> None:
    with pytest.raises(UnknownPinError):
        pins.resolve("rpi-4b", "  ", pin_index_for(BUNDLED))


# --- inverse lookup ----------------------------------------------------------------------------------------


def test_inverse_lookup_lists_labels_and_datasheet_aliases() -> None:
    report = pins.pins_on("nucleo-f401re", "PA5", pin_index_for(BUNDLED))
    assert report.pin is not None and report.pin.name == "PA5"
    assert "LD2" in report.labels
    assert ("red_led", "nucleo-f401re.md") in report.aliases


def test_inverse_lookup_of_a_power_position_names_the_rail() -> None:
    assert pins.pins_on("rpi-4b", "J8-6", pin_index_for(BUNDLED)).power == "GND"
    assert pins.pins_on("rpi-4b", "pin 1", pin_index_for(BUNDLED)).power == "3V3"
    assert pins.pins_on("rpi-pico", "pin-36", pin_index_for(BUNDLED)).power == "3V3"


def test_resolve_accepts_a_loaded_index(shared_corpus: Path) -> None:
    rag = HardwareRag.load(shared_corpus)
    assert pins.resolve("rpi-pico", "SPI_MISO", rag.pin_index()).name == "GP16"


def test_generic_aliases_apply_wherever_the_value_resolves(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        index = pin_index_for(BUNDLED)
        assert [pins.resolve(b, "status_led", index).name for b in ("nucleo-f401re", "arduino-uno", "rpi-pico")] == [
            "PA5", "PB5", "GP25"]
        with pytest.raises(UnknownPinError):
            pins.resolve("rpi-4b", "status_led", pin_index_for(BUNDLED))
    assert not any("status_led" in r.getMessage() for r in caplog.records)  # generic misses are silent


def test_a_part_datasheet_resolves_its_package_pins_raw() -> None:
    pin = pins.resolve("bme280", "SDO", pin_index_for(BUNDLED))
    assert (pin.board, pin.raw, pin.number) == ("bme280", "5", 5)


def test_an_led_labelled_by_its_kind_alone_lists_the_function_once() -> None:
    # the Pico's board file calls its one LED "LED": its pin is the LED, not an "LED LED"
    pin = get_board("rpi-pico").pin("GP25")
    assert pin.functions.count("LED") == 1
    assert not any(f.upper() == "LED LED" for f in pin.functions)


def test_a_bus_signal_nobody_writes_suggests_the_bus_roles_and_functions_that_resolve() -> None:
    # 'I2C_DATA' is no name on a Nucleo, but i2c1_sda (the Arduino-header I2C) is, and so is the
    # I2C3_SDA function; suggesting A0-A2 because they are short would send the user the wrong way.
    # (A bare 'SDA' is the SDA of the board file's one I2C bus, as its datasheet writes "D14 (SDA, PB9)".)
    ix = pin_index_for(BUNDLED)
    assert ix.resolve("nucleo-f401re", "SDA").name == "PB9"
    with pytest.raises(UnknownPinError) as err:
        ix.resolve("nucleo-f401re", "I2C_DATA")
    assert err.value.suggestions[0] == "i2c1_sda"
    assert "I2C3_SDA" in err.value.suggestions
    for suggestion in err.value.suggestions:
        ix.resolve("nucleo-f401re", suggestion)  # every suggestion is a name that works
