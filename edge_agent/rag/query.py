"""Query-side ranking: boards named informally in a question, and the reranking of BM25 candidates.

Board detection. A question that names a board or part ("the f401", "pi 4", "my bme280", "nano")
without a ``boards`` scope is searched as if that board were given. The names come from the datasheet
tags present in the index (file stems): the tag itself with or without separators, each part of it
holding a digit (``f401re``, ``mega2560``) and that part without its letter suffix (``f401``) or its number
of four digits or more alone (``2560``), the
second word of two-word tags whose first word is a maker or family (``uno``, ``nano``, ``pico``), and
the ``[boards]`` and ``[chips]`` tables of ``vocabulary.toml`` (RP1 names the Pi 5). A name that fits several
tags scopes none of them.

Reranking. BM25 (with the scope's board boost) proposes a few times more candidates than asked for;
then, in this order of strength:

1. with a scope, a chunk of another *board* (a board with a board file, or a tag a board file answers
   to) never outranks a chunk of the scoped boards; parts, add-on boards and generic notes compete on
   score alone; when a board the question's chip pin points at has a candidate holding the pin, another
   board's or part's chunk without the pin ranks after the others (a HAT's analog inputs for ``P0.28 analog``);
   and when the question itself names a board, a part or add-on board it does not name counts less
   (:data:`UNASKED`);
2. chunks holding the question's exact pin, register and number tokens (``PA5``, ``0xD0``, ``GPIO17``,
   ``400``) that do not come from the file name get a bonus, so the row stating the fact beats the
   file's overview; a bare number of one or two digits (``pin 26``, ``chip select 1``) earns none, since
   every pin table and register map holds those as row and bit numbers, nor does a bus family's name that
   happens to hold a digit (``I2C``, ``I2S``): it is the question's topic, written all over the bus's sections;
   within a file, a section that does not hold the chip pin the question names (``PF7``, ``GPIO27``) counts
   half when another section of the file does;
3. results are diversified: each further chunk from a file already picked counts a little less, so a
   question needing two facts (two boards, a pin and its conflict) gets both into the first results;
4. a file's overview counts a little less when one of its sections is also a candidate;
5. a section whose own heading names a bus or function the question names (``SPI``, ``UART``, ``I2S``) counts
   double when a section of the same file that does not (the general pin map) is also a candidate;
6. a question asking for a bit, register, flag or command doubles the file's register or command table (rows
   holding hex codes) when prose sections of the same file that name the bit are also candidates;
7. a question naming two or more boards or parts reads more candidates, and a chunk with a line naming several
   of them side by side (a comparison table's header row) counts :data:`TOGETHER` times more per board named;
8. within a file, the section where one line holds most of the question's words (:func:`.lines.line_share`: a register
   table's row, a sentence of a note) comes first: a lookup is answered by one row or line, where a section that
   only shares the words scattered over its lines (an address table beside a note) is about something else.
   The file keeps the standing its best section earned; only the order of its sections changes; a file where a
   section's own heading names the asked bus (rule 5) is left to that rule.

A Pi model's name in a question (``pi 4``, ``zero 2 w``) only scopes the search (:func:`content_terms`):
the header file every 40-pin model shares never writes it. Every result that is a long section and
starts inside the first context slot (:data:`CONTEXT_CHARS`) is cut to its answering lines (:func:`window`),
so the first results fit that slot together.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice

from edge_agent.pins import PinIndex, name_key
from edge_agent.pins.ranges import pin_ranges
from edge_agent.rag.lines import GPIO_TERM as _GPIO_TERM
from edge_agent.rag.lines import exact_hits as _exact_hits
from edge_agent.rag.lines import finds as _finds
from edge_agent.rag.lines import table_head as _table_head
from edge_agent.rag.text import VOCABULARY, spellings, tokens

#: Candidates fetched per result asked for, before reranking.
CANDIDATES_PER_RESULT = 2
MIN_CANDIDATES = 10
#: Score multiplier per exact question token (pin, register, number) the chunk holds outside its file name,
#: scaled by the share of such tokens it holds.
EXACT_BONUS = 0.6
#: Score multiplier of a chunk that does not hold the chip pin the question names (``PF7``, ``GPIO27``) when
#: another candidate of the same file does: the pin's row or paragraph answers, not the file's summary or a
#: section that only shares the question's other words.
WITHOUT_THE_PIN = 0.5
#: Score multiplier of a chunk where a line holding the chip pin the question names also holds another of its
#: words ("esp32 GPIO27 adc channel": the header row "GPIO27, ADC2_CH7, TOUCH7"): the pin's own row or sentence
#: says what the question asks about it, where a table that lists the pin among others (touch channels) does not.
PIN_ROW = 1.5
#: Question words every pin's line holds: no evidence of the row that answers.
PIN_WORDS = frozenset({"pin", "gpio"})


def pin_row_words(text: str, pins: Collection[str], words: Collection[str]) -> bool:
    """Whether a line of `text` holds one of the chip `pins` (as a whole token, or as a GPIO table's row number:
    ``| 27 |``) and one of the question's other `words` (tokens)."""
    if not words:
        return False
    low = text.lower()
    for pin in pins:
        m = _GPIO_TERM.fullmatch(pin)
        if m is not None and "gpio" in low:  # a GPIO table numbering its rows: "| 22 | ..."
            for line in re.findall(rf"^\| *{m.group(1)} *\|.*$", low, re.MULTILINE):
                if not set(tokens(line)).isdisjoint(words):
                    return True
        at = low.find(pin)
        while at >= 0:
            end = at + len(pin)
            if (at == 0 or not low[at - 1].isalnum()) and (end == len(low) or not low[end].isalnum()):
                start = low.rfind("\n", 0, at) + 1
                stop = low.find("\n", end)
                line = low[start:stop if stop >= 0 else len(low)]
                if not set(tokens(line)).isdisjoint(words):
                    return True
            at = low.find(pin, end)
    return False


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


#: Score multiplier for each chunk already picked from the same file.
SAME_FILE = 0.8
#: Score multiplier of a pin-alias section: name = pin lines written for the pin index, dense in pin names
#: but without the context (function, polarity, conflicts) the question is after; the agent gets the
#: aliases of the pins it names as their own context block anyway.
ALIAS_LIST = 0.6
#: Score multiplier of a file's overview (the text under its title, before the first section) when a section of
#: the same file is also a candidate: the overview names the part and its features, the section holds the fact.
OVERVIEW = 0.85
#: Score multiplier of a section whose own heading names a bus or function the question names (``SPI``, ``UART``,
#: ``PWM``) when another section of the same file that does not is also a candidate: the general pin map holds
#: every signal's row, the function's own section holds the pins with their setup and caveats.
FUNCTION_SECTION = 2.0
#: Buses and pin functions a section heading can be about (instances count for their family: ``SPI0``).
FUNCTIONS = frozenset({"spi", "qspi", "i2c", "i2s", "pcm", "uart", "usart", "pwm", "can", "usb", "adc", "dac",
                       "onewire", "swd", "jtag", "gpclk"})
#: Score multiplier of a register or command table (rows holding hex codes) when the question asks for a bit,
#: register, flag or command and another section of the same file is also a candidate: prose that mentions a
#: bit's name (how to set the frequency, which bits are useful) is not where its position is written.
CODE_TABLE = 2.0
#: Question words asking where a setting lives: the answer is a register map's or a command table's row.
CODE_WORDS = frozenset({"bit", "register", "flag", "command", "field", "mask"})
_CODE_ROW = re.compile(r"^\|(?:[^|\n]*\|)*? *0x[0-9a-f]+(?: *[-/] *0x[0-9a-f]+)? *\|", re.IGNORECASE | re.MULTILINE)
_HEAD_WORD = re.compile(r"[a-z0-9]+")
#: Score multiplier of a part's or add-on board's chunk when the question names a board and not that part: "zero 2 w
#: power supply rating" is about the board's supply, not a sensor's supply pins that repeat the words.
UNASKED = 0.3
_ALIAS_HEADING = re.compile(r"(?:^|> )pins?(?: alias(?:es)?)?$", re.IGNORECASE)


def is_alias_list(heading: str) -> bool:
    """Whether a chunk's heading path ends in a pin-alias section (``... > Pin Aliases``)."""
    return heading[-7:].lower().endswith(("pins", "pin", "alias", "aliases")) and bool(_ALIAS_HEADING.search(heading))

_MAKERS = frozenset({"arduino", "rpi", "raspberry", "adafruit", "pimoroni", "sparkfun", "seeed", "st"})
#: Words too common to name a board on their own ("rpi-gpio" is not meant by every "gpio").
_COMMON = frozenset({"gpio", "hat", "board", "shield", "header", "pin", "pins", "kit", "dev", "module", "breakout"})
_WORD = re.compile(r"[a-z0-9+]+")
_NOT_WORD = re.compile(r"[^a-z0-9+\n]+")
#: The number of a part name (letters, then four digits or more: mega2560, mpu6050, ds3231), by which a bench
#: calls the part on its own ("the 2560"); shorter numbers (the 280 of both BME280 and BMP280, 401) are too
#: often a value or shared.
_PART_NUMBER = re.compile(r"^[a-z]+(\d{4,})[a-z]*$")
_DIGIT = re.compile(r"\d")


def _norm_text(text: str) -> str:
    return " ".join(_WORD.findall(text.lower().replace("_", " ")))


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
        parts = [p for p in re.split(r"[-_ ]+", tag) if p]
        add(" ".join(parts), tag)
        add("".join(parts), tag)
        for p in parts:
            if any(c.isdigit() for c in p) and any(c.isalpha() for c in p) and len(p) >= 4:
                add(p, tag)
                trimmed = re.sub(r"(?<=\d)[a-z]+$", "", p)
                if trimmed != p and any(c.isalpha() for c in trimmed):
                    add(trimmed, tag)
                if (number := _PART_NUMBER.search(p)) is not None:  # "the 2560", "the 6050": a part's number
                    add(number.group(1), tag)
        if len(parts) == 2 and parts[0] in _MAKERS and len(parts[1]) >= 3 and parts[1] not in _COMMON:
            add(parts[1], tag)
    present = set(tags)
    for name, tag in (*VOCABULARY.get("boards", {}).items(), *VOCABULARY.get("chips", {}).items()):
        if tag in present:
            add(name, tag)
    return names


#: Score multiplier of a chunk that names two or more of the boards and parts a question names ("D11 on the uno,
#: g071 and nrf boards", "can a PiGlow and an Automation HAT share the bus"): the table or note setting them side
#: by side answers for each of them at once, where one board's own pin map answers for one.
TOGETHER = 3.0
#: Candidates fetched for a question naming two or more boards, times the usual: the table comparing them is often
#: in a generic note without any board's boost.
TOGETHER_POOL = 3


def names_by_tag(names: Mapping[str, str], tags: Collection[str]) -> dict[str, list[str]]:
    """The informal names (:func:`nicknames`) of each of `tags`."""
    out: dict[str, list[str]] = {t: [] for t in tags}
    for name, tag in names.items():
        if tag in out:
            out[tag].append(name)
    return out


def boards_named(text: str, names: Mapping[str, Collection[str]]) -> int:
    """The most boards of `names` (tag -> its informal names) one line of `text` names: a table's header row or a
    sentence setting them side by side (a file's own board is named in its title, not beside the others)."""
    low = text.lower()
    if sum(1 for keys in names.values() if any(k.split(" ", 1)[0] in low for k in keys)) < 2:
        return 0  # (a plain search for each name's first word rules out most chunks: one board's own notes)
    words = " " + _NOT_WORD.sub(" ", low.replace("_", " ")).replace("\n", " \n ") + " "
    lines: Counter[int] = Counter()
    for keys in names.values():  # the lines naming each board, found by plain searches of the whole text
        at_lines = {words.count("\n", 0, at) for k in keys for at in _finds(words, f" {k} ")}
        lines.update(at_lines)
    return max(lines.values(), default=0)


def tag_words(tags: Iterable[str]) -> frozenset[str]:
    """Tokens naming a board or part: each tag's own and its part number (``2560``), which in a question tell
    the file, not a pin, register or value inside it."""
    words = {t for tag in tags for t in tokens(tag)}
    words.update(m.group(1) for tag in tags for p in re.split(r"[-_ ]+", tag) if (m := _PART_NUMBER.search(p)))
    return frozenset(words)


def detect(query: str, names: dict[str, str], max_words: int = 4) -> list[str]:
    """Tags a question names (longest names first; a name fitting several tags is skipped)."""
    found: list[str] = []
    for tag, _name in mentions(query, names, max_words):
        if tag not in found:
            found.append(tag)
    return found


def mentions(query: str, names: dict[str, str], max_words: int = 4) -> list[tuple[str, str]]:
    """(tag, the words naming it) for each board or part name in a question, longest names first; a name
    fitting several tags is skipped."""
    words = _norm_text(query).split()
    found: list[tuple[str, str]] = []
    used = [False] * len(words)
    for n in range(min(max_words, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            if any(used[i:i + n]):
                continue
            name = " ".join(words[i:i + n])
            tag = names.get(name)
            if tag:
                found.append((tag, name))
                for j in range(i, i + n):
                    used[j] = True
    return found


#: Chip names that scope a question to their one board (``rp1``: the Pi 5), as normalised words.
CHIP_NAMES = frozenset(_norm_text(name) for name in VOCABULARY.get("chips", {}))


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


def exact_terms(terms: Iterable[str], tag_terms: Collection[str] = ()) -> list[str]:
    """Query terms that name a pin, register or number: they hold a digit and are not a board or part name."""
    return [t for t in terms if _DIGIT.search(t) and t not in tag_terms]




def _numbered_row(term: str, cid: int, has_term: Callable[[str, int], bool]) -> bool:
    """Whether a chunk holds ``GPIO22`` as a table row numbered ``22`` under a GPIO column or heading (the
    alternate-function tables of the Pi SoCs number their rows)."""
    m = _GPIO_TERM.fullmatch(term)
    return m is not None and has_term(m.group(1), cid) and has_term("gpio", cid)


#: Tokens a pin range can name (``gpio9``, ``pd3``, ``p0.07``, ``a12``): only for these are a chunk's ranges read.
_RANGE_NAME = re.compile(r"(?:gpio|gp|p[a-l]|p\d\.|d|a)\d{1,2}")


def range_pins(text: str) -> frozenset[str]:
    """The pins a chunk names through a range (``GPIO6-GPIO11`` names GPIO9; ``D2-D7 = PD2-PD7`` names D3 and
    PD3), as lowercase tokens: the pins a paragraph about a group of pins is about without writing each one."""
    if "-" not in text and "\u2013" not in text:
        return frozenset()
    return frozenset(w.lower() for _, name, pin, _ in pin_ranges(text) for w in (name, pin))


def _is_row_number(term: str) -> bool:
    """Whether an exact term is a bare number of one or two digits (``pin 26``, ``chip select 1``, ``alarm 2``):
    every pin table and register map holds those as its row and bit numbers, so holding one is no evidence of
    the row that answers."""
    return len(term) <= 2 and term.isdigit()


@lru_cache(maxsize=4096)
def heading_functions(heading: str) -> frozenset[str]:
    """The buses and functions (:data:`FUNCTIONS`) a chunk's own section heading names (``PCM / I2S audio``)."""
    last = heading.rsplit(" > ", 1)[-1].lower().replace("1-wire", "onewire")
    return frozenset(w for w in (m.rstrip("0123456789") for m in _HEAD_WORD.findall(last)) if w in FUNCTIONS)


def is_code_table(text: str) -> bool:
    """Whether a chunk holds a register or command table: at least three table rows with a hex code cell."""
    if "0x" not in text and "0X" not in text:
        return False
    return sum(1 for _ in islice(_CODE_ROW.finditer(text), 3)) == 3


@dataclass(slots=True)
class Candidate:
    """One BM25 candidate with the facts about it that the reranking rules read, built by the search.

    The search fills in what the question calls for: `about_asked` only when the question names a bus or
    function, `code_table` only when it asks for a bit, register, flag or command, and the exact-token facts
    (:func:`weigh_exact`) only when it holds an exact token that can earn the bonus.
    """

    score: float  #: BM25 with the scope's board boost
    source: str  #: path relative to the datasheet directory
    position: int  #: the chunk's place in its file
    cid: int
    board: str | None
    heading: str = ""
    text: str = ""
    alias_list: bool = False  #: a pin-alias section (:func:`is_alias_list`)
    overview: bool = False  #: the text under the file's title, before its first section
    about_asked: bool = False  #: its own heading names a bus or function the question names
    code_table: bool = False  #: a register or command table the question's bit, register or flag may sit in
    exact_share: float | None = None  #: share of the question's exact tokens it holds outside its file name
    holds_pin: bool = False  #: it holds (or names through a range) the chip pin the question names
    pin_row: bool = False  #: a line of it holds that chip pin and another of the question's words
    boards_named: int = 0  #: how many of the boards and parts the question names it is of or names (when 2+)
    line_share: float = 0.0  #: share of the question's section words its best line holds (:func:`.lines.line_share`)


#: Within a file with several candidates, a section's score is multiplied by 1 + ONE_LINE x its
#: :func:`.lines.line_share`, and then the file's sections are scaled together so its best score stays what it was.
ONE_LINE = 1.0


def weigh_exact(candidates: Iterable[Candidate], exact: list[str], has_term: Callable[[str, int], bool],
                file_terms: Callable[[str], Collection[str]],
                ranged: Callable[[Candidate], Collection[str]] | None = None,
                row_words: Collection[str] = ()) -> None:
    """Fill in the candidates' exact-token facts: the share of the question's `exact` tokens each holds outside
    its file name (a pin, register or number; a bare row number or a bus family's name earns nothing), whether
    it holds the chip pin the question names, also through a range (`ranged`: ``GPIO6-GPIO11`` holds GPIO9),
    and whether a line of it holds that pin beside one of the question's `row_words`."""
    pins_asked = {t for t in exact if _CHIP_PIN.fullmatch(t)}
    # the exact terms that can earn the bonus anywhere, then per candidate those its file name does not hold
    bonus_terms = [t for t in exact if not _is_row_number(t) and t not in FUNCTIONS]
    if not bonus_terms:
        return
    for c in candidates:
        in_name = file_terms(c.source)
        wanted = [t for t in bonus_terms if t not in in_name]
        if not wanted:
            continue
        held = [t for t in wanted if has_term(t, c.cid) or _numbered_row(t, c.cid, has_term)]
        if ranged is not None and any(_RANGE_NAME.fullmatch(t) for t in wanted if t not in held):
            # "Flash pins: GPIO6-GPIO11" is the paragraph about GPIO9 although it never writes it
            in_range = ranged(c)
            held += [t for t in wanted if t in in_range and t not in held]
        c.exact_share = len(held) / len(wanted)
        if pins_asked and not pins_asked.isdisjoint(held):
            c.holds_pin = True
            c.pin_row = pin_row_words(c.text, pins_asked, row_words)


def rerank(candidates: list[Candidate], limit: int, *, scoped: Collection[str] = (),
           other_boards: Collection[str] = (), pinned: Collection[str] = (), asked: bool = False,
           read_lines: Callable[[Candidate], float] | None = None) -> list[tuple[float, Candidate]]:
    """The best `limit` candidates after the rules of this module, as (final score, candidate), best first.

    `scoped` are the boards in scope (boosted), `other_boards` the tags of boards with a board file, `pinned`
    the boards the question's chip pin points at, `asked` whether the question itself names a board."""
    any_scoped = any(c.board in scoped for c in candidates)
    files = Counter(c.source for c in candidates)
    plain_files = {c.source for c in candidates if not c.about_asked}
    code_files = {c.source for c in candidates if not c.code_table}
    # a file where some candidate holds the chip pin the question names halves its candidates that do not
    pin_files = {c.source for c in candidates if c.holds_pin}
    # the boards the question's chip pin points at answer with the pin's own row: another board's or part's
    # chunk that does not hold the pin (a HAT's "analog inputs" for "P0.28 analog channel") comes after it
    pin_answered = bool(pinned) and any(c.board in pinned for c in candidates if c.holds_pin)
    scored: list[tuple[bool, float, Candidate]] = []
    for c in candidates:
        score, rel, board = c.score, c.source, c.board
        demoted = bool(scoped) and any_scoped and board is not None and board not in scoped and board in other_boards
        if pin_answered and board is not None and board not in pinned and not c.holds_pin:
            demoted = True
        if asked and board is not None and board not in scoped:
            score *= UNASKED
        if rel in pin_files and not c.holds_pin:
            score *= WITHOUT_THE_PIN
        if c.pin_row:
            score *= PIN_ROW
        if c.exact_share is not None:
            score *= 1.0 + EXACT_BONUS * c.exact_share
        if c.alias_list:
            score *= ALIAS_LIST
        if c.overview and files[rel] > 1:
            score *= OVERVIEW
        if c.about_asked and rel in plain_files:
            score *= FUNCTION_SECTION
        if c.code_table and rel in code_files:
            score *= CODE_TABLE
        if c.boards_named >= 2:
            score *= TOGETHER * c.boards_named
        scored.append((demoted, score, c))
    if read_lines is not None:  # a file whose section is headed by the asked bus is told apart by rule 5
        headed = {c.source for c in candidates if c.about_asked and c.source in plain_files}
        scored = _by_line(scored, {f for f, n in files.items() if n > 1 and f not in headed}, read_lines)
    heap = [(demoted, -score, c.source, c.position, 0, score, c.cid, c) for demoted, score, c in scored]
    # Greedy pick with the same-file discount, lazily: a candidate whose file gained a pick since its key was
    # computed goes back into the heap with its new key (keys only ever get worse, so the heap's best is final).
    picked: list[tuple[float, Candidate]] = []
    per_file: dict[str, int] = {}
    heapq.heapify(heap)
    while heap and len(picked) < limit:
        demoted, _neg, rel, idx, seen, score, cid, c = heapq.heappop(heap)
        n = per_file.get(rel, 0)
        if n != seen:
            heapq.heappush(heap, (demoted, -score * SAME_FILE ** n, rel, idx, n, score, cid, c))
            continue
        per_file[rel] = n + 1
        picked.append((round(score * SAME_FILE ** n, 9), c))
    return picked


def _by_line(scored: list[tuple[bool, float, Candidate]], files: Collection[str],
             read_lines: Callable[[Candidate], float]) -> list[tuple[bool, float, Candidate]]:
    """The sections of each of `files` reordered by their best line (:data:`ONE_LINE`), the file's best score
    kept: the line tells the section, the file's standing is the other rules' to set. Only the sections the
    bonus could lift to their file's best score are read (`read_lines` fills in :attr:`Candidate.line_share`)."""
    best: dict[str, float] = {}
    for _, score, c in scored:
        if c.source in files:
            best[c.source] = max(best.get(c.source, 0.0), score)
    reach = 1.0 + ONE_LINE
    contenders = Counter(c.source for _, score, c in scored if c.source in best and score * reach >= best[c.source])
    after: dict[str, float] = {}
    out: list[tuple[bool, float, Candidate]] = []
    for demoted, score, c in scored:
        if contenders[c.source] > 1:
            if score * reach >= best[c.source]:
                c.line_share = read_lines(c)
                score *= 1.0 + ONE_LINE * c.line_share
            after[c.source] = max(after.get(c.source, 0.0), score)
        out.append((demoted, score, c))
    return [(demoted, score * best[c.source] / after[c.source] if after.get(c.source) else score, c)
            for demoted, score, c in out]


#: Characters of one context slot (512 tokens): the long results that start inside it are windowed.
CONTEXT_CHARS = 2048
#: A result longer than this is cut to the lines that answer (a window), so the first results of a search fit
#: one 2,048-character context slot together; the whole section is one ``read`` away.
WINDOW_CHARS = 900
#: Only a result longer than this is cut (a section a little over the window is cheaper to keep whole).
WINDOW_FROM = 1000
#: Fewer lines than this (a few long paragraphs) are returned whole.
WINDOW_MIN_LINES = 8
_GAP = "…"


def window(text: str, terms: Collection[str], exact: Collection[str], limit: int = WINDOW_CHARS,
           whole_upto: int = WINDOW_FROM) -> str:
    """The lines of a long chunk that hold the question's terms, in document order, within about `limit`
    characters: the best lines first (exact pin, register and number tokens count triple and are matched as
    whole tokens, so ``1`` does not pick the rows of ``11`` or ``0x10``; a word also in the spellings the
    vocabulary folds into it, so ``microphone`` picks the ``MIC CLK`` row), each with the line before and
    after it, and the header rows of the table a picked row belongs to. Skipped stretches
    are marked with an ellipsis line. Text up to `limit` or `whole_upto` characters (or with no line holding
    a term) is returned whole.
    """
    if len(text) <= max(limit, whole_upto):
        return text
    if text.count("\n") + 1 < WINDOW_MIN_LINES:  # a few long paragraphs: nothing to pick between
        return text
    lines = text.split("\n")
    # Terms are found in the lowercased lines, not by re-tokenising them (that would cost more than the
    # search): a normalised term as a substring ("pin" in "pins"); words of one or two characters only when
    # they are exact tokens (a number, a pin), since as substrings they are everywhere.
    low = text.lower()  # may differ in length from `text` (a few letters lowercase to two), so lines are counted in it
    weights: dict[int, int] = {}

    def mark(positions: Iterable[int], weight: int) -> None:
        seen, at, i = -1, 0, 0
        for pos in positions:  # ascending
            i += low.count("\n", at, pos)
            at = pos
            if i != seen:  # a term counts once per line
                weights[i] = weights.get(i, 0) + weight
                seen = i

    for t in terms:
        if t in exact:
            mark(_exact_hits(low, t), 3)
            if (g := _GPIO_TERM.fullmatch(t)) is not None:  # a GPIO table's row 22 holds GPIO22
                row = f"| {g.group(1)} |"
                mark((m.start() + 1 for m in re.finditer(re.escape("\n" + row), low)), 3)
                if low.startswith(row):
                    mark((0,), 3)
        else:  # the term as the text may write it: itself and the words the vocabulary folds into it (a
            # question's "microphone" is the table's "MIC", its "chip select" the "NSS" row)
            written = [w for w in (t, *spellings(t)) if len(w) > 2]
            if len(written) == 1:
                mark(_finds(low, written[0]), 1)
            elif written:
                mark(sorted(chain.from_iterable(_finds(low, w) for w in written)), 1)
    if not weights:
        return text
    n = len(lines)
    keep: set[int] = set()
    used = 0
    for i in sorted(weights, key=lambda i: (-weights[i], i)):
        want = {i - 1, i, i + 1} if 0 < i < n - 1 else {j for j in (i - 1, i, i + 1) if 0 <= j < n}
        head = _table_head(lines, i)
        if head >= 0:
            want.add(head)
            if head + 1 < i:
                want.add(head + 1)  # the separator row under a table's header
        new = want - keep
        cost = sum(len(lines[j]) + 1 for j in new)
        if keep and used + cost > limit:
            if used > limit - 40:
                break
            continue
        keep |= new
        used += cost
    out: list[str] = []
    last = -1
    for i in sorted(keep):
        if i > last + 1:
            out.append(_GAP)
        out.append(lines[i])
        last = i
    if last < n - 1:
        out.append(_GAP)
    return "\n".join(out)
