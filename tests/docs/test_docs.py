"""The manual stays short, linked, current and true.

Conventions the tests enforce on ``README.md`` and ``docs/*.md``:

- ```` ```console ```` blocks are run: each ``$ edge-agent ARGS`` line runs the CLI with a fresh
  state directory per page (shared by the page's blocks, so a later command sees what an earlier one
  stored) and no config file, and the lines up to the next ``$`` line are its expected standard
  output (its standard error when it exits non-zero). ``...`` stands for any text, also across lines;
  runs of whitespace compare equal.
- ```` ```toml ```` blocks are whole config files: each must pass ``edge-agent config check``.
"""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

from edge_agent import docs_gen
from edge_agent.cli import main

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("**/*.md"))]
README_LIMIT = 8192
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _page_id(page: Path) -> str:
    return str(page.relative_to(REPO))


def _blocks(page: Path, language: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(page.read_text(encoding="utf-8")) if m.group(1) == language]


def _prose(page: Path) -> str:
    """The page without its fenced blocks and inline code, where links are never meant."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return re.sub(r"`[^`\n]*`", "", text)


def test_the_generated_reference_pages_are_current() -> None:
    stale = docs_gen.stale_pages(DOCS)
    assert not stale, (
        f"{', '.join('docs/' + s for s in stale)} no longer match the config models / CLI parser: "
        "run `make docs` and commit the result"
    )


def test_the_readme_stays_within_8_kib() -> None:
    size = len((REPO / "README.md").read_bytes())
    assert size <= README_LIMIT, (
        f"README.md is {size} bytes (limit {README_LIMIT}); put the detail in a page under docs/ and link it"
    )


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_relative_link_resolves_to_a_file(page: Path) -> None:
    broken = []
    for target in LINK.findall(_prose(page)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or an anchor in the same page
        path = target.split("#", 1)[0]
        if not (page.parent / path).exists():
            broken.append(target)
    assert not broken, f"{_page_id(page)} links to missing files: {', '.join(broken)}"


def test_every_manual_page_is_linked_from_the_readme_or_another_page() -> None:
    linked = set()
    for page in PAGES:
        for target in LINK.findall(_prose(page)):
            linked.add((page.parent / target.split("#", 1)[0]).resolve())
    orphans = [_page_id(p) for p in PAGES[1:] if p.resolve() not in linked]
    assert not orphans, f"pages nothing links to: {', '.join(orphans)}"


def _examples(block: str) -> list[tuple[str, str]]:
    """(command line, expected output) pairs of one console block."""
    examples: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            examples.append((line[2:], []))
        elif examples:
            examples[-1][1].append(line)
        elif line.strip():
            raise AssertionError(f"console block starts with output, not a `$ ` command: {line!r}")
    return [(cmd, "\n".join(out) + "\n" if out else "") for cmd, out in examples]


CONSOLE_PAGES = [p for p in PAGES if _blocks(p, "console")]


@pytest.mark.parametrize("page", CONSOLE_PAGES, ids=_page_id)
def test_console_examples_print_what_the_page_shows(
    page: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # no ./edge-agent.toml: the embedded defaults, as on a fresh checkout
    state = tmp_path / "state"
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    ran = 0
    for block in _blocks(page, "console"):
        for command, expected in _examples(block):
            argv = shlex.split(command)
            assert argv[0] == "edge-agent", f"{_page_id(page)}: console examples run edge-agent only: {command}"
            capsys.readouterr()
            code = main(["--state", str(state), *argv[1:]])
            out, err = capsys.readouterr()
            got = out if code == 0 else err
            if not checker.check_output(expected, got, flags):
                example = doctest.Example(command, expected)
                raise AssertionError(
                    f"{_page_id(page)}: `$ {command}` (exit {code})\n" + checker.output_difference(example, got, flags)
                )
            ran += 1
    assert ran


TOML_BLOCKS = [(p, i, b) for p in PAGES for i, b in enumerate(_blocks(p, "toml"))]


@pytest.mark.parametrize(("page", "index", "block"), TOML_BLOCKS, ids=[f"{_page_id(p)}#{i}" for p, i, _ in TOML_BLOCKS])
def test_toml_examples_pass_config_check(
    page: Path,
    index: int,
    block: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text(block, encoding="utf-8")
    code = main(["--state", str(tmp_path / "state"), "config", "check", str(config)])
    assert code == 0, f"{_page_id(page)}, toml block {index + 1}:\n{capsys.readouterr().err}"


def _readme_block(heading: str) -> str:
    """The first fenced block under a README heading."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    match = FENCE.search(section)
    assert match, f"README.md: no code block under '## {heading}'"
    return match.group(2)


def test_the_quick_start_is_make_run_and_make_test_and_both_are_makefile_targets() -> None:
    commands = [line.strip() for line in _readme_block("Quick start").splitlines() if line.strip()]
    assert commands == ["make run", "make test"]
    targets = re.findall(r"^([\w-]+):", (REPO / "Makefile").read_text(encoding="utf-8"), re.M)
    assert {"run", "test"} <= set(targets), f"Makefile targets: {targets}"


def test_the_readme_first_session_commands_succeed_on_the_simulated_board(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = 0
    for line in _readme_block("A first session").splitlines():
        argv = shlex.split(line, comments=True)
        if not argv or argv[0] == "export":
            continue
        assert argv[0] == ".venv/bin/edge-agent", f"README first session runs the checkout's CLI: {line}"
        code = main(["--state", str(tmp_path / "state"), *argv[1:]])
        assert code == 0, f"README.md: `{line}` exited {code}: {capsys.readouterr().err}"
        ran += 1
    assert ran >= 3
