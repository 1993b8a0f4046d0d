"""Boards and parts a question names: informal names, chip-specific pin names, and the boards they point at.

Board detection. A question that names a board or part ("the f401", "pi 4", "my bme280", "nano")
without a ``boards`` scope is searched as if that board were given. The names come from the datasheet
tags present in the index (file stems): the tag itself with or without separators, each part of it
holding a digit (``f401re``, ``mega2560``) and that part without its letter suffix (``f401``) or its number
of four digits or more alone (``2560``), the
second word of two-word tags whose first word is a maker or family (``uno``, ``nano``, ``pico``), and
the ``[boards]`` and ``[chips]`` tables of ``vocabulary.toml`` (RP1 names the Pi 5). A name that fits several
tags scopes none of them. The same tag words and part numbers (:func:`tag_words`) are, in a question, a board's
name rather than a pin, register or value.

Chip pins. A chip-specific pin name (``PA5``, ``GP17``, ``P0.13``, ``GPIO17``) is evidence for the boards that
have such a pin (:func:`pin_owners`, :func:`pin_boards`); the words written on a pin's own line
(:func:`pin_line_words`, :func:`pin_line_names`) tell which board's pin a question naming a function means.

A question naming two or more boards is answered by a line naming them side by side (:class:`Together`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Container, Iterable, Mapping
from typing import Protocol, TypeVar

from edge_agent.pins import PinIndex, name_key
from edge_agent.rag.lines import finds as _finds
from edge_agent.rag.text import VOCABULARY, tokens, tokens_unkept

_MAKERS = frozenset({"arduino", "rpi", "raspberry", "adafruit", "pimoroni", "sparkfun", "seeed", "st"})
#: Words too common to name a board on their own ("rpi-gpio" is not meant by every "gpio").
_COMMON = frozenset({"gpio", "hat", "board", "shield", "header", "pin", "pins", "kit", "dev", "module", "breakout"})
_WORD = re.compile(r"[a-z0-9+]+")
_NOT_WORD = re.compile(r"[^a-z0-9+\n]+")
#: The number of a part name (letters, then four digits or more: mega2560, mpu6050, ds3231), by which a bench
#: calls the part on its own ("the 2560"); shorter numbers (the 280 of both BME280 and BMP280, 401) are too
#: often a value or shared.
_PART_NUMBER = re.compile(r"^[a-z]+(\d{4,})[a-z]*$")
_TAG_SPLIT = re.compile(r"[-_ ]+")


def _norm_text(text: str) -> str:
    return " ".join(_WORD.findall(text.lower().replace("_", " ")))


def tag_parts(tag: str) -> list[str]:
    """The words of a datasheet tag (a file stem): ``nucleo-f401re`` is ``nucleo`` and ``f401re``."""
    return [p for p in _TAG_SPLIT.split(tag) if p]


def part_number(part: str) -> str | None:
    """The number of a part name's word (``2560`` of ``mega2560``, ``6050`` of ``mpu6050``), else None."""
    m = _PART_NUMBER.search(part)
    return m.group(1) if m is not None else None


def nicknames(tags: Iterable[str]) -> dict[str, str]:
    """Informal name -> the datasheet tag it means, for the tags present in an index; "" for a name that
    fits several tags. (A tag string per name, not a set: a library of 10,000 part files has 20,000 names.)"""
    names: dict[str, str] = {}

    def add(name: str, tag: str) -> None:
        key = _norm_text(name)
        if key:
            got = names.setdefault(key, tag)
            if got and got != tag:
                names[key] = ""

    for tag in tags:
        parts = tag_parts(tag)
        add(" ".join(parts), tag)
        add("".join(parts), tag)
        for p in parts:
            if any(c.isdigit() for c in p) and any(c.isalpha() for c in p) and len(p) >= 4:
                add(p, tag)
                trimmed = re.sub(r"(?<=\d)[a-z]+$", "", p)
                if trimmed != p and any(c.isalpha() for c in trimmed):
                    add(trimmed, tag)
                if (number := part_number(p)) is not None:  # "the 2560", "the 6050": a part's number
                    add(number, tag)
        if len(parts) == 2 and parts[0] in _MAKERS and len(parts[1]) >= 3 and parts[1] not in _COMMON:
            add(parts[1], tag)
    present = set(tags)
    for name, tag in (*VOCABULARY.get("boards", {}).items(), *VOCABULARY.get("chips", {}).items()):
        if tag in present:
            add(name, tag)
    return names


#: A word shaped like a part number (letters, then two digits or more: ads1015, lm75b, bmp085).
_PART_WORD = re.compile(r"[a-z]{2,}\d{2,}[a-z0-9]*")
#: A slash between two words of a title, however spaced, and the punctuation a title's word may carry.
_SLASHED = re.compile(r"\s*/\s*")
_EDGE = "()[],;:."


def part_words(query: str) -> list[str]:
    """The question's words shaped like a part number, which a datasheet's title may give as a sibling part (a
    chip pin such as GPIO17 is not one)."""
    return [w for w in _norm_text(query).split() if _PART_WORD.fullmatch(w) and not is_chip_pin(w)]


def titles_sibling(title: str, tag: str, word: str) -> bool:
    """Whether a file's title gives `word` as a sibling of the tag's own part, the two joined by a slash ("TI ADS1115
    / ADS1015": one register map, one file, two part numbers)."""
    if "/" not in title:
        return False
    # the title's words, a slash kept as a word of its own: "ti ads1115 / ads1015 - 4-channel ..."
    words = _SLASHED.sub(" / ", title.lower()).split()
    pairs = {frozenset((words[i - 1].strip(_EDGE), words[i + 1].strip(_EDGE)))
             for i in range(1, len(words) - 1) if words[i] == "/"}
    return any(frozenset((own, word)) in pairs for own in tag_parts(tag) if any(c.isdigit() for c in own))


def names_by_tag(names: Mapping[str, str], tags: Collection[str]) -> dict[str, list[str]]:
    """The informal names (:func:`nicknames`) of each of `tags`."""
    out: dict[str, list[str]] = {t: [] for t in tags}
    for name, tag in names.items():
        if tag in out:
            out[tag].append(name)
    return out


class Together:
    """How many of the boards a question names (`names`: tag -> its informal names) each candidate names side by
    side; built once per question, so the names' first words are split out once for all its candidates."""

    def __init__(self, names: Mapping[str, Collection[str]]) -> None:
        # per board: its names' distinct first words, and each name with its first word
        self._boards = [(frozenset(first for _, first in pairs), pairs)
                        for pairs in ([(k, k.split(" ", 1)[0]) for k in keys] for keys in names.values())]
        self._firsts = frozenset(first for firsts, _ in self._boards for first in firsts)

    def count(self, text: str) -> int:
        """The most boards of `names` one line of `text` names: a table's header row or a sentence setting them
        side by side (a file's own board is named in its title, not beside the others)."""
        low = text.lower()
        # a plain search for each name's first word rules out most chunks (one board's own notes); a board none of
        # whose names' first words the text holds names no line, and is not looked for again
        present = {first for first in self._firsts if first in low}
        held = [pairs for firsts, pairs in self._boards if not firsts.isdisjoint(present)]
        if len(held) < 2:
            return 0
        words = " " + _NOT_WORD.sub(" ", low.replace("_", " ")).replace("\n", " \n ") + " "
        lines: dict[int, int] = {}  # line -> boards named on it
        for pairs in held:  # the lines naming each board, found by plain searches of the whole text
            at_lines: set[int] = set()
            for k, first in pairs:
                if first not in present:
                    continue
                line, last = 0, 0
                for at in _finds(words, f" {k} "):  # ascending: the newlines are counted on from the last hit
                    line += words.count("\n", last, at)
                    last = at
                    at_lines.add(line)
            for line in at_lines:
                lines[line] = lines.get(line, 0) + 1
        return max(lines.values(), default=0)


#: A question asking a fact of every board at once ("D15 on each board", "across boards", "which boards"): the
#: table with one column or row per board answers it.
_EVERY_BOARD = re.compile(r"\b(?:each|every|all|across|which|what)(?: (?:the|our|of the))? boards\b|\beach board\b"
                          r"|\bevery board\b|\bboards? compared\b|\bboard by board\b", re.IGNORECASE)


def asks_every_board(query: str) -> bool:
    """Whether a question asks its fact of every board at once ("on each board", "across boards")."""
    return _EVERY_BOARD.search(query) is not None


def tag_words(tags: Iterable[str]) -> frozenset[str]:
    """Tokens naming a board or part: each tag's own and its part number (``2560``), which in a question tell
    the file, not a pin, register or value inside it."""
    words = {t for tag in tags for t in tokens_unkept(tag)}  # (10,000 tags, read once: not kept in the memo)
    words.update(n for tag in tags for p in tag_parts(tag) if (n := part_number(p)) is not None)
    return frozenset(words)


def detect(query: str, names: dict[str, str], max_words: int = 4) -> list[str]:
    """Tags a question names (longest names first; a name fitting several tags is skipped)."""
    found: list[str] = []
    for tag, _name in mentions(query, names, max_words):
        if tag not in found:
            found.append(tag)
    return found


def mentions(query: str, names: dict[str, str], max_words: int = 4, *,
             words: Container[str] | None = None) -> list[tuple[str, str]]:
    """(tag, the words naming it) for each board or part name in a question, longest names first; a name
    fitting several tags is skipped. `words` (:func:`nickname_words` of `names`), when given, lets the
    question's run of words no name holds be passed over without a look-up per run."""
    split = _norm_text(query).split()
    found: list[tuple[str, str]] = []
    used = [False] * len(split)
    if words is not None:  # a word no name holds is never part of a name: mark it as passed over
        used = [w not in words for w in split]
    for n in range(min(max_words, len(split)), 0, -1):
        for i in range(len(split) - n + 1):
            if any(used[i:i + n]):
                continue
            name = " ".join(split[i:i + n])
            tag = names.get(name)
            if tag:
                found.append((tag, name))
                for j in range(i, i + n):
                    used[j] = True
    return found


class NameWords:
    """Every word of the informal names (:func:`nicknames`), for ``word in``: a question's word outside them is part
    of no name (:func:`mentions`). A name of one word is its own word and is looked up among the names; only the
    words of the names of several words are held apart. A library of 10,000 part files names each file twice
    (``part 00001``, ``part00001``): one set of every word would hold 20,000 words in a table of 2 MB, this one holds
    10,000 in a quarter of that."""

    __slots__ = ("_names", "_words")

    def __init__(self, names: Mapping[str, str]) -> None:
        self._names = names
        self._words = frozenset({w for name in names if " " in name for w in name.split()})

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and (word in self._words or (word in self._names and " " not in word))


def nickname_words(names: Mapping[str, str]) -> NameWords:
    """Every word of the informal names (:func:`nicknames`): a question's word outside them is part of no name
    (:func:`mentions`)."""
    return NameWords(names)


#: Chip names that scope a question to their one board (``rp1``: the Pi 5), as normalised words.
CHIP_NAMES = frozenset(_norm_text(name) for name in VOCABULARY.get("chips", {}))


_FAMILIES: dict[str, frozenset[str]] = {word: frozenset(tags) for word, tags in VOCABULARY.get("families", {}).items()}
#: A family word as a question writes it; "pi pico" is the Pico, no 40-pin Pi.
_FAMILY = re.compile(rf"\b({'|'.join(map(re.escape, _FAMILIES))})\b(?! *pico)", re.IGNORECASE) if _FAMILIES else None


def families(query: str) -> list[frozenset[str]]:
    """The tags of each board family a question names by a family word (``[families]`` of the vocabulary: "on a
    pi", "the nucleo")."""
    if _FAMILY is None:
        return []
    return [_FAMILIES[m.lower()] for m in dict.fromkeys(_FAMILY.findall(query.lower()))]


def content_terms(terms: list[str], naming: Iterable[str]) -> list[str]:
    """The query terms left once the words that only name a board in scope are taken out.

    A board's name ("zero 2 w", "pi 4", "mega") says which files to prefer, which the board boost already
    does; scored as text it favours the file's overview and any other file that happens to name the board
    (a HAT "for every Pi"), and its digits would count as exact numbers. All terms stay when nothing else
    would be left. A chip's name (``rp1``) is written in its board's tables and stays.
    """
    drop = {t for name in naming if name not in CHIP_NAMES for t in tokens(name)}
    left = [t for t in terms if t not in drop]
    return left or terms


def naming_terms(names: Iterable[str]) -> frozenset[str]:
    """The tokens of the names a question calls its boards and parts by (:func:`mentions`: "l476", "pi 5"), but
    a chip's (``stm32l476``, written in the tables like a part number) or a chip pin's: what names a board is not a
    pin, register or value to look for inside its files."""
    return frozenset(t for name in names if name not in CHIP_NAMES for t in tokens(name) if not is_chip_pin(t))


#: Chip-specific pin spellings: STM32/AVR ports (PA5, PL5), nRF port.pin (P0.13), Broadcom/ESP32 GPIOn and
#: IOn, RP2040 GPn. Arduino names (D13, A0) are on every Arduino-style header and say nothing of the board.
_CHIP_PIN = re.compile(r"\b(?:P[A-L]_?\d{1,2}|P\d\.\d{1,2}|GPIO_?\d{1,2}|GP\d{1,2}|IO\d{1,2})\b", re.IGNORECASE)


def pin_owners(index: PinIndex) -> dict[str, frozenset[str]]:
    """Chip-specific pin name (as a name key) -> the board and datasheet tags that have such a pin.

    From the board files (native pins, answering for their datasheet tags too) and from the datasheets'
    pin tables and alias lines (values and names), so a board known only from its datasheet counts.
    """
    owners: dict[str, set[str]] = {}

    def add(name: str, tags: Iterable[str]) -> None:
        if _CHIP_PIN.fullmatch(name.strip()):
            owners.setdefault(name_key(name), set()).update(tags)

    for board_id in index.known_boards():
        board = index.board(board_id) if board_id in index.board_ids() else None
        if board is not None:
            for pin in board.pins:
                add(pin.name, (board.id, *board.datasheet_tags))
    for e in index.entries:
        if e.tag:
            add(e.value, (e.tag,))
            add(e.alias, (e.tag,))
    return {k: frozenset(v) for k, v in owners.items()}


#: An Arduino-style digital pin number (``D13``): a datasheet naming its pins so is of a microcontroller board with a
#: header of its own (a Mega, a Nucleo, the nRF DK), not of a part or of an add-on board plugged onto a host.
_DIGITAL_PIN = re.compile(r"D\d{1,2}")


def is_host_board(names: Iterable[str]) -> bool:
    """Whether a datasheet's pin names (the names of its alias entries) make it a host board's: it numbers digital
    pins the Arduino way (``D13: PB5``), as a board carrying its own microcontroller and header does; a sensor's or
    an add-on board's pins are its own signals or the host's GPIOs."""
    # a pin table's file holds thousands of names: only those starting with D can be a digital pin
    return any(name[:1] == "D" and _DIGITAL_PIN.fullmatch(name) is not None for name in names)


_PIN_FAMILY = re.compile(r"([a-z]+)\d")


def pin_families(pins: Iterable[str]) -> frozenset[str]:
    """How a datasheet's pins are named, by the letters before their number: ``gpio`` for a Pi's or an ESP32's
    GPIO17, ``pa`` for an STM32's PA5, ``gp`` for a Pico's GP17, ``p`` for an nRF's P0.13. An add-on board names
    the host pins it uses, so its families tell which hosts it fits."""
    low = (p.lower() for p in pins)  # only chip pins: an Arduino header's A0 or a part's own pin 5 names no host
    return frozenset(m.group(1) for p in low if is_chip_pin(p) and (m := _PIN_FAMILY.match(p)) is not None)


class _Candidate(Protocol):
    board: str | None
    cid: int


_C = TypeVar("_C", bound=_Candidate)


def unnamed_notes(candidates: Iterable[_C], words: Collection[str], has: Callable[[str, int], bool]) -> list[_C]:
    """The generic notes (no board) among `candidates` that hold none of `words` (:func:`name_words` of the boards
    the question names): a note that never mentions the named board is about other boards, and counts like a part
    the question does not name (a current table of other boards for "how much current per pin on the f401")."""
    return [c for c in candidates if c.board is None and not any(has(w, c.cid) for w in words)]


class Boards:
    """The board tags of a search (:func:`is_host_board`), each decided by `decide` when first asked: most searches ask
    about few of their candidates' tags, and a library of 10,000 part files has as many tags."""

    def __init__(self, known: Collection[str], decide: Callable[[str], bool]) -> None:
        self._known, self._decide = known, decide
        self._decided: dict[str, bool] = {}  # a search asks about each candidate's tag, most files twice or more

    def __contains__(self, tag: object) -> bool:
        if not isinstance(tag, str):
            return False
        got = self._decided.get(tag)
        if got is None:
            got = self._decided[tag] = tag in self._known or self._decide(tag)
        return got


def name_words(names: Mapping[str, Collection[str]]) -> frozenset[str]:
    """The words of the boards' informal names (tag -> names) and tags, numbers left out: the words by which a note
    mentions one of them, its family's included ("nucleo" of the F401, "pi" of the Pi 4)."""
    return frozenset(t for tag, keys in names.items() for n in (*keys, tag) for t in tokens(n) if not t.isdigit())


def is_chip_pin(term: str) -> bool:
    """Whether a query term is a chip-specific pin name (``pa5``, ``gpio25``, ``p0.13``)."""
    return _CHIP_PIN.fullmatch(term) is not None


def names_chip_pin(query: str) -> bool:
    """Whether the question holds a chip-specific pin name (``PA5``, ``GP17``, ``P0.13``, ``GPIO17``)."""
    return _CHIP_PIN.search(query) is not None


def chip_pins(query: str) -> list[str]:
    """The chip-specific pin names a question holds, as name keys."""
    return [name_key(m.group(0)) for m in _CHIP_PIN.finditer(query)]


def pin_boards(query: str, owners: dict[str, frozenset[str]], configured: Collection[str] = ()) -> list[str]:
    """Tags that have a chip-specific pin the question names (``PA5`` -> the Nucleo boards), sorted.

    A pin that one of the `configured` tags has says nothing against them (``GPIO17`` with a Pi configured
    is that Pi's pin); one they lack (``GP17`` or ``PA5`` with a Pi configured) is about another board.
    """
    found: set[str] = set()
    for pin in chip_pins(query):
        tags = owners.get(pin, frozenset())
        if not tags.intersection(configured):
            found |= tags
    return sorted(found)


def pin_line_names(text: str, pins: Collection[str], words: Collection[str], numbered: Collection[str] = ()) -> bool:
    """Whether a line of `text` holds one of the chip `pins` and one of `words`, as a token or as a numbered
    instance of it (``touch`` in ``TOUCH0``, ``dac`` in ``DAC_1``), or one of `numbered` as a numbered instance."""
    for line in text.lower().split("\n"):
        if not any(p in line for p in pins):
            continue
        got = tokens(line)
        if pins and set(pins).isdisjoint(got):
            continue
        for t in got:
            for w in (*words, *numbered):
                if t.startswith(w) and t[len(w):].lstrip("_").isdigit() and len(t) > len(w):
                    return True
            if t in words:
                return True
    return False


def pin_line_words(text: str) -> set[str]:
    """The tokens of every line of `text` holding a chip pin name, with the family of each numbered token
    (``touch`` for ``TOUCH0``, ``dac`` for ``DAC_1``)."""
    out: set[str] = set()
    for line in text.split("\n"):
        if _CHIP_PIN.search(line) is None:
            continue
        for t in tokens(line):
            out.add(t)
            family = t.rstrip("0123456789").rstrip("_")
            if family != t and len(family) > 2:
                out.add(family)
    return out
