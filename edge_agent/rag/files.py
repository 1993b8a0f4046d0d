"""Finding and reading datasheet files safely: sorted walk, cycle guard, size cap, text checks.

Not indexed: dotfiles and dot-directories; files whose name starts with README, SOURCES, LICENSE or
CHANGELOG (in any letter case: they describe the folder, not the hardware); anything a ``.ragignore``
file in the datasheet directory matches (gitignore syntax, read with the ``pathspec`` library); and
any file or directory whose real path lies outside the datasheet directory (a symlink pointing
elsewhere is reported, never followed). Text that is not UTF-8 is decoded as Windows-1252 (which
covers Latin-1) with a warning.

Every problem becomes a :class:`Problem` (logged as a warning and kept on the index) instead of an
exception, so one bad file never hides the others.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pathspec

from edge_agent.pins.datasheet import board_tag

log = logging.getLogger(__name__)

TEXT_SUFFIXES = (".md", ".txt")
PDF_SUFFIX = ".pdf"
#: Files larger than this are read only up to the cap (a 50 MB log dumped into the folder must not
#: stall start-up or fill memory). Datasheet notes are a few kB; 4 MiB leaves room for big exports.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Share of control bytes (other than tab, newline, carriage return, form feed) above which a file that is
#: not UTF-8 is treated as binary rather than as Windows-1252 / Latin-1 text.
_MAX_CONTROL_SHARE = 0.01
#: Names of files that describe the folder (provenance, licence, history), not the hardware.
SKIPPED_PREFIXES = ("readme", "sources", "license", "licence", "changelog")
IGNORE_FILE = ".ragignore"


@dataclass(frozen=True)
class Problem:
    """A warning about one datasheet file (kind: binary, utf8, too_large, empty, unreadable, loop, pdf, alias)."""

    source: str
    kind: str
    message: str


@dataclass(frozen=True)
class DocFile:
    """A datasheet file found under the datasheet directory."""

    fspath: str  # where to open it (a str: 10,000 Path objects per directory scan add up)
    rel: str  # POSIX path relative to the datasheet directory
    board: str | None  # board tag (file stem, lowercased) or None for generic files
    kind: str  # "text" or "pdf"
    size: int
    mtime_ns: int

    @property
    def path(self) -> Path:
        return Path(self.fspath)


def scan(root: Path) -> tuple[list[DocFile], list[Problem]]:
    """List datasheet files under `root` in sorted order, following symlinks but never in a loop.

    A missing or non-directory `root` gives no files and no problems (an empty index, not an error).
    """
    files: list[DocFile] = []
    problems: list[Problem] = []
    if not root.is_dir():
        return files, problems
    seen_dirs: set[tuple[int, int]] = set()
    real_root = os.path.realpath(root)
    ignore = _ignore_spec(root, problems)

    def walk(directory: Path, rel_prefix: str, real_dir: str | None = None) -> None:
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
        if real_dir is None:
            real_dir = os.path.realpath(directory)
        for entry in entries:
            rel = f"{rel_prefix}{entry.name}"
            if entry.name.startswith("."):
                continue
            # Only a symlink can lead outside: a plain entry lies in its (already checked) directory. Resolving
            # every path would cost a readlink per path component per file on a 10,000-file library.
            link = entry.is_symlink()
            real = os.path.realpath(entry.path) if link else os.path.join(real_dir, entry.name)
            if link and os.path.commonpath([real_root, real]) != real_root:
                problems.append(_problem(rel, "outside", "is a symlink to a path outside the datasheet directory; "
                                         "not indexed (copy the file into the directory to index it)"))
                continue
            try:
                est = os.stat(entry.path)  # follows symlinks
            except OSError as exc:
                kind = "loop" if exc.errno == 40 else "unreadable"  # ELOOP: a link pointing at itself
                problems.append(_problem(rel, kind, f"cannot stat: {exc.strerror}"))
                continue
            if stat.S_ISDIR(est.st_mode):
                if ignore is None or not ignore.match_file(rel + "/"):
                    walk(Path(entry.path), rel + "/", real)  # noqa: F821  (the cell is emptied after the walk)
                continue
            if not stat.S_ISREG(est.st_mode):
                continue
            if entry.name.lower().startswith(SKIPPED_PREFIXES) or (ignore is not None and ignore.match_file(rel)):
                continue
            suffix = os.path.splitext(entry.name)[1].lower()
            if suffix in TEXT_SUFFIXES:
                kind = "text"
            elif suffix == PDF_SUFFIX:
                kind = "pdf"
            else:
                continue
            files.append(DocFile(entry.path, rel, board_tag(rel), kind, est.st_size, est.st_mtime_ns))

    walk(root, "")
    # walk calls itself through its closure cell, a cycle that would keep the whole listing (and this scan's
    # directory set) alive until the next full garbage collection: emptying the cell frees it on return
    del walk
    return files, problems


def scan_paths(root: Path, rels: Iterable[str]) -> tuple[list[DocFile], list[Problem]]:
    """The files among `rels` (POSIX paths relative to `root`) that :func:`scan` would list, checked the
    same way (dotfiles, folder descriptions, ``.ragignore``, symlinks leaving the directory, suffixes),
    in sorted order. A path that no longer exists is simply not listed."""
    files: list[DocFile] = []
    problems: list[Problem] = []
    if not root.is_dir():
        return files, problems
    real_root = os.path.realpath(root)
    ignore = _ignore_spec(root, problems)
    for rel in sorted(set(rels)):
        parts = rel.split("/")
        if any(not p or p.startswith(".") for p in parts) or parts[-1].lower().startswith(SKIPPED_PREFIXES):
            continue
        if ignore is not None and (ignore.match_file(rel) or any(
                ignore.match_file("/".join(parts[:i]) + "/") for i in range(1, len(parts)))):
            continue
        path = os.path.join(root, *parts)
        if os.path.commonpath([real_root, os.path.realpath(path)]) != real_root:
            if os.path.lexists(path):
                problems.append(_problem(rel, "outside", "is a symlink to a path outside the datasheet directory; "
                                         "not indexed (copy the file into the directory to index it)"))
            continue
        try:
            est = os.stat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(_problem(rel, "loop" if exc.errno == 40 else "unreadable", f"cannot stat: {exc.strerror}"))
            continue
        suffix = os.path.splitext(parts[-1])[1].lower()
        kind = "text" if suffix in TEXT_SUFFIXES else "pdf" if suffix == PDF_SUFFIX else None
        if kind is not None and stat.S_ISREG(est.st_mode):
            files.append(DocFile(path, rel, board_tag(rel), kind, est.st_size, est.st_mtime_ns))
    return files, problems


def _ignore_spec(root: Path, problems: list[Problem]) -> pathspec.GitIgnoreSpec | None:
    """The `.ragignore` patterns of the datasheet directory, or None without one."""
    path = root / IGNORE_FILE
    if not path.is_file():
        return None
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except (OSError, ValueError) as exc:  # pathspec raises ValueError subclasses for bad patterns
        problems.append(_problem(IGNORE_FILE, "unreadable", f"cannot be used ({exc}); every file is indexed"))
        return None


def read_text(doc: DocFile, max_bytes: int = MAX_FILE_BYTES) -> tuple[str | None, list[Problem]]:
    """Read a text datasheet; None when it must be skipped. Problems say what was wrong and what was done."""
    problems: list[Problem] = []
    try:
        with open(doc.fspath, "rb") as fh:
            # as much as the file holds and a byte more, not the cap: a read of the cap sets aside the cap's 4 MiB
            # first, which cost more than reading a datasheet of a few kB; a file grown since is read on to the cap
            want = min(max_bytes, os.fstat(fh.fileno()).st_size) + 1
            raw = fh.read(want)
            if len(raw) == want <= max_bytes:
                raw += fh.read(max_bytes + 1 - want)
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
        controls = sum(1 for b in raw if b < 0x20 and b not in (0x09, 0x0A, 0x0C, 0x0D))
        if controls > _MAX_CONTROL_SHARE * len(raw):
            return None, [*problems, _problem(doc.rel, "binary", "is neither UTF-8 nor Windows-1252 text "
                                              "(control bytes), skipped")]
        # Windows-1252 leaves five bytes undefined; those fall back to Latin-1 so nothing is lost.
        text = "".join(ch.decode("cp1252", errors="strict") if ch[0] not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
                       else ch.decode("latin-1") for ch in (raw[i:i + 1] for i in range(len(raw)))) \
            if any(b in raw for b in (0x81, 0x8D, 0x8F, 0x90, 0x9D)) else raw.decode("cp1252")
        problems.append(_problem(doc.rel, "utf8", "is not valid UTF-8; decoded as Windows-1252 (Latin-1); "
                                 "re-save the file as UTF-8 to silence this"))
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
        reader = pypdf.PdfReader(doc.fspath)
        pages = [(i + 1, (page.extract_text() or "")) for i, page in enumerate(reader.pages)]
    except Exception as exc:  # pypdf raises many unrelated types for broken files
        return None, [_problem(doc.rel, "pdf", f"could not be parsed as PDF ({type(exc).__name__}: {exc}), skipped")]
    if not any(text.strip() for _, text in pages):
        return None, [_problem(doc.rel, "empty", "PDF has no extractable text (scanned image?), skipped")]
    return pages, []


def _problem(source: str, kind: str, message: str) -> Problem:
    log.warning("datasheet %s: %s", source, message)
    return Problem(source, kind, message)
