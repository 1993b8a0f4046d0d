"""The search behind :meth:`HardwareRag.search <edge_agent.rag.HardwareRag.search>`: from a question to ranked chunks.

A question is read for the boards and parts it names (:mod:`.boards`), its numbered instances and other word
forms (:mod:`.query`, :mod:`.forms`); the board boosts follow from those and the configured boards (a pin the
configured board lacks, or another board named, moves the scope); BM25 over the postings proposes candidates
(the named board's best sections among them when other boards' chunks, which rank after its, fill the pool),
whose rows are read in one query; the facts the reranking rules read are filled in (exact tokens, pin rows,
register tables, boards named together, the best line through :mod:`.lines`) and :func:`.query.rerank` orders
them; long results are cut to their answering lines (:func:`.query.window`).

:class:`Search` keeps what it derives from the index (board boosts, nicknames, per-chunk facts) until the index
changes (:meth:`Search.forget`); the index itself is the store's, read through it on every question.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from edge_agent.errors import UnknownBoardError
from edge_agent.pins import PinIndex, get_board, list_boards, name_key
from edge_agent.rag import addons as _addons
from edge_agent.rag import boards as _boards
from edge_agent.rag import forms as _forms
from edge_agent.rag import lines as _lines
from edge_agent.rag import query as _query
from edge_agent.rag import spelling as _spelling
from edge_agent.rag import text as _text
from edge_agent.rag import titles as _titles
from edge_agent.rag import wording as _wording
from edge_agent.rag.memo import keep

if TYPE_CHECKING:
    from edge_agent.rag.postings import Postings
    from edge_agent.rag.store import IndexStore

#: Boost of a configured board's chunks (and of the files tagged with its datasheet tags).
BOARD_BOOST = 1.5
#: Boost of a board or part the question itself names (stronger evidence than a configured board).
DETECTED_BOOST = 3.0
DEFAULT_LIMIT = 5
#: Candidates of the boards a question names (or its chip pin points at) a search reads at least, when other
#: boards' chunks, which rank after theirs, fill its pool.
BOARD_SLOTS = 2
COMPACT_LIMIT = 2
COMPACT_CHARS = 600


@dataclass(frozen=True)
class Chunk:
    """One ranked piece of a datasheet."""

    source: str  # path relative to the datasheet directory
    board: str | None
    heading: str
    text: str
    score: float
    page: int | None = None  # PDF page the text comes from


@dataclass(frozen=True)
class Pool:
    """A question's candidates in the reranking's order (final score, candidate), with its terms (those holding
    a digit and naming no board are the exact ones)."""

    terms: list[str]
    exact: list[str]
    ranked: list[tuple[float, _query.Candidate]]


class Search:
    """Ranks a question's chunks over the index of `store` (read through it: a sync replaces its postings).

    `pin_index` gives the pin index of the store's datasheets (built when a question names a chip pin)."""

    def __init__(self, store: IndexStore, pin_index: Callable[[], PinIndex]) -> None:
        self._store = store
        self._pin_index = pin_index
        #: the reranking's multipliers (:class:`.query.Weights`); a fitting run tries others through this
        self.weights: _query.Weights = _query.WEIGHTS
        self._synced_boards: frozenset[str] | None = None
        self._boost_cache: dict[tuple[str, ...], tuple[dict[str, float], frozenset[str]]] = {}
        self._own_boost_cache: dict[tuple[str, ...], dict[str, float]] = {}
        self._native_pin_cache: dict[tuple[str, ...], frozenset[str]] = {}
        self._nicknames: dict[str, str] | None = None
        self._titles: _titles.TitleSiblings | None = None  # sibling parts the files' titles name
        self._nickname_words: Container[str] = frozenset()
        self._tag_term_cache: frozenset[str] | None = None
        self._name_word_cache: dict[tuple[str, ...], frozenset[str]] = {}
        self._pin_owner_cache: dict[str, frozenset[str]] | None = None
        self._file_term_cache: dict[str, frozenset[str]] = {}
        self._name_term_cache: dict[str, frozenset[str]] = {}
        self._code_table_cache: dict[int, bool] = {}
        self._range_cache: dict[int, frozenset[str]] = {}
        self._pin_word_cache: dict[tuple[str, ...], frozenset[str]] = {}
        self._host_boards: dict[str, bool] = {}
        self._host_file_cache: frozenset[str] | None = None
        self._family_cache: _addons.Families | None = None
        self._last_spelt: tuple[str, str] | None = None  # (question, its reading) of the last search

    @property
    def _postings(self) -> Postings:
        return self._store._postings

    @property
    def _conn(self) -> sqlite3.Connection:
        return self._store._conn

    @property
    def _lock(self) -> threading.RLock:
        return self._store._lock

    def forget(self) -> None:
        """Drop what was derived from the previous index state (called after every sync)."""
        boards = self._postings.boards()
        if boards != self._synced_boards:  # names, tag words and boosts follow the boards present: a refresh
            self._synced_boards = boards  # that changed a file of each board keeps them (10,000 part tags)
            self._boost_cache = {}
            self._own_boost_cache = {}
            self._native_pin_cache = {}
            self._nicknames = None
            self._titles = None
            self._tag_term_cache = None
            self._name_word_cache = {}
        self._code_table_cache = {}
        self._range_cache = {}
        self._pin_word_cache = {}
        self._pin_owner_cache = None
        self._host_boards = {}
        self._host_file_cache = None
        self._family_cache = None
        self._last_spelt = None

    def _board_boosts(self, boards: Sequence[str], base: float = BOARD_BOOST,
                      shared: bool = True) -> dict[str, float]:
        """Boost per board tag: the named boards, then the datasheet tags they answer to (shared files, unboosted
        unless `shared`).

        Raises UnknownBoardError for a name that is neither a board file nor a datasheet tag.
        """
        present = self._postings.boards()
        boosts: dict[str, float] = {}
        for b in boards:
            key = b.strip().lower()
            try:
                board = get_board(key)
            except UnknownBoardError:
                owners = [o for o in list_boards() if key in get_board(o).datasheet_tags]
                if key not in present and not owners:
                    raise UnknownBoardError(b, sorted(set(list_boards()) | present | _shared_tags())) from None
                boosts[key] = base  # a datasheet-only board, or a tag several boards share (each 40-pin Pi)
                for o in owners:
                    boosts.setdefault(o, base)
                continue
            boosts[board.id] = base
            for tag in board.datasheet_tags:
                # shared files (rpi-gpio) count as the board's own, or (not `shared`) as any other file
                boosts.setdefault(tag, base if shared or tag not in _shared_tags() else 1.0)
        return boosts

    def search(self, query: str, boards: Sequence[str] = (), limit: int | None = None, *,
               compact: bool = False) -> list[Chunk]:
        """Best chunks for `query`, best first; chunks of `boards` get the board boost.

        Raises:
            UnknownBoardError: a board is neither a board file nor a datasheet tag.
        """
        if limit is None:
            limit = DEFAULT_LIMIT
        if compact:
            limit = min(limit, COMPACT_LIMIT)
        pool = self._rank(query, boards, limit)
        if pool is None:
            return []
        terms, exact = pool.terms, pool.exact
        out: list[Chunk] = []
        used = 0  # characters of the results so far
        for score, c in pool.ranked:
            rel, board, heading, body = c.source, c.board, c.heading, c.text  # (as the candidate's row was read)
            page = int(heading[5:]) if rel.lower().endswith(".pdf") and heading[5:].isdigit() else None
            if compact:  # the answering lines of a long chunk (a register table's rows past its
                # first 600 characters), then cut to the compact size
                text = _shorten(_query.window(body, terms, exact, COMPACT_CHARS, whole_upto=COMPACT_CHARS))
            elif used < _query.CONTEXT_CHARS:  # a long result (a 40-row pin table) would crowd the others
                # out of the context slot: it is cut to its answering lines
                text = _query.window(body, terms, exact)
            else:  # past the slot, kept whole
                text = body
            used += len(text)
            out.append(Chunk(rel, board, heading, text, score, page))
        return out

    def pool(self, query: str, boards: Sequence[str] = (), limit: int = DEFAULT_LIMIT) -> Pool:
        """Every candidate a search for `limit` results reads, in the reranking's order, with the question's
        terms: what an offline study of new ranking evidence works from (``bench/_rag_evidence.py``)."""
        got = self._rank(query, boards, limit, whole=True) if limit > 0 else None
        return got if got is not None else Pool([], [], [])

    def _rank(self, query: str, boards: Sequence[str], limit: int, whole: bool = False) -> Pool | None:
        """The best `limit` candidates (every candidate when `whole`) reranked; None for a question without a
        term."""
        if limit <= 0:
            return None
        query = self.spelt(query)
        terms = _text.query_terms(query)
        if not terms:
            return None
        spans = self._mentions(query)
        # "the third UART" asks for a numbered instance: UART3, or USART3 or Serial3 as other makers write it
        df = self._postings.df

        def held(term: str) -> bool:
            return df[term] > 0

        def more(found: Iterable[str]) -> None:  # other spellings of the question's words, those the index holds
            terms.extend([t for t in dict.fromkeys(found) if t not in terms and held(t)])

        more(_wording.instance_terms(query, [name for _, name in spans]))
        more(_wording.pin_terms(query))  # "digital 6" is D6
        more(_forms.held_forms(terms, held))  # "prescaler" asked, "prescale" written
        more(_wording.split_names(query))  # "rp 2040" is the RP2040
        more(_wording.channel_terms(query))  # "touch channel 8": TOUCH8
        more(_wording.dotted_parts(terms))  # "servo.attach": "servo"
        more([n for t in terms for n in _wording.numbered_family(t, held)])  # PCMSK: PCMSK0-2
        named = tuple(boards)
        detected = tuple(dict.fromkeys(tag for tag, _ in spans if tag not in named))
        # a Pi model's name is not written in the header file every 40-pin model shares
        named_terms = terms
        terms = _boards.content_terms(terms, (name for tag, name in spans if _answers_shared_tag(tag)))
        # A chip-specific pin name (PA5, GP17, P0.13) points at the boards that have it, unless the question
        # names its board; with boards configured, only a pin none of them has (GP17 with a Pi configured).
        pinned = () if detected else tuple(self.pin_boards(query, named))
        if named and not detected and not pinned:
            # the configured board has the pin, but the question asks for a function its files never mention
            pinned = tuple(self._asked_elsewhere(terms, named))
        if named and (pinned or self._names_another_board(spans, named) or self._says_other_family(query, named)):
            # a pin the configured board lacks, or another board named and not the configured one: the
            # question is about that board, and the configured board's boost steps aside
            named = ()
        # A model the question names (pi 5) weighs its own note, not the header file every model shares, unless the
        # question asks where on the header: the shared file says what the models have in common and where each
        # signal sits on the 40 pins; what one model does differently (the Pi 5's RP1 functions, its four PWM
        # channels, its console on a separate connector) is written in that model's note.
        where = asks_position(query)
        # the same holds for the configured model when the question names it too ("pi 5 pwm channels" on a Pi 5)
        own_shared = where or not any(tag in named and _answers_shared_tag(tag) for tag, _ in spans)
        key = (*named, "|", *detected, "|", *pinned, "|", "where" if where else "", "" if own_shared else "own")
        got = self._boost_cache.get(key)
        if got is None:  # board files do not change while the process runs; the index is checked on sync
            # boards the question itself names weigh more than the configured ones
            by_question = {**self._board_boosts(detected, DETECTED_BOOST, where),
                           **self._board_boosts(pinned, DETECTED_BOOST, where)}
            got = keep(self._boost_cache, key, ({**self._board_boosts(named, shared=own_shared), **by_question},
                                                frozenset(by_question)))
        # `asked`: the boards (and the files they answer to) the question names or its chip pin points at
        boosts, asked = got
        if ((digital := _query.bare_pin(query)) is not None and digital not in terms and df[digital] > 0
                and any(self._is_host(tag) for tag in (*detected, *named))):
            terms = [*terms, digital]  # "pin 21" on a board numbering its digital pins the Arduino way: D21
        with self._lock:
            postings = self._postings
            wanted = max(limit * _query.CANDIDATES_PER_RESULT, _query.MIN_CANDIDATES)
            asked_tags = tuple(dict.fromkeys(tag for tag, _ in spans))  # boards and parts the question names
            every = len(asked_tags) < 2 and _boards.asks_every_board(query)  # "on each board": every board is asked
            if len(asked_tags) >= 2 or every:  # several: the table setting them side by side may rank lower
                wanted *= _query.TOGETHER_POOL
            # a board the question names keeps room among the candidates; a configured board the question may not
            # be about does not (its weak chunks would set every other board's answer after them: rule 1)
            candidates, own = postings.top_with_own(terms, boosts, wanted, BOARD_SLOTS if asked else 0, asked)
            if (asked and terms != named_terms and not own
                    and not any(postings.meta.board_of(c[3]) in asked for c in candidates)):
                # none of the model's own sections holds the question's other words ("zero 2 w ram": the note says
                # "512 MB"): its name finds its notes, where other boards' and parts' words would be all there is
                terms = named_terms
                candidates, own = postings.top_with_own(terms, boosts, wanted, BOARD_SLOTS, asked)
            # the boards (not parts or add-ons), decided for a tag when a rule asks, from a candidate's file if any
            tags = [postings.meta.board_of(c[3]) for c in candidates]
            first = {tag: c[3] for tag, c in zip(reversed(tags), reversed(candidates), strict=True)}
            board_tags = _boards.Boards(_board_file_tags(), lambda tag: self._is_board(tag, first.get(tag)))
            if own and (room := _room(tags, asked, board_tags)):
                # other boards' chunks, ranked after the named board's anyway (rule 1), took the pool: its own best
                # sections join it, scored as BM25 scored every candidate
                candidates += own[:room]
            if every:  # the table with one column per board answers
                asked_tags = tuple(sorted(t for t in postings.boards() if t in board_tags))
            # the words naming a board or part in the question ("l476", "g071") tell the file, not a value in it
            # (only the question's own terms are looked up: the union with every tag's words, 10,000 part names on
            # a large library, would copy that set on each search)
            every_tag = self._tag_terms()
            tag_terms = {t for t in terms if t in every_tag} | _boards.naming_terms(name for _, name in spans)
            exact = _query.exact_terms(terms, tag_terms)
            # the question's words beside its chip pin: not board names, pins or numbers, nor "pin" itself
            row_words = {t for t in terms if t not in exact and t not in tag_terms and t not in _query.PIN_WORDS}
            ids = [cid for _, _, _, cid in candidates]
            functions = [t for t in terms if t in _query.FUNCTIONS]  # buses and functions the question names
            wants_code = not _query.CODE_WORDS.isdisjoint(terms)  # it asks for a bit, register, flag or command
            wants_alias = "alia" in terms  # it asks for an alias by that word: the alias list is the answer
            # every candidate's heading and text in one read (its file and board are the chunk table's): the
            # headings tell alias lists apart, the winners' text is kept
            rows = {r[0]: r[1:] for r in self._conn.execute(
                f"SELECT id, heading, text FROM chunks WHERE id IN ({', '.join('?' * len(ids))})", ids)}
            found: list[_query.Candidate] = []
            for score, rel, idx, cid in candidates:
                heading, body = rows[cid]
                found.append(_query.Candidate(
                    score, rel, idx, cid, postings.meta.board_of(cid), heading, body,
                    alias_list=not wants_alias and _query.is_alias_list(heading, body),
                    overview=bool(heading) and " > " not in heading,
                    about_asked=bool(functions) and not _query.heading_functions(heading).isdisjoint(functions),
                    code_table=wants_code and self._is_code_table(cid, body)))
            if len(asked_tags) >= 2:
                assert self._nicknames is not None  # read by _mentions above
                together = _boards.Together(_boards.names_by_tag(self._nicknames, asked_tags))
                for c in found:
                    c.boards_named = together.count(c.text)
            holds = _holder(postings, ids)  # each term's candidates found in one search of its chunk ids
            if named and not asked_tags:  # configured boards, the question names none
                self._families().mark_foreign(found, boosts, board_tags,
                                              [t for t in terms if t not in tag_terms and t not in _query.PIN_WORDS],
                                              holds)
            if any(t in board_tags for t in asked_tags):  # a generic note not mentioning them counts as an unasked part
                for c in _boards.unnamed_notes(found, self._name_words(asked_tags), holds):
                    c.score *= self.weights.unasked
            if (place := _query.asked_place(query)) is not None:  # "pin 25": the header map's row 25
                _query.weigh_place(found, place)
            _query.weigh_exact(found, exact, holds, self._file_terms,
                               ranged=lambda c: self._range_pins(c.cid, c.text), row_words=row_words)
            top = _query.rerank(found, len(found) if whole else limit, scoped=boosts, other_boards=board_tags,
                                pinned=pinned, lookup=_query.asks_lookup(terms, exact), weights=self.weights,
                                read_lines=self._line_reader(terms, exact, postings, _lines.answer_kind(query)),
                                asked=any(t in board_tags for t, _ in spans))  # the question names a board
        return Pool(terms, exact, top)

    def _names_another_board(self, spans: list[tuple[str, str]], configured: Sequence[str]) -> bool:
        """Whether a question names a board (:meth:`_boards`) other than the configured ones and none
        of those ("PA10 on the f401" with a Pi configured)."""
        tags = {tag for tag, _ in spans}
        return not tags & self._own_boosts(configured).keys() and any(self._is_board(t) for t in tags)

    def _says_other_family(self, query: str, configured: Sequence[str]) -> bool:
        """Whether a question names a family of boards (:func:`.boards.families`: "i2c bus device file on a pi", "usb
        serial device of the nucleo") none of the configured boards belongs to: the word names no one board (it is
        no board name of its own), but it says the question is not about the configured one."""
        own = self._own_boosts(configured).keys()
        return any(own.isdisjoint(members) for members in _boards.families(query))

    def _is_board(self, tag: str, cid: int | None = None) -> bool:
        """Whether a tag is a board's, not a part's or an add-on's: a board file's or a tag one answers to, or a host
        board's datasheet (:meth:`_is_host`: the Mega)."""
        return tag in _board_file_tags() or self._is_host(tag, cid)

    def _is_host(self, tag: str, cid: int | None = None) -> bool:
        """Whether a tag's datasheet is a host board's, numbering its digital pins the Arduino way
        (:func:`.boards.is_host_board`), from the file of `cid` or the tag's first chunk; kept until the index
        changes."""
        got = self._host_boards.get(tag)
        if got is None:
            meta = self._postings.meta
            at = meta.first_chunk(tag) if cid is None else cid
            rel = meta[at][0] if at in meta else next(self._conn.execute(_CHUNK_FILE, (at,)), (None,))[0]
            got = keep(self._host_boards, tag, rel in self._host_files())
        return got

    def _families(self) -> _addons.Families:
        """The pin families of the index's files (:mod:`.addons`), kept until the index changes."""
        if self._family_cache is None:
            self._family_cache = _addons.Families(self._conn)
        return self._family_cache

    def _host_files(self) -> frozenset[str]:
        """The files that are host boards' datasheets (flagged when indexed), read in one pass of their index when a
        search first asks (about 1 ms for 2,600 of 10,000 files) and kept until the index changes: a search asks about
        each new candidate's board, and a row's lookup each costs more after a few dozen questions."""
        if self._host_file_cache is None:
            self._host_file_cache = frozenset(rel for (rel,) in self._conn.execute(_HOST_FILES))
        return self._host_file_cache

    def _name_words(self, tags: tuple[str, ...]) -> frozenset[str]:
        """The words of the informal names of `tags` (:func:`.boards.name_words`), kept until the index changes."""
        if (got := self._name_word_cache.get(tags)) is None:  # (the names were read by the search's _mentions)
            self._name_word_cache = {} if len(self._name_word_cache) >= 4096 else self._name_word_cache  # bounded
            got = self._name_word_cache[tags] = _boards.name_words(_boards.names_by_tag(self._nicknames or {}, tags))
        return got

    def _own_boosts(self, configured: Sequence[str]) -> dict[str, float]:
        """The configured boards with the shared files they answer to (their boosts), kept like a search's
        boosts: board files do not change while the process runs, and the cache is dropped on sync."""
        key = tuple(configured)
        own = self._own_boost_cache.get(key)
        if own is None:
            own = keep(self._own_boost_cache, key, self._board_boosts(configured))
        return own

    def detect_boards(self, query: str) -> list[str]:
        """Boards and parts a question names informally ("the f401", "pi 4", "bme280"), as datasheet tags."""
        return list(dict.fromkeys(tag for tag, _ in self._mentions(query)))

    def spelt(self, query: str) -> str:
        """`query` with its misspelt words read as the library writes them (:func:`.spelling.read_as`); the last
        question's reading is kept, since a tool reporting it asks right after the search that read it."""
        last = self._last_spelt  # (one read: another thread may replace it)
        if last is None or last[0] != query:
            last = self._last_spelt = (query, _spelling.read_as(query, self._postings.df, self._informal_names()[1]))
        return last[1]

    def _informal_names(self) -> tuple[dict[str, str], Container[str]]:
        """The informal names of the index's tags and of every board with a board file (a Zero 2 W answers through
        the shared header file even when no file of its own is indexed), and their words; read once."""
        if self._nicknames is None:
            self._nicknames = _boards.nicknames(set(self._postings.boards()) | set(list_boards()))
            self._nickname_words = _boards.nickname_words(self._nicknames)
        return self._nicknames, self._nickname_words

    def _mentions(self, query: str) -> list[tuple[str, str]]:
        nicknames, words = self._informal_names()
        spans = _boards.mentions(query, nicknames, words=words)
        if spans:  # "automation hat ads1015 address": the board that carries the part is asked
            return spans
        for word in _boards.part_words(query):  # a sibling part its file's title names ("ADS1115 / ADS1015")
            if word in nicknames:
                continue
            if self._titles is None:
                self._titles = _titles.TitleSiblings(self._postings, self._conn)
            if (tag := self._titles.tag(word)) is not None:
                spans.append((tag, word))
        return spans

    def pin_boards(self, query: str, configured: Sequence[str] = ()) -> list[str]:
        """Boards and parts that have a chip-specific pin the question names, as datasheet tags; a pin one of
        the `configured` boards (or the shared files they answer to) has is theirs and points nowhere else."""
        if not _boards.names_chip_pin(query):  # the pin index of a large library is big: build it only
            return []  # for a question it can answer
        if configured and self._native_pins(configured).issuperset(_boards.chip_pins(query)):
            return []  # the configured board's own pins (GPIO17 on a Pi): no other board is meant
        if configured and self._writes_pins(configured, _boards.chip_pins(query)):
            return []  # its notes write the pin it lacks ("PB11 does not exist on the STM32F446RE"): still theirs
        if self._pin_owner_cache is None:
            self._pin_owner_cache = _boards.pin_owners(self._pin_index())
        present = self._postings.boards()
        tags = self._own_boosts(configured) if configured else {}  # a board and the shared files it answers to
        return [t for t in _boards.pin_boards(query, self._pin_owner_cache, tags)
                if t in present or t in _board_file_tags()]

    def _writes_pins(self, configured: Sequence[str], pins: list[str]) -> bool:
        """Whether the configured boards' own files (and the shared files they answer to) write every one of `pins`."""
        own_ids = self._own_ids(configured)
        return bool(own_ids) and all(self._postings.holding(pin.lower(), own_ids) for pin in pins)

    def _own_ids(self, configured: Sequence[str]) -> list[int]:
        """The chunk ids of the configured boards' own files and of the shared files they answer to, ascending."""
        postings = self._postings
        return sorted(cid for tag in self._own_boosts(configured) for cid in postings.board_chunk_ids(tag))

    def _native_pins(self, configured: Sequence[str]) -> frozenset[str]:
        """:func:`_native_pins` of the configured boards, kept like their boosts (reading a board file costs a path
        resolution each, on every question naming a chip pin)."""
        key = tuple(configured)
        got = self._native_pin_cache.get(key)
        if got is None:
            got = keep(self._native_pin_cache, key, _native_pins(configured))
        return got

    def _asked_elsewhere(self, terms: list[str], configured: Sequence[str]) -> list[str]:
        """Other boards (with a board file) meant by a question naming a chip pin the configured boards have
        together with a word their files never use, where another board writes it on that pin's line ("GPIO4
        touch pad" with a Pi configured is the ESP32's touch channel TOUCH0), or with a word their files never
        write beside a pin that another board writes as a numbered signal on the pin's line ("GPIO25 dac channel":
        the Pi's notes name DAC HATs but no DAC pin, the ESP32's row reads DAC_1). A word the configured boards
        write beside a pin, or one no other board writes on a line with this pin, keeps the question theirs."""
        pins = [t for t in terms if _boards.is_chip_pin(t)]
        if not pins:
            return []
        tag_terms = self._tag_terms()
        words = [t for t in terms if len(t) > 2 and not any(ch.isdigit() for ch in t) and t not in tag_terms
                 and t not in _query.PIN_WORDS]
        postings = self._postings
        own = self._own_boosts(configured)
        own_ids = self._own_ids(configured)
        if not words or not own_ids:
            return []
        unheld = [w for w in words if not postings.holding(w, own_ids)]
        # a word their files do use, but never beside a pin (the Pi's notes name DAC HATs, not a DAC pin), counts
        # only as a numbered signal on the other board's pin line (DAC_1, TOUCH0): a pin function
        said = self._pin_words(tuple(own), own_ids)
        unpinned = [w for w in words if w not in said and w not in unheld]
        if not unheld and not unpinned:
            return []
        present = postings.boards()
        others = sorted(cid for b in _board_file_tags() if b in present and b not in own
                        for cid in postings.board_chunk_ids(b))
        other = sorted({cid for pin in pins for cid in postings.holding(pin, others)})
        if not other:
            return []
        rows = self._conn.execute(f"SELECT id, text FROM chunks WHERE id IN ({', '.join('?' * len(other))})", other)
        # the pin's own row or sentence names the function ("| GPIO25 | DAC_1 |", "GPIO4, ADC2_CH0, TOUCH0"), not
        # just the same chunk
        return sorted({b for cid, text in rows if _boards.pin_line_names(text, pins, unheld, unpinned)
                       and (b := postings.meta.board_of(cid)) is not None})

    def _pin_words(self, tags: tuple[str, ...], ids: list[int]) -> frozenset[str]:
        """The words the chunks `ids` (the files of boards `tags`) write on a line holding a chip pin, with the
        family of each numbered one (``touch`` for ``TOUCH0``); kept until the index changes."""
        got = self._pin_word_cache.get(tags)
        if got is None:
            words: set[str] = set()
            for at in range(0, len(ids), 500):
                part = ids[at:at + 500]
                for (text,) in self._conn.execute(
                        f"SELECT text FROM chunks WHERE id IN ({', '.join('?' * len(part))})", part):
                    words.update(_boards.pin_line_words(text))
            got = keep(self._pin_word_cache, tags, frozenset(words))
        return got

    def _is_code_table(self, cid: int, body: str) -> bool:
        """Whether a chunk is a register or command table (remembered per chunk until the index changes)."""
        got = self._code_table_cache.get(cid)
        if got is None:
            if len(self._code_table_cache) >= 8192:  # a bounded memo: a large library's chunks come and go
                self._code_table_cache.clear()
            got = self._code_table_cache[cid] = _query.is_code_table(body)
        return got

    def _range_pins(self, cid: int, body: str) -> frozenset[str]:
        """The pins a chunk names through ranges (remembered per chunk until the index changes)."""
        got = self._range_cache.get(cid)
        if got is None:
            if len(self._range_cache) >= 8192:  # a bounded memo, as for the register-table test
                self._range_cache.clear()
            got = self._range_cache[cid] = _query.range_pins(body)
        return got

    def _tag_terms(self) -> frozenset[str]:
        """Tokens of every datasheet tag: a board or part name in a question, not a pin or register."""
        if self._tag_term_cache is None:
            self._tag_term_cache = _boards.tag_words(self._postings.boards())
        return self._tag_term_cache

    def _line_reader(self, terms: list[str], exact: list[str], postings: Postings,
                     typed: re.Pattern[str] | None = None) -> Callable[[_query.Candidate], float]:
        """A candidate's best line (:func:`lines.line_share`), read when the reranking asks (for the sections that
        could come first in their file). The question's words are weighted by idf, less those naming the
        candidate's own file or board: they tell the file, not the section. A file's overview describes the part,
        and is not read."""
        idf: dict[str, float] = {}

        def read(c: _query.Candidate) -> float:
            if c.overview:
                return 0.0
            if not idf:
                idf.update(_lines.asked_weights({t: postings.idf_k(t) for t in terms}))
            named = self._name_terms(c.source, c.board)
            return _lines.line_share(c.text, c.heading, {t: w for t, w in idf.items() if t not in named}, exact,
                                     typed)

        return read

    def _name_terms(self, rel: str, board: str | None) -> frozenset[str]:
        """Tokens of a file's name and its board tag."""
        got = self._name_term_cache.get(rel)
        if got is None:
            got = keep(self._name_term_cache, rel, self._file_terms(rel) | frozenset(_text.tokens(board or "")))
        return got

    def _file_terms(self, rel: str) -> frozenset[str]:
        got = self._file_term_cache.get(rel)
        if got is None:
            got = keep(self._file_term_cache, rel, frozenset(_text.tokens(rel.rsplit(".", 1)[0].replace("/", " "))))
        return got


def _room(tags: list[str | None], scope: Container[str], boards: Container[str]) -> int:
    """How many chunks of the boards a question names (`scope`) join the candidates whose board tags are `tags`:
    :data:`BOARD_SLOTS` less those of the scope among them, and none unless a chunk of a board outside the scope is
    among them (one of `boards`: the reranking ranks it after the scope's chunks)."""
    have = sum(1 for t in tags if t in scope)
    if have >= BOARD_SLOTS or not any(t is not None and t not in scope and t in boards for t in set(tags)):
        return 0
    return BOARD_SLOTS - have


def _shorten(body: str) -> str:
    """A compact result: the first :data:`COMPACT_CHARS` characters of `body`, cut at a line or word end."""
    if len(body) <= COMPACT_CHARS:
        return body
    cut = body.rfind("\n", 0, COMPACT_CHARS)
    if cut < COMPACT_CHARS // 3:
        cut = body.rfind(" ", 0, COMPACT_CHARS)
    return body[: max(cut, 1)].rstrip() + "\n…"

#: The files that are host boards' datasheets (decided when they were indexed), and the file of a chunk by its id.
_HOST_FILES = "SELECT rel FROM files WHERE host = 1"
_CHUNK_FILE = "SELECT rel FROM chunks WHERE id = ?"


def _holder(postings: Postings, ids: list[int]) -> Callable[[str, int], bool]:
    """Whether a candidate holds a term, each term's candidates found in one search of its chunk ids."""
    held: dict[str, set[int]] = {}
    among = set(ids)

    def has_term(term: str, cid: int) -> bool:
        if cid not in among:
            return postings.has(term, cid)
        got = held.get(term)
        if got is None:
            got = held[term] = postings.holding(term, ids)
        return cid in got

    return has_term


_BOARD_FILE_TAGS: frozenset[str] | None = None


def _board_file_tags() -> frozenset[str]:
    """Tags of the boards with a board file (their ids and the datasheet tags they answer to)."""
    global _BOARD_FILE_TAGS
    if _BOARD_FILE_TAGS is None:
        _BOARD_FILE_TAGS = frozenset(t for b in list_boards() for t in (b, *get_board(b).datasheet_tags))
    return _BOARD_FILE_TAGS


def _native_pins(boards: Sequence[str]) -> frozenset[str]:
    """Name keys of the pins the board files among `boards` define (a datasheet-only tag has none here)."""
    keys: set[str] = set()
    for b in boards:
        try:
            keys.update(name_key(p.name) for p in get_board(b.strip().lower()).pins)
        except UnknownBoardError:
            continue
    return frozenset(keys)


#: A question asking where a signal sits on a header: a physical pin or position, "which pin", or one ending in
#: "pin" or a pin number ("spi1 miso pin", "pi 5 pin 40").
_POSITION = re.compile(r"\b(physical|position|(which|what) (header )?pins?)\b|\bpins?\s*\??\s*$|\bpin \d+\s*\??$",
                       re.IGNORECASE)


def asks_position(query: str) -> bool:
    """Whether `query` asks where a signal sits on a header (:data:`_POSITION`), the shared header file's answer."""
    if query.isascii():  # (the pattern ignores case, which beyond ASCII matches more than these lowercase words)
        low = query.lower()
        if "pin" not in low and "physical" not in low and "position" not in low:  # each branch's own word
            return False
    return _POSITION.search(query) is not None


def _answers_shared_tag(board: str) -> bool:
    """Whether `board` is a board file answering to a datasheet tag other boards share (each 40-pin Pi)."""
    return board in _shared()[1]


def _shared_tags() -> frozenset[str]:
    """Datasheet tags several board files answer to (rpi-gpio: the header of every 40-pin Pi)."""
    return _shared()[0]


_SHARED: tuple[frozenset[str], frozenset[str]] | None = None


def _shared() -> tuple[frozenset[str], frozenset[str]]:
    """The datasheet tags several board files answer to, and those board files (read once, like the board
    files' tags: looking the board files up costs a path resolution each, on every question naming a board)."""
    global _SHARED
    if _SHARED is None:
        tags = [t for b in list_boards() for t in get_board(b).datasheet_tags]
        shared = frozenset(t for t in tags if tags.count(t) > 1)
        _SHARED = shared, frozenset(b for b in list_boards() if not shared.isdisjoint(get_board(b).datasheet_tags))
    return _SHARED
