"""Credential patterns and device identity / clock provenance."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent import identity
from edge_agent.config import Settings, parse_settings
from edge_agent.credentials import redact, scan, summarize
from edge_agent.errors import ConfigError


@pytest.mark.parametrize(("text", "kind"), [
    ("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "aws_access_key"),
    ("token ghp_" + "a1B2" * 9, "github_token"),
    ("glpat-abcdefghij0123456789", "gitlab_token"),
    ("xoxb-123456789012-abcdefghij", "slack_token"),
    ("sk-ant-api03-" + "Zx9" * 10, "anthropic_key"),
    ("OPENAI_API_KEY: sk-proj-" + "q" * 30, "openai_key"),
    ("key=AIza" + "B" * 35, "google_api_key"),
    ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe_key"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
    ("Authorization: Bearer abcdef0123456789abcdef", "bearer_token"),
    ("mqtt://sensor:s3cretPass@broker.local:1883", "url_credentials"),
    ("wifi_password = 'correct horse battery'", "assigned_secret"),
    ("-----BEGIN PRIVATE KEY-----\nMIIBVAIBADANBg\n-----END PRIVATE KEY-----", "private_key"),
])
def test_known_credential_formats_are_found_and_redacted(text, kind):
    found = scan(text)
    assert kind in summarize(found)
    cleaned = redact(text, found)
    assert f"[REDACTED:{kind}]" in cleaned
    assert scan(cleaned) == []  # redaction is stable: nothing left to find


@pytest.mark.parametrize("text", [
    "LD2 is on PA5; the BME280 answers at 0x76 on I2C1 (PB8/PB9).",
    "password=<your password>",
    "token: ${KUMIHO_AUTH_TOKEN}",
    "api_key = ****",
    "The tokenizer splits on whitespace; passwords are never logged.",
    "kref://CognitiveMemory/Devices/pi-1/cap-1b4e28ba-2fa1-11d2-883f-0016d3cca427.conversation?r=1",
])
def test_ordinary_hardware_text_and_placeholders_are_left_alone(text):
    assert scan(text) == []


def test_a_configured_device_id_is_used_verbatim(tmp_path: Path):
    s = Settings.model_validate({"device": {"id": "lab-pi-03"}})
    assert identity.device_id(s, tmp_path) == "lab-pi-03"


def test_an_unusable_configured_device_id_is_a_config_error(tmp_path: Path):
    # Refused when the configuration is loaded (it names the device upstream), before any sync starts.
    with pytest.raises(ConfigError, match="device.id"):
        parse_settings({"device": {"id": "lab pi/3"}})


def test_the_derived_device_id_is_stable_and_does_not_expose_machine_id(tmp_path: Path, monkeypatch):
    mid = tmp_path / "machine-id"
    mid.write_text("0123456789abcdef0123456789abcdef\n")
    monkeypatch.setattr(identity, "MACHINE_ID_PATHS", (mid,))
    a = identity.device_id(Settings(), tmp_path / "s1")
    b = identity.device_id(Settings(), tmp_path / "s2")
    assert a == b and a.startswith("dev-") and "0123456789abcdef" not in a


def test_without_machine_id_a_random_id_is_persisted_in_the_state_dir(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(identity, "MACHINE_ID_PATHS", (tmp_path / "absent",))
    first = identity.device_id(Settings(), tmp_path)
    assert (tmp_path / identity.DEVICE_ID_FILE).read_text().strip() == first
    assert identity.device_id(Settings(), tmp_path) == first
    assert identity.device_id(Settings(), tmp_path / "other") != first


def test_a_clock_reading_pairs_boot_monotonic_and_wall_time():
    r = identity.read_clock()
    assert r.boot_id == identity.boot_id()
    assert r.monotonic_ns > 0 and r.wall_time.endswith("Z")
    assert isinstance(r.clock_synced, bool)


def test_an_unsynced_wall_time_is_corrected_from_a_later_synced_reading_of_the_same_boot():
    captured = identity.ClockReading("boot-1", 10_000_000_000, "1970-01-01T00:00:10.000000Z", False)
    now = identity.ClockReading("boot-1", 70_000_000_000, "2026-11-21T08:00:00.000000Z", True)
    assert identity.corrected_wall_time(captured, now) == "2026-11-21T07:59:00.000000Z"
    other_boot = identity.ClockReading("boot-2", 70_000_000_000, "2026-11-21T08:00:00.000000Z", True)
    assert identity.corrected_wall_time(captured, other_boot) is None
    assert identity.corrected_wall_time(captured, captured) is None


def test_the_sync_package_imports_without_grpc_or_the_sdk():
    import subprocess
    import sys

    code = ("import sys; sys.modules['grpc'] = None; sys.modules['kumiho'] = None\n"
            "import edge_agent.sync, edge_agent.cli.sync\n"
            "from edge_agent.sync import OutboxSink, SyncWorker\n"
            "from edge_agent.sync.uploader import build_client\n"
            "from edge_agent.errors import BackendUnavailable\n"
            "try:\n    build_client('127.0.0.1:1', None, 1.0)\nexcept BackendUnavailable:\n    print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize(("kumiho", "key"), [
    ({"space_path": "Lab/Bench 3"}, "kumiho.space_path"),
    ({"space_path": "Lab/v1.2"}, "kumiho.space_path"),
    ({"project": ""}, "kumiho.project"),
    ({"backoff_initial_s": 10, "backoff_max_s": 1}, "kumiho"),
    ({"batch_size": 201}, "kumiho.batch_size"),
    ({"secret_policy": "ignore"}, "kumiho.secret_policy"),
    ({"outbox_full_policy": "drop_oldest"}, "kumiho.outbox_full_policy"),
])
def test_bad_kumiho_settings_are_config_errors_naming_the_key(kumiho, key):
    from edge_agent.config import parse_settings

    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_settings({"kumiho": kumiho})


def test_space_path_slashes_are_normalised():
    from edge_agent.config import parse_settings

    assert parse_settings({"kumiho": {"space_path": "/Lab/Bench-3/"}}).kumiho.space_path == "Lab/Bench-3"
