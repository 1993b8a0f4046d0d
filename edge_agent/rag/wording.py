"""What a question writes in words or typed apart, spelt as the index writes it.

A question says "the third UART", "digital 6", "p0 18", "rp 2040", "touch channel 8", "servo.attach" or "which PCMSK
register"; the datasheets write UART3, D6, P0.18, RP2040, TOUCH8, "the Servo library" and PCMSK0-PCMSK2. Each
function here gives those other spellings of one question; the search keeps the ones its index holds and searches
them with the question's own terms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from edge_agent.rag.boards import is_chip_pin
from edge_agent.rag.query import PIN_WORDS
from edge_agent.rag.text import tokens

#: Ordinal words and the instance number they ask for: "the third UART" is UART3.
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
            "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6}
#: Families whose instances makers number under other names: ST and AVR number their UARTs as USARTs, the Arduino
#: core as Serial ports (the Mega's third is ``Serial3 (USART3)``).
INSTANCE_NAMES: dict[str, tuple[str, ...]] = {"uart": ("uart", "usart", "serial"), "usart": ("usart", "uart", "serial"),
                                              "serial": ("serial", "usart", "uart")}
#: Lines numbered from zero: an SD card's and a PDM microphone's data lines are DAT0, DAT1, so the second is DAT1.
FROM_ZERO: dict[str, tuple[str, ...]] = {"data": ("dat",)}
#: Words read after an ordinal for a line numbered from zero: the part's name may stand between ("second pdm
#: microphone data line").
FROM_ZERO_REACH = 3
#: Words read after an ordinal for what it counts: "third hardware uart" counts UARTs.
ORDINAL_REACH = 2


def instance_terms(query: str, names: Iterable[str] = ()) -> list[str]:
    """The numbered instances a question asks for with an ordinal, as the index writes them: "second i2c bus" is
    ``i2c2``, "third uart" ``uart3``, ``usart3`` or ``serial3``, "second dac" ``dac2`` or ``dac_2``. The ordinal counts
    one of the next :data:`ORDINAL_REACH` words; the caller keeps the spellings its index holds. "Second" after a
    number or "per" is the unit of time; a board's model number is no quantity ("pi 5 second data line" is no time
    of 5 seconds), so the `names` the question gives its boards by are read as the word "board"."""
    query = query.lower()
    if not any(word in query for word in ORDINALS):  # (an ordinal word is a run of the question's own letters)
        return []
    for name in names:
        query = query.replace(name, " board ")
    words = _ORDINAL_WORD.findall(query)
    out: list[str] = []
    for i, word in enumerate(words):
        n = ORDINALS.get(word)
        if n is None or (word == "second" and i > 0 and (words[i - 1] in _PER or words[i - 1].isdigit())):
            continue  # "per second", "4 second standby": the unit of time
        for counted in words[i + 1:i + 1 + FROM_ZERO_REACH]:
            if counted in ORDINALS or counted.isdigit():
                break
            out += [f"{family}{n - 1}" for family in FROM_ZERO.get(counted, ())]
        for counted in words[i + 1:i + 1 + ORDINAL_REACH]:
            if counted in ORDINALS or counted.isdigit():
                break
            if counted in PIN_WORDS:
                continue  # "second gpio" is no pin GPIO2
            for family in INSTANCE_NAMES.get(counted, (counted,)):
                if not is_chip_pin(f"{family}{n}"):  # "first io" is no pin IO1 either
                    out += [f"{family}{n}", f"{family}_{n}"]
    return list(dict.fromkeys(out))


_ORDINAL_WORD = re.compile(r"[a-z0-9]+")
_PER = frozenset({"per", "a", "one", "half", "each", "every"})


#: A pin written in words: "digital 6" or "digital pin 6" is the Arduino pin D6, "port L bit 3" or "port b pin 5"
#: the port pin PL3 or PB5, as the boards' pin tables write them.
_DIGITAL_PIN = re.compile(r"\bdigital +(?:pin +)?(\d{1,2})\b")
_PORT_BIT = re.compile(r"\bport +([a-l]) +(?:bit|pin) +(\d{1,2})\b")
#: A chip pin typed apart: "p0 18" is the nRF pin P0.18 and "pa 5" the port pin PA5, as pin tables write them
#: ("pi 5" is a Raspberry Pi, not port I).
_PIN_APART = re.compile(r"\bp([01]) +(\d{1,2})\b|\bp([a-hj-l]) +(\d{1,2})\b")


def pin_terms(query: str) -> list[str]:
    """The pins a question writes in words, as the index writes them: "digital 6" is ``d6``, "port L bit 3"
    ``pl3``."""
    low = query.lower()
    found: list[str] = []
    if "digital" in low:  # each pattern's own word first: most questions hold neither
        found += [f"d{int(m.group(1))}" for m in _DIGITAL_PIN.finditer(low)]
    if "port" in low:
        found += [f"p{m.group(1)}{int(m.group(2))}" for m in _PORT_BIT.finditer(low)]
    found += [f"p{m[1]}.{int(m[2]):02d}" if m[1] else f"p{m[3]}{int(m[4])}" for m in _PIN_APART.finditer(low)]
    return list(dict.fromkeys(found))


#: A name of letters and a number of three characters or more typed apart ("rp 2040", "atmega 328p", "bcm 2711";
#: not "pi 5" or "uart 2", a model's or an instance's number).
_SPLIT_NAME = re.compile(r"\b([a-z]{2,})[ ]+(\d[a-z0-9]{2,})\b")
#: A part number typed apart between its two halves, each of letters and digits ("vl53 l0x" is the VL53L0X).
_SPLIT_PART = re.compile(r"\b([a-z]+\d+[a-z]*)[ ]+([a-z]+\d+[a-z0-9]*)\b")


def split_names(query: str) -> list[str]:
    """The part and chip names a question types in two words, joined as datasheets write them ("rp2040" for "rp
    2040"); the search keeps those the index holds."""
    low = query.lower()
    return [a + b for a, b in (*_SPLIT_NAME.findall(low), *_SPLIT_PART.findall(low))]


#: A call or attribute written with dots ("servo.attach", "Wire.begin"): its words are also words of the question.
_DOTTED = re.compile(r"[a-z_]+(?:\.[a-z_]+)+")
#: A file's name is no call: "pins_arduino.h" and "config.txt" are looked for whole.
_FILE_TYPES = frozenset({"h", "c", "cpp", "hpp", "ino", "py", "txt", "md", "toml", "json", "yaml", "dts", "dtsi",
                         "dtbo", "conf", "cfg", "ini", "sh", "bin", "hex", "elf", "uf2"})


def dotted_parts(terms: Iterable[str]) -> list[str]:
    """The words of the question's dotted names (``servo`` and ``attach`` of ``servo.attach``), for the notes that
    write them apart ("the Servo library"); the search keeps those the index holds."""
    return list(dict.fromkeys(p for t in terms if "." in t and _DOTTED.fullmatch(t)  # (a dot first: few terms hold one)
                              and t.rsplit(".", 1)[1] not in _FILE_TYPES for p in tokens(t.replace(".", " "))))


#: "touch channel 8", "adc ch 3": the channel as the datasheets name it, TOUCH8, ADC3 (or ADC_3).
_CHANNEL = re.compile(r"\b([a-z]{2,}[0-9]?) +(?:channel|ch) *#?(\d{1,2})\b")


def channel_terms(query: str) -> list[str]:
    """The numbered channels a question writes in words (``touch8`` and ``touch_8`` for "touch channel 8"); the
    search keeps those the index holds."""
    low = query.lower()
    if "ch" not in low:  # "channel" or "ch": most questions hold neither
        return []
    return list(dict.fromkeys(f"{word}{sep}{int(n)}" for word, n in _CHANNEL.findall(low) for sep in ("", "_")))


#: The instance numbers looked for after a family name no datasheet writes alone ("pcmsk" -> PCMSK0..PCMSK2).
INSTANCE_NUMBERS = range(16)


def numbered_family(term: str, held: Callable[[str], bool]) -> list[str]:
    """The numbered registers or peripherals of a family a question names by its bare name, when the datasheets
    write only the numbered ones ("which PCMSK register" finds PCMSK0, PCMSK1 and PCMSK2); none for a word the
    index holds, or a word with digits."""
    if len(term) < 3 or not term.isalpha() or held(term):
        return []
    return [f"{term}{n}" for n in INSTANCE_NUMBERS if held(f"{term}{n}")]
