"""The language an operator asks the answer to be in ("say good morning in Spanish").

Small models answer in English when only the task names the language: the 1.5B model replied "Good
morning!" to "say good morning in Spanish". A message that names a language for the answer gets one
explicit line after it in the request, "Write the answer in Spanish.", which the model follows far
more often. Only a language named in the message counts, in English or in its own name ("en
español", "auf Deutsch"); a message merely written in another language needs no line (models
answer in the language they are asked in). Deterministic, so the same message makes the same
request (and the same response-cache key).
"""

from __future__ import annotations

import re

# English name -> the name the line uses; the language's own names map to the same.
_NAMES = {
    "spanish": "Spanish", "español": "Spanish", "espanol": "Spanish", "castellano": "Spanish",
    "french": "French", "français": "French", "francais": "French",
    "german": "German", "deutsch": "German",
    "italian": "Italian", "italiano": "Italian",
    "portuguese": "Portuguese", "português": "Portuguese", "portugues": "Portuguese",
    "dutch": "Dutch", "nederlands": "Dutch",
    "polish": "Polish", "polski": "Polish",
    "swedish": "Swedish", "svenska": "Swedish",
    "danish": "Danish", "dansk": "Danish",
    "norwegian": "Norwegian", "norsk": "Norwegian",
    "finnish": "Finnish", "suomi": "Finnish",
    "czech": "Czech", "čeština": "Czech",
    "turkish": "Turkish", "türkçe": "Turkish",
    "russian": "Russian", "ukrainian": "Ukrainian", "greek": "Greek",
    "japanese": "Japanese", "chinese": "Chinese", "mandarin": "Chinese", "korean": "Korean",
    "hindi": "Hindi", "arabic": "Arabic", "hebrew": "Hebrew", "indonesian": "Indonesian",
    "vietnamese": "Vietnamese", "thai": "Thai", "latin": "Latin", "english": "English",
}
# "in Spanish", "into French", "en español", "auf Deutsch", "in het Nederlands", "på svenska"...
_ASKED = re.compile(r"(?<!\w)(?:in|into|en|auf|in het|på|po|em|na)\s+(" + "|".join(
    sorted((re.escape(n) for n in _NAMES), key=len, reverse=True)) + r")(?!\w)", re.IGNORECASE)


def requested(message: str) -> str | None:
    """The language the message asks the answer to be in, or None when it names none (or several)."""
    found = {_NAMES[m.group(1).lower()] for m in _ASKED.finditer(message)}
    return found.pop() if len(found) == 1 else None


def instruction(message: str) -> str:
    """The line that follows the message in the request ("" when the message names no language)."""
    lang = requested(message)
    return f"Write the answer in {lang}." if lang else ""
