"""``writable_gpio`` entries resolved once, when an adapter opens: entry -> board pin -> backend line.

An entry is looked up in the board file first; only a name the board file does not define is looked
up in the datasheets, and then every datasheet must agree on its pin (a name two files give different
pins is refused rather than decided by which file sorts first). The result is fixed for the life of
the adapter: later datasheet changes may add names for requests, never move an allowed line. Requests
are compared with the allowed lines as lines, so every spelling of an allowed pin is allowed
(``GPIO17``, ``17``, ``J8-11`` on a Pi) and no other pin is.

An entry that cannot be resolved (unknown, ambiguous, disputed, or board-relative like ``J8-11`` on
an adapter without a board) is a :class:`~edge_agent.errors.ConfigError` naming the key and the entry,
raised when the adapter opens, not at the first write.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from edge_agent.errors import ConfigError, PinError, UnknownPinError

if TYPE_CHECKING:  # the pin index is imported when an entry is resolved, keeping `import edge_agent.bus` light
    from edge_agent.bus.safety import SafetyRules
    from edge_agent.pins import Pin, PinIndex

#: The pin index to look datasheet names up in, or a function building it when it is first needed.
PinSource: TypeAlias = "PinIndex | Callable[[], PinIndex] | None"


@dataclass(frozen=True, slots=True)
class GpioGrant:
    """One resolved ``writable_gpio`` entry."""

    entry: str
    pin: Pin | None  # None on an adapter without a board: the backend reads the entry itself

    def describe(self) -> str:
        """``red_led -> PA5`` (or the entry alone when no board resolved it)."""
        if self.pin is None or self.pin.name == self.entry:
            return self.entry
        return f"{self.entry} -> {self.pin.name}"


def spelled(entry: str) -> str | int:
    """An entry as a pin request: digits are the board's integer convention, anything else a name."""
    text = entry.strip()
    return int(text) if text.isdigit() else text


@functools.lru_cache(maxsize=32)
def _board_file_index(board: str) -> PinIndex | None:
    """The names the board file alone defines (None when the board has no board file)."""
    from edge_agent.pins import PinIndex, get_board, list_boards

    key = board.strip().lower()
    if key not in list_boards():
        return None
    return PinIndex((), boards=[get_board(key)])


def resolve_entry(board: str, entry: str, pins: PinSource, key: str) -> Pin:
    """The pin ``entry`` names on ``board``: board file first, then the datasheets, which must agree."""
    from edge_agent.pins import default_index

    name = spelled(entry)
    try:
        own = _board_file_index(board)
        if own is not None:
            try:
                return own.resolve(board, name)
            except UnknownPinError:
                pass  # not a board-file name: the datasheets may add it
        index = pins() if callable(pins) else (pins or default_index())
        pin = index.resolve(board, name)
        disputes = index.disputes(board, str(name))
    except PinError as exc:
        raise ConfigError(f"{key}: entry {entry!r} does not name one pin: {exc}") from None
    if disputes:
        said = "; ".join(f"{src} says {spelling!r} is {pin_name}" for spelling, pin_name, src in disputes)
        raise ConfigError(f"{key}: entry {entry!r} names different pins in different datasheets ({said}); "
                          f"write the board's own name of the pin you mean (such as {pin.name}) instead")
    return pin


def resolve_entries(entries: tuple[str, ...], board: str | None, pins: PinSource, key: str) -> list[GpioGrant]:
    """Resolve every entry except ``*`` (pins only, no backend): what ``config check`` shows."""
    out = []
    for entry in entries:
        if entry.strip() == "*":
            continue
        out.append(GpioGrant(entry, resolve_entry(board, entry, pins, key) if board else None))
    return out


def board_allow_list(safety: SafetyRules | None, *, name: str, scheme: str, board: str | None,
                     pins: PinSource) -> tuple[str, list[GpioGrant]] | None:
    """The ``writable_gpio`` key and resolved entries of one configured adapter (None: no allow-list applies).

    Needs no hardware: ``config check`` shows the result and the runtime calls it before opening anything,
    so an entry that does not name one pin stops the start with a ConfigError instead of refusing writes later.
    """
    from edge_agent.bus.safety import SafetyPolicy

    policy = SafetyPolicy.for_adapter(safety, name=name, scheme=scheme.removeprefix("trace+"))
    if policy.mode != "allowlist" or not policy.gpio:
        return None
    key = policy.key_path("writable_gpio")
    return key, resolve_entries(policy.gpio, board, pins, key)


def resolve_boards(safety: SafetyRules | None, boards: Sequence[tuple[str, str, str | None]], pins: PinSource
                   ) -> list[tuple[str, str, list[GpioGrant]]]:
    """(adapter name, key, resolved entries) for each configured ``(name, url, board)`` an allow-list applies to.

    Raises:
        ConfigError: an entry does not name one pin of its board.
    """
    out = []
    for name, url, board in boards:
        scheme = url.partition("://")[0].lower()
        found = board_allow_list(safety, name=name, scheme=scheme, board=board, pins=pins)
        if found is not None:
            out.append((name, *found))
    return out
