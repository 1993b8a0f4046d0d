"""Finding and reading datasheet files safely: sorted walk, cycle guard, size cap, text checks.

Every problem becomes a :class:`Problem` (logged as a warning and kept on the index) instead of an
exception, so one bad file never hides the others.
"""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from edge_agent.pins.datasheet import board_tag

log = logging.getLogger(__name__)

TEXT_SUFFIXES = (".md", ".txt")
PDF_SUFFIX = ".pdf"
#: Files larger than this are read only up to the cap (a 50 MB log dumped into the folder must not
#: stall start-up or fill memory). Datasheet notes are a few kB; 4 MiB leaves room for big exports.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Share of undecodable bytes above which a file is treated as binary rather than text.
_MAX_BAD_UTF8_SHARE = 0.05


@dataclass(frozen=True)
class Problem:
    """A warning about one datasheet file (kind: binary, utf8, too_large, empty, unreadable, loop, pdf, alias)."""

    source: str
    kind: str
    message: str


@dataclass(frozen=True)
class DocFile:
    """A datasheet file found under the datasheet directory."""

    path: Path
    rel: str  # POSIX path relative to the datasheet directory
    board: str | None  # board tag (file stem, lowercased) or None for generic files
    kind: str  # "text" or "pdf"
    size: int
    mtime_ns: int


def scan(root: Path) -> tuple[list[DocFile], list[Problem]]:
    """List datasheet files under `root` in sorted order, following symlinks but never in a loop.

    A missing or non-directory `root` gives no files and no problems (an empty index, not an error).
    """
    files: list[DocFile] = []
    problems: list[Problem] = []
    if not root.is_dir():
        return files, problems
    seen_dirs: set[tuple[int, int]] = set()

    def walk(directory: Path, rel_prefix: str) -> None:
        try:
            st = directory.stat()
        except OSError as exc:
            problems.append(_problem(rel_prefix or ".", "unreadable", f"cannot open directory: {exc.strerror}"))
            return
        ident = (st.st_dev, st.st_ino)
        if ident in seen_dirs:
            problems.append(_problem(rel_prefix.rstrip("/"), "loop", "symlink loop (directory seen before), skipped"))
            return
        seen_dirs.add(ident)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            problems.append(_problem(rel_prefix or ".", "unreadable", f"cannot list directory: {exc.strerror}"))
            return
        for entry in entries:
            rel = f"{rel_prefix}{entry.name}"
            if entry.name.startswith("."):
                continue
            try:
                est = os.stat(entry.path)  # follows symlinks
            except OSError as exc:
                kind = "loop" if exc.errno == 40 else "unreadable"  # ELOOP: a link pointing at itself
                problems.append(_problem(rel, kind, f"cannot stat: {exc.strerror}"))
                continue
            if stat.S_ISDIR(est.st_mode):
                walk(Path(entry.path), rel + "/")
                continue
            if not stat.S_ISREG(est.st_mode):
                continue
            suffix = os.path.splitext(entry.name)[1].lower()
            if suffix in TEXT_SUFFIXES:
                kind = "text"
            elif suffix == PDF_SUFFIX:
                kind = "pdf"
            else:
                continue
            files.append(DocFile(Path(entry.path), rel, board_tag(rel), kind, est.st_size, est.st_mtime_ns))

    walk(root, "")
    return files, problems


def read_text(doc: DocFile, max_bytes: int = MAX_FILE_BYTES) -> tuple[str | None, list[Problem]]:
    """Read a text datasheet; None when it must be skipped. Problems say what was wrong and what was done."""
    problems: list[Problem] = []
    try:
        with open(doc.path, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        return None, [_problem(doc.rel, "unreadable", f"cannot read: {exc.strerror}; fix its permissions")]
    if len(raw) > max_bytes:
        raw = raw[:max_bytes]
        cut = raw.rfind(b"\n")
        raw = raw[: cut + 1] if cut > 0 else raw
        problems.append(_problem(doc.rel, "too_large", f"larger than {max_bytes // (1024 * 1024)} MiB; only the "
                                 "first part is indexed (split the file to index all of it)"))
    if not raw.strip():
        return None, [*problems, _problem(doc.rel, "empty", "empty file, skipped")]
    sample = raw[:8192]
    if b"\x00" in sample:
        return None, [*problems, _problem(doc.rel, "binary", "contains binary data (NUL bytes), skipped; "
                                          "datasheets must be Markdown or plain text (PDFs need the .pdf suffix)")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        bad = text.count("\ufffd")
        if bad > _MAX_BAD_UTF8_SHARE * max(len(text), 1):
            return None, [*problems, _problem(doc.rel, "binary", "is not UTF-8 text (mostly undecodable), skipped")]
        problems.append(_problem(doc.rel, "utf8", f"is not valid UTF-8: {bad} undecodable byte(s) replaced with "
                                 "U+FFFD; re-save the file as UTF-8"))
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n"), problems


def read_pdf(doc: DocFile) -> tuple[list[tuple[int, str]] | None, list[Problem]]:
    """Extract (page number, text) pairs from a PDF with pypdf; None when pypdf is missing or the PDF is bad."""
    try:
        import pypdf  # optional: the `pdf` extra
    except ImportError:
        return None, [_problem(doc.rel, "pdf", "skipped: reading PDFs needs pypdf; "
                               "install it with: pip install 'edge-agent[pdf]'")]
    try:
        reader = pypdf.PdfReader(str(doc.path))
        pages = [(i + 1, (page.extract_text() or "")) for i, page in enumerate(reader.pages)]
    except Exception as exc:  # pypdf raises many unrelated types for broken files
        return None, [_problem(doc.rel, "pdf", f"could not be parsed as PDF ({type(exc).__name__}: {exc}), skipped")]
    if not any(text.strip() for _, text in pages):
        return None, [_problem(doc.rel, "empty", "PDF has no extractable text (scanned image?), skipped")]
    return pages, []


def _problem(source: str, kind: str, message: str) -> Problem:
    log.warning("datasheet %s: %s", source, message)
    return Problem(source, kind, message)
