"""Token normalisation shared by indexing and queries.

Both sides go through :func:`tokens`, so spellings that mean the same thing meet:

* pin names: ``PA_5``/``pa5``/``PA05`` -> ``pa5``; ``GPIO17``/``GPIO 17``/``BCM17``/``IO17`` -> ``gpio17``;
  ``D13``, ``A0``, ``GP25`` stay as written (lowercased);
* hex numbers: ``0x76``/``0X76``/``76h`` -> ``0x76`` (leading zeros dropped: ``0x0D`` -> ``0xd``);
* numbers and units: ``400kHz`` = ``400 kHz`` (number and unit become separate tokens), ``3v3`` = ``3.3 V``,
  ``4k7`` = ``4.7 kOhm`` and ``10k`` = ``10 kOhm``;
* compounds keep the whole and add their parts: ``ctrl_meas`` -> ``ctrl_meas``, ``ctrl``, ``meas``;
* light stemming (plural ``s``/``es``/``ies``, ``ing``, ``ed``), English stop words dropped (``CAN`` in
  capitals is the bus, token ``can``, not the stop word; so is ``can`` before a CAN signal: ``can tx``);
* the hardware vocabulary of ``vocabulary.toml``: synonyms (``thermometer`` = ``temperature``,
  ``btn`` = ``button``) and phrases that stand for one term (``tactile switch`` = ``button``,
  ``bit clock`` = ``bclk``).
"""

from __future__ import annotations

import re
import tomllib
from array import array
from collections.abc import Set as AbstractSet
from itertools import chain
from pathlib import Path
from typing import Any

#: Synonyms, phrases and informal board names, kept as data beside this module.
VOCABULARY: dict[str, Any] = tomllib.loads(Path(__file__).with_name("vocabulary.toml").read_text(encoding="utf-8"))

TOKENIZER_VERSION = 16

_VOLT = re.compile(r"(\d)v(\d)")
#: A resistor value written with the multiplier as the decimal point: 4k7 is 4.7 kOhm, 1k8 is 1.8 kOhm.
_KOHM = re.compile(r"(\d{1,3})k(\d)")
# Peripheral instances also answer to their family name: "I2C1" is found by "i2c", "ADC2" by "adc"; a numbered
# LED ("LED1 / Green" in a HAT's header table) is an LED.
_INSTANCE = re.compile(r"(i2c|i2s|spi|qspi|uart|usart|lpuart|adc|dac|tim|pwm|can|gpio|gpclk|pcm|sercom|ain|ce|cs|nss"
                       r"|led)(\d+)")
# A token is a run of ASCII letters and digits, a dot or underscore inside one joining it to the next
# ("ctrl_meas", "3.3"). Found at bytes speed: every other byte (any UTF-8 byte of a non-ASCII character
# too) becomes a space, then a dot or underscore without a letter or digit on both sides, and the rest is
# split on the spaces; the tokens are those of the pattern r"[a-z0-9]+(?:[._][a-z0-9]+)*" on the text.
_TOKEN_BYTES = bytes(c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789._" else 32 for c in range(256))
_LONE_JOINER = re.compile(rb"[._](?:(?![a-z0-9])|(?<![a-z0-9].))")
_NUM_UNIT = re.compile(r"(\d+(?:\.\d+)?)([a-z]+)")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_UNITS = _words(
    "hz khz mhz ghz v mv uv a ma ua na ms us ns s sec kb mb gb kib mib bit bits byte bytes kbit mbit kbps mbps "
    "bps baud ohm ohms kohm mohm k pf nf uf w mw c dps sps ksps msps g mm cm"
)
_STOP = _words(
    "a an the is are was were be been to of in on for and or what which where how does do did i my it its this "
    "that these those with at by from as can there when should if me we you your our they them their tell show "
    "find please need want get got about into onto than then so not no yes will would could may might e.g "
    "i.e has have had any all some each per via"
)
_CAN_BUS = re.compile(r"\bCAN\b")
#: "can" in lower case is the bus where a CAN signal or part follows it within a sentence ("PB13 can tx", "the
#: can transceiver"), or "transmit"/"receive" ends the sentence ("PB13 can transmit"): a modal "can" is followed
#: by a verb and its object, and a question opening with it ("can pins 8 and 10 ...") asks whether. (The
#: pattern opens with the word itself and looks behind it for what stands before: a search then jumps from
#: one "can" to the next instead of trying every position of the text.)
_CAN_SIGNAL = re.compile(r"can(?<=[a-z0-9] can)(?= +(?:(?:tx|rx|txd|rxd|td|rd|h|l|transceivers?|controllers?|frames?"
                         r"|filters?|ids?|pins?|signals?|lines?|messages?)\b|(?:transmit|receive) *(?:$|[?.!,;\n])))")
_SYNONYMS = {
    "canbus": "can",
    "btn": "button",
    "addr": "address",
    "sclk": "sck",
    "temp": "temperature",
    "hum": "humidity",
    "pwr": "power",
    "gnd": "ground",
    "ohms": "ohm",
    "bits": "bit",
    "bytes": "byte",
    "sec": "s",
    "leds": "led",
    "pins": "pin",
    "buses": "bus",
    "busses": "bus",
    "axes": "axis",
}


for _canonical, _spellings in VOCABULARY.get("synonyms", {}).items():
    for _spelling in _spellings:
        _SYNONYMS[_spelling] = _canonical


def _phrase_key(text: str) -> str:
    return re.sub(r"[\s_\-]+", " ", text.strip().lower())


_PHRASES = {_phrase_key(k): v for k, v in VOCABULARY.get("phrases", {}).items()}
_PHRASE_HINTS = tuple(sorted({p.split()[0] for p in _PHRASES}))


def _phrase_pattern(phrases: list[str]) -> str:
    """One pattern for every phrase (words apart by spaces, underscores or hyphens), the longest phrase
    tried first. Phrases are grouped by their first word, so at a position only the branch of the word
    written there is tried, and positions where no phrase's first letter stands are passed over: a
    chunk's text is searched about a third faster than with one branch per phrase, with the same
    matches (no first word is another one followed by a separator)."""
    sep = r"[\s_\-]+"
    groups: dict[str, list[list[str]]] = {}
    for phrase in sorted(phrases, key=len, reverse=True):
        first, *rest = phrase.split()
        groups.setdefault(first, []).append(rest)
    branches = []
    for first, rests in groups.items():  # groups in the order of their longest phrase
        longer = "|".join(sep.join(map(re.escape, r)) for r in rests if r)
        tail = sep + f"(?:{longer})" if longer else ""
        if tail and [] in rests:  # the first word alone is a phrase too: the longer ones tried first
            tail = f"(?:{tail})?"
        branches.append(re.escape(first) + tail)
    initials = "".join(sorted({re.escape(p[0]) for p in phrases}))
    return rf"(?=[{initials}])\b(?:" + "|".join(branches) + r")\b"


_PHRASE = re.compile(_phrase_pattern(list(_PHRASES))) if _PHRASES else None
# A phrase can only match where its first two words (or its one word) stand as words next to each other
# with nothing but separators between them. That is tested first, on the piece's ASCII words (every other
# byte made a space) at C speed: most pieces hold none of the pairs, and the phrase pattern, which tries
# every position of a piece, is then not run. Only phrases of ASCII letters and digits can be tested so.
_WORD_BYTES = bytes(c if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256))
_PHRASE_WORDS = [p.encode("utf-8").split() for p in _PHRASES]
_PHRASE_TESTABLE = all(w.translate(_WORD_BYTES) == w for words in _PHRASE_WORDS for w in words)
_PHRASE_ONE = frozenset(words[0] for words in _PHRASE_WORDS if len(words) == 1)
_PHRASE_FIRST = frozenset(words[0] for words in _PHRASE_WORDS if len(words) > 1)


_PHRASE_SECONDS: dict[bytes, frozenset[bytes]] = {
    first: frozenset(words[1] for words in _PHRASE_WORDS if len(words) > 1 and words[0] == first)
    for first in _PHRASE_FIRST}
#: The words the pre-check looks for: the one-word phrases and the first two words of the others.
_PHRASE_KEYS = _PHRASE_ONE | _PHRASE_FIRST | frozenset(w for seconds in _PHRASE_SECONDS.values() for w in seconds)


def _may_hold_phrase(encoded: bytes) -> bool:
    """False when no vocabulary phrase can match in the lowercased piece `encoded` (its UTF-8 bytes)."""
    words = encoded.translate(_WORD_BYTES).split()
    return _words_may_hold_phrase(words, _PHRASE_KEYS.intersection(words))


def _words_may_hold_phrase(words: list[bytes], present: AbstractSet[bytes]) -> bool:
    """:func:`_may_hold_phrase` of a piece whose ASCII words are `words`, in order; `present` holds those of
    them among _PHRASE_KEYS (at least). A phrase's first word is looked for only when a word that can follow
    it stands in the piece too, and then the word after each of its places is looked at: no pair of
    neighbouring words is made (a piece holds a first word far more often than a phrase)."""
    if not _PHRASE_TESTABLE:
        return True
    if not _PHRASE_ONE.isdisjoint(present):
        return True
    last = len(words) - 1
    for first in _PHRASE_FIRST.intersection(present):
        seconds = _PHRASE_SECONDS[first]
        if seconds.isdisjoint(present):
            continue
        at = words.index(first)
        while True:
            if at < last and words[at + 1] in seconds:
                return True
            try:
                at = words.index(first, at + 1)
            except ValueError:
                break
    return False


# The first words a pre-check looks for, shortest first: a one-letter word ("h" of "h bridge") is in nearly every
# document, and the check ends at the first word found.
_PHRASE_HINTS_SHORT_FIRST = tuple(sorted(_PHRASE_HINTS, key=len))


def _phrase(m: re.Match[str]) -> str:
    return f" {_PHRASES[_phrase_key(m.group(0))]} "


def _stem(word: str) -> str:
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "tches", "nches", "shes")):  # addresses, switches, branches, flashes: -es is the plural
        return word[:-2]
    if word.endswith("ing") and len(word) > 5:
        return word[:-3]
    if word.endswith("ed") and len(word) > 4 and not word.endswith("eed"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def norm(word: str) -> str:
    """One lowercase word as the index holds it: stemmed lightly, a synonym folded into its canonical word."""
    stem = _stem(_SYNONYMS.get(word, word))
    return _SYNONYMS.get(stem, stem)


def is_stop_word(word: str) -> bool:
    """Whether a lowercase word is one the index leaves out ("where", "there", "which")."""
    return word in _STOP


# Spellings across a space or hyphen that mean one token.
_MULTI = re.compile(
    r"\b(?:gpio|bcm) +0*(\d{1,2})\b|\bwi-fi\b|\bpull[- ]ups?\b|\bpull[- ]downs?\b|\bon-board\b|\bchip-id\b"
    r"|\bone-wire\b|\b1-wire\b"
)
_MULTI_WORDS = {
    "wi-fi": "wifi", "on-board": "onboard", "chip-id": "chip id", "one-wire": "onewire", "1-wire": "onewire",
}
_HEX_RAW = re.compile(r"0x([0-9a-f]+)|([0-9][0-9a-f]*)h")
_PIN_RAW = re.compile(r"p([a-l])_?0*(\d{1,2})|(?:gpio_?|bcm_?|io)0*(\d{1,2})")
_MULTI_HINTS = ("pull", "gpio ", "bcm ", "wi-fi", "on-board", "chip-id", "-wire")  # the most frequent first
# A word each multi-word spelling holds whole (a run of ASCII letters and digits with none beside it): a piece
# without any of them needs no substring search.
_MULTI_KEYS = frozenset((b"gpio", b"bcm", b"wi", b"pull", b"board", b"chip", b"wire"))
#: The words either pre-check looks for.
_KEYS = _PHRASE_KEYS | _MULTI_KEYS


class _Memo(dict[bytes, tuple[str, ...]]):
    """raw token (its ASCII bytes) -> normalised tokens; datasheets repeat their vocabulary, so most lookups
    hit."""

    def __missing__(self, raw: bytes) -> tuple[str, ...]:
        if len(self) > 500_000:  # bound memory on pathological input
            self.clear()
        value = self[raw] = _expand(raw.decode("ascii"))
        return value


_memo = _Memo()


def forget_spellings() -> None:
    """Drop the memo of raw tokens seen so far (after a large build it holds every spelling of the library,
    tens of MB that queries do not need; they refill it with their own few)."""
    _memo.clear()
    _id_memo.clear()
    _raw_numbers.clear()
    _numbers.clear()
    _numbers.names.clear()


def _multi(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return f"gpio{m.group(1)}"
    word = m.group(0)
    if word.startswith("pull"):
        return "pullup" if "up" in word else "pulldown"
    return _MULTI_WORDS[word]


def _expand(raw: str) -> tuple[str, ...]:
    """Normalised tokens for one raw token (memoised: datasheets repeat their vocabulary a lot)."""
    if raw.isalpha():  # plain words (most of them): no hex, pin, voltage, unit or instance spelling applies
        if raw in _STOP or (len(raw) == 1 and raw != "v"):
            return ()
        return (norm(raw),)
    m = _HEX_RAW.fullmatch(raw)
    if m:
        return (f"0x{int(m.group(1) or m.group(2), 16):x}",)
    m = _PIN_RAW.fullmatch(raw)
    if m:
        pin = f"p{m.group(1)}{m.group(2)}" if m.group(1) else f"gpio{m.group(3)}"
        return (pin,) if m.group(1) else (pin, "gpio")
    m = _VOLT.fullmatch(raw)
    if m:
        return (f"{m.group(1)}.{m.group(2)}", "v")
    m = _KOHM.fullmatch(raw)
    if m:
        return (f"{m.group(1)}.{m.group(2)}", "kohm")
    if raw[0].isdigit():
        m = _NUM_UNIT.fullmatch(raw)
        if m and m.group(2) in _UNITS:
            return (m.group(1), norm(m.group(2)))
    if "_" in raw:
        out = [raw]
        for part in raw.split("_"):
            if part and part not in _STOP and (len(part) > 1 or part.isdigit()):
                out.extend(_memo[part.encode("ascii")])  # parts repeat across compounds (CTRL_MEAS, CTRL_HUM):
                # memoised too
        return tuple(out)
    if raw in _STOP or (len(raw) == 1 and not raw.isdigit() and raw != "v"):
        return ()
    word = norm(raw)
    m = _INSTANCE.fullmatch(raw)
    return (word, norm(m.group(1))) if m else (word,)


def spelling_hints(text: str) -> tuple[bool, bool]:
    """Whether `text` may hold a vocabulary phrase and a multi-word spelling (a cheap pre-check: a document
    without either lets :func:`tokens` skip looking for them in each of its pieces)."""
    t = text.lower()
    # a substring search per word, ended at the first found: even when none is present, one search per word
    # (at C speed) costs less than a pattern of every word, which tries each word at each position
    return any(h in t for h in _PHRASE_HINTS_SHORT_FIRST), any(h in t for h in _MULTI_HINTS)


def tokens(text: str, hints: tuple[bool, bool] = (True, True)) -> list[str]:
    """Normalised tokens of `text` in order (duplicates kept). `hints`: :func:`spelling_hints` of a text
    holding this one (False = that kind of spelling cannot occur, so it is not looked for)."""
    return list(chain.from_iterable(map(_memo.__getitem__, _raw_tokens(text, hints))))


def tokens_unkept(text: str) -> list[str]:
    """:func:`tokens` without keeping the text's raw tokens in the memo: for many short texts each read once (the
    tags of 10,000 part files, whose numbers no later text repeats), which would otherwise hold a memo entry each
    (about 130 bytes) for the life of the process."""
    memo = _memo
    return [t for raw in _raw_tokens(text, (True, True))
            for t in (memo[raw] if raw in memo else _expand(raw.decode("ascii")))]


def token_ids(text: str, hints: tuple[bool, bool] = (True, True)) -> list[int]:
    """:func:`tokens` as this process's term numbers (:func:`term_numbers`): what indexing counts, the same
    terms without a string lookup per token to number them."""
    return list(chain.from_iterable(map(_id_memo.__getitem__, _raw_tokens(text, hints))))


def raw_ids(text: str, hints: tuple[bool, bool] = (True, True)) -> list[int]:
    """The raw tokens of `text` as this process's raw-token numbers (:func:`raw_numbers`), one a token: what a
    building worker counts, turning them into terms later for many files at once.

    The numbers of :func:`_raw_tokens`, found in another order: the piece's tokens are numbered first, as if no
    phrase or multi-word spelling stood in it, and the pre-checks then read which key words stand in the piece
    from the numbers (each number knows the key words its token holds, :attr:`_RawNumbers.keyed`), instead of
    looking every token up in the set of key words, and every word of a piece whose tokens a dot or underscore
    joins (two in three pieces of a datasheet's tables) up again. A piece where a phrase or spelling may stand
    (about one in six) is tokenised again with them in and numbered again."""
    numbers = _raw_numbers
    if not _PHRASE_TESTABLE:  # every piece may hold a phrase: nothing to read from the numbers
        return list(map(numbers.__getitem__, _raw_tokens(text, hints)))
    t, encoded, raw, tokens = _split(text)
    ids = list(map(numbers.__getitem__, tokens))
    if not hints[0] and not hints[1]:
        return ids
    hit = numbers.keyed.keys() & ids
    if not hit:
        return ids
    keyed = numbers.keyed
    present = frozenset().union(*[keyed[n] for n in hit])  # the key words among the piece's words
    if b"." in raw or b"_" in raw:  # the piece's words: its tokens, split at their joining dots and underscores
        words = encoded.translate(_WORD_BYTES).split() if _phrase_pairs(present) else tokens
    else:
        words = tokens
    phrase = hints[0] and _PHRASE is not None and _words_may_hold_phrase(words, present)
    multi = hints[1] and not _MULTI_KEYS.isdisjoint(present) and any(h in t for h in _MULTI_HINTS)
    if not phrase and not multi:
        return ids
    return list(map(numbers.__getitem__, _spelled_tokens(t, phrase, multi, hints)))


def _split(text: str) -> tuple[str, bytes, bytes, list[bytes]]:
    """A piece lowercased (with the CAN bus read as one word), its UTF-8 bytes, its token bytes (a lone dot or
    underscore a space) and its raw tokens, as if no phrase or multi-word spelling stood in it."""
    if "CAN" in text:  # the CAN bus, written in capitals, is not the stop word "can"
        text = _CAN_BUS.sub("canbus", text)
    t = text.lower()
    if " can " in t:
        t = _CAN_SIGNAL.sub("canbus", t)
    encoded = t.encode("utf-8", "surrogatepass")
    raw = encoded.translate(_TOKEN_BYTES)
    if b"." in raw or b"_" in raw:
        raw = _LONE_JOINER.sub(b" ", raw)
    return t, encoded, raw, raw.split()


def _phrase_pairs(present: AbstractSet[bytes]) -> bool:
    """Whether :func:`_words_may_hold_phrase` has to look at the order of a piece's words whose key words are
    `present`: a phrase's first word and a word that can follow it both stand there."""
    return any(not _PHRASE_SECONDS[first].isdisjoint(present) for first in _PHRASE_FIRST.intersection(present))


def _raw_tokens(text: str, hints: tuple[bool, bool]) -> list[bytes]:
    """The raw tokens of `text` (ASCII bytes), after the CAN, phrase and multi-word rules.

    The tokens are split first, as if no phrase or multi-word spelling stood in the piece. In most pieces no token
    then holds a dot or underscore, and the tokens are the piece's ASCII words: the phrase pre-check reads them
    instead of splitting words of its own, and a piece in which no multi-word spelling's key word stands needs no
    substring search for the spellings. Only a piece where a phrase or spelling may stand is split again, once
    they are in (about one in six)."""
    t, encoded, raw, tokens = _split(text)
    if b"." in raw or b"_" in raw:  # tokens joined by a dot or underscore: not the piece's words
        phrase = hints[0] and _PHRASE is not None and _may_hold_phrase(encoded)
        multi = hints[1] and any(h in t for h in _MULTI_HINTS)  # (a substring search each: faster than a pattern)
    else:
        present = _KEYS.intersection(tokens)
        phrase = hints[0] and _PHRASE is not None and _words_may_hold_phrase(tokens, present)
        multi = hints[1] and not _MULTI_KEYS.isdisjoint(present) and any(h in t for h in _MULTI_HINTS)
    if not phrase and not multi:
        return tokens
    return _spelled_tokens(t, phrase, multi, hints)


def _spelled_tokens(t: str, phrase: bool, multi: bool, hints: tuple[bool, bool]) -> list[bytes]:
    """The raw tokens of the lowercased piece `t` once its vocabulary phrases (`phrase`: one may stand in it) and
    multi-word spellings (`multi`) are replaced."""
    if phrase and _PHRASE is not None:
        t = _PHRASE.sub(_phrase, t)
        multi = hints[1] and any(h in t for h in _MULTI_HINTS)  # looked for in the text the phrases left
    if multi:
        t = _MULTI.sub(_multi, t)
    raw = t.encode("utf-8", "surrogatepass").translate(_TOKEN_BYTES)
    if b"." in raw or b"_" in raw:
        raw = _LONE_JOINER.sub(b" ", raw)
    return raw.split()


class _Numbers(dict[str, int]):
    """normalised term -> a number of this process (numbered as they come), and :attr:`names` back."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __missing__(self, term: str) -> int:
        n = self[term] = len(self.names)
        self.names.append(term)
        return n


class _IdMemo(dict[bytes, tuple[int, ...]]):
    """raw token (its ASCII bytes) -> the numbers of its normalised tokens (expanded here, not through the
    memo of spellings: indexing holds one memo entry per spelling, not two)."""

    def __missing__(self, raw: bytes) -> tuple[int, ...]:
        if len(self) > 500_000:  # bound memory on pathological input (the numbers stay: a caller may hold them)
            self.clear()
        value = self[raw] = tuple(map(_numbers.__getitem__, _expand(raw.decode("ascii"))))
        return value


class _RawNumbers(dict[bytes, int]):
    """raw token (its ASCII bytes) -> a number of this process, numbered as they come; the terms of number n
    are ``terms[starts[n]:starts[n + 1]]`` (term numbers of :func:`term_numbers`, as :func:`token_ids` gives
    them), held flat in two arrays so numpy turns a list of raw numbers into its terms at once. A term that
    stands alone (a pin a table writes only as a row number) gets a number too (:meth:`of_term`). Numbers
    hold until :func:`forget_spellings` (a caller may keep them in arrays: they are never dropped before)."""

    def __init__(self) -> None:
        super().__init__()
        self.starts = array("i", [0])
        self.terms = array("i")
        self._of_term: dict[str, int] = {}
        # the pre-checks' key words (_KEYS) each raw token holds among its words, for the tokens holding any
        self.keyed: dict[int, frozenset[bytes]] = {}

    def _new(self, ids: tuple[int, ...]) -> int:
        self.terms.extend(ids)
        self.starts.append(len(self.terms))
        return len(self.starts) - 2

    def __missing__(self, raw: bytes) -> int:  # (expanded here, not through the memo of numbers: a building
        # worker holds one entry per spelling, not two)
        n = self[raw] = self._new(tuple(map(_numbers.__getitem__, _expand(raw.decode("ascii")))))
        words = raw.replace(b".", b" ").replace(b"_", b" ").split() if b"." in raw or b"_" in raw else (raw,)
        keys = _KEYS.intersection(words)
        if keys:
            self.keyed[n] = frozenset(keys)
        return n

    def of_term(self, term: str) -> int:
        """The number whose one term is the normalised `term`."""
        n = self._of_term.get(term)
        if n is None:
            n = self._of_term[term] = self._new((_numbers[term],))
        return n

    def clear(self) -> None:
        super().clear()
        self._of_term.clear()
        self.keyed.clear()
        self.starts = array("i", [0])
        self.terms = array("i")


_numbers = _Numbers()
_id_memo = _IdMemo()
_raw_numbers = _RawNumbers()


def term_numbers() -> _Numbers:
    """The numbers :func:`token_ids` gives terms (``numbers[term]`` numbers a term, ``numbers.names[n]`` is
    number n's term). They hold until :func:`forget_spellings`."""
    return _numbers


def raw_numbers() -> _RawNumbers:
    """The numbers :func:`raw_ids` gives raw tokens, and each one's terms."""
    return _raw_numbers


def query_terms(text: str) -> list[str]:
    """Distinct normalised query terms in first-seen order."""
    return list(dict.fromkeys(tokens(text)))


_SPELLINGS: dict[str, tuple[str, ...]] = {}
for _spelling, _canonical in _SYNONYMS.items():
    _SPELLINGS[_canonical] = (*_SPELLINGS.get(_canonical, ()), _spelling)


def spellings(term: str) -> tuple[str, ...]:
    """The single words the vocabulary folds into a normalised term (``mic`` and ``microphone``, ``gnd`` and
    ``ground``): text searched as written, not tokenised, has to look for each of them."""
    return _SPELLINGS.get(term, ())
