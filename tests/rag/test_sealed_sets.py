"""The held-out sets are checked as data here: every answer is written in its datasheet, every lookup names a board and
pin the data holds (or, for a lookup that must be refused, says why). The sealed ones (held-out 18 questions, lookup
set 15) are ranked and resolved only by the final bench run, so their totals stay unseen while ranking and pin-index
changes are tried; these checks read only the datasheets' text, never the search or the resolver."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins import PinIndex
from edge_agent.rag import pin_index_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._pin_lookups import (  # noqa: E402
    PIN_LOOKUPS,
    PIN_LOOKUPS_HELD_OUT,
    PIN_LOOKUPS_HELD_OUT_2,
    PIN_LOOKUPS_HELD_OUT_3,
    PIN_LOOKUPS_HELD_OUT_4,
    PIN_LOOKUPS_HELD_OUT_5,
    PIN_LOOKUPS_HELD_OUT_6,
    PIN_LOOKUPS_HELD_OUT_7,
    PIN_LOOKUPS_HELD_OUT_8,
    PIN_LOOKUPS_HELD_OUT_9,
    PIN_LOOKUPS_HELD_OUT_10,
    PIN_LOOKUPS_HELD_OUT_11,
    PIN_LOOKUPS_HELD_OUT_12,
    PIN_LOOKUPS_HELD_OUT_13,
    PIN_LOOKUPS_HELD_OUT_14,
    PIN_LOOKUPS_HELD_OUT_15,
    PinLookup,
)
from bench._rag_heldout import HELD_OUT  # noqa: E402
from bench._rag_heldout2 import HELD_OUT_2  # noqa: E402
from bench._rag_heldout3 import HELD_OUT_3  # noqa: E402
from bench._rag_heldout4 import HELD_OUT_4  # noqa: E402
from bench._rag_heldout5 import HELD_OUT_5  # noqa: E402
from bench._rag_heldout6 import HELD_OUT_6  # noqa: E402
from bench._rag_heldout7 import HELD_OUT_7  # noqa: E402
from bench._rag_heldout8 import HELD_OUT_8  # noqa: E402
from bench._rag_heldout9 import HELD_OUT_9  # noqa: E402
from bench._rag_heldout10 import HELD_OUT_10  # noqa: E402
from bench._rag_heldout11 import HELD_OUT_11  # noqa: E402
from bench._rag_heldout12 import HELD_OUT_12  # noqa: E402
from bench._rag_heldout13 import HELD_OUT_13  # noqa: E402
from bench._rag_heldout14 import HELD_OUT_14  # noqa: E402
from bench._rag_heldout15 import HELD_OUT_15  # noqa: E402
from bench._rag_heldout16 import HELD_OUT_16  # noqa: E402
from bench._rag_heldout17 import HELD_OUT_17  # noqa: E402
from bench._rag_heldout18 import HELD_OUT_18  # noqa: E402
from bench._rag_outside import OUTSIDE_A, OUTSIDE_B, OUTSIDE_C, OUTSIDE_D  # noqa: E402
from bench._rag_questions import QUESTIONS, Question  # noqa: E402

REFUSALS = ("!unknown", "!ambiguous")


def _roots(shared: Path) -> dict[str, Path]:
    return {"shared": shared, "bundled": bundled_datasheets_dir()}


#: The lookup sets in the order they were written: each must ask nothing a set before it asks.
LOOKUP_SETS = (PIN_LOOKUPS, PIN_LOOKUPS_HELD_OUT, PIN_LOOKUPS_HELD_OUT_2, PIN_LOOKUPS_HELD_OUT_3,
               PIN_LOOKUPS_HELD_OUT_4, PIN_LOOKUPS_HELD_OUT_5, PIN_LOOKUPS_HELD_OUT_6, PIN_LOOKUPS_HELD_OUT_7,
               PIN_LOOKUPS_HELD_OUT_8, PIN_LOOKUPS_HELD_OUT_9, PIN_LOOKUPS_HELD_OUT_10, PIN_LOOKUPS_HELD_OUT_11,
               PIN_LOOKUPS_HELD_OUT_12, PIN_LOOKUPS_HELD_OUT_13, PIN_LOOKUPS_HELD_OUT_14,
               PIN_LOOKUPS_HELD_OUT_15)


def _before(lookups: tuple[PinLookup, ...]) -> tuple[tuple[PinLookup, ...], ...]:
    """The sets written before `lookups`."""
    return LOOKUP_SETS[:LOOKUP_SETS.index(lookups)]


def _assert_new(lookups: tuple[PinLookup, ...], at_least: int) -> None:
    """At least `at_least` lookups, no (board, name) pair twice, and none an earlier set asks."""
    seen = {(lk.board, lk.name.lower(), lk.corpus) for s in _before(lookups) for lk in s}
    new = [(lk.board, lk.name.lower(), lk.corpus) for lk in lookups]
    assert len(new) >= at_least
    assert len(set(new)) == len(new)
    assert not set(new) & seen


def _pinned(lookups: tuple[PinLookup, ...], shared: Path) -> Iterator[tuple[PinLookup, PinIndex, Path]]:
    """Each lookup that names a pin, with its corpus's pin index and datasheet directory; on the way, every lookup's
    board must be known and every lookup that must be refused (it names no pin to find, only the refusal it
    expects) must expect a refusal the resolver raises."""
    roots = _roots(shared)
    index = {corpus: pin_index_for(root) for corpus, root in roots.items()}
    for lk in lookups:
        idx = index[lk.corpus]
        assert lk.board in idx.known_boards(), lk
        if lk.pin.startswith("!"):
            assert lk.pin in REFUSALS, lk
            continue
        yield lk, idx, roots[lk.corpus]


def _datasheet_texts(idx: PinIndex, root: Path, board: str) -> list[str]:
    """The board's own datasheet and the datasheets of the tags its board file answers to (rpi-gpio)."""
    files = [idx.board(b) for b in idx.applies_to(board)]
    stems = {board} | {t for b in files if b is not None for t in b.datasheet_tags}
    return [p.read_text(encoding="utf-8") for p in sorted(root.iterdir())
            if p.stem in stems and p.suffix in (".md", ".txt")]


def _written(pin: str, text: str) -> bool:
    """Whether `text` writes `pin`, on its own or inside a range of its port ("D8-D13 = PB0-PB5" writes PB1)."""
    if re.search(rf"(?<![\w.]){re.escape(pin)}(?![\w.])", text):
        return True
    if (m := re.fullmatch(r"(P[A-Z])(\d+)", pin)) is None:
        return False
    port, n = m.group(1), int(m.group(2))
    return any(int(a) <= n <= int(b) for a, b in re.findall(rf"\b{port}(\d+)-{port}(\d+)\b", text))


EARLIER = (QUESTIONS, HELD_OUT, HELD_OUT_2, HELD_OUT_3, HELD_OUT_4, HELD_OUT_5)
#: The held-out sets from the sixth on, in the order they were written: each is checked against every set before it.
LATER = (HELD_OUT_6, HELD_OUT_7, HELD_OUT_8, HELD_OUT_9, HELD_OUT_10, HELD_OUT_11, HELD_OUT_12, HELD_OUT_13,
         HELD_OUT_14, HELD_OUT_15, HELD_OUT_16)
LATER_IDS = [f"held-out-{n}" for n in range(6, 6 + len(LATER))]
# the outside sets, written after held-out 16 in its round
LATER += (OUTSIDE_A, OUTSIDE_B, OUTSIDE_C, OUTSIDE_D)
LATER_IDS += ["outside-a", "outside-b", "outside-c", "outside-d"]
# held-out 17, written in the next round
LATER += (HELD_OUT_17,)
LATER_IDS += ["held-out-17"]
# held-out 18, written in the round after that
LATER += (HELD_OUT_18,)
LATER_IDS += ["held-out-18"]


@pytest.mark.parametrize("at", range(len(LATER)), ids=LATER_IDS)
def test_a_held_out_set_asks_nothing_an_earlier_set_asks(at: int) -> None:
    questions = LATER[at]
    before = (*EARLIER, *LATER[:at])
    assert len(questions) >= 90
    texts = [q.text.lower() for q in questions]
    assert len(set(texts)) == len(texts)
    assert not set(texts) & {q.text.lower() for s in before for q in s}
    assert {q.corpus for q in questions} == {"shared", "bundled"}


@pytest.mark.parametrize("questions", LATER, ids=LATER_IDS)
def test_each_held_out_answer_is_on_one_line_of_every_file_it_names(questions: tuple[Question, ...],
                                                                     shared_corpus: Path) -> None:
    # One line, because a chunk boundary may fall between lines and the hit rule needs the answer in one
    # result's text; every alternative file, because a hit from any of them counts.
    roots = _roots(shared_corpus)
    missing = []
    for q in questions:
        for source in q.source.split("|"):
            path = roots[q.corpus] / source
            lines = path.read_text(encoding="utf-8").lower().splitlines() if path.is_file() else []
            if not any(q.fact.lower() in line for line in lines):
                missing.append((q.text, source, q.fact))
    assert not missing


@pytest.mark.parametrize("lookups", [PIN_LOOKUPS_HELD_OUT_3, PIN_LOOKUPS_HELD_OUT_4, PIN_LOOKUPS_HELD_OUT_5,
                                     PIN_LOOKUPS_HELD_OUT_6, PIN_LOOKUPS_HELD_OUT_7],
                         ids=["lookups-3", "lookups-4", "lookups-5", "lookups-6", "lookups-7"])
def test_held_out_lookups_are_new_and_name_a_known_board_and_the_pin_its_datasheets_pair_with_it(
        lookups: tuple[PinLookup, ...], shared_corpus: Path) -> None:
    _assert_new(lookups, 60)
    wrong = []
    for lk, idx, root in _pinned(lookups, shared_corpus):
        text = "\n".join(_datasheet_texts(idx, root, lk.board))
        name = lk.name.removeprefix("pin ")  # a header position: its number heads the header map's row

        def word(w: str, line: str) -> bool:
            return re.search(rf"(?<![\w.]){re.escape(w)}(?![\w.])", line, re.IGNORECASE) is not None

        def holds(p: str, line: str) -> bool:
            # a SoC alternate-function table heads each row with the bare GPIO number (| 8 | SPI0 CE0 | ...)
            number = re.fullmatch(r"(?:GPIO|GP)(\d+)", p)
            return word(p, line) or (number is not None and re.match(rf"\|\s*{number[1]}\s*\|", line) is not None)

        # the name and its pin on one line: an alias line, a table row (either pair of a two-pair row)
        if not any(word(name, line) and any(holds(p, line) for p in lk.pin.split("|")) for line in text.splitlines()):
            wrong.append(lk)
    assert not wrong


def test_the_eighth_lookup_set_respells_pins_the_earlier_sets_answer() -> None:
    # Its names are new spellings, so they need not be written in the datasheets; what keeps the set honest
    # is that each answer is a pin an earlier set already gives on that board (written from the datasheets),
    # and that no (board, name) pair repeats one an earlier set asks.
    answered = {(lk.board, lk.pin, lk.corpus) for s in _before(PIN_LOOKUPS_HELD_OUT_8) for lk in s}
    _assert_new(PIN_LOOKUPS_HELD_OUT_8, 60)
    assert {lk.corpus for lk in PIN_LOOKUPS_HELD_OUT_8} == {"shared", "bundled"}
    unanswered = [lk for lk in PIN_LOOKUPS_HELD_OUT_8
                  if lk.pin not in REFUSALS and (lk.board, lk.pin, lk.corpus) not in answered]
    assert not unanswered


def test_the_ninth_lookup_set_is_new_and_each_answer_is_written_beside_its_name_or_given_before(
        shared_corpus: Path) -> None:
    # Drawn from pin-table rows and alias lines, then respelt where an earlier set already asks the drawn pair:
    # an answer must either stand on one datasheet line with the name as written, or be a pin an earlier set
    # gives on that board (a respelling such as "physical pin 22" or "digital pin 46").
    answered = {(lk.board, lk.pin, lk.corpus) for s in _before(PIN_LOOKUPS_HELD_OUT_9) for lk in s}
    _assert_new(PIN_LOOKUPS_HELD_OUT_9, 60)
    assert {lk.corpus for lk in PIN_LOOKUPS_HELD_OUT_9} == {"shared", "bundled"}
    roots = _roots(shared_corpus)
    index = {corpus: pin_index_for(root) for corpus, root in roots.items()}
    lines = {corpus: [ln for p in sorted(root.iterdir()) if p.suffix in (".md", ".txt")
                      for ln in p.read_text(encoding="utf-8").splitlines()] for corpus, root in roots.items()}
    wrong = []
    for lk in PIN_LOOKUPS_HELD_OUT_9:
        assert lk.board in index[lk.corpus].known_boards(), lk
        if lk.pin in REFUSALS or (lk.board, lk.pin, lk.corpus) in answered:
            continue
        # the words that name the pin, without the respelling's prefix; each must stand on the pin's line
        core = re.sub(r"^(arduino|physical pin|header pin|digital pin|digital|analog|bcm|j8 pin)\s+", "",
                      lk.name, flags=re.IGNORECASE)
        words = [re.compile(rf"(?<![\w.]){re.escape(w)}(?![\w.])", re.IGNORECASE) for w in core.split()]
        pins = lk.pin.split("|")
        if not any(all(w.search(ln) for w in words) and any(p in ln for p in pins) for ln in lines[lk.corpus]):
            wrong.append(lk)
    assert not wrong


@pytest.mark.parametrize("lookups", [PIN_LOOKUPS_HELD_OUT_10, PIN_LOOKUPS_HELD_OUT_11, PIN_LOOKUPS_HELD_OUT_12,
                                     PIN_LOOKUPS_HELD_OUT_13, PIN_LOOKUPS_HELD_OUT_14, PIN_LOOKUPS_HELD_OUT_15],
                         ids=["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth"])
def test_a_written_lookup_set_is_new_and_each_answer_is_a_pin_the_boards_files_write(
        lookups: tuple[PinLookup, ...], shared_corpus: Path) -> None:
    # Written from the datasheets and board files in a field engineer's spellings ("cn7 pin 17", "act led", "can1
    # rx"), which need not stand beside the pin on one line; what keeps it honest is that no (board, name) pair
    # repeats an earlier set's, that every board is known, and that every answer is a pin the board's own
    # datasheets or board file write.
    _assert_new(lookups, 40)
    assert {lk.corpus for lk in lookups} == {"shared", "bundled"}
    boards_dir = Path(__file__).resolve().parents[2] / "boards"
    wrong = []
    for lk, idx, root in _pinned(lookups, shared_corpus):
        texts = _datasheet_texts(idx, root, lk.board)
        texts += [p.read_text(encoding="utf-8") for p in sorted(boards_dir.glob("*.toml"))
                  if p.stem in {lk.board, *idx.applies_to(lk.board)}]
        if not any(_written(pin, t) for pin in lk.pin.split("|") for t in texts):
            wrong.append(lk)
    assert not wrong
