"""Token normalisation shared by indexing and queries.

Both sides go through :func:`tokens`, so spellings that mean the same thing meet:

* pin names: ``PA_5``/``pa5``/``PA05`` -> ``pa5``; ``GPIO17``/``GPIO 17``/``BCM17``/``IO17`` -> ``gpio17``;
  ``D13``, ``A0``, ``GP25`` stay as written (lowercased);
* hex numbers: ``0x76``/``0X76``/``76h`` -> ``0x76`` (leading zeros dropped: ``0x0D`` -> ``0xd``);
* numbers and units: ``400kHz`` = ``400 kHz`` (number and unit become separate tokens), ``3v3`` = ``3.3 V``;
* compounds keep the whole and add their parts: ``ctrl_meas`` -> ``ctrl_meas``, ``ctrl``, ``meas``;
* light stemming (plural ``s``/``es``/``ies``, ``ing``, ``ed``), a few abbreviations (``btn`` = ``button``),
  English stop words dropped.
"""

from __future__ import annotations

import re

TOKENIZER_VERSION = 4

_HEX = re.compile(r"\b0x([0-9a-f]+)\b")
_HEX_H = re.compile(r"\b([0-9][0-9a-f]*)h\b")
_STM = re.compile(r"\bp([a-k])_?0*(\d{1,2})\b")
_BCM = re.compile(r"\b(?:gpio[ _]?|bcm[ _]?|io)0*(\d{1,2})\b")
_VOLT = re.compile(r"\b(\d)v(\d)\b")
# Peripheral instances also answer to their family name: "I2C1" is found by "i2c", "ADC2" by "adc".
_INSTANCE = re.compile(r"(i2c|i2s|spi|qspi|uart|usart|lpuart|adc|dac|tim|pwm|can|gpio|gpclk|pcm|sercom)(\d+)")
# Spellings with and without a hyphen or space that mean one word.
_PHRASES = (
    (re.compile(r"\bwi-?fi\b"), "wifi"),
    (re.compile(r"\bpull[- ]?ups?\b"), "pullup"),
    (re.compile(r"\bpull[- ]?downs?\b"), "pulldown"),
    (re.compile(r"\bon-board\b"), "onboard"),
    (re.compile(r"\bchip[- ]id\b"), "chip id"),
    (re.compile(r"\bone-wire\b|\b1-wire\b"), "onewire"),
)
_TOKEN = re.compile(r"[a-z0-9]+(?:[._][a-z0-9]+)*")
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
_SYNONYMS = {
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
}


def _stem(word: str) -> str:
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ing") and len(word) > 5:
        return word[:-3]
    if word.endswith("ed") and len(word) > 4 and not word.endswith("eed"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _norm(word: str) -> str:
    word = _SYNONYMS.get(word, word)
    return _SYNONYMS.get(_stem(word), _stem(word))


def tokens(text: str) -> list[str]:
    """Normalised tokens of `text` in order (duplicates kept)."""
    t = text.lower()
    t = _HEX.sub(lambda m: f" 0x{int(m.group(1), 16):x} ", t)
    t = _HEX_H.sub(lambda m: f" 0x{int(m.group(1), 16):x} ", t)
    t = _STM.sub(r"p\1\2", t)
    t = _BCM.sub(r"gpio\1", t)
    t = _VOLT.sub(r"\1.\2 v", t)
    for pattern, replacement in _PHRASES:
        t = pattern.sub(replacement, t)
    out: list[str] = []
    append = out.append
    for tok in _TOKEN.findall(t):
        if tok[0].isdigit() and not tok.startswith("0x"):
            m = _NUM_UNIT.fullmatch(tok)
            if m and m.group(2) in _UNITS:
                append(m.group(1))
                append(_norm(m.group(2)))
                continue
        if "_" in tok:
            append(tok)
            for part in tok.split("_"):
                if part and part not in _STOP and (len(part) > 1 or part.isdigit()):
                    append(_norm(part))
            continue
        if tok in _STOP or (len(tok) == 1 and not tok.isdigit() and tok != "v"):
            continue
        append(_norm(tok))
        m = _INSTANCE.fullmatch(tok)
        if m:
            append(m.group(1))
    return out


def query_terms(text: str) -> list[str]:
    """Distinct normalised query terms in first-seen order."""
    return list(dict.fromkeys(tokens(text)))
