"""Configuration: validation errors name key paths and allowed values; defaults are the embedded ones."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.config import ConfigError, load_settings, parse_settings, to_toml


def test_embedded_defaults_use_a_simulated_nucleo_and_bundled_datasheets() -> None:
    s = load_settings(None)
    assert [b.adapter_url() for b in s.peripherals.boards] == ["sim://nucleo-f401re"]
    assert s.datasheet_dir().is_dir()
    assert s.kumiho.enabled is False


def test_unknown_key_error_names_the_key_path_and_the_allowed_keys() -> None:
    with pytest.raises(ConfigError) as info:
        parse_settings({"memory": {"half_lfe_days": 3}})
    assert "memory.half_lfe_days" in str(info.value)
    assert "half_life_days" in str(info.value)


def test_closed_set_error_lists_the_allowed_values() -> None:
    with pytest.raises(ConfigError) as info:
        parse_settings({"kumiho": {"mode": "edge"}})
    assert "kumiho.mode" in str(info.value) and "'local_ce'" in str(info.value)


def test_memory_backend_other_than_kumiho_or_none_is_rejected_with_a_reason() -> None:
    with pytest.raises(ConfigError) as info:
        parse_settings({"memory": {"backend": "sqlite"}})
    assert "memory.backend" in str(info.value)


def test_serial_board_without_a_path_is_an_error_naming_the_board() -> None:
    s = parse_settings({"peripherals": {"boards": [{"board": "nucleo-f401re"}]}})
    with pytest.raises(ConfigError) as info:
        s.peripherals.boards[0].adapter_url()
    assert "nucleo-f401re" in str(info.value)


def test_revka_board_keys_map_to_a_bridge_url() -> None:
    s = parse_settings({"peripherals": {"boards": [{"board": "Nucleo-F401RE", "path": "/dev/ttyACM0", "baud": 9600}]}})
    assert s.peripherals.boards[0].board == "nucleo-f401re"
    assert s.peripherals.boards[0].adapter_url() == "bridge:///dev/ttyACM0?baud=9600"


def test_effective_config_round_trips_through_toml(tmp_path: Path) -> None:
    s = parse_settings({"agent": {"compact_context": True}, "memory": {"policy": {"read_only_namespaces": ["a"]}}})
    f = tmp_path / "edge-agent.toml"
    f.write_text(to_toml(s))
    again = load_settings(f)
    assert again.model_dump() == s.model_dump()


def test_config_check_exits_nonzero_on_invalid_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("[agent\ncompact_context = true\n")
    assert main(["config", "check", str(f)]) == 1
    assert "not valid TOML" in capsys.readouterr().err


def test_config_check_prints_effective_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check"]) == 0
    assert "[peripherals]" in capsys.readouterr().out


def test_config_check_renders_per_adapter_safety_with_unset_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The [hardware.safety.adapters.pi] example in docs/adapters.md leaves read_only unset (None): TOML has no null,
    # so the effective config must leave the key out rather than crash.
    f = tmp_path / "edge-agent.toml"
    f.write_text('[hardware.safety.adapters.pi]\nwritable_i2c = ["0x3C", "0x76:0xF2"]\nwritable_gpio = ["red_led"]\n')
    assert main(["config", "check", str(f)]) == 0
    out = capsys.readouterr().out
    assert "[hardware.safety.adapters.pi]" in out
    again = parse_settings(tomllib.loads(out))
    assert again.model_dump() == load_settings(f).model_dump()


@pytest.mark.parametrize(("text", "key"), [
    ('[[peripherals.boards]]\nboard = "nucleo-f999"\ntransport = "sim"\n', "peripherals.boards.0"),
    ('[[peripherals.boards]]\nboard = "nucleo-f401re"\nurl = "foo://x"\n', "peripherals.boards.0.url"),
    ('[kumiho]\nenabled = true\nendpoint = "example.com:50051"\n', "kumiho.endpoint"),
    ('[[watch]]\nname = "w"\nsensor = "bme280"\nadapter = "bench"\n', "watch.0.adapter"),
])
def test_config_check_rejects_what_run_would_fail_on_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, key: str
) -> None:
    f = tmp_path / "edge-agent.toml"
    f.write_text(text)
    assert main(["config", "check", str(f)]) == 1
    err = capsys.readouterr().err
    assert key in err and "Traceback" not in err


def test_config_check_accepts_a_watch_on_a_named_board_and_a_loopback_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "edge-agent.toml"
    f.write_text('[[peripherals.boards]]\nboard = "rpi-4b"\nname = "bench"\ntransport = "sim"\n\n'
                 '[kumiho]\nenabled = true\nendpoint = "127.0.0.1:50051"\n\n'
                 '[[watch]]\nname = "w"\nsensor = "bme280"\nadapter = "bench"\n')
    assert main(["config", "check", str(f)]) == 0


@pytest.mark.parametrize(("toml", "key"), [
    ('[workspace]\nname = "../../etc"\n', "workspace.name"),
    ('[workspace]\nname = ".."\n', "workspace.name"),
    ('[workspace]\nname = "a/b"\n', "workspace.name"),
    ('[memory]\ndefault_namespace = "../x"\n', "memory.default_namespace"),
    ('[memory]\ndefault_namespace = "lab/../../x"\n', "memory.default_namespace"),
    ('[memory]\ndefault_namespace = "lab//x"\n', "memory.default_namespace"),
    ('[memory.policy]\nread_only_namespaces = ["ok", "../up"]\n', "memory.policy.read_only_namespaces"),
    ('[device]\nid = "../pi"\n', "device.id"),
])
def test_names_that_become_paths_or_namespaces_are_checked_when_the_config_loads(
        tmp_path: Path, toml: str, key: str) -> None:
    path = tmp_path / "edge-agent.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    assert key in str(info.value)


def test_ordinary_workspace_and_namespace_names_still_load(tmp_path: Path) -> None:
    path = tmp_path / "edge-agent.toml"
    path.write_text('[workspace]\nname = "bench-2.v1"\n[memory]\ndefault_namespace = "lab/bench-2"\n'
                    '[device]\nid = "lab-pi-03"\n')
    s = load_settings(path)
    assert (s.workspace.name, s.memory.default_namespace, s.device.id) == ("bench-2.v1", "lab/bench-2", "lab-pi-03")


def test_written_config_parses_back_equal_with_keys_toml_must_quote(tmp_path: Path) -> None:
    import tomllib

    source = ('[hardware.safety.adapters."café"]\nread_only = false\n'
              '[hardware.safety.adapters."bench pi.2"]\nwritable_gpio = ["PA5"]\nwritable_i2c = ["0x76:0xF4"]\n'
              '[memory.policy.retention_days_by_category]\n"déjà vu" = 3\n'
              '[[peripherals.boards]]\nboard = "nucleo-f401re"\nname = "bänk"\ntransport = "sim"\n')
    f = tmp_path / "edge-agent.toml"
    f.write_text(source, encoding="utf-8")
    settings = load_settings(f)
    text = to_toml(settings)
    assert tomllib.loads(text) == tomllib.loads(to_toml(parse_settings(tomllib.loads(text))))
    f.write_text(text, encoding="utf-8")
    again = load_settings(f)
    assert again.model_dump() == settings.model_dump()
    assert set(again.hardware.safety.adapters) == {"café", "bench pi.2"}
    assert again.memory.policy.retention_days_by_category == {"déjà vu": 3}


def test_bare_numbers_in_allow_lists_are_the_same_entries_as_their_text() -> None:
    """`writable_gpio = [17]` is how a Pi user writes BCM 17; `writable_i2c = [0x3C]` is TOML's hex integer."""
    settings = parse_settings(tomllib.loads('[hardware.safety.adapters.pi]\nwritable_gpio = [17, "GPIO27"]\n'
                                            'writable_i2c = [0x3C, "0x76:0xF4"]\n'))
    policy = settings.hardware.safety.adapters["pi"]
    assert policy.writable_gpio == ["17", "GPIO27"]
    assert policy.writable_i2c == ["0x3C", "0x76:0xF4"]
    with pytest.raises(ConfigError, match="writable_gpio"):
        parse_settings(tomllib.loads('[hardware.safety.adapters.pi]\nwritable_gpio = [true]\n'))
