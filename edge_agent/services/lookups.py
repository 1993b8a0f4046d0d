"""The lookup actions: pin names and the datasheet index.

While a daemon runs these are answered from its one pin index and its loaded datasheet index, so a
``pins resolve`` or ``rag query`` beside it costs a socket round trip instead of loading the index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from edge_agent.errors import PinError
from edge_agent.services.args import BoardArg, PinArg, QueryArg, json_object, jsonable
from edge_agent.services.core import ActionInput, Resources, action
from edge_agent.services.results import (
    JSON,
    DatasheetChunk,
    DatasheetFiles,
    DatasheetHits,
    DatasheetText,
    HardwareContext,
    PinRecord,
    ToolResult,
)

if TYPE_CHECKING:
    from edge_agent.pins import Pin

BoardsArg = Annotated[list[Annotated[str, Field(max_length=100)]] | None, Field(
    description="Boards whose documents to boost (command line only; `board` for one).", max_length=32)]


def configured_boards(res: Resources) -> list[str]:
    """The board ids of the configured adapters, sorted."""
    return sorted({b.board for b in res.settings.peripherals.boards if b.board})


def one_board(res: Resources, board: str | None) -> str:
    """``board``, else the configured board when there is exactly one; with none or several, the caller must say."""
    if board:
        return board.strip().lower()
    boards = configured_boards(res)
    if len(boards) == 1:
        return boards[0]
    which = f"{len(boards)} boards are configured ({', '.join(boards)})" if boards else "no board is configured"
    raise PinError(f"pass --board B (the tools' `board` argument): {which}; `edge-agent pins boards` lists the "
                   "known boards")


def _boards(res: Resources, board: str | None, boards: list[str] | None) -> list[str]:
    if boards:
        return [b.strip().lower() for b in boards]
    return [board.strip().lower()] if board else []


def pin_record(pin: Pin) -> PinRecord:
    return PinRecord.model_validate(pin.to_dict())


class PinResolveIn(ActionInput):
    name: PinArg
    board: BoardArg = None


class PinWhichIn(ActionInput):
    name: Annotated[str, Field(description="Pin name or header position, e.g. PA5, J8-6, CN10-11.", max_length=100)]
    board: BoardArg = None


class PinReport(ToolResult):
    """What is on a pin or header position."""

    board: str
    query: str
    omit_if_none = frozenset({"applies_to"})
    power: str | None = Field(description="What a power or ground position carries; null for a GPIO.")
    applies_to: list[str] | None = Field(None, description="The boards that share this board's datasheet tag.")
    pin: PinRecord | None
    labels: list[str] = Field(description="The board's own names for the pin (LEDs, buttons, bus roles).")
    aliases: list[JSON] = Field(description="Names from datasheets and board files: {alias, source}.")


class SearchIn(ActionInput):
    query: QueryArg
    board: BoardArg = None
    limit: Annotated[int | None, Field(ge=1, le=20)] = None
    boards: BoardsArg = None


class ReadIn(ActionInput):
    source: Annotated[str, Field(description="File name as datasheet_list or datasheet_search report it.",
                                 max_length=500)]
    heading: Annotated[str | None, Field(description="Section heading to return only that section.",
                                         max_length=500)] = None


class ListIn(ActionInput):
    pass


class ContextIn(ActionInput):
    query: QueryArg
    board: BoardArg = None
    boards: BoardsArg = None


@action("pin_resolve", PinResolveIn, PinRecord)
def pin_resolve(res: Resources, a: PinResolveIn) -> PinRecord:
    """Resolve a pin name or alias ('red_led', 'D13', 'LD2') to the board's native pin, headers and functions."""
    board = one_board(res, a.board)
    record = pin_record(res.pins.resolve(board, a.name))
    shared = res.pins.applies_to(board)
    if len(shared) > 1:  # a datasheet tag several board files share (rpi-gpio): the boards the answer holds for
        record = PinRecord.model_validate({**record.as_json(), "applies_to": shared})
    return record


@action("pin_which", PinWhichIn, PinReport)
def pin_which(res: Resources, a: PinWhichIn) -> PinReport:
    """Inverse lookup: what is on this pin or header position (labels, bus roles, datasheet names)."""
    board = one_board(res, a.board)
    report = res.pins.pins_on(board, a.name)
    shared = res.pins.applies_to(board)
    return PinReport(board=report.board, query=report.query, power=report.power,
                     applies_to=shared if len(shared) > 1 else None,
                     pin=pin_record(report.pin) if report.pin is not None else None, labels=list(report.labels),
                     aliases=[{"alias": alias, "source": source} for alias, source in report.aliases])


@action("datasheet_search", SearchIn, DatasheetHits)
def datasheet_search(res: Resources, a: SearchIn) -> DatasheetHits:
    """Search the datasheets; returns ranked chunks with source file, board, heading, text and score."""
    with res.datasheets() as rag:
        chunks = rag.search(a.query, boards=_boards(res, a.board, a.boards), limit=a.limit)
        read_as = rag.spelt(a.query)
    return DatasheetHits(query=a.query, read_as=read_as if read_as != a.query else None,
                         results=[DatasheetChunk.model_validate(jsonable(c)) for c in chunks])


@action("datasheet_read", ReadIn, DatasheetText)
def datasheet_read(res: Resources, a: ReadIn) -> DatasheetText:
    """Return the text of a datasheet file, or of one section when `heading` is given."""
    with res.datasheets() as rag:
        text = rag.read(a.source, a.heading)
    return DatasheetText(source=a.source, heading=a.heading, text=text)


@action("datasheet_list", ListIn, DatasheetFiles)
def datasheet_list(res: Resources, a: ListIn) -> DatasheetFiles:
    """List the indexed datasheet files with their boards."""
    with res.datasheets() as rag:
        return DatasheetFiles(files=[json_object(f) for f in rag.files()])


@action("hardware_context", ContextIn, HardwareContext)
def hardware_context(res: Resources, a: ContextIn) -> HardwareContext:
    """The block to put in a prompt: board pin aliases and the datasheet chunks relevant to `query`."""
    boards = _boards(res, a.board, a.boards) or configured_boards(res)
    with res.datasheets() as rag:
        return HardwareContext(boards=boards, context=rag.context(a.query, boards, res.pins))

