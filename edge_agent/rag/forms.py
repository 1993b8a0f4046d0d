"""Other forms of a question's words that its index holds.

A datasheet and a question may write one word in two forms: "prescaler" in a question, "prescale" in the
PCA9685's frequency notes; "detection" and "detect"; "controller" and "control". The agent noun (-er, -or)
and the noun of the act (-ion) name the same thing as the verb they come from, so a question word also looks
for its other forms. Only forms the index holds are added (the caller checks), and only forms of five letters or
more, so short words that happen to lose an ending ("user", "lower", "timer") are not read as others ("us",
"low", "tim"). Abbreviations a datasheet writes beside their long form ("AI (auto-increment)") and forms
outside those endings ("inverse" of "invert") are data, in ``forms.toml``. Stored rows do not change: all of this
is read at query time only.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from edge_agent.rag.text import tokens

#: Shortest form added: below it, taking off an ending leaves another word, not the same one.
MIN_FORM = 5


_DATA = tomllib.loads(Path(__file__).with_name("forms.toml").read_text(encoding="utf-8"))
#: long form's terms (as :func:`.text.tokens` makes them) -> the abbreviation's
ABBREVIATIONS: dict[tuple[str, ...], str] = {tuple(tokens(long)): tokens(short)[0]
                                             for long, short in _DATA["abbreviations"].items()}
_LONG_FORMS: dict[str, list[tuple[str, ...]]] = {}
for _long in ABBREVIATIONS:
    _LONG_FORMS.setdefault(_long[0], []).append(_long)
#: a term -> its irregular forms' terms
IRREGULAR: dict[str, tuple[str, ...]] = {tokens(word)[0]: tuple(t for f in forms for t in tokens(f))
                                         for word, forms in _DATA["irregular"].items()}


def _others(term: str) -> list[str]:
    """Spellings of `term` with its agent-noun or -ion ending taken off or put on."""
    out: list[str] = []
    if term.endswith("er"):  # prescaler -> prescale, counter -> count, controller -> control
        out += [term[:-1], term[:-2]]
        if term[-3] == term[-4]:
            out.append(term[:-3])
    elif term.endswith("or"):  # detector -> detect, regulator -> regulate
        out.append(term[:-2])
        if term.endswith("ator"):
            out.append(term[:-3] + "e")
    elif term.endswith("ion"):  # detection -> detect, calibration -> calibrat (the stem of "calibrated")
        out.append(term[:-3])
        if term.endswith("ation"):
            out += [term[:-5] + "e", term[:-5] + "ate"]
    else:  # prescale -> prescaler, detect -> detector, detection
        out += [term + "r"] if term.endswith("e") else [term + "er", term + "or", term + "ion"]
    return out + _derived(term)


#: Endings that make an adverb or a quality of a word, each with the endings of its other forms: "typically" is
#: "typical", "accuracy" "accurate", "measurement" "measure", "sensitivity" "sensitive", "stability" "stable".
_DERIVED = (("ically", ("ical", "ic")), ("ily", ("y",)), ("ly", ("",)), ("acy", ("ate",)), ("ate", ("acy",)),
            ("ment", ("",)), ("ivity", ("ive",)), ("ive", ("ivity",)), ("ility", ("le",)))


def _derived(term: str) -> list[str]:
    """The forms of `term` another of its endings makes (:data:`_DERIVED`): the first ending it has, only."""
    for ending, others in _DERIVED:
        if term.endswith(ending) and len(term) > len(ending) + 3:
            stem = term[:-len(ending)]
            out = [stem + other for other in others]
            # the stem the tokeniser gives the past tense: "measured" is "measur" (of "measurement")
            return out + [stem[:-1]] if ending == "ment" and stem.endswith("e") else out
    return []


@lru_cache(maxsize=4096)
def _forms_of(term: str) -> tuple[str, ...]:
    """A term's irregular forms and its -er, -or and -ion forms of :data:`MIN_FORM` letters or more."""
    out = list(IRREGULAR.get(term, ()))
    if term.isalpha() and len(term) >= MIN_FORM:
        out += [form for form in _others(term) if len(form) >= MIN_FORM]
    return tuple(out)


def other_forms(terms: list[str]) -> list[str]:
    """Other forms of a question's words (its distinct `terms`, in first-seen order) not among them: the -er, -or
    and -ion forms (:func:`_others`) of its plain words, their irregular forms, and the abbreviation of a long
    form whose words stand next to each other in it. The caller keeps those its index holds."""
    out: list[str] = []
    for i, term in enumerate(terms):
        out += _forms_of(term)
        for long in _LONG_FORMS.get(term, ()):
            if tuple(terms[i:i + len(long)]) == long:
                out.append(ABBREVIATIONS[long])
    if not out:
        return out
    seen = set(terms)
    return [form for form in dict.fromkeys(out) if form not in seen]


def joined_parts(terms: list[str], held: Callable[[str], bool]) -> list[str]:
    """The two words a datasheet hyphenates where a question writes them as one ("precharge" for "pre-charge",
    "autoincrement" for "auto-increment"): for a plain word of seven letters or more the index does not hold,
    the first split into two words of three letters or more it does hold."""
    out: list[str] = []
    for term in terms:
        if not term.isalpha() or len(term) < 7 or held(term):
            continue
        for i in range(3, len(term) - 2):
            first, second = tokens(term[:i]), tokens(term[i:])
            if len(first) == len(second) == 1 and held(first[0]) and held(second[0]):
                out += [t for t in (first[0], second[0]) if t not in terms and t not in out]
                break
    return out


def held_forms(terms: list[str], held: Callable[[str], bool]) -> list[str]:
    """What a question's distinct `terms` also look for, of what the index holds (`held`): their other forms
    (:func:`other_forms`) and the halves of a word written joined (:func:`joined_parts`)."""
    forms = [t for t in other_forms(terms) if held(t)]
    return forms + [t for t in joined_parts(terms, held) if t not in forms]
