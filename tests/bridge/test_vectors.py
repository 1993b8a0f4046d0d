"""The golden vectors (firmware_bridge/vectors/protocol-v1.jsonl) hold on both sides of the wire."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from edge_agent import errors
from edge_agent.bus.bridge import protocol
from edge_agent.bus.bridge.protocol import Event, Reply, decode_line, encode_request, error_for

from .conftest import load_vectors

VECTORS = load_vectors()


def test_vectors_are_found_through_the_bundled_vectors_dir() -> None:
    assert len(VECTORS) >= 50
    assert {"name", "request", "reply"} <= set(VECTORS[0])


def test_host_firmware_answers_every_golden_vector_in_order(host_fw_binary: Path) -> None:
    """One firmware session gets every request; each reply must equal the golden one exactly."""
    requests = "".join(v["request"] for v in VECTORS if v["request"] is not None).encode()
    proc = subprocess.run([str(host_fw_binary)], input=requests, capture_output=True, timeout=30, check=True)
    got = [json.loads(line) for line in proc.stdout.decode("ascii").splitlines()]
    expected = [v["reply"] for v in VECTORS if v["reply"] is not None]
    names = [v["name"] for v in VECTORS if v["reply"] is not None]
    assert len(got) == len(expected)
    for name, g, e in zip(names, got, expected, strict=True):
        assert g == e, name


@pytest.mark.parametrize("vector", [v for v in VECTORS if "host" in v], ids=lambda v: v["name"])
def test_host_encodes_the_vector_request_byte_for_byte(vector: dict) -> None:
    host = vector["host"]
    assert encode_request(host["id"], host["cmd"], host["args"]) == vector["request"].encode()


@pytest.mark.parametrize("vector", [v for v in VECTORS if v["reply"] is not None], ids=lambda v: v["name"])
def test_host_decodes_every_golden_reply(vector: dict) -> None:
    line = json.dumps(vector["reply"]).encode()
    frame = decode_line(line)
    if "event" in vector["reply"]:
        assert isinstance(frame, Event) and frame.is_boot
        assert frame.fields["protocol"] == protocol.PROTOCOL_VERSION
        return
    assert isinstance(frame, Reply)
    assert frame.id == vector["reply"]["id"]
    assert frame.ok is vector["reply"]["ok"]
    assert frame.result == vector["reply"]["result"]
    if not frame.ok:
        assert frame.code == vector["reply"]["code"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "raises" in v], ids=lambda v: v["name"])
def test_error_replies_map_to_the_error_type_the_vector_names(vector: dict) -> None:
    frame = decode_line(json.dumps(vector["reply"]).encode())
    assert isinstance(frame, Reply)
    err = error_for(frame, adapter="bridge://test", cmd="x", address=0x42)
    expected = getattr(protocol, vector["raises"], None) or getattr(errors, vector["raises"])
    assert type(err) is expected
    assert isinstance(err, errors.BusError)
    assert err.adapter == "bridge://test"


def test_every_documented_error_code_appears_in_protocol_md() -> None:
    text = (Path(__file__).resolve().parents[2] / "firmware_bridge" / "PROTOCOL.md").read_text()
    for code in protocol.ErrorCode:
        assert f"| {int(code)} | {code.name.lower()} |" in text
