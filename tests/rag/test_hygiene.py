"""What the datasheet directory indexes: not the folder's own README/SOURCES/LICENSE/CHANGELOG or
dotfiles, not what .ragignore lists, not symlinks leaving the directory; Latin-1/cp1252 text decoded;
files read by name in any letter case; PDF chunks carry their page."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from edge_agent.errors import DatasheetError
from edge_agent.rag import HardwareRag, pin_index_for

from .test_bad_input import _minimal_pdf


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    root.mkdir()
    (root / "bme280.md").write_text("# BME280\n## Chip id\nRegister 0xD0 reads 0x60.\n")
    return root


def _sources(rag: HardwareRag) -> list[str]:
    return [f.source for f in rag.files()]


def test_folder_descriptions_and_dotfiles_are_not_indexed(root: Path) -> None:
    for name in ("README.md", "readme.txt", "SOURCES.md", "LICENSE.md", "Changelog.md", ".draft.md"):
        (root / name).write_text("# About this folder\nThe chip id register 0xD0 of the BME280 is documented here.\n")
    (root / "vendor").mkdir()
    (root / "vendor" / "README.md").write_text("# Vendor notes\nchip id register 0xD0\n")
    (root / ".cache").mkdir()
    (root / ".cache" / "bme280-copy.md").write_text("# Copy\nchip id register 0xD0\n")
    rag = HardwareRag.load(root)
    assert _sources(rag) == ["bme280.md"]
    assert [c.source for c in rag.search("BME280 chip id register")] == ["bme280.md"]


def test_ragignore_adds_gitignore_patterns(root: Path) -> None:
    (root / ".ragignore").write_text("# not for the agent\ndrafts/\n*.old.md\n!keep.old.md\n")
    (root / "drafts").mkdir()
    (root / "drafts" / "wip.md").write_text("# WIP\nchip id\n")
    (root / "bme280.old.md").write_text("# Old\nchip id\n")
    (root / "keep.old.md").write_text("# Kept\nchip id\n")
    (root / "sub").mkdir()
    (root / "sub" / "x.old.md").write_text("# Old too\nchip id\n")
    assert _sources(HardwareRag.load(root)) == ["bme280.md", "keep.old.md"]
    assert pin_index_for(root).entries == ()  # the pin index reads the same files


def test_latin1_and_cp1252_files_are_decoded_not_replaced(root: Path) -> None:
    text = "# Capteur\nTempérature \u2013 registre 0xFA \u201cMSB\u201d, 5 \u00b0C\n"
    (root / "capteur.md").write_bytes(text.encode("cp1252"))
    rag = HardwareRag.load(root)
    [problem] = [p for p in rag.problems if p.source == "capteur.md"]
    assert problem.kind == "utf8" and "Windows-1252" in problem.message
    top = rag.search("température registre 0xFA")[0]
    assert top.source == "capteur.md"
    assert "Température \u2013 registre 0xFA \u201cMSB\u201d, 5 \u00b0C" in top.text and "\ufffd" not in top.text


def test_datasheet_read_finds_files_in_any_letter_case(root: Path) -> None:
    (root / "boards").mkdir()
    (root / "boards" / "NUCLEO-F401RE.md").write_text("# Nucleo\n## LED\nLD2 is PA5.\n")
    rag = HardwareRag.load(root)
    assert "LD2 is PA5" in rag.read("boards/nucleo-f401re.md")
    assert "LD2 is PA5" in rag.read("Nucleo-F401RE.MD")  # the file name alone, when one file fits
    assert "0x60" in rag.read("BME280.md", "chip ID")
    with pytest.raises(DatasheetError, match="no datasheet"):
        rag.read("missing.md")


def test_pdf_chunks_cite_their_page(root: Path) -> None:
    pytest.importorskip("pypdf")
    (root / "part.pdf").write_bytes(_minimal_pdf("USART2 baud rate register BRR at offset 0x08"))
    rag = HardwareRag.load(root)
    top = rag.search("USART2 baud rate register")[0]
    assert (top.source, top.page) == ("part.pdf", 1)
    assert rag.search("chip id register")[0].page is None
    assert "--- part.pdf page 1 (part) ---" in rag.context("USART2 baud rate register")


def test_symlinks_leaving_the_directory_are_reported_and_not_followed(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\nThe launch code register is 0x42.\n")
    os.symlink(outside / "secret.md", root / "secret.md")
    os.symlink(outside, root / "elsewhere")
    os.symlink(root / "bme280.md", root / "alias-inside.md")  # stays inside: indexed
    rag = HardwareRag.load(root)
    assert _sources(rag) == ["alias-inside.md", "bme280.md"]
    kinds = {p.source: p.kind for p in rag.problems}
    assert kinds["secret.md"] == "outside" and kinds["elsewhere"] == "outside"
    assert all("launch" not in c.text for c in rag.search("launch code register"))
    with pytest.raises(DatasheetError):
        rag.read("secret.md")


def test_a_symlinked_datasheet_directory_itself_is_followed(root: Path, tmp_path: Path) -> None:
    link = tmp_path / "link-to-ds"
    os.symlink(root, link)
    assert _sources(HardwareRag.load(link)) == ["bme280.md"]


def test_a_directory_scan_leaves_nothing_for_the_garbage_collector(tmp_path: Path) -> None:
    """The listing of a large library (10,000 files: a few MB) is freed when the caller drops it, not kept
    by a reference cycle until the next full collection."""
    import gc
    import weakref

    from edge_agent.rag.files import scan

    (tmp_path / "sub").mkdir()
    for i in range(3):
        (tmp_path / "sub" / f"part{i}.md").write_text(f"# Part {i}\n")
    gc.disable()
    try:
        files, _ = scan(tmp_path)
        first = weakref.ref(files[0])
        del files
        assert first() is None
    finally:
        gc.enable()
