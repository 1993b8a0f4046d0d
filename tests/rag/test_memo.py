"""The search's memos per board, file and set of boards are bounded: past their size they start again, and the
search answers the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag, memo


def test_a_memo_starts_again_once_full_and_gives_back_what_it_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "MEMO_ENTRIES", 3)
    kept: dict[str, int] = {}
    assert [memo.keep(kept, k, n) for n, k in enumerate("abc")] == [0, 1, 2] and kept == {"a": 0, "b": 1, "c": 2}
    assert memo.keep(kept, "d", 3) == 3 and kept == {"d": 3}


def _library(root: Path) -> Path:
    root.mkdir()
    for i in range(12):
        text = (f"# Sensor {i}\n## Address\nThe I2C address of sensor {i} is 0x{40 + i:X}.\n"
                f"## Reset\nWrite 0xB6 to register 0xE0 to reset sensor {i}.\n")
        (root / f"sensor{i}.md").write_text(text)
    (root / "generic-i2c.md").write_text("# I2C\n## Pull-ups\nUse 4.7 kOhm pull-ups on SDA and SCL.\n")
    return root


def test_searches_past_the_memos_bound_answer_as_with_room_to_spare(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = _library(tmp_path / "ds")
    asks = [(f"i2c address reset sensor{i} sensor{(i * 5) % 12}", (f"sensor{(i * 7) % 12}",)) for i in range(30)]
    roomy = HardwareRag.load(root)
    want = [[(c.source, c.heading, c.score) for c in roomy.search(q, b)] for q, b in asks]
    monkeypatch.setattr(memo, "MEMO_ENTRIES", 2)
    tight = HardwareRag.load(root)
    got = [[(c.source, c.heading, c.score) for c in tight.search(q, b)] for q, b in asks]
    assert got == want and any(want)
    search = tight._search
    for kept in (search._boost_cache, search._own_boost_cache, search._file_term_cache, search._name_term_cache):
        assert len(kept) <= 2
    assert len(roomy._search._boost_cache) > 2  # (the questions did fill the memos past the bound)
