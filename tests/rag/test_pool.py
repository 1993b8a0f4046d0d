"""A search's candidate pool, as an offline study of new ranking evidence reads it: the search's own order."""

from __future__ import annotations

from pathlib import Path

from edge_agent.rag import HardwareRag

NUCLEO = """# Nucleo F401RE notes

Board notes.

## User LED

The green user LED LD2 is driven by PA5 (high = on).

## Clock

The HSE is taken from the ST-LINK's 8 MHz MCO.
"""

PI = """# Pi 4 notes

## LEDs

The green user LED (ACT) is the activity LED on GPIO42; the red LED is the power LED.
The green LED blinks on SD card access, a user LED of sorts, and can be given to a user trigger.
"""

RELAY = """# Relay module

## Indicator

A red LED beside each relay lights while its coil is energised.
"""


def test_the_pool_holds_every_candidate_in_the_order_and_scores_the_search_returns(tmp_path: Path) -> None:
    for name, text in (("nucleo-f401re.md", NUCLEO), ("rpi-4b.md", PI), ("relay.md", RELAY)):
        (tmp_path / name).write_text(text)
    rag = HardwareRag.load(tmp_path)
    question, boards = "green user led pin", ("nucleo-f401re",)
    got = rag.search(question, boards, limit=1)
    pool = rag._search.pool(question, boards, limit=1)
    assert len(pool.ranked) > len(got) == 1  # the pool is every candidate read, not only the results
    assert [(c.source, c.heading, round(s, 9)) for s, c in pool.ranked[:1]] == \
        [(r.source, r.heading, round(r.score, 9)) for r in got]
    assert got[0].source == "nucleo-f401re.md"
    # the Pi's LED section holds the words more often, yet another board's chunk comes after the configured one's
    pi = next(c for _, c in pool.ranked if c.source == "rpi-4b.md")
    assert pi.demoted and not pool.ranked[0][1].demoted
    assert [c.demoted for _, c in pool.ranked] == sorted(c.demoted for _, c in pool.ranked)
    assert {"green", "user", "led"} <= set(pool.terms) and not pool.exact
    # unscoped, nothing is put back
    assert not any(c.demoted for _, c in rag._search.pool(question, ()).ranked)


def test_a_question_without_a_searchable_word_has_an_empty_pool(tmp_path: Path) -> None:
    (tmp_path / "relay.md").write_text(RELAY)
    rag = HardwareRag.load(tmp_path)
    assert rag._search.pool("?? !!", ()).ranked == [] and rag.search("?? !!") == []
    assert rag._search.pool("red led", (), limit=0).ranked == []
