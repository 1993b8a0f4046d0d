"""bench/_sections.py: every bench module rewrites only its own BENCHMARKS.md section."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._sections import replace_section  # noqa: E402

DOC = ("# Benchmarks\n\n<!-- section: bus -->\nold bus\n<!-- end: bus -->\n\n"
       "<!-- section: sync -->\nold sync\n<!-- end: sync -->\n")


def test_replacing_a_section_keeps_every_other_section_and_the_markers(tmp_path: Path) -> None:
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(DOC)
    replace_section("bus", "| figure | 1 |", doc)
    assert doc.read_text() == DOC.replace("old bus\n", "| figure | 1 |\n")
    replace_section("bus", "| figure | 2 |\n", doc)  # with or without a final newline: the same layout
    assert doc.read_text() == DOC.replace("old bus\n", "| figure | 2 |\n")


def test_a_missing_section_is_an_error_naming_the_markers_and_nothing_is_written(tmp_path: Path) -> None:
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(DOC)
    with pytest.raises(ValueError, match="section: memory"):
        replace_section("memory", "x", doc)
    assert doc.read_text() == DOC


@pytest.mark.parametrize("module", ["bridge", "bus", "inference", "memory", "runtime", "sync"])
def test_every_bench_module_writes_its_section_through_the_shared_helper(module: str) -> None:
    import importlib

    from bench import _sections

    mod = importlib.import_module(f"bench.{module}")
    assert getattr(mod, "publish", None) is _sections.publish or mod.replace_section is replace_section


def test_publish_prints_the_section_and_stores_it_unless_no_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench import _sections

    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(DOC)
    _sections.publish("bus", lambda: "| figure | 9 |", ["--no-write"], path=doc)
    assert "| figure | 9 |" in capsys.readouterr().out and doc.read_text() == DOC
    _sections.publish("bus", lambda: "| figure | 9 |", [], path=doc)
    assert "| figure | 9 |" in doc.read_text() and "old sync" in doc.read_text()


def test_an_unknown_argument_stops_the_bench_before_it_runs_or_writes(tmp_path: Path) -> None:
    from bench import _sections

    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(DOC)
    ran: list[bool] = []
    with pytest.raises(SystemExit, match="unknown argument '--nowrite'"):
        _sections.publish("bus", lambda: ran.append(True) or "x", ["--nowrite"], path=doc)
    assert not ran and doc.read_text() == DOC


def test_help_prints_the_usage_and_runs_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench import _sections

    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(DOC)
    ran: list[bool] = []
    _sections.publish("bus", lambda: ran.append(True) or "x", ["--help"], path=doc, flags=("--lookups",))
    assert "usage: python -m bench.bus [--no-write] [--lookups]" in capsys.readouterr().out
    assert not ran and doc.read_text() == DOC


def test_a_value_option_takes_the_next_argument_and_needs_one(tmp_path: Path) -> None:
    from bench import _sections

    assert _sections.check_arguments("x", ["--baseline-src", "--odd-path", "--no-write"],
                                     values=("--baseline-src",))
    with pytest.raises(SystemExit, match="--baseline-src needs a value"):
        _sections.check_arguments("x", ["--baseline-src"], values=("--baseline-src",))
