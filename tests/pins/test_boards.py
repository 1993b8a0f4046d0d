"""Board data files: every file is valid, consistent, and ships inside the installed package."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from edge_agent import pins
from edge_agent.errors import UnknownBoardError
from edge_agent.pins import BoardDataError, load_board_file

REPO = Path(__file__).resolve().parents[2]
CONTRACT_BOARDS = {"rpi-4b", "rpi-5", "rpi-zero-2w", "nucleo-f401re", "nucleo-l476rg", "nucleo-f446re",
                   "arduino-uno", "esp32-devkitc", "rpi-pico"}


def test_every_board_of_the_contract_has_a_data_file() -> None:
    assert set(pins.list_boards()) == CONTRACT_BOARDS


@pytest.mark.parametrize("board_id", sorted(CONTRACT_BOARDS))
def test_board_data_is_internally_consistent(board_id: str) -> None:
    board = pins.get_board(board_id)
    names = [p.name for p in board.pins]
    assert len(names) == len(set(names))
    numbers = [p.number for p in board.pins if p.number is not None]
    assert len(numbers) == len(set(numbers)), "a bare integer must name one pin"
    headers = [h for p in board.pins for h in p.headers]
    assert len(headers) == len(set(headers)), "a header position holds one pin"
    assert not set(headers) & set(board.power), "a position is either a GPIO or a power pin"
    for label, pin in [*board.leds.items(), *board.buttons.items()]:
        assert pin in names, label
        assert pins.resolve(board_id, label).name == pin
    for bus, roles in board.buses.items():
        for role, pin in roles.items():
            assert f"{bus.upper()}_{role.upper()}" in board.pin(pin).functions
    assert board.id in pins.get_board(board_id).datasheet_tags


def test_embedded_default_board_matches_the_contract() -> None:
    board = pins.get_board("nucleo-f401re")
    assert board.leds == {"LD2": "PA5"} and board.buttons == {"B1": "PC13"}
    assert dict(board.buses["i2c1"]) == {"scl": "PB8", "sda": "PB9"}
    assert board.pin("PA5").number == 13


def test_pi_boards_answer_to_the_shared_rpi_gpio_tag() -> None:
    for board in ("rpi-4b", "rpi-5", "rpi-zero-2w"):
        assert "rpi-gpio" in pins.get_board(board).datasheet_tags


def test_a_tag_owned_by_one_board_names_that_board() -> None:
    assert pins.get_board("pico").id == "rpi-pico"
    with pytest.raises(UnknownBoardError):
        pins.get_board("rpi-gpio")  # shared by three boards


def test_malformed_board_files_raise_board_data_errors(tmp_path: Path) -> None:
    bad = tmp_path / "x.toml"
    bad.write_text('id = "x"\nname = "X"\nmcu = "m"\npins = [{ name = "P1" }]\n[leds]\nL = "P2"\n')
    with pytest.raises(BoardDataError):
        load_board_file(bad)
    bad.write_text('id = "y"\nname = "X"\nmcu = "m"\npins = []\n')
    with pytest.raises(BoardDataError):
        load_board_file(bad)  # id must match the file name
    bad.write_text("not toml [")
    with pytest.raises(BoardDataError):
        load_board_file(bad)


@pytest.mark.slow
def test_every_board_and_datasheet_loads_from_the_installed_wheel(tmp_path: Path) -> None:
    """Build the wheel, unpack it, and load boards and datasheets from edge_agent/_boards and _datasheets."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist"), str(REPO)], check=True, timeout=240)
    wheel = next((tmp_path / "dist").glob("edge_agent-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(tmp_path / "site")
    site = tmp_path / "site"
    boards = sorted((site / "edge_agent" / "_boards").glob("*.toml"))
    assert {b.stem for b in boards} == CONTRACT_BOARDS
    for path in boards:
        assert load_board_file(path).id == tomllib.loads(path.read_text())["id"]
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import edge_agent, edge_agent.paths as p, edge_agent.pins as pins;"
        "from edge_agent.rag import HardwareRag;"
        "assert edge_agent.__file__.startswith(sys.argv[1]), edge_agent.__file__;"
        "assert str(p.bundled_boards_dir()).startswith(sys.argv[1]);"
        "rag = HardwareRag.load(p.bundled_datasheets_dir());"
        "assert rag.search('BME280 chip id register')[0].source == 'bme280.md';"
        "assert not rag.problems, rag.problems;"
        "print(len(pins.list_boards()), pins.resolve('nucleo-f401re', 'red_led', rag.pin_index()).name)"
    )
    out = subprocess.run([sys.executable, "-I", "-c", script, str(site)], check=True, capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert out.stdout.split() == ["9", "PA5"]
