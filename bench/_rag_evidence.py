"""Would a new kind of ranking evidence carry over to questions it was not chosen on? An offline study.

Most first answers the search still misses on the seen question sets are the right file with another of its
sections first, or another file's section just ahead. Evidence that could tell the answering section apart,
each read from the candidates a search already holds (:meth:`edge_agent.rag.search.Search.pool`), weighted by
the question words' idf (words naming the candidate's own file or board left out, as the search's line rule
does):

- ``best_line``: the share of the question's words one line holds (with its section heading and, for a
  table row, its header row): :func:`edge_agent.rag.lines.line_share`, read for every candidate;
- ``heading``: the share the section's own heading holds;
- ``coverage``: the share the whole section holds anywhere;
- ``near_lines``: the share three neighbouring lines hold together (term proximity);
- ``answer_line``: the best line's share among lines that also hold a value of the kind the question asks
  for (a pin name for "which pin / gpio", a hex code for "address / register / bit / command", a number with
  a unit for "voltage / current / how fast"), and ``any_answer``: whether such a line exists;
- ``phrase``: the share of the question's neighbouring word pairs the section writes side by side;
- ``model_file``: a section of the file of the Pi model the question names or configures, not of the header
  notes every 40-pin model shares.

Each multiplies a candidate's final score by exp(weight x evidence) (``global``), or does so inside each file
keeping the file's best score (``within file``: only the order of a file's sections changes), keeping the
reranking's rule that another board's chunk in a scoped search comes after the scope's. The weight is chosen
on a grid by the score bench/_rag_fit.py uses (hit@1 + (hit@3 + answer within 2,048 characters) / 2, each
question's own boards configured, limit 5) and, as there, judged by leaving one question set out at a time:
chosen on the other sets, counted on the one left out. Only the seen sets are read; a sealed set never is.

    .venv/bin/python -m bench._rag_evidence
"""

from __future__ import annotations

import importlib
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench._rag_fit import SEEN
from bench.rag import _roots

#: Question words asking for a value of one kind, and the pattern such a value is written in.
_PIN = re.compile(r"\b(?:gpio ?\d{1,2}|gp\d{1,2}|p[a-k]\d{1,2}|p[01]\.\d{1,2}|io\d{1,2}|[da]\d{1,2}|bcm ?\d{1,2}"
                  r"|pin \d{1,2})\b")
_CODE = re.compile(r"\b0x[0-9a-f]+\b|\b[01]{2,8}b?\b")
_QUANTITY = re.compile(r"\b\d+(?:[.,]\d+)?(?: to \d+(?:\.\d+)?)? ?(?:v|mv|ma|a|ua|hz|khz|mhz|rpm|kb|mb|kbit|mbit|"
                       r"bytes?|bits?|s|ms|us|ns|c|%|ohm|k|kohm|w|mw|sps|baud)\b")
_ASKS: dict[str, re.Pattern[str]] = {
    **dict.fromkeys(("pin", "pins", "gpio", "gpios", "line", "header", "position", "wired", "connected"), _PIN),
    **dict.fromkeys(("address", "addr", "register", "bit", "bits", "command", "value", "pointer", "id", "code",
                     "byte", "bytes"), _CODE),
    **dict.fromkeys(("voltage", "volts", "volt", "current", "amps", "ma", "much", "many", "fast", "frequency",
                     "speed", "rate", "rating", "max", "maximum", "limit", "range", "size", "long", "rpm",
                     "clock", "resolution"), _QUANTITY),
}
FEATURES = ("best_line", "heading", "coverage", "near_lines", "answer_line", "any_answer", "phrase", "model_file")
GRID = (-1.0, -0.5, -0.25, -0.1, 0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


@dataclass
class Cand:
    log_score: float
    demoted: bool
    source: str
    features: dict[str, float]
    win_len: int  # characters of the text a search shows inside the first context slot (answer window)
    whole_len: int
    fact_in_win: int  # where the answer starts in that text, -1 when it is not there (or wrong file)
    fact_in_whole: int
    fact_len: int


@dataclass
class Asked:
    group: int
    cands: list[Cand]


def _line_terms(text: str, heading: str, weights: dict[str, float], exact: Sequence[str]
                ) -> tuple[float, dict[int, set[str]], list[str]]:
    """The weight of the question words the section's own heading holds, the words each line holds (a table
    row with its header row's), and the lowercased lines."""
    from edge_agent.rag import lines as _lines

    low = text.lower()
    own = heading.rsplit(" > ", 1)[1].lower() if " > " in heading else ""
    in_heading, held = 0.0, {}
    for term, weight in weights.items():
        written = _lines._written(term, term in exact)
        if own and next(iter(_lines._hits(own, term, written)), None) is not None:
            in_heading += weight
            continue
        seen, at, i = -1, 0, 0
        for pos in _lines._hits(low, term, written):
            i += low.count("\n", at, pos)
            at = pos
            if i != seen:
                held.setdefault(i, set()).add(term)
                seen = i
    split = low.split("\n")
    if "|" in low and len(held) > 1:
        for head in [i for i in held if split[i].startswith("|") and (i == 0 or not split[i - 1].startswith("|"))]:
            for i, words in list(held.items()):
                if i > head and _lines.table_head(split, i) == head:
                    held[i] = words | held[head]
    return in_heading, held, split


def evidence(question: str, text: str, heading: str, weights: dict[str, float], exact: Sequence[str],
             model_file: bool) -> dict[str, float]:
    """Every feature of :data:`FEATURES` for one candidate section."""
    from edge_agent.rag import text as _text

    total = sum(weights.values())
    out = dict.fromkeys(FEATURES, 0.0)
    out["model_file"] = float(model_file)
    if total <= 0:
        return out
    in_heading, held, split = _line_terms(text, heading, weights, exact)
    share = {i: (in_heading + sum(weights[t] for t in words)) / total for i, words in held.items()}
    out["heading"] = in_heading / total
    out["best_line"] = max(share.values(), default=in_heading / total)
    out["coverage"] = (in_heading + sum(weights[t] for t in set().union(*held.values()))) / total if held else \
        in_heading / total
    out["near_lines"] = max(((in_heading + sum(weights[t] for t in held.get(i - 1, set()) | words
                                               | held.get(i + 1, set()))) / total for i, words in held.items()),
                            default=in_heading / total)
    q = question.lower()
    kinds = {id(p): p for w in re.findall(r"[a-z0-9]+", q) if (p := _ASKS.get(w)) is not None}.values()
    answering = [s for i, s in share.items()
                 if any(m.group(0) not in q for kind in kinds for m in kind.finditer(split[i]))]
    out["answer_line"] = max(answering, default=0.0)
    out["any_answer"] = float(bool(answering))
    words = [t for t in _text.tokens(question) if t in weights]
    pairs = [(a, b) for a, b in zip(words, words[1:], strict=False) if a != b]
    if pairs:
        toks = _text.tokens(heading.rsplit(" > ", 1)[-1] + "\n" + text)
        side = set(zip(toks, toks[1:], strict=False))
        weight = [min(weights[a], weights[b]) for a, b in pairs]
        out["phrase"] = sum(w for p, w in zip(pairs, weight, strict=True) if p in side) / sum(weight)
    return out


def collect(limit: int = 5) -> list[Asked]:
    """Every seen question's candidate pool with its evidence and where the answer lies in each candidate."""
    from edge_agent.rag import HardwareRag
    from edge_agent.rag import query as _query
    from edge_agent.rag.search import _shared

    shared_tags, shared_boards = _shared()
    rags = {name: HardwareRag.load(root) for name, root in _roots().items()}
    asked: list[Asked] = []
    for group, (module, name) in enumerate(SEEN):
        for q in getattr(importlib.import_module(module), name):
            rag = rags[q.corpus]
            pool = rag._search.pool(q.text, q.boards, limit)
            if not pool.ranked:
                asked.append(Asked(group, []))
                continue
            idf = {t: rag._postings.idf_k(t) for t in pool.terms}
            models = {b for b in (*q.boards, *rag.detect_boards(q.text)) if b in shared_boards}
            sources, fact = q.source.split("|"), q.fact.lower()
            best = pool.ranked[0][0]
            cands = []
            for score, c in pool.ranked:
                named = rag._search._name_terms(c.source, c.board)
                weights = {t: w for t, w in idf.items() if t not in named}
                win = _query.window(c.text, pool.terms, pool.exact)
                right = c.source in sources
                cands.append(Cand(
                    math.log(max(score, 1e-12) / best), c.demoted, c.source,
                    evidence(q.text, c.text, c.heading, weights, pool.exact,
                             bool(models) and c.board in models and c.board not in shared_tags),
                    len(win), len(c.text), win.lower().find(fact) if right else -1,
                    c.text.lower().find(fact) if right else -1, len(fact)))
            asked.append(Asked(group, cands))
    return asked


Apply = Callable[[Asked, dict[str, float]], list[float]]


def _global(a: Asked, w: dict[str, float]) -> list[float]:
    return [c.log_score + sum(v * c.features[f] for f, v in w.items()) for c in a.cands]


def _within_file(a: Asked, w: dict[str, float]) -> list[float]:
    moved = _global(a, w)
    best: dict[str, float] = {}
    after: dict[str, float] = {}
    for c, s in zip(a.cands, moved, strict=True):
        best[c.source] = max(best.get(c.source, -math.inf), c.log_score)
        after[c.source] = max(after.get(c.source, -math.inf), s)
    return [s - after[c.source] + best[c.source] for c, s in zip(a.cands, moved, strict=True)]


def score(a: Asked, w: dict[str, float], apply: Apply, shown: int = 5) -> tuple[bool, bool, bool]:
    """(hit@1, hit@3, within 2,048) of one question under weights `w`, as bench/rag.py counts them."""
    if not a.cands:
        return False, False, False
    s = apply(a, w) if w else [c.log_score for c in a.cands]
    order = sorted(range(len(a.cands)), key=lambda i: (a.cands[i].demoted, -s[i], i))[:shown]
    used, first, within = 0, None, False
    for rank, i in enumerate(order):
        c = a.cands[i]
        at = c.fact_in_win if used < 2048 else c.fact_in_whole  # a result past the first slot is shown whole
        if at >= 0:
            first = rank if first is None else first
            within = within or used + at + c.fact_len <= 2048
        used += c.win_len if used < 2048 else c.whole_len
    return first == 0, first is not None and first < 3, within


def worth(asked: Sequence[Asked], which: Sequence[int], w: dict[str, float], apply: Apply) -> tuple[int, int, int]:
    got = [score(asked[i], w, apply) for i in which]
    return sum(g[0] for g in got), sum(g[1] for g in got), sum(g[2] for g in got)


def fit(asked: Sequence[Asked], which: Sequence[int], features: Sequence[str], apply: Apply,
        sweeps: int = 3) -> dict[str, float]:
    """Coordinate descent over :data:`GRID` for each feature from all zeros, by hit@1 + (hit@3 + within) / 2."""
    w = dict.fromkeys(features, 0.0)
    h1, h3, wi = worth(asked, which, w, apply)
    best = h1 + (h3 + wi) / 2
    for _ in range(sweeps):
        moved = False
        for f in features:
            for v in GRID:
                trial = {**w, f: v}
                if trial == w:
                    continue
                h1, h3, wi = worth(asked, which, trial, apply)
                if h1 + (h3 + wi) / 2 > best + 1e-9:
                    best, w, moved = h1 + (h3 + wi) / 2, trial, True
        if not moved:
            break
    return w


def study(asked: Sequence[Asked], features: Sequence[str], apply: Apply) -> tuple[list[tuple[int, int, int]],
                                                                                  list[tuple[int, int, int]], str]:
    """Per seen set, (hit@1, hit@3, within) as shipped and with the weights fitted on the other sets; and the
    weights fitted on every set."""
    base, cv = [], []
    for g in range(len(SEEN)):
        train = [i for i, a in enumerate(asked) if a.group != g]
        test = [i for i, a in enumerate(asked) if a.group == g]
        w = fit(asked, train, features, apply)
        base.append(worth(asked, test, {}, apply))
        cv.append(worth(asked, test, w, apply))
    every = fit(asked, range(len(asked)), features, apply)
    return base, cv, ", ".join(f"{f} {v:g}" for f, v in every.items() if v) or "all 0"


def main(argv: list[str]) -> None:
    started = time.process_time()
    asked = collect()
    print(f"{len(asked)} seen questions in {len(SEEN)} sets; candidates per question up to "
          f"{max(len(a.cands) for a in asked)}")
    print("| Evidence | applied | LOSO hit@1 | hit@3 | within 2,048 | sets losing hit@1 | fitted on every set |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    runs = [((f,), mode) for f in FEATURES for mode in ("global", "within file")]
    runs += [(FEATURES, "global"), (FEATURES, "within file")]
    for features, mode in runs:
        apply = _global if mode == "global" else _within_file
        base, cv, every = study(asked, features, apply)
        tb = [sum(b[k] for b in base) for k in range(3)]
        tc = [sum(c[k] for c in cv) for k in range(3)]
        losing = [SEEN[g][1] for g in range(len(SEEN)) if cv[g][0] < base[g][0]]
        label = "all jointly" if len(features) > 1 else features[0]
        print(f"| {label} | {mode} | {tb[0]} -> {tc[0]} ({tc[0] - tb[0]:+d}) | {tb[1]} -> {tc[1]} ({tc[1] - tb[1]:+d}) "
              f"| {tb[2]} -> {tc[2]} ({tc[2] - tb[2]:+d}) | {', '.join(losing) or 'none'} | {every} |", flush=True)
    print(f"CPU {time.process_time() - started:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
