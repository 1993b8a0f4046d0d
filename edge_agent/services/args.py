"""The argument types every face of an action shares, with the limits a caller sees in the schema.

The MCP tools' input schemas, the service actions' input models and the agent's tool specs are all
built from these annotated types, so a limit or a description is written once.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from edge_agent.bus.base import MAX_PIN_CHARS
from edge_agent.errors import InvalidAddressError
from edge_agent.services.jsondata import json_object as json_object
from edge_agent.services.jsondata import jsonable as jsonable  # its home before it moved

# The argument types that drive no hardware live in .textargs (no bus import); named here too, for the faces.
from edge_agent.services.textargs import CaptureIn as CaptureIn
from edge_agent.services.textargs import LimitArg as LimitArg
from edge_agent.services.textargs import MemoryTypes as MemoryTypes
from edge_agent.services.textargs import MessageArg as MessageArg
from edge_agent.services.textargs import MinScore as MinScore
from edge_agent.services.textargs import QueryArg as QueryArg
from edge_agent.services.textargs import SpacePath as SpacePath

# Argument types, with the limits an agent sees in the schema ----------------------------------------

AdapterArg = Annotated[str | None, Field(
    description="Configured adapter name (see runtime_status); omit to use `board` or the first board.",
    max_length=200)]
BoardArg = Annotated[str | None, Field(
    description="Board id such as 'nucleo-f401re' or 'rpi-4b' (picks its configured adapter).",
    max_length=100)]
PinArg = Annotated[Annotated[str, Field(max_length=MAX_PIN_CHARS)] | int, Field(
    description="Pin name, number or alias: 'PA5', 'D13', 'red_led', 17.")]
AddrArg = Annotated[int | str, Field(
    description="7-bit I2C target address, 0x03-0x77; an integer or a string like '0x76'.")]
BusArg = Annotated[int | str | None, Field(
    description="Bus number or name such as 'i2c1'; omit for the adapter's first bus.")]
# Small models often write bytes the way datasheets and i2c-tools print them, so a hex string is
# accepted too, when it cannot be read another way: with 0x ("0x27", "0x018000", "0x01,0x80") or
# with separators between byte pairs ("01 80 00", "01:80"). A bare run like "27" is refused: a JSON
# integer 27 is decimal, so reading the string as hex 0x27 would send a different byte.
_PAIR = r"[0-9A-Fa-f]{2}"
_SEP = r"[\s,:;]+"
HEX_BYTES = rf"^\s*(0[xX](?:{_PAIR})+|(?:0[xX])?{_PAIR}(?:{_SEP}(?:0[xX])?{_PAIR})+)\s*$"


def _refuse_bare_digits(value: object) -> object:
    """A string of hex digits alone is ambiguous; say both readings so the caller can pick one."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9A-Fa-f]+", text := value.strip()):
        return value
    forms = [f"'0x{text}'"]
    if len(text) > 2 and len(text) % 2 == 0:
        forms.append(repr(" ".join(text[i:i + 2] for i in range(0, len(text), 2))))
    hex_reading = (f"as hex bytes [{', '.join(f'0x{b:02X}' for b in bytes.fromhex(text))}]"
                   if len(text) % 2 == 0 else "")
    if not text.isdigit():
        raise ValueError(f"{value!r} needs 0x or separators between byte pairs to be read as hex"
                         + (f" ({hex_reading})" if hex_reading else " (it has an odd number of digits)")
                         + f"; write {' or '.join(forms)}, or give the bytes as a list of integers")
    number = int(text)
    as_number = f"as the number {number}" + (f" (byte 0x{number:02X})" if number < 256 else " (not one byte)")
    raise ValueError(f"{value!r} is ambiguous: {hex_reading + ' or ' if hex_reading else ''}{as_number}; "
                     f"write hex as {' or '.join(forms)}, or the number as the list [{number}]"
                     if number < 256 else
                     f"{value!r} is ambiguous: {hex_reading + ' or ' if hex_reading else ''}{as_number}; "
                     f"write hex as {' or '.join(forms)}, or give the bytes as a list of integers")


ByteList = Annotated[
    Annotated[list[Annotated[int, Field(ge=0, le=255)]], Field(min_length=1, max_length=4096)]
    | Annotated[str, Field(pattern=HEX_BYTES, max_length=4096 * 5), BeforeValidator(_refuse_bare_digits)],
    Field(description="Bytes as integers 0-255, or hex with 0x or separators: \"0x27\", \"01 80 00\".")]
def parse_int(value: int | str, what: str, adapter: str = "") -> int:
    if isinstance(value, bool):
        raise InvalidAddressError(f"{what} must be a number, not {value!r}", adapter=adapter)
    if isinstance(value, int):
        return value
    try:
        return int(value.strip(), 0)
    except ValueError:
        raise InvalidAddressError(f"{what} {value!r} is not a number; use decimal or 0x-hex like '0x76'",
                                  adapter=adapter) from None


def to_bytes(value: list[int] | str) -> list[int]:
    """Tool byte arguments as a list of ints (a hex string has already matched HEX_BYTES)."""
    if isinstance(value, list):
        return list(value)
    digits = "".join(part[2:] if part[:2] in ("0x", "0X") else part
                     for part in re.split(_SEP, value.strip()) if part)
    return list(bytes.fromhex(digits))


def address_fields(address: int) -> dict[str, Any]:
    """An I2C address as an integer (for programs) and a hex string (for people)."""
    return {"addr": address, "addr_hex": f"0x{address:02X}"}


def location_fields(address: int, register: int | None) -> dict[str, Any]:
    """An I2C address and register (None: no register) as integers and hex strings."""
    return {**address_fields(address), "register": register,
            "register_hex": None if register is None else f"0x{register:02X}"}


def hex_text(data: bytes) -> str:
    return data.hex(" ") if data else ""
