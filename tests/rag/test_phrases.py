"""The vocabulary's phrases are found with one pattern grouped by first word; it replaces exactly what a
plain alternation of every phrase, longest first, replaces, whatever the words, separators and case
around them, and a first word that is a phrase of its own still gives way to its longer phrases."""

from __future__ import annotations

import random
import re

import pytest

from edge_agent.rag import text
from edge_agent.rag.text import _PHRASES, _phrase_pattern

_SEP = r"[\s_\-]+"


def _plain(phrases: list[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(_SEP.join(map(re.escape, p.split()))
                                           for p in sorted(phrases, key=len, reverse=True)) + r")\b")


@pytest.mark.parametrize("seed", range(4))
def test_the_grouped_pattern_replaces_what_one_branch_per_phrase_replaces(seed: int) -> None:
    rng = random.Random(seed)
    phrases = list(_PHRASES)
    words = sorted({w for p in phrases for w in p.split()} | {"tactiles", "analogs", "pin", "x1", "bit_clock"})
    grouped, plain = re.compile(_phrase_pattern(phrases)), _plain(phrases)
    for _ in range(400):
        parts = [rng.choice([*words, rng.choice(phrases)]) for _ in range(rng.randint(1, 12))]
        line = "".join(p + rng.choice([" ", "  ", "_", "-", "\n", ", ", ".", ""]) for p in parts)
        assert grouped.sub("#", line) == plain.sub("#", line), line
    assert text._PHRASE is not None and text._PHRASE.pattern == _phrase_pattern(phrases)


def test_a_first_word_that_is_a_phrase_alone_gives_way_to_its_longer_phrases() -> None:
    phrases = ["push", "push button", "push pull output", "pushbutton switch"]
    grouped, plain = re.compile(_phrase_pattern(phrases)), _plain(phrases)
    for line in ("push", "push button", "a push-pull output", "push pull", "pushbutton switch", "pushing"):
        assert grouped.sub("#", line) == plain.sub("#", line), line
    assert grouped.sub("#", "push pull output, push") == "#, #"


@pytest.mark.parametrize("seed", range(4))
def test_the_word_pair_test_never_passes_over_a_piece_a_phrase_matches(seed: int) -> None:
    """The phrase pattern is skipped for a piece whose words hold no phrase's first two words side by side:
    wherever it would have matched, the test says the piece may hold one (separators, case, dots,
    underscores and non-ASCII letters around the words included)."""
    rng = random.Random(seed)
    phrases = list(_PHRASES)
    words = sorted({w for p in phrases for w in p.split()} | {"tactiles", "pin", "x1", "é", "bit_clock", "3.3"})
    seps = [" ", "  ", "_", "-", "\n", ", ", ".", "", "é", ": "]
    skipped = 0
    for _ in range(600):
        parts = [rng.choice([*words, rng.choice(phrases)]) for _ in range(rng.randint(1, 10))]
        piece = "".join(p + rng.choice(seps) for p in parts)
        encoded = piece.encode("utf-8")
        if text._PHRASE is not None and text._PHRASE.search(piece):
            assert text._may_hold_phrase(encoded), piece
        skipped += not text._may_hold_phrase(encoded)
    assert skipped  # the test does pass over pieces
    assert not text._may_hold_phrase(b"the clock tree and the chip")
    assert text._may_hold_phrase("the chip\u00a0select line".encode())


_RAW = re.compile(r"[a-z0-9]+(?:[._][a-z0-9]+)*")


@pytest.mark.parametrize("seed", range(4))
def test_raw_tokens_are_the_runs_of_letters_and_digits_a_dot_or_underscore_joins(seed: int) -> None:
    """Tokens are split at bytes speed; what they are is still the pattern's matches on the lowercased text:
    a dot or underscore only inside a token, a non-ASCII letter a separator."""
    rng = random.Random(seed)
    alphabet = ["a", "b", "z", "0", "7", ".", "_", "..", "._", " ", "\n", "é", "\u0130", "-", "|", "x1", "0x1f"]
    seen: list[str] = []

    def capture(raw: str) -> tuple[str, ...]:
        seen.append(raw)
        return (raw,)

    for _ in range(500):
        piece = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        seen.clear()
        memo = text._memo
        text._memo = _Capture(capture)  # type: ignore[assignment]
        try:
            text.tokens(piece, (False, False))
        finally:
            text._memo = memo
        assert seen == _RAW.findall(piece.lower()), piece


class _Capture(dict[bytes, tuple[str, ...]]):
    def __init__(self, see: object) -> None:
        super().__init__()
        self._see = see

    def __missing__(self, raw: bytes) -> tuple[str, ...]:
        return self._see(raw.decode("ascii"))  # type: ignore[operator, no-any-return]


@pytest.mark.parametrize("seed", range(3))
def test_a_document_may_hold_a_phrase_exactly_when_a_first_word_of_one_is_in_it(seed: int) -> None:
    """The document's pre-check looks for each phrase's first word as a substring of its lowered text (the same
    answer one pattern of every first word gives), so a text holding none skips the phrase pattern."""
    rng = random.Random(seed)
    firsts = sorted({p.split()[0] for p in _PHRASES})
    letters = "bcdfgjkmnpqrsvwxyz0123456789 ._-\n|"  # no vowel, no "h": no first word can stand in these
    assert not any(w in letters for w in firsts)
    for _ in range(300):
        noise = "".join(rng.choice(letters) for _ in range(rng.randint(0, 80)))
        word = rng.choice(firsts)
        assert not text.spelling_hints(noise)[0]
        at = rng.randint(0, len(noise))
        assert text.spelling_hints(noise[:at] + word.upper() + noise[at:])[0]


@pytest.mark.parametrize("seed", range(4))
def test_a_building_worker_numbers_the_tokens_the_tokeniser_gives(seed: int) -> None:
    """A building worker numbers a piece's tokens first and reads its pre-checks from the numbers (the key words
    each holds): its numbers are those of the tokens :func:`text._raw_tokens` gives, phrases, multi-word
    spellings, the CAN rules, key words inside tokens a dot or underscore joins and non-ASCII letters included."""
    rng = random.Random(seed)
    phrases = list(_PHRASES)
    words = ["gpio", "17", "bcm", "pull", "up", "wi", "fi", "on", "board", "chip", "id", "one", "wire", "1", "can",
             "CAN", "tx", "transmit", "bit", "clock", "x", "é", "0x1f", "a.b", "c_d", "register", "h", "İ"]
    seps = [" ", "_", "-", ".", "..", "\n", " | ", "._", "é", "  "]
    numbers = text.raw_numbers()
    differ = 0
    for _ in range(3000):
        parts = [rng.choice([*words, rng.choice(phrases), rng.choice(phrases).replace(" ", rng.choice("_- "))])
                 for _ in range(rng.randint(1, 8))]
        piece = "".join(p + rng.choice(seps) for p in parts)
        piece = piece.upper() if rng.random() < 0.2 else piece
        for hints in ((True, True), (True, False), (False, True), (False, False)):
            tokens = text._raw_tokens(piece, hints)
            assert text.raw_ids(piece, hints) == [numbers[t] for t in tokens], (piece, hints)
            differ += tokens != piece.lower().encode("utf-8", "surrogatepass").translate(text._TOKEN_BYTES).split()
    assert differ  # phrases and spellings were replaced in some pieces
    # key words inside a token a dot joins start a spelling ("x.pull-up") and a phrase ("x.bit clock")
    assert text.raw_ids("see x.pull-up") == [numbers[b"see"], numbers[b"x.pullup"]]
    assert text.raw_ids("x.bit clock") == [numbers[b"x"], numbers[b"bclk"]]


def test_tokens_read_once_are_the_tokens_and_leave_no_entry_behind() -> None:
    texts = ["part-93817", "nucleo_f401re", "arduino-mega2560", "wi-fi pull-up gpio 17", "0x1F 3v3 the", "pa5 4k7",
             "pico-w", "i2c1_sda", "PB10 UART3"]
    got = [text.tokens_unkept(t) for t in texts]
    assert b"93817" not in text._memo  # (a number no other test writes)
    assert got == [text.tokens(t) for t in texts]  # the same tokens as through the memo
    assert b"93817" in text._memo
    assert [text.tokens_unkept(t) for t in texts] == got
