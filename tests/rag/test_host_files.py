"""A host board's datasheet (its alias entries number digital pins the Arduino way) is told when the file is
indexed: a search reads which files are host boards once, not each candidate file's alias entries."""

from __future__ import annotations

from pathlib import Path

from edge_agent.rag import HardwareRag


def _corpus(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "kit-m100.md").write_text("# Kit M100 - board notes\n\n## Upload\n\nsketch size limit 253952 bytes\n\n"
                                      "## Pin Aliases\n\nLED_BUILTIN: PB7\nD13: PB7\nD12: PB6\n")
    for i in range(6):
        (root / f"sensor-s{i}.md").write_text(f"# Sensor S{i}\n\n## Driver\n\nsketch size of the driver: {i} kB\n\n"
                                              f"## Pin Aliases\n\nint_{i}: PA{i}\n")
    return root


def test_the_host_flag_is_stored_with_the_file_and_read_once_for_every_search(tmp_path: Path) -> None:
    rag = HardwareRag.load(_corpus(tmp_path / "ds"), index_dir=tmp_path / "state")
    flags = dict(rag._conn.execute("SELECT rel, host FROM files").fetchall())
    assert flags == {"kit-m100.md": 1, **{f"sensor-s{i}.md": 0 for i in range(6)}}
    read: list[str] = []
    rag._conn.set_trace_callback(lambda sql: read.append(sql) if "FROM files" in sql else None)
    for question in ("m100 sketch size limit", "s3 sketch size driver", "s5 driver kB"):
        assert rag.search(question)
    assert read == ["SELECT rel FROM files WHERE host = 1"]  # one read of the flagged files, no alias entries
    assert rag.search("m100 sketch size limit")[0].source == "kit-m100.md"
    (tmp_path / "ds" / "sensor-s2.md").write_text("# Sensor S2\n\n## Pin Aliases\n\nD5: PA5\nD6: PA6\n")
    rag.refresh()  # a file that now numbers its pins the Arduino way is a host board's
    assert rag._conn.execute("SELECT host FROM files WHERE rel = 'sensor-s2.md'").fetchone() == (1,)
    assert "sensor-s2.md" in rag._search._host_files()
