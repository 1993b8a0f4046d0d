"""Credentials written in sentences, connection strings and key blocks: found, redacted, and never uploaded.

Screening runs with the detect-secrets detectors (the ``secrets`` extra) and, for the base install,
with the built-in table alone; prose is caught by either.
"""

from __future__ import annotations

import io
import json

import pytest

from edge_agent import credentials as screen
from edge_agent.credentials import redact, scan

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

PROSE = [
    (f"the aws secret access key is {AWS_SECRET}, keep it off the wiki", AWS_SECRET),
    ("our access key id AKIAIOSFODNN7EXAMPLE is the lab account's", "AKIAIOSFODNN7EXAMPLE"),
    ("The wifi password for the lab is Xk9mP2vLq7! Ask before sharing.", "Xk9mP2vLq7"),
    ("the api token is 8f14e45fceea167a5a36dedd4bea2543.", "8f14e45fceea167a5a36dedd4bea2543"),
    (f"the session token {JWT} expired at noon", JWT),
    ("call it with Authorization: Bearer 7fG2kQ9zLm4pX8vR1sT6 from the bench", "7fG2kQ9zLm4pX8vR1sT6"),
    ("the logger writes to postgres://admin:Sup3rS3cret@db.local:5432/app every minute", "Sup3rS3cret"),
    ("connect with Server=db.local;User Id=sa;Password=Xq7kLp2vN;Database=app", "Xq7kLp2vN"),
    ("deploy key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
     "-----END OPENSSH PRIVATE KEY-----\nthanks", "b3BlbnNzaC1rZXktdjEAAAAA"),
]

HARDWARE_PROSE = [
    "press key 3 twice, then the token bucket refills at 100 per second",
    "key points: the BME280 calibration registers are at 0x88-0xA1 and 0xE1-0xE7",
    "the secret to stable I2C is 4.7k pull-ups on SDA/SCL",
    "the key is CTRL_MEAS (0xF4); the token is 'nucleo-f401re' and the secret is firmware_v2.3.1 on STM32F401RE",
    "the key entry 01a2137c-4062-7c18-93c2-bd388744a582 derived from mem://01a2137c-4062-7a07-ac8f-0449e3d105c4",
    "Tokens of the index: DS18B20, MCP23017, ADS1115; key scan over GPIO17/GPIO27",
    "password reset instructions are in the README; the key register is at 0x76",
]


@pytest.fixture(params=["detect-secrets", "built-in"])
def detectors(request, monkeypatch):
    """Run a test with the library's detectors, and again as the base install (without them)."""
    if request.param == "detect-secrets":
        if not screen.library_available():
            pytest.skip("detect-secrets (the secrets extra) is not installed")
    else:
        monkeypatch.setattr(screen, "_detectors", [])
    return request.param


@pytest.mark.parametrize(("text", "secret"), PROSE)
def test_credentials_in_prose_are_found_and_redacted(text, secret, detectors):
    found = scan(text)
    cleaned = redact(text, found)
    assert secret not in cleaned, (found, cleaned)
    assert "[REDACTED:" in cleaned
    assert scan(cleaned) == []  # redaction is stable: nothing left to find


@pytest.mark.parametrize("text", HARDWARE_PROSE)
def test_hardware_prose_with_secret_words_is_left_alone(text, detectors):
    assert scan(text) == []


def test_the_library_adds_formats_the_built_in_table_lacks(monkeypatch):
    if not screen.library_available():
        pytest.skip("detect-secrets (the secrets extra) is not installed")
    text = "alerts go out through twilio as SKa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6 from the bench"
    assert {f.kind for f in scan(text)} == {"twilio_api_key"}
    monkeypatch.setattr(screen, "_detectors", [])
    assert scan(text) == []  # nothing in the built-in table (or the prose rule) knows this one


def test_a_keyed_tag_keeps_different_secrets_apart_and_equal_ones_equal():
    a = "the wifi password is Xk9mP2vLq7"
    b = "the wifi password is Qw3rTy8uIo"
    key = b"k" * 32
    ra, rb = redact(a, scan(a), key), redact(b, scan(b), key)
    assert ra != rb and ra.startswith("the wifi password is [REDACTED:prose_secret:")
    assert redact(a, scan(a), key) == ra  # the same secret, the same text
    assert redact(a, scan(a), b"x" * 32) != ra  # the tag depends on the device's key


def test_a_secret_in_prose_never_reaches_the_outbox_the_server_or_memory_export(server, device):
    first = device.capture("lab wifi", f"the aws secret access key is {AWS_SECRET} and the wifi password is "
                           "Xk9mP2vLq7")
    second = device.capture("lab wifi", f"the aws secret access key is {AWS_SECRET} and the wifi password is "
                            "Qw3rTy8uIo")
    # Two captures that differ only in a secret stay two entries after redaction (no dedup merge) ...
    assert first.entry_id != second.entry_id
    assert device.store.get_by_id(first.entry_id).content != device.store.get_by_id(second.entry_id).content
    # ... while the very same capture again is still recognised as the one already stored.
    again = device.capture("lab wifi", f"the aws secret access key is {AWS_SECRET} and the wifi password is "
                           "Xk9mP2vLq7")
    assert again.entry_id == first.entry_id

    with device.worker.outbox.tx() as conn:
        outbox = [r[0] for r in conn.execute("SELECT payload FROM sync_outbox")]
    assert len(outbox) == 2
    for secret in (AWS_SECRET, "Xk9mP2vLq7", "Qw3rTy8uIo"):
        assert all(secret not in payload for payload in outbox)

    assert device.worker.sync_until_empty(20)
    uploaded = json.dumps([dict(r.metadata) for r in server.servicer.revisions.values()])
    buf = io.StringIO()
    device.store.transfer.export_jsonl(buf)
    for secret in (AWS_SECRET, "Xk9mP2vLq7", "Qw3rTy8uIo"):
        assert secret not in uploaded
        assert secret not in buf.getvalue()
    assert len(server.servicer.revisions) == 2


@pytest.mark.parametrize("text", [
    "exported AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE and password = hunter22hunter",
    "the aws secret access key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "curl -H 'Authorization: Bearer abcdefghijklmnop0123456789' https://user:pw1234@host/x",
])
def test_screening_twice_changes_nothing(text, detectors):
    """The memory store screens a capture and the outbox screens it again: the marks are not secrets."""
    once = redact(text, scan(text), b"k" * 32)
    assert once != text and scan(once) == []
