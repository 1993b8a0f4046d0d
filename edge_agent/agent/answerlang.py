"""Whether the model's answer is in the language the operator asked for, and what to do when it is not.

A small model often answers small talk in English even with "Write the answer in Spanish." after the
message (:mod:`edge_agent.agent.language`): "Good morning!" for "say good morning in Spanish". The
loop then asks once more, right after that answer, with the request to put it into the language
(:data:`REWRITE`): a short continuation of the same conversation, so the server reuses its cached
prefix. If the second answer still reads as English, the first is kept, the answer says plainly that
it is not in the language asked for, and the turn is neither cached nor remembered.

Deciding "reads as English" is deliberately narrow: a language with its own script (Russian, Greek,
Japanese...) is there when its letters are; otherwise at least half of the answer's words must be
common English words that are not also common words of the other languages named
(:func:`in_language` is None when it cannot tell, and nothing is asked again).
"""

from __future__ import annotations

import re

REWRITE = "Write your answer above in {lang}, the language I asked for. Reply with only the {lang} text."
NOT_IN = "(Not in {lang}: the model answered in English, and not in {lang} when asked again.)"

# Common English words that are not common words of the other languages a message may name (so not
# "a", "i", "in", "is", "of", "on", "to", "at", "do", "me", "no", "so", "am", "an", "die", "was", "will",
# "for", "son", "come", "man", "hat").
ENGLISH = frozenset({
    "the", "hello", "hi", "hey", "good", "morning", "afternoon", "evening", "night", "goodbye", "bye", "thanks",
    "thank", "you", "your", "yours", "how", "are", "what", "which", "where", "when", "why", "who", "whom",
    "this", "that", "these", "those", "with", "and", "have", "has", "had", "it", "its", "it's", "i'm", "i've",
    "you're", "we're", "that's", "here's", "there's", "can", "could", "would", "should", "shall", "please",
    "welcome", "nice", "meet", "well", "fine", "doing", "great", "day", "today", "tonight", "my", "mine",
    "name", "here", "there", "from", "about", "sure", "help", "like", "not", "be", "been", "being", "were",
    "we", "they", "he", "she", "our", "their", "them", "yes", "just", "very", "much", "any", "some", "more",
    "say", "said", "says", "lovely", "wonderful", "hope", "everyone", "everybody", "friend", "friends", "world",
    "again", "time", "see", "soon", "take", "care", "let", "let's", "know", "tell",
})
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# Languages written in their own script: the answer is in the language when it holds that script.
_SCRIPTS = {
    "Russian": "\u0400-\u04FF", "Ukrainian": "\u0400-\u04FF", "Greek": "\u0370-\u03FF",
    "Japanese": "\u3040-\u30FF\u4E00-\u9FFF", "Chinese": "\u4E00-\u9FFF", "Korean": "\uAC00-\uD7AF\u1100-\u11FF",
    "Hindi": "\u0900-\u097F", "Arabic": "\u0600-\u06FF", "Hebrew": "\u0590-\u05FF", "Thai": "\u0E00-\u0E7F",
}


def english_share(text: str) -> tuple[int, int]:
    """(common English words, all words) of `text`."""
    words = [w.lower().replace("’", "'") for w in _WORD.findall(text)]
    return sum(w in ENGLISH for w in words), len(words)


def in_language(text: str, lang: str) -> bool | None:
    """True when `text` reads as `lang`, False when it reads as English instead, None when it cannot tell
    (or `lang` is English)."""
    if lang == "English":
        return None
    script = _SCRIPTS.get(lang)
    if script is not None and re.search(f"[{script}]", text):
        return True
    english, words = english_share(text)
    if words and english * 2 >= words:
        return False
    if script is None and words and english == 0:
        return True
    return None
