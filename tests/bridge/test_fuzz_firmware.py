"""Fuzzing the firmware's line parser (host build, with ASan/UBSan when the compiler has them).

Documented behaviour (PROTOCOL.md section 5): every non-empty line gets exactly one reply line,
each reply is a JSON object with an id and a boolean ok, error replies carry a known code, and a
good request after any amount of junk is still answered.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from edge_agent.bus.bridge.protocol import ErrorCode

from .conftest import load_vectors

SEEDS = range(1, 9)
KNOWN_CODES = {int(c) for c in ErrorCode}


def _random_line(rng: random.Random) -> bytes:
    n = rng.choice([1, 2, 5, 20, 100, 400, 511, 512, 513, 900])
    alphabet = rng.choice([bytes(range(256)), b'{}[]":,0123456789abcdef-"idcmdargs pin\\u', b"x"])
    return bytes(rng.choice(alphabet) for _ in range(n))


def _mutate(rng: random.Random, line: bytes) -> bytes:
    data = bytearray(line)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data:  # flip a byte
            data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif op == 1:  # insert structural junk
            data[pos:pos] = rng.choice([b"{", b"}", b'"', b"\\", b"[", b",", b":", b"\\u00", b"9" * 30, b"null"])
        elif op == 2:  # truncate
            del data[pos:]
        elif op == 3:  # duplicate a slice
            data[pos:pos] = data[: rng.randrange(len(data) + 1)]
        else:  # delete a slice
            del data[pos : pos + rng.randrange(1, 8)]
    return bytes(data)


def _clean(line: bytes) -> bytes:
    # CR and LF end lines in the firmware; keep one fuzz case = one line so replies can be counted.
    return line.replace(b"\n", b" ").replace(b"\r", b" ")


def test_random_and_mutated_lines_each_get_one_well_formed_reply(asan_fw_binary: Path) -> None:
    seeds = [v["request"].encode().rstrip(b"\r\n") for v in load_vectors() if v["request"]]
    seeds = [s for s in seeds if s.strip()]
    for seed in SEEDS:
        rng = random.Random(seed)
        lines = [_clean(_random_line(rng)) for _ in range(400)]
        lines += [_clean(_mutate(rng, rng.choice(seeds))) for _ in range(1200)]
        lines = [ln for ln in lines if ln]  # empty lines draw no reply by design
        stream = b"".join(ln + b"\n" + b'{"id":"good","cmd":"ping"}\n' for ln in lines)
        proc = subprocess.run([str(asan_fw_binary)], input=stream, capture_output=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
        replies = proc.stdout.split(b"\n")[1:-1]  # drop the boot banner and the final empty split
        assert len(replies) == 2 * len(lines)
        for i, raw in enumerate(replies):
            assert raw.isascii() and len(raw) < 1024
            obj = json.loads(raw)
            assert isinstance(obj, dict) and isinstance(obj["ok"], bool) and "id" in obj
            if i % 2 == 1:  # the good ping after each fuzz line
                assert obj == {"id": "good", "ok": True, "result": "pong"}
            elif not obj["ok"]:
                assert obj["code"] in KNOWN_CODES and obj["result"] == ""
