"""The reranking's multipliers are data: one TOML record, every rule's factor present and nothing else."""

from __future__ import annotations

import re
from dataclasses import fields, replace
from pathlib import Path

import pytest

from edge_agent.errors import ConfigError
from edge_agent.rag import HardwareRag
from edge_agent.rag.query import WEIGHTS, Weights

_SHIPPED = (Path(__file__).parents[2] / "edge_agent" / "rag" / "weights.toml").read_text(encoding="utf-8")


def test_the_shipped_file_gives_every_multiplier() -> None:
    assert Weights.parse(_SHIPPED) == WEIGHTS
    assert all(getattr(WEIGHTS, f.name) >= 0 for f in fields(Weights))


@pytest.mark.parametrize(("text", "says"), [
    (_SHIPPED + "\nsame_flie = 0.5\n", "unknown same_flie"),
    (_SHIPPED.replace("\noverview = ", "\n# overview = "), "missing overview"),
    (_SHIPPED.replace("\ncode_table = ", "\ncode_table = -"), "not a number >= 0: code_table"),
    (re.sub(r"\nunasked = [^\n]*", "\nunasked = \"low\"", _SHIPPED), "not a number >= 0: unasked"),
    (_SHIPPED.replace("\none_line = ", "\none_line == "), "not TOML"),
])
def test_a_wrong_record_is_refused_naming_the_key(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says) as err:
        Weights.parse(text, "mine.toml")
    assert "mine.toml" in str(err.value) and "expected each of exact_bonus" in str(err.value)


def test_a_search_ranks_with_the_index_weights(tmp_path: Path) -> None:
    (tmp_path / "kit.md").write_text("# Kit notes\n\nA small kit with a sensor.\n\n## Pin Aliases\n\n"
                                     "sensor_int: GPIO5\nsensor_en: GPIO6\n\n## Sensor wiring\n\n"
                                     "The sensor interrupt output is open drain; fit a pull-up.\n")
    rag = HardwareRag.load(tmp_path)
    question = "kit sensor interrupt"
    rag.weights = replace(WEIGHTS, alias_list=1.0, one_line=0.0, overview=1.0)
    plain = [c.heading for c in rag.search(question)]
    rag.weights = replace(WEIGHTS, alias_list=0.01, one_line=0.0, overview=1.0)
    scaled = [c.heading for c in rag.search(question)]
    assert sorted(plain) == sorted(scaled)
    assert scaled.index("Kit notes > Pin Aliases") == len(scaled) - 1  # the alias list's factor moved it last
