"""The response cache in the field: the identical question is a hit across processes (one-shot and chat,
with the daemon and without) and loads neither the model client nor the tool schemas; a relevant change in
memory, datasheets or pin aliases is a miss; a question that asks for a write never comes from the cache.
The real openai SDK against the scripted server, the real stores and index."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent import toolset
from edge_agent.agent.assemble import open_agent
from edge_agent.cli import main
from edge_agent.config import load_settings
from edge_agent.paths import bundled_datasheets_dir

from .conftest import type_lines
from .test_daemon_path import _edge_agent

REPO = Path(__file__).resolve().parents[2]
QUESTION = "which pin drives the user_led"
# What a hit must not load: the model client, and the tool schemas with the services and hardware layers
# behind them.
NOT_ON_A_HIT = ("openai", "httpx", "edge_agent.agent.tools", "edge_agent.agent.runner", "edge_agent.agent.lenient",
                "edge_agent.mcp.tools", "edge_agent.hub.tools", "edge_agent.services.hardware",
                "edge_agent.services.lookups", "edge_agent.runtime", "edge_agent.bus")
# With a daemon serving the state directory the agent does not even open the stores or the index.
DAEMON_OWNS = ("edge_agent.memory", "edge_agent.rag")
WATCHED = NOT_ON_A_HIT + DAEMON_OWNS + ("edge_agent.agent.toolset",)


def _config(tmp_path: Path, model: Any, steps: Any, *, compact: bool = True, extra: str = "") -> Path:
    """Defaults as installed: supervised autonomy, tools chosen per question, the cache on."""
    return steps.write_config(tmp_path / "edge-agent.toml", model, extra, compact=compact, autonomy=None,
                              tool_choice=None)


def _ask(config: Path, state: Path, message: str = QUESTION, *extra: str) -> dict[str, Any]:
    """`edge-agent agent -m ... --json` in a fresh interpreter, with the watched modules it loaded."""
    code = ("import json, sys\nfrom edge_agent.cli import main\n"
            f"rc = main(['--state', {str(state)!r}, '--config', {str(config)!r}, 'agent', '-m', {message!r}, "
            f"'--json', *{list(extra)!r}])\n"
            f"print('\\n' + json.dumps(sorted(m for m in {WATCHED!r} if m in sys.modules)))\nsys.exit(rc)")
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    env["PYTHONPATH"] = str(REPO)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    *body, loaded = out.stdout.strip().splitlines()
    data: dict[str, Any] = json.loads("\n".join(body))
    data["loaded"] = json.loads(loaded)
    return data


@contextlib.contextmanager
def _daemon(config: Path, state: Path) -> Iterator[None]:
    """`edge-agent run` serving the state directory with this configuration."""
    from edge_agent.hub.client import HubClient

    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    proc = subprocess.Popen([*_edge_agent(), "--config", str(config), "--state", str(state), "run", "--port", "0"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while HubClient.find(state) is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the daemon did not start serving its socket")
            time.sleep(0.05)
        yield
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def _answer(text: str) -> Any:
    def step(_body: dict[str, Any]) -> Any:
        from .conftest import say

        return say(text)

    return step


# --- a hit loads neither the model client nor the tool schemas -------------------------------------------------


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "full"])
def test_a_hit_in_the_next_process_loads_neither_the_model_client_nor_the_tool_schemas(
        model: Any, steps: Any, tmp_path: Path, state: Path, compact: bool) -> None:
    # compact mode offers a documented lookup no tool: here every tool is offered, so the key names them
    config = steps.write_config(tmp_path / "edge-agent.toml", model, compact=compact, autonomy=None,
                                tool_choice="all" if compact else None)
    model.script = [steps.say("LD2, the user LED, is on PA5.")]
    first = _ask(config, state)
    second = _ask(config, state)
    assert first["cached"] is False and first["tools_offered"]  # the key names the tools this question gets
    assert {"openai", "edge_agent.mcp.tools", "edge_agent.agent.tools"} <= set(first["loaded"])
    assert second["cached"] is True and second["response"] == "LD2, the user LED, is on PA5."
    assert second["tools_offered"] == first["tools_offered"]
    assert [m for m in second["loaded"] if m in NOT_ON_A_HIT] == []
    assert len(model.requests) == 1


def test_with_the_daemon_a_hit_opens_no_store_and_loads_no_schema(model: Any, steps: Any, tmp_path: Path,
                                                                  state: Path) -> None:
    config = _config(tmp_path, model, steps)
    model.script = [steps.say("PA5.")]
    with _daemon(config, state):
        first = _ask(config, state)
        second = _ask(config, state)
    # the lookup's line (the pin index's answer) starts both
    assert first["cached"] is False and second["cached"] is True and second["response"] == first["response"]
    assert second["response"].startswith("Pin: ") and second["response"].endswith("\nPA5.")
    assert [m for m in second["loaded"] if m in NOT_ON_A_HIT + DAEMON_OWNS] == []
    assert len(model.requests) == 1


# --- relevant changes are misses, others are not -----------------------------------------------------------------


def _datasheets(tmp_path: Path) -> Path:
    """A datasheet directory of this test's own: the bundled files, copied."""
    folder = tmp_path / "datasheets"
    shutil.copytree(bundled_datasheets_dir(), folder)
    return folder


def _one_shot(capsys: Any, config: Path, state: Path, message: str = QUESTION) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["--state", str(state), "--config", str(config), "agent", "-m", message, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def _store(capsys: Any, config: Path, state: Path, key: str, content: str) -> None:
    assert main(["--state", str(state), "--config", str(config), "memory", "store", "--key", key, "--content",
                 content, "--category", "core"]) == 0
    capsys.readouterr()


def _wait_for_context(state: Path, text: str) -> None:
    """Until the daemon's datasheet index (re-indexed when its files change) gives `text` for the question."""
    from edge_agent.hub.client import HubClient

    client = HubClient(state)
    deadline = time.monotonic() + 60
    while text not in client.op("agent_context", {"query": QUESTION, "boards": ["nucleo-f401re"]})["hardware"]:
        if time.monotonic() > deadline:
            pytest.fail(f"the daemon's index never gave {text!r}")
        time.sleep(0.2)


@pytest.mark.parametrize("with_daemon", [False, True], ids=["in-process", "daemon"])
def test_a_relevant_change_is_a_miss_and_an_unrelated_one_is_not(model: Any, steps: Any, tmp_path: Path,
                                                                  state: Path, capsys: Any,
                                                                  with_daemon: bool) -> None:
    folder = _datasheets(tmp_path)
    config = _config(tmp_path, model, steps, extra=f'[peripherals]\ndatasheet_dir = "{folder}"\n')
    with _daemon(config, state) if with_daemon else contextlib.nullcontext():
        _changes_and_hits(model, config, state, folder, capsys, with_daemon)


def _changes_and_hits(model: Any, config: Path, state: Path, folder: Path, capsys: Any, with_daemon: bool) -> None:
    model.script = [_answer(f"answer {i}") for i in range(5)]

    def ask() -> bool:
        """True for a hit."""
        data = _one_shot(capsys, config, state)
        return bool(data["cached"])

    def last_prompt() -> str:
        return str(model.requests[-1]["messages"][-1]["content"])

    assert not ask() and ask()  # the identical question: the second is a hit

    # A memory entry engage does not return for the question changes nothing.
    _store(capsys, config, state, "iron", "The soldering iron tip is worn; order a spare tip.")
    assert ask()
    # One it returns is a miss, and is in the prompt; asked again, a hit.
    _store(capsys, config, state, "led-wiring", "The user_led on this bench was rewired: the user_led pin "
           "now drives a relay board too.")
    assert not ask() and "rewired" in last_prompt()
    assert ask()

    # A new datasheet chunk that enters the context for the question.
    (folder / "bench-wiring.md").write_text("# Bench wiring\n\n## user_led pin on the bench\n\nThe user_led "
                                            "pin of the bench board also drives the green indicator.\n")
    if with_daemon:
        _wait_for_context(state, "green indicator")
    assert not ask() and "green indicator" in last_prompt()
    assert ask()

    # A pin alias edit: user_led moves to another pin.
    board = folder / "nucleo-f401re.md"
    board.write_text(board.read_text().replace("- `user_led`: PA5", "- `user_led`: PA6"))
    if with_daemon:
        _wait_for_context(state, "user_led = pin PA6")
    assert not ask() and "PA6" in last_prompt()
    assert ask()
    assert len(model.requests) == 4


# --- writes are never replayed -----------------------------------------------------------------------------------


def test_a_question_that_asks_for_a_write_never_comes_from_the_cache(model: Any, steps: Any, tmp_path: Path,
                                                                     state: Path, capsys: Any) -> None:
    config = _config(tmp_path, model, steps)
    # A model that claims the write without making it: the claim must not be replayed either.
    # (each claim is answered once with a request to call the tool, and claimed again)
    model.script = [steps.say("Done, the red LED is on.")] * 4
    first = _one_shot(capsys, config, state, "turn on the red led")
    second = _one_shot(capsys, config, state, "turn on the red led")
    assert not first["cached"] and not second["cached"] and len(model.requests) == 4
    assert main(["--state", str(state), "--config", str(config), "cache", "stats"]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == 0


def _led(capsys: Any, config: Path, state: Path) -> int:
    capsys.readouterr()
    assert main(["--state", str(state), "--config", str(config), "gpio", "read", "PA5", "--json"]) == 0
    return int(json.loads(capsys.readouterr().out)["value"])


def test_the_same_write_asked_twice_runs_twice(model: Any, steps: Any, tmp_path: Path, state: Path,
                                               capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, autonomy="full", tool_choice=None)
    for _ in range(2):
        model.script += [steps.call(("gpio_write", {"pin": "red_led", "value": 1})), steps.say("The red LED is on.")]
    assert not _one_shot(capsys, config, state, "set the red led high")["cached"]
    assert _led(capsys, config, state) == 1
    assert main(["--state", str(state), "--config", str(config), "gpio", "write", "PA5", "0"]) == 0
    assert _led(capsys, config, state) == 0
    again = _one_shot(capsys, config, state, "set the red led high")
    assert not again["cached"] and again["tool_calls"][0]["name"] == "gpio_write"
    assert _led(capsys, config, state) == 1  # written again, not replayed


def test_an_answer_from_a_fallback_provider_is_not_cached(model: Any, steps: Any, tmp_path: Path, state: Path,
                                                          capsys: Any) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    config = steps.write_config(tmp_path / "c.toml", model, fallbacks=[f"custom:{model.url}"])
    config.write_text(config.read_text().replace(f'default_provider = "custom:{model.url}"',
                                                 f'default_provider = "custom:{dead}"'))
    model.script = [steps.say("From the fallback."), steps.say("From the fallback.")]
    assert not _one_shot(capsys, config, state, "say hello")["cached"]
    assert not _one_shot(capsys, config, state, "say hello")["cached"]
    assert len(model.requests) == 2


# --- the key ------------------------------------------------------------------------------------------------------


def test_model_server_and_temperature_are_part_of_the_key(model: Any, steps: Any, tmp_path: Path, state: Path,
                                                          capsys: Any) -> None:
    config = _config(tmp_path, model, steps)
    model.script = [_answer("Hi.")] * 3
    assert not _one_shot(capsys, config, state, "hello there")["cached"]
    assert _one_shot(capsys, config, state, "hello there")["cached"]
    text = config.read_text()
    config.write_text(text.replace('default_model = "test-model"', 'default_model = "other-model"'))
    assert not _one_shot(capsys, config, state, "hello there")["cached"]
    config.write_text(text.replace("default_model", "default_temperature = 0.1\ndefault_model"))
    assert not _one_shot(capsys, config, state, "hello there")["cached"]
    assert len(model.requests) == 3


def _tool_sets(state: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(state / "agent" / "agent.db") as conn:
        return [tuple(r) for r in conn.execute("SELECT fingerprint, variant, record FROM tool_sets")]


def test_the_tool_set_record_is_kept_checked_on_a_miss_and_corrected(model: Any, steps: Any, tmp_path: Path,
                                                                      state: Path) -> None:
    # every tool offered (compact mode offers a documented lookup none), so the key names the tool set
    config = steps.write_config(tmp_path / "edge-agent.toml", model, compact=True, autonomy=None, tool_choice="all")
    settings = load_settings(config)
    model.script = [_answer("PA5.")] * 3
    with open_agent(settings, state) as agent:
        assert not agent.turn(QUESTION).cached
        built = toolset.ToolSet.of(toolset.build_specs(True, 1))
    [(fingerprint, variant, record)] = _tool_sets(state)
    assert fingerprint == toolset.package_fingerprint() and variant == "compact/1"
    assert toolset.ToolSet.loads(record) == built

    # A record that no longer matches the schemas (as after a change the fingerprint does not see) makes a
    # different key: a miss, which builds the schemas, notices and corrects the record.
    wrong = toolset.ToolSet(built.available, {n: "0" * 32 for n in built.available})
    with sqlite3.connect(state / "agent" / "agent.db") as conn:
        conn.execute("UPDATE tool_sets SET record = ?", (wrong.dumps(),))
    with open_agent(settings, state) as agent:
        assert not agent.turn(QUESTION).cached
    assert toolset.ToolSet.loads(_tool_sets(state)[0][2]) == built
    with open_agent(settings, state) as agent:  # the answer was stored under the corrected key
        assert agent.turn(QUESTION).cached
    assert len(model.requests) == 2


def test_the_package_fingerprint_follows_its_source_files(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "sub" / "__pycache__").mkdir(parents=True)
    (root / "a.py").write_text("x = 1\n")
    (root / "sub" / "b.py").write_text("y = 2\n")
    before = toolset.package_fingerprint.__wrapped__(root)
    (root / "sub" / "__pycache__" / "b.cpython.pyc").write_bytes(b"\0")
    (root / "notes.txt").write_text("not source")
    assert toolset.package_fingerprint.__wrapped__(root) == before
    (root / "sub" / "b.py").write_text("y = 3\n")
    os.utime(root / "sub" / "b.py", ns=(1, 1))
    assert toolset.package_fingerprint.__wrapped__(root) != before


def test_a_damaged_record_is_ignored() -> None:
    assert toolset.ToolSet.loads("not json") is None
    assert toolset.ToolSet.loads('{"available": ["a"], "digests": {}}') is None
    assert toolset.ToolSet.loads('{"available": ["a"], "digests": {"a": "1"}}') == toolset.ToolSet(("a",), {"a": "1"})


# --- the chat -----------------------------------------------------------------------------------------------------


def _chat(capsys: Any, monkeypatch: Any, config: Path, state: Path, *lines: str) -> str:
    type_lines(monkeypatch, *lines)
    capsys.readouterr()
    assert main(["--state", str(state), "--config", str(config), "agent"]) == 0
    return str(capsys.readouterr().out)


def test_a_question_answered_in_one_chat_or_one_shot_is_a_hit_in_the_next_chat(
        model: Any, steps: Any, tmp_path: Path, state: Path, capsys: Any, monkeypatch: Any) -> None:
    config = _config(tmp_path, model, steps)
    model.script = [steps.say("PA5, through LD2."), steps.say("Hello.")]
    assert "(cached)" not in _chat(capsys, monkeypatch, config, state, QUESTION)
    out = _chat(capsys, monkeypatch, config, state, QUESTION)
    assert "PA5, through LD2. (cached)" in out
    assert not _one_shot(capsys, config, state, "say hello")["cached"]
    assert "Hello. (cached)" in _chat(capsys, monkeypatch, config, state, "say hello")
    assert len(model.requests) == 2


def test_another_question_asked_in_between_is_not_a_change_but_a_statement_is(
        model: Any, steps: Any, tmp_path: Path, state: Path, capsys: Any) -> None:
    config = _config(tmp_path, model, steps)
    model.script = [_answer(f"answer {i}") for i in range(8)]  # "read the ..." is asked once to call its tool
    assert not _one_shot(capsys, config, state)["cached"]
    # Other questions and orders sharing its words: they state nothing, and stay out of its memory context.
    _one_shot(capsys, config, state, "which pin drives the user_button")
    _one_shot(capsys, config, state, "read the user_led pin")
    assert _one_shot(capsys, config, state)["cached"]
    # A statement of the operator's is remembered and is context for the question: a miss.
    _one_shot(capsys, config, state, "the user_led pin also drives the bench buzzer")
    assert not _one_shot(capsys, config, state)["cached"]
    assert "also drives the bench buzzer" in model.requests[-1]["messages"][-1]["content"]
    # Asked about memory, the earlier questions are context again.
    _one_shot(capsys, config, state, "which pins did I ask about earlier")
    assert "the operator said earlier (" in model.requests[-1]["messages"][-1]["content"]
    assert "which pin drives the user_led\n" in model.requests[-1]["messages"][-1]["content"]


def test_on_a_terminal_the_chat_shows_thinking_until_the_answer_starts(
        model: Any, steps: Any, tmp_path: Path, state: Path, capsys: Any, monkeypatch: Any) -> None:
    config = _config(tmp_path, model, steps)
    model.script = [steps.say("Bonjour.")]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    out = _chat(capsys, monkeypatch, config, state, "say hello in French")
    mark = "thinking..."
    erase = "\b" * len(mark) + " " * len(mark) + "\b" * len(mark)
    assert f"agent> {mark}{erase}Bonjour." in out
