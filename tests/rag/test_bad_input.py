"""Bad datasheet input: each case is a clear warning (a Problem on the index), never a crash, nothing else lost."""

from __future__ import annotations

import builtins
import os
import zlib
from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag
from edge_agent.rag.files import MAX_FILE_BYTES


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    root.mkdir()
    (root / "good.md").write_text("# Good\n## Chip id\nRegister 0xD0 reads 0x60.\n")
    return root


def _kinds(rag: HardwareRag) -> dict[str, str]:
    return {p.source: p.kind for p in rag.problems}


def _good_still_answers(rag: HardwareRag) -> None:
    assert rag.search("chip id register")[0].source == "good.md"


def test_binary_data_in_a_markdown_file_is_skipped_with_a_warning(root: Path) -> None:
    (root / "blob.md").write_bytes(b"# Title\n\x00\x01\x02\xff\xfe binary junk" * 50)
    rag = HardwareRag.load(root)
    assert _kinds(rag)["blob.md"] == "binary"
    _good_still_answers(rag)


def test_invalid_utf8_is_indexed_with_replacement_characters_and_a_warning(root: Path) -> None:
    (root / "latin1.md").write_bytes("# Capteur\nTempérature du registre 0xFA\n".encode("latin-1"))
    rag = HardwareRag.load(root)
    assert _kinds(rag)["latin1.md"] == "utf8"
    assert rag.search("registre 0xFA")[0].source == "latin1.md"
    _good_still_answers(rag)


def test_a_50_mb_file_is_capped_with_a_warning(root: Path) -> None:
    line = b"filler line about an unrelated register map entry\n"
    with open(root / "huge.txt", "wb") as fh:
        fh.write(b"# Huge\nfirst section mentions the watchdog prescaler\n")
        fh.write(line * (50 * 1024 * 1024 // len(line)))
        fh.write(b"the very last line mentions a flux capacitor\n")
    rag = HardwareRag.load(root, max_file_bytes=MAX_FILE_BYTES)
    assert _kinds(rag)["huge.txt"] == "too_large"
    assert rag.search("watchdog prescaler")[0].source == "huge.txt"
    assert rag.search("flux capacitor") == []
    _good_still_answers(rag)


def test_empty_files_are_skipped_with_a_warning(root: Path) -> None:
    (root / "empty.md").write_text("")
    (root / "blank.txt").write_text("\n   \n")
    rag = HardwareRag.load(root)
    assert _kinds(rag)["empty.md"] == "empty" and _kinds(rag)["blank.txt"] == "empty"
    _good_still_answers(rag)


def test_unreadable_files_are_skipped_with_a_warning(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "dangling.md").symlink_to(root / "gone.md")  # stat fails
    (root / "locked.md").write_text("# Locked\nsecret\n")
    real_open = builtins.open

    def deny(file: object, *args: object, **kwargs: object) -> object:
        if str(file).endswith("locked.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", deny)  # root ignores chmod 000, so refuse at the OS call
    rag = HardwareRag.load(root)
    assert _kinds(rag)["dangling.md"] == "unreadable"
    assert _kinds(rag)["locked.md"] == "unreadable"
    _good_still_answers(rag)


def test_symlink_loops_are_reported_and_not_followed_forever(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "part.md").write_text("# Part\nspi clock phase\n")
    (root / "sub" / "back").symlink_to(root, target_is_directory=True)
    (root / "self.md").symlink_to(root / "self.md")
    rag = HardwareRag.load(root)
    kinds = _kinds(rag)
    assert kinds["sub/back"] == "loop" and kinds["self.md"] == "loop"
    assert [f.source for f in rag.files()] == ["good.md", "sub/part.md"]
    _good_still_answers(rag)


def test_malformed_alias_tables_are_reported_and_valid_lines_kept(root: Path) -> None:
    (root / "nucleo-f401re.md").write_text(
        "# N\n## Pin Aliases\n| colour | where |\n| --- | --- |\n| red | PA5 |\n\n"
        "blue_led: PB7\n"
        "| alias | pin |\n| --- | --- |\n| short |\n| user_led | PA5 |\n"
        "empty_alias:\n"
    )
    rag = HardwareRag.load(root)
    alias_problems = [p for p in rag.problems if p.kind == "alias"]
    assert len(alias_problems) == 3  # header without alias/pin columns, short row, empty value
    assert rag.aliases("nucleo-f401re") == {"blue_led": "PB7", "user_led": "PA5"}


def test_the_same_board_in_two_files_is_reported_and_both_are_indexed(root: Path) -> None:
    (root / "nucleo-f401re.md").write_text("# N\nLD2 is the user LED\n")
    (root / "more").mkdir()
    (root / "more" / "NUCLEO-F401RE.txt").write_text("# N2\nB1 is the user button\n")
    rag = HardwareRag.load(root)
    dup = [p for p in rag.problems if p.kind == "duplicate_board"]
    assert len(dup) == 1 and "nucleo-f401re.md" in dup[0].message and "more/NUCLEO-F401RE.txt" in dup[0].message
    assert {c.source for c in rag.search("user LED button", ["nucleo-f401re"])} == {
        "nucleo-f401re.md", "more/NUCLEO-F401RE.txt"}


def test_problems_of_unchanged_files_are_reported_again_after_a_restart(root: Path, state: Path) -> None:
    (root / "empty.md").write_text("")
    HardwareRag.load(root, index_dir=state)
    again = HardwareRag.load(root, index_dir=state)
    assert again.stats["indexed"] == 0 and _kinds(again)["empty.md"] == "empty"


# --- PDFs -----------------------------------------------------------------------------------------------


def _minimal_pdf(text: str) -> bytes:
    """A one-page PDF with `text` in Helvetica (hand-built: pypdf cannot typeset text)."""
    stream = zlib.compress(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def test_pdfs_are_indexed_by_page_with_the_pdf_extra(root: Path) -> None:
    pytest.importorskip("pypdf")
    (root / "stm32f401-datasheet.pdf").write_bytes(_minimal_pdf("USART2 baud rate register BRR at offset 0x08"))
    rag = HardwareRag.load(root)
    top = rag.search("USART2 baud rate register")[0]
    assert (top.source, top.board, top.heading) == ("stm32f401-datasheet.pdf", "stm32f401-datasheet", "page 1")


def test_without_pypdf_a_pdf_is_skipped_with_one_warning_naming_file_and_extra(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "part.pdf").write_bytes(_minimal_pdf("hello"))
    real_import = builtins.__import__

    def no_pypdf(name: str, *args: object, **kwargs: object) -> object:
        if name == "pypdf":
            raise ImportError("No module named 'pypdf'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_pypdf)
    rag = HardwareRag.load(root)
    pdf = [p for p in rag.problems if p.kind == "pdf"]
    assert len(pdf) == 1 and pdf[0].source == "part.pdf" and "edge-agent[pdf]" in pdf[0].message
    _good_still_answers(rag)


def test_a_broken_pdf_is_skipped_with_a_warning(root: Path) -> None:
    pytest.importorskip("pypdf")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a real pdf")
    rag = HardwareRag.load(root)
    assert _kinds(rag)["broken.pdf"] in ("pdf", "empty")
    _good_still_answers(rag)


def test_files_are_found_in_sorted_order_whatever_the_directory_order(root: Path) -> None:
    for name in ("z.md", "a.md", "m.md"):
        (root / name).write_text(f"# {name}\nsame\n")
    assert [f.source for f in HardwareRag.load(root).files()] == ["a.md", "good.md", "m.md", "z.md"]
    assert os.listdir(root)  # sanity: the directory is real
