"""The CLI never shows a Python traceback unless --debug asks for one."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from edge_agent.cli import main


def _boom(args: argparse.Namespace) -> int:
    raise TypeError("unexpected None")


def _no_file(args: argparse.Namespace) -> int:
    raise FileNotFoundError(2, "No such file or directory", "/nonexistent/export.jsonl")


@pytest.mark.parametrize(("handler", "prefix"), [(_boom, "edge-agent: internal error: TypeError"),
                                                 (_no_file, "edge-agent: error:")])
def test_an_unexpected_exception_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, handler: object,
    prefix: str,
) -> None:
    monkeypatch.setattr("edge_agent.cli.config._check", handler)
    assert main(["--state", str(tmp_path), "config", "check"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(prefix) and err.count("\n") == 1 and "Traceback" not in err


def test_debug_adds_the_traceback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                  tmp_path: Path) -> None:
    monkeypatch.setattr("edge_agent.cli.config._check", _boom)
    assert main(["--debug", "--state", str(tmp_path), "config", "check"]) == 1
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["rag", "query"], ["memory", "recall"], ["memory", "engage"]])
def test_a_blank_query_is_a_usage_error_not_an_empty_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    # A blank query matches nothing; answering "no match" (or printing nothing) with status 0 hides the typo.
    with pytest.raises(SystemExit) as info:
        main(["--state", str(tmp_path), *command, "  "])
    assert info.value.code == 2
    assert "the query is empty" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["run", "--port", "99999"], ["run", "--port", "-1"],
                                     ["kumiho-test-server", "--port", "70000"]])
def test_a_port_out_of_range_is_a_usage_error_before_anything_starts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    # Caught by the socket's bind() only after the index and the database were built, it was an
    # "internal error: OverflowError".
    with pytest.raises(SystemExit) as info:
        main(["--state", str(tmp_path), *command])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "is not a TCP port (0-65535" in err and "internal error" not in err


def test_url_and_adapter_together_are_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # The named entry used to win and the URL was dropped silently: the command ran on another board.
    with pytest.raises(SystemExit) as info:
        main(["--state", str(tmp_path), "gpio", "write", "red_led", "1", "--adapter", "nucleo-f401re",
              "--url", "sim://nucleo-f446re"])
    assert info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
