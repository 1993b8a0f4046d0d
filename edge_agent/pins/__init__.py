"""Board pin data and the pin index that turns any name of a pin into the pin.

* :mod:`edge_agent.pins.boards`: board files (``boards/<id>.toml``), the authority for each board;
* :mod:`edge_agent.pins.datasheet`: pin-alias sections and pin tables parsed from datasheet text;
* :mod:`edge_agent.pins.index`: :class:`PinIndex`, built once from both and shared by every caller;
* :mod:`edge_agent.pins.lookup`: one board's names and how a name is found among them.

The module-level :func:`resolve`, :func:`aliases_for` and :func:`pins_on` take the index to use; without
one they use :func:`default_index`: the board files and the datasheets shipped with the package (the
embedded default configuration's datasheets). They never look for a configuration file: a caller
whose configuration names other datasheets passes the index built from them (the runtime does).
"""

from __future__ import annotations

import threading

from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins.boards import (
    Board,
    BoardDataError,
    Pin,
    PinReport,
    get_board,
    list_boards,
    load_board_file,
    name_key,
)
from edge_agent.pins.datasheet import AliasEntry, board_tag, parse_aliases
from edge_agent.pins.index import Contradiction, PinIndex

__all__ = [
    "AliasEntry", "Board", "BoardDataError", "Contradiction", "Pin", "PinIndex", "PinReport", "aliases_for",
    "default_index", "get_board", "list_boards", "load_board_file", "name_key", "parse_aliases", "pins_on",
    "resolve",
]

_default: PinIndex | None = None
_default_lock = threading.Lock()


def default_index() -> PinIndex:
    """The index of the board files and the bundled datasheets, built on first use."""
    global _default
    with _default_lock:
        if _default is None:
            entries: list[AliasEntry] = []
            root = bundled_datasheets_dir()
            for path in sorted(root.iterdir()) if root.is_dir() else []:
                if path.suffix.lower() in (".md", ".txt") and not path.name.startswith("."):
                    text = path.read_text(encoding="utf-8", errors="replace")
                    entries.extend(parse_aliases(text, path.name, board_tag(path.name))[0])
            _default = PinIndex(entries)
        return _default


def resolve(board: str, name: str | int, index: PinIndex | None = None) -> Pin:
    """Resolve `name` on `board` with `index` (default: :func:`default_index`). See :meth:`PinIndex.resolve`."""
    return (index or default_index()).resolve(board, name)


def aliases_for(board: str, index: PinIndex | None = None) -> dict[str, Pin]:
    """Every datasheet name of a board in `index` (as written -> pin)."""
    return (index or default_index()).aliases_for(board)


def pins_on(board: str, name: str | int, index: PinIndex | None = None) -> PinReport:
    """Inverse lookup: what is on this pin or header position."""
    return (index or default_index()).pins_on(board, name)
