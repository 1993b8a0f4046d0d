"""What a newcomer types first: the spellings other tools use get the command that does it, and errors
name things in the user's words (no internal argument names, no Python calls, no stray punctuation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.cli import main


def _usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    assert exit_.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(("argv", "meant"), [
    (("i2c", "scan"), "`edge-agent bus scan`"),
    (("gpio", "list"), "`edge-agent pins list`"),
    (("sensor", "list"), "`edge-agent sensor read --help` (it lists the sensor drivers)"),
    (("scan",), "`edge-agent bus scan`"),
    (("bus", "scna"), "`edge-agent bus scan`"),
])
def test_a_common_spelling_is_answered_with_the_command_that_does_it(
        capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], meant: str) -> None:
    err = _usage_error(capsys, *argv)
    assert f"did you mean {meant}?" in err


def test_an_unknown_word_with_nothing_close_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    assert "did you mean" not in _usage_error(capsys, "gpio", "frobnicate")


def test_an_unknown_sensor_is_named_as_a_sensor_with_the_drivers_there_are(
        capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(capsys, "sensor", "read", "tmp102")
    assert "argument part" not in err and "no driver for a 'tmp102' sensor" in err and "bme280" in err


def test_an_unknown_pin_lists_the_closest_names_then_the_next_step_without_a_stray_question_mark(
        state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(state), "gpio", "read", "PZ9"]) == 1
    err = capsys.readouterr().err
    assert "the closest names are PA9" in err and "?;" not in err
    assert "; run `edge-agent pins list --board nucleo-f401re` to see every name" in err


def test_refusing_to_drive_the_button_points_to_a_command_not_a_python_call(
        state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(state), "gpio", "write", "B1", "1"]) == 1
    err = capsys.readouterr().err
    assert "sim.press" not in err and "edge-agent gpio read PC13" in err
