"""Query-side ranking: the reranking of BM25 candidates, and the answer windows of long results.

Which boards and parts a question names, and which boards its chip pin points at, is :mod:`.boards`' job; this
module reads the candidates the search found with those facts.

Reranking. BM25 (with the scope's board boost) proposes a few times more candidates than asked for;
then these rules apply, each multiplying a candidate's score by its factor (:class:`Weights`, kept as data in
``weights.toml`` and chosen together):

1. with a scope, a chunk of another *board* (a board with a board file, a tag a board file answers
   to, or a host board's datasheet: :func:`.boards.is_host_board`) never outranks a chunk of the scoped
   boards; parts, add-on boards and generic notes compete on score alone, except an add-on for another kind of
   host (a Pi HAT, whose pins are GPIO17, when a Nucleo is configured: :func:`.boards.pin_families`) that holds
   no word of the question the configured board's candidates lack, which ranks after them; when a board the
   question's chip pin points at has a candidate holding the pin, another board's or part's chunk without the
   pin ranks after the others (a HAT's analog inputs for ``P0.28 analog``); and when the question itself names a
   board, a part or add-on board it does not name counts less (:attr:`Weights.unasked`);
2. chunks holding the question's exact pin, register and number tokens (``PA5``, ``0xD0``, ``GPIO17``,
   ``400``) that do not come from the file name get a bonus, so the row stating the fact beats the
   file's overview; a bare number of one or two digits (``pin 26``, ``chip select 1``) earns none, since
   every pin table and register map holds those as row and bit numbers, nor does a bus family's name that
   happens to hold a digit (``I2C``, ``I2S``): it is the question's topic, written all over the bus's sections;
   within a file, a section that does not hold the chip pin the question names (``PF7``, ``GPIO27``) counts
   less when another section of the file does, and one with a line holding the pin beside another of the
   question's words (the pin's own row) counts more, as does one with the row of the header place the question
   asks about ("pin 25": the header map's row starting with 25);
3. each further chunk from a file already picked can count less (:attr:`Weights.same_file`), so a question
   needing two facts from two files gets both into the first results (measured best at no discount);
4. a file's overview counts less when one of its sections is also a candidate and the question asks for a
   value a table row holds (a pin, a register or bit, an address, a header position, an exact token:
   :func:`asks_lookup`); a question about the part or board as a whole (its chip, clock, supply, what is on
   it) is answered by the overview as well as by a section, so there the overview competes on its score. A
   pin-alias section (name = pin lines) counts less than prose or a table saying what the pin does, unless the
   question asks for an alias by that word;
5. a section whose own heading names a bus or function the question names (``SPI``, ``UART``, ``I2S``) counts
   more when a section of the same file that does not (the general pin map) is also a candidate;
6. a question asking for a bit, register, flag or command weighs the file's register or command table (rows
   holding hex codes) more when prose sections of the same file that name the bit are also candidates;
7. a question naming two or more boards or parts reads more candidates, and a chunk with a line naming several
   of them side by side (a comparison table's header row) counts :attr:`Weights.together` times more per board named;
8. within a file, the section where one line holds most of the question's words (:func:`.lines.line_share`: a register
   table's row, a sentence of a note) comes first: a lookup is answered by one row or line, where a section that
   only shares the words scattered over its lines (an address table beside a note) is about something else.
   The file keeps the standing its best section earned; only the order of its sections changes; a file where a
   section's own heading names the asked bus (rule 5) is left to that rule.

A Pi model's name in a question (``pi 4``, ``zero 2 w``) only scopes the search (:func:`.boards.content_terms`):
the header file every 40-pin model shares never writes it. Every result that is a long section and
starts inside the first context slot (:data:`CONTEXT_CHARS`) is cut to its answering lines (:func:`window`),
so the first results fit that slot together.
"""

from __future__ import annotations

import heapq
import re
import tomllib
from collections import Counter
from collections.abc import Callable, Collection, Container, Iterable, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import islice
from pathlib import Path

from edge_agent.errors import ConfigError
from edge_agent.pins.ranges import pin_ranges
from edge_agent.rag.boards import is_chip_pin
from edge_agent.rag.lines import GPIO_TERM as _GPIO_TERM
from edge_agent.rag.lines import exact_hits as _exact_hits
from edge_agent.rag.text import spellings, tokens

#: Candidates fetched per result asked for, before reranking.
CANDIDATES_PER_RESULT = 2
MIN_CANDIDATES = 10


@dataclass(frozen=True, slots=True)
class Weights:
    """The reranking's score multipliers, one per rule, read from ``weights.toml`` (each explained there).

    They act together, so they are kept as data and chosen together (``bench/_rag_fit.py``)."""

    exact_bonus: float  #: per exact token held, scaled by the share held (rule 2)
    without_the_pin: float  #: a section without the asked chip pin beside one with it (rule 2)
    pin_row: float  #: a line holding the asked chip pin and another question word (rule 2)
    same_file: float  #: each chunk already picked from the same file (rule 3)
    alias_list: float  #: a pin-alias section
    overview: float  #: a file's overview beside one of its sections (rule 4)
    function_section: float  #: a section headed by the asked bus beside the general pin map (rule 5)
    code_table: float  #: a register or command table when a bit, register or command is asked (rule 6)
    unasked: float  #: a part the question does not name when it names a board (rule 1)
    together: float  #: per board named, a line naming several of the asked boards (rule 7)
    one_line: float  #: the best line's share of the question's words, within a file (rule 8)

    @classmethod
    def parse(cls, text: str, origin: str = "weights.toml") -> Weights:
        """The multipliers of a TOML text holding each of them (and nothing else) as a number >= 0."""
        names = [f.name for f in fields(cls)]
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{origin}: not TOML ({exc}); expected each of {', '.join(names)} as a number") from exc
        problems = []
        if unknown := sorted(set(data) - set(names)):
            problems.append(f"unknown {', '.join(unknown)}")
        if missing := [n for n in names if n not in data]:
            problems.append(f"missing {', '.join(missing)}")
        if bad := [n for n in names if n in data and (isinstance(data[n], bool) or not isinstance(data[n], int | float)
                                                      or data[n] < 0)]:
            problems.append(f"not a number >= 0: {', '.join(bad)}")
        if problems:
            raise ConfigError(f"{origin}: {'; '.join(problems)}; expected each of {', '.join(names)} as a number")
        return cls(**{n: float(data[n]) for n in names})


#: The multipliers the search uses (``weights.toml`` beside this module).
WEIGHTS = Weights.parse(Path(__file__).with_name("weights.toml").read_text(encoding="utf-8"))
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


#: Buses and pin functions a section heading can be about (instances count for their family: ``SPI0``).
FUNCTIONS = frozenset({"spi", "qspi", "i2c", "i2s", "pcm", "uart", "usart", "pwm", "can", "usb", "adc", "dac",
                       "onewire", "swd", "jtag", "gpclk"})
#: Question words asking where a setting lives: the answer is a register map's or a command table's row.
CODE_WORDS = frozenset({"bit", "register", "flag", "command", "field", "mask"})
#: Question words asking for a value one row of a table holds: a pin, a register or bit, a bus address, a place on
#: a header (rule 4).
LOOKUP_WORDS = PIN_WORDS | CODE_WORDS | {"address", "position"}
_CODE_ROW = re.compile(r"^\|(?:[^|\n]*\|)*? *0x[0-9a-f]+(?: *[-/] *0x[0-9a-f]+)? *\|", re.IGNORECASE | re.MULTILINE)
_HEAD_WORD = re.compile(r"[a-z0-9]+")
_ALIAS_HEADING = re.compile(r"(?:^|> )pins?(?: alias(?:es)?)?$", re.IGNORECASE)


def asks_lookup(terms: Collection[str], exact: Collection[str]) -> bool:
    """Whether a question (its `terms`, and the `exact` pin, register and number tokens among them) asks for a
    value a table row holds, rather than about the part or board as a whole (rule 4)."""
    return bool(exact) or not LOOKUP_WORDS.isdisjoint(terms)


def is_alias_list(heading: str, body: str = "") -> bool:
    """Whether a chunk's heading path ends in a pin-alias section (``... > Pin Aliases``) whose `body` lists names
    and pins: a table of three columns or more under such a heading (a package's ``| Signal | Pin | Use |``) says
    what each pin does, and is a pin table, not a bare list of aliases."""
    if not (heading[-7:].lower().endswith(("pins", "pin", "alias", "aliases")) and _ALIAS_HEADING.search(heading)):
        return False
    return _WIDE_ROW.search(body) is None


#: A table row of three cells or more.
_WIDE_ROW = re.compile(r"^\|[^|\n]*\|[^|\n]*\|[^|\n]*\|", re.MULTILINE)

#: Candidates fetched for a question naming two or more boards, times the usual: the table comparing them is often
#: in a generic note without any board's boost.
TOGETHER_POOL = 3


_DIGIT = re.compile(r"\d")

#: "pin 21" alone: on a board numbering its digital pins the Arduino way, its D21 (a physical, header or edge
#: pin is a place on a connector instead).
_BARE_PIN = re.compile(r"(?<!physical )(?<!header )(?<!edge )\bpin\s*#?(\d{1,2})\b")


def bare_pin(query: str) -> str | None:
    """The digital pin a question names by number alone ("d21" for "attachInterrupt number for pin 21"), if
    exactly one."""
    low = query.lower()
    if "pin" not in low:  # the pattern's own word: most questions name no pin by number
        return None
    pins = {int(n) for n in _BARE_PIN.findall(low)}
    return f"d{pins.pop()}" if len(pins) == 1 else None


#: A place on a header the question asks about: "pin 25", "header pin 8", "physical pin 12", "J8-40".
_PLACE = re.compile(r"\b(?:pin|position|j8-?)\s*#?(\d{1,2})\b")


def asked_place(query: str) -> str | None:
    """The header place a question asks about (``"25"`` for "is pin 25 on the pi header a gpio"), if exactly
    one."""
    low = query.lower()
    if "pin" not in low and "position" not in low and "j8" not in low:  # the pattern's own words
        return None
    places = set(_PLACE.findall(low))
    return places.pop() if len(places) == 1 else None


def holds_place(text: str, place: str) -> bool:
    """Whether a table row of `text` starts with the header `place` (``25   | Ground``, ``| 17 | IO10 |``,
    ``| J8-40 | GPIO21 |``), or holds it in a column headed as the pin's number (a package's ``| SDO | 5 | ... |``
    under ``| Signal | Pin | Use |``): the place's own row, where the other rows of the same map are about other
    pins."""
    if re.search(rf"^\|? *(?:j8[- ]?)?{place} *\|", text, re.MULTILINE | re.IGNORECASE) is not None:
        return True
    return "|" in text and place in _numbered_column_cells(text)


#: Column headings under which a table gives each row's pin number.
_NUMBER_COLUMNS = frozenset({"pin", "pin #", "pin no", "pin no.", "pin number", "no", "no.", "#", "physical pin",
                             "phys", "position"})


def _numbered_column_cells(text: str) -> set[str]:
    """The cells of every table column of `text` headed as a pin's number (:data:`_NUMBER_COLUMNS`)."""
    cells: set[str] = set()
    column: int | None = None
    previous_row = False
    for line in text.splitlines():
        row = line.startswith("|")
        if not row:
            column = None
        elif not previous_row:  # a table's header row
            heads = [c.strip().lower() for c in line.strip().strip("|").split("|")]
            column = next((i for i, h in enumerate(heads) if h in _NUMBER_COLUMNS), None)
        elif column is not None:
            row_cells = line.strip().strip("|").split("|")
            if column < len(row_cells):
                cells.add(row_cells[column].strip())
        previous_row = row
    return cells


def weigh_place(candidates: Sequence[Candidate], place: str) -> None:
    """Mark as the pin's own row (:attr:`Candidate.pin_row`) each candidate holding the row of the header `place`
    the question asks about ("pin 25 on the pi header": the header map's row 25), where another candidate of its file
    does not: the row tells the half of a split map apart, not one file from another."""
    rows = [holds_place(c.text, place) for c in candidates]
    without = {c.source for c, row in zip(candidates, rows, strict=True) if not row}
    for c, row in zip(candidates, rows, strict=True):
        c.pin_row = row and c.source in without


def exact_terms(terms: Iterable[str], tag_terms: Collection[str] = ()) -> list[str]:
    """Query terms that name a pin, register or number: they hold a digit and are not a board or part name."""
    return [t for t in terms if _DIGIT.search(t) and t not in tag_terms]


def _numbered_row(term: str, cid: int, has_term: Callable[[str, int], bool], rows: dict[str, str]) -> bool:
    """Whether a chunk holds ``GPIO22`` as a table row numbered ``22`` under a GPIO column or heading (the
    alternate-function tables of the Pi SoCs number their rows); `rows`: :func:`_gpio_rows` of the question."""
    row = rows.get(term)
    return row is not None and has_term(row, cid) and has_term("gpio", cid)


def _gpio_rows(terms: Iterable[str]) -> dict[str, str]:
    """The row number a numbered GPIO table gives each ``GPIOn`` term (``22`` for ``GPIO22``), read once a question."""
    return {t: m.group(1) for t in terms if (m := _GPIO_TERM.fullmatch(t)) is not None}


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
    demoted: bool = False  #: ranked after every candidate that is not (another board's chunk when scoped: rule 1)
    foreign: bool = False  #: an add-on's or part's chunk whose pins are named as no configured board names its own




def weigh_exact(candidates: Iterable[Candidate], exact: list[str], has_term: Callable[[str, int], bool],
                file_terms: Callable[[str], Collection[str]],
                ranged: Callable[[Candidate], Collection[str]] | None = None,
                row_words: Collection[str] = ()) -> None:
    """Fill in the candidates' exact-token facts: the share of the question's `exact` tokens each holds outside
    its file name (a pin, register or number; a bare row number or a bus family's name earns nothing), whether
    it holds the chip pin the question names, also through a range (`ranged`: ``GPIO6-GPIO11`` holds GPIO9),
    and whether a line of it holds that pin beside one of the question's `row_words`."""
    pins_asked = {t for t in exact if is_chip_pin(t)}
    # the exact terms that can earn the bonus anywhere, then per candidate those its file name does not hold
    bonus_terms = [t for t in exact if not _is_row_number(t) and t not in FUNCTIONS]
    if not bonus_terms:
        return
    # what each term is, read once for every candidate: a GPIO table's row number, a name a pin range can hold
    rows = _gpio_rows(bonus_terms)
    rangeable = {t for t in bonus_terms if _RANGE_NAME.fullmatch(t)}
    for c in candidates:
        in_name = file_terms(c.source)
        wanted = [t for t in bonus_terms if t not in in_name]
        if not wanted:
            continue
        held = [t for t in wanted if has_term(t, c.cid) or _numbered_row(t, c.cid, has_term, rows)]
        if ranged is not None and any(t in rangeable for t in wanted if t not in held):
            # "Flash pins: GPIO6-GPIO11" is the paragraph about GPIO9 although it never writes it
            in_range = ranged(c)
            held += [t for t in wanted if t in in_range and t not in held]
        c.exact_share = len(held) / len(wanted)
        if pins_asked and not pins_asked.isdisjoint(held):
            c.holds_pin = True
            c.pin_row = c.pin_row or pin_row_words(c.text, pins_asked, row_words)


def rerank(candidates: list[Candidate], limit: int, *, scoped: Collection[str] = (),
           other_boards: Container[str] = (), pinned: Collection[str] = (), asked: bool = False,
           read_lines: Callable[[Candidate], float] | None = None, lookup: bool = True,
           weights: Weights = WEIGHTS) -> list[tuple[float, Candidate]]:
    """The best `limit` candidates after the rules of this module, as (final score, candidate), best first.

    `scoped` are the boards in scope (boosted), `other_boards` the tags of boards (not parts or add-ons), `pinned`
    the boards the question's chip pin points at, `asked` whether the question itself names a board, `lookup`
    whether it asks for a value a table row holds (:func:`asks_lookup`); `weights` are the rules' multipliers."""
    w = weights
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
        demoted = bool(scoped) and any_scoped and board is not None and board not in scoped and (
            board in other_boards or c.foreign)
        if pin_answered and board is not None and board not in pinned and not c.holds_pin:
            demoted = True
        if asked and board is not None and board not in scoped:
            score *= w.unasked
        if rel in pin_files and not c.holds_pin:
            score *= w.without_the_pin
        if c.pin_row:
            score *= w.pin_row
        if c.exact_share is not None:
            score *= 1.0 + w.exact_bonus * c.exact_share
        if c.alias_list:
            score *= w.alias_list
        if c.overview and lookup and files[rel] > 1:
            score *= w.overview
        if c.about_asked and rel in plain_files:
            score *= w.function_section
        if c.code_table and rel in code_files:
            score *= w.code_table
        if c.boards_named >= 2:
            score *= w.together * c.boards_named
        c.demoted = demoted
        scored.append((demoted, score, c))
    if read_lines is not None:  # a file whose section is headed by the asked bus is told apart by rule 5
        headed = {c.source for c in candidates if c.about_asked and c.source in plain_files}
        scored = _by_line(scored, {f for f, n in files.items() if n > 1 and f not in headed}, read_lines,
                          w.one_line)
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
            heapq.heappush(heap, (demoted, -score * w.same_file ** n, rel, idx, n, score, cid, c))
            continue
        per_file[rel] = n + 1
        picked.append((round(score * w.same_file ** n, 9), c))
    return picked


def _by_line(scored: list[tuple[bool, float, Candidate]], files: Collection[str],
             read_lines: Callable[[Candidate], float], one_line: float) -> list[tuple[bool, float, Candidate]]:
    """The sections of each of `files` reordered by their best line (a section's score times 1 + `one_line` x its
    :func:`.lines.line_share`), the file's best score
    kept: the line tells the section, the file's standing is the other rules' to set. Only the sections the
    bonus could lift to their file's best score are read (`read_lines` fills in :attr:`Candidate.line_share`)."""
    best: dict[str, float] = {}
    for _, score, c in scored:
        if c.source in files:
            best[c.source] = max(best.get(c.source, 0.0), score)
    reach = 1.0 + one_line
    contenders = Counter(c.source for _, score, c in scored if c.source in best and score * reach >= best[c.source])
    after: dict[str, float] = {}
    out: list[tuple[bool, float, Candidate]] = []
    for demoted, score, c in scored:
        if contenders[c.source] > 1:
            if score * reach >= best[c.source]:
                c.line_share = read_lines(c)
                score *= 1.0 + one_line * c.line_share
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
    low_lines: list[str] | None = None  # its lines, split when a word is looked for
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
            # question's "microphone" is the table's "MIC", its "chip select" the "NSS" row), once per line
            # holding one (a word has no line break: each line is searched once, not each occurrence)
            written = [w for w in (t, *spellings(t)) if len(w) > 2 and w in low]
            if not written:
                continue
            if low_lines is None:
                low_lines = low.split("\n")
            if len(written) == 1:
                one = written[0]
                held = [i for i, line in enumerate(low_lines) if one in line]
            else:
                held = [i for i, line in enumerate(low_lines) if any(w in line for w in written)]
            for i in held:
                weights[i] = weights.get(i, 0) + 1
    if not weights:
        return text
    n = len(lines)
    heads = _table_heads(lines) if "|" in text else None
    keep: set[int] = set()
    used = 0
    for i in sorted(weights, key=lambda i: (-weights[i], i)):
        want = {i - 1, i, i + 1} if 0 < i < n - 1 else {j for j in (i - 1, i, i + 1) if 0 <= j < n}
        want.update(range(_sentence_start(lines, i), i))
        if heads is not None and (head := heads[i]) >= 0:
            want.add(head)
            if head + 1 < i:
                want.add(head + 1)  # the separator row under a table's header
        new = want - keep
        cost = len(new)  # the lines and their line breaks
        for j in new:
            cost += len(lines[j])
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


#: A line that opens a unit of its own: a heading, a table row, a list item, a code fence.
_UNIT_START = re.compile(r"\s*(?:#|\||[-*+] |\d+[.)] |```)")
#: How far back a wrapped paragraph is followed to its first line.
_PARAGRAPH_BACK = 3


def _sentence_start(lines: list[str], i: int) -> int:
    """The first line of the wrapped paragraph or list item line `i` continues (at most a few lines back), so a
    picked line is never shown without the start of its sentence ("Write 0x00 ... before expecting data" is
    only an instruction with "the device starts in sleep mode" before it); `i` itself for a table row, a
    heading or a line that opens its unit."""
    j = i
    while j > 0 and i - j < _PARAGRAPH_BACK and lines[j].strip() and not _UNIT_START.match(lines[j]):
        if not lines[j - 1].strip() or lines[j - 1].startswith("|"):
            break
        j -= 1
    return j


def _table_heads(lines: list[str]) -> list[int]:
    """For each line, the first line of the Markdown table it belongs to (:func:`.lines.table_head`), or -1."""
    out: list[int] = []
    head = -1
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            head = -1
        elif head < 0:
            head = i
        out.append(head)
    return out
