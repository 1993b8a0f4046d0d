"""Field-task run: the agent on the simulated board, through the daemon, against a model server.

For each task set (``tuning`` and ``heldout``, see :mod:`bench.agent_judge`) a fresh state directory
and a daemon on the simulated NUCLEO-F401RE start; each task's setup (pins driven, notes stored) goes
through the daemon as an operator's would, the board's pin levels are read through the daemon before
and after, and the turn is one `edge-agent agent -m ... --json` process, exactly as a user runs it
(``--yes`` where the task approves writes and the CLI has the flag). Tasks run one at a time.

`make agent-eval` builds llama-server and the two Qwen2.5-Coder models from packages (cached under
~/.cache/edge_agent, see tools/agent_eval/setup_server.sh) and runs::

    .venv/bin/python -m bench.agent_eval --models 1.5b,0.5b     # store the agent-eval section
    .venv/bin/python -m bench.agent_eval --url URL --model NAME   # any OpenAI-compatible server

Options: ``--sets tuning,heldout``, ``--only ID,...``, ``--no-write`` (print only), ``--full``
(compact_context = false), ``--temperature T``, ``--passes 2`` (each set run again on the same state
and daemon: the second pass's row counts the response-cache hits of the repeated questions). Per-task results go to
``<cache>/results/<label>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench._eval_rig import CACHE, MODELS, RecordingProxy, daemon, edge_agent_command, llama_server, memory_kib
from bench.agent_judge import SETS, TASK_DIR, WRITABLE_PINS, Task, Verdict, judge, load_tasks

BOARD = "nucleo-f401re"
TURN_TIMEOUT_S = 900


@dataclass
class TaskResult:
    verdict: Verdict
    seconds: float
    turn: dict[str, Any]
    requests: list[dict[str, Any]] = field(default_factory=list)
    exit_status: int = 0
    pass_no: int = 1
    load: float | None = None  # the 1-minute load average when the turn ended (the machine is shared)


def eval_config(path: Path, url: str, model: str, *, compact: bool = True, temperature: float | None = None,
                timeout: float = 300) -> Path:
    """The run's configuration: the simulated board, a write policy naming three pins and the sensor's two
    control registers, no MCP HTTP."""
    from edge_agent.config import Settings

    temp = "" if temperature is None else f"default_temperature = {temperature}\n"
    text = (f'default_provider = "custom:{url}"\ndefault_model = "{model}"\n{temp}'
            f"provider_timeout_secs = {timeout}\n"
            f"[agent]\ncompact_context = {str(compact).lower()}\n"
            "[reliability]\nprovider_retries = 1\nprovider_backoff_ms = 200\n"
            "[server]\nhttp_enabled = false\n"
            f'[[peripherals.boards]]\nboard = "{BOARD}"\ntransport = "sim"\n'
            f'[hardware.safety.adapters."{BOARD}"]\nwritable_gpio = {json.dumps(list(WRITABLE_PINS))}\n'
            # the policy applies to the simulator as on hardware: a BME280 reading from sleep writes ctrl_hum
            # and ctrl_meas (a forced measurement)
            'writable_i2c = ["0x76:0xF2", "0x76:0xF4"]\n')
    if "autonomy" in Settings.model_fields:  # one-shot writes need --yes under supervised autonomy
        text += '[autonomy]\nlevel = "supervised"\n'
    path.write_text(text)
    return path


def _has_yes_flag() -> bool:
    out = subprocess.run([*edge_agent_command(), "agent", "--help"], capture_output=True, text=True, check=False)
    return "--yes" in out.stdout


def board_pins() -> list[str]:
    from edge_agent.pins import get_board

    return [p.name for p in get_board(BOARD).pins]


def read_pins(state: Path, pins: Sequence[str]) -> dict[str, int]:
    """Every pin's level, read through the daemon (a simulated read changes nothing)."""
    from edge_agent.hub.client import HubClient

    client = HubClient(state)
    return {p: int(client.op("gpio_read", {"pin": p, "adapter": BOARD})["value"]) for p in pins}


def _setup(task: Task, config: Path, state: Path) -> None:
    from edge_agent.hub.client import HubClient

    client = HubClient(state)
    for pin, level in task.setup_pins.items():
        client.op("gpio_write", {"pin": pin, "value": level, "adapter": BOARD})
    for i, note in enumerate(task.setup_memory):
        subprocess.run([*edge_agent_command(), "--config", str(config), "--state", str(state), "memory", "store",
                        "--key", f"note-{task.id}-{i}", "--content", note, "--category", "core"],
                       check=True, capture_output=True)


def run_task(task: Task, config: Path, state: Path, proxy: RecordingProxy, pins: Sequence[str],
             yes_flag: bool) -> TaskResult:
    _setup(task, config, state)
    before = read_pins(state, pins)
    mark = len(proxy.records)
    cmd = [*edge_agent_command(), "--config", str(config), "--state", str(state), "agent", "-m", task.message,
           "--json"]
    if task.approve and yes_flag:
        cmd.append("--yes")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TURN_TIMEOUT_S, check=False)
        status, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        status, stdout, stderr = -1, "", f"no answer within {TURN_TIMEOUT_S} s"
    seconds = time.perf_counter() - t0
    try:
        turn = json.loads(stdout)
    except ValueError:
        turn = {"response": "", "error": f"exit {status}: {stderr.strip()[-400:]}"}
    after = read_pins(state, pins)
    verdict = judge(task, turn, before, after)
    return TaskResult(verdict, seconds, turn, proxy.records[mark:], status, load=os.getloadavg()[0])


def run_set(name: str, url: str, model: str, *, work: Path, only: Sequence[str] = (), compact: bool = True,
            temperature: float | None = None, progress: bool = True, task_dir: Path = TASK_DIR,
            after_each: Callable[[list[TaskResult]], None] | None = None, passes: int = 1) -> list[TaskResult]:
    """Run one task set against the model server at ``url`` with a fresh state and daemon
    (``after_each`` gets the results so far after every task, so an interrupted run keeps them);
    with ``passes`` > 1 the set runs again on the same state, each result marked with its pass."""
    tasks = [t for t in load_tasks(name, task_dir) if not only or t.id in only]
    state = work / name
    state.mkdir(parents=True)
    config = eval_config(work / f"{name}.toml", "", model)  # rewritten below with the proxy's URL
    proxy = RecordingProxy(url)
    results: list[TaskResult] = []
    try:
        eval_config(config, proxy.url, model, compact=compact, temperature=temperature)
        pins, yes_flag = board_pins(), _has_yes_flag()
        with daemon(config, state):
            for pass_no, task in ((p, t) for p in range(1, passes + 1) for t in tasks):
                res = run_task(task, config, state, proxy, pins, yes_flag)
                res.pass_no = pass_no
                results.append(res)
                if after_each is not None:
                    after_each(results)
                if progress:
                    v = res.verdict
                    print(f"  {name}/{task.id}: {'ok' if v.ok else 'FAIL'} {res.seconds:.1f}s "
                          f"{'; '.join(v.reasons)}", file=sys.stderr, flush=True)
    finally:
        proxy.close()
    return results


# --- the results table ---------------------------------------------------------------------------


def _pct(values: Sequence[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def summarize(results: Sequence[TaskResult]) -> dict[str, Any]:
    verdicts = [r.verdict for r in results]
    calls = sum(v.calls for v in verdicts)
    requests = [q for r in results for q in r.requests]
    prompt = [sum(q.get("prompt_tokens") or 0 for q in r.requests) for r in results if r.requests]
    new = [sum(q.get("new_prompt_tokens") or 0 for q in r.requests) for r in results if r.requests]
    ttft = [q["ttft_s"] for q in requests if q.get("ttft_s") is not None]
    return {"tasks": len(verdicts), "passed": sum(v.ok for v in verdicts), "calls": calls,
            "valid_calls": calls - sum(v.invalid_calls for v in verdicts),
            "wrong_tools": sum(v.wrong_tools for v in verdicts),
            "spurious_writes": sum(v.spurious_writes for v in verdicts),
            "policy_writes": sum(v.policy_writes for v in verdicts),
            "median_s": statistics.median([r.seconds for r in results]) if results else float("nan"),
            "p90_s": _pct([r.seconds for r in results], 90),
            "prompt_tokens": statistics.median(prompt) if prompt else 0,
            "new_prompt_tokens": statistics.median(new) if new else 0,
            "ttft_s": statistics.median(ttft) if ttft else float("nan"),
            "requests": len(requests), "http_errors": sum(1 for q in requests if q["status"] >= 400),
            "cache_hits": sum(1 for r in results if r.turn.get("cached")),
            "load": statistics.median(loads) if (loads := [r.load for r in results if r.load is not None]) else None}


def by_pass(name: str, results: Sequence[TaskResult]) -> dict[str, list[TaskResult]]:
    """A set's results per pass: ``name`` for the first, ``name (pass N)`` for the others."""
    out: dict[str, list[TaskResult]] = {}
    for r in results:
        out.setdefault(name if r.pass_no == 1 else f"{name} (pass {r.pass_no})", []).append(r)
    return out


HEADER = ("| model | set | tasks passed | tool calls valid | wrong tool | spurious writes | writes outside "
          "policy | turn median / p90 | prompt tokens per turn (new) | time to first token | HTTP errors | "
          "cache hits | load avg |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def row(label: str, name: str, s: dict[str, Any]) -> str:
    share = 100 * s["passed"] / s["tasks"] if s["tasks"] else 0
    valid = f"{s['valid_calls']}/{s['calls']}" if s["calls"] else "-"
    return (f"| {label} | {name} | {s['passed']}/{s['tasks']} ({share:.0f}%) | {valid} | {s['wrong_tools']} | "
            f"{s['spurious_writes']} | {s['policy_writes']} | {s['median_s']:.1f} s / {s['p90_s']:.1f} s | "
            f"{s['prompt_tokens']:.0f} ({s['new_prompt_tokens']:.0f}) | {s['ttft_s']:.1f} s | "
            f"{s['http_errors']}/{s['requests']} | {s['cache_hits']}/{s['tasks']} | "
            f"{'-' if s.get('load') is None else format(s['load'], '.1f')} |")


def failures(label: str, name: str, results: Sequence[TaskResult]) -> list[str]:
    return [f"- {label} {name}/{r.verdict.task}: {'; '.join(r.verdict.reasons)}" for r in results if not r.verdict.ok]


def save(label: str, runs: dict[str, list[TaskResult]], extra: dict[str, Any]) -> Path:
    out = CACHE / "results" / f"{label}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"label": label, **extra, "sets": {
        name: [{**asdict(r.verdict), "seconds": r.seconds, "turn": r.turn, "requests": r.requests,
                "exit_status": r.exit_status, "pass_no": r.pass_no, "load": r.load} for r in results]
        for name, results in runs.items()}},
        indent=1, default=str))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and __name__ != "__main__":  # `make bench` runs every module: this one needs a model
        print("bench.agent_eval: needs a model server; run `make agent-eval`", file=sys.stderr)
        return 0
    ap = argparse.ArgumentParser(prog="python -m bench.agent_eval", description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="", help="comma list of cached models to serve: 1.5b, 0.5b")
    ap.add_argument("--url", help="an OpenAI-compatible base URL already serving --model (instead of --models)")
    ap.add_argument("--model", default="model", help="model name sent with --url")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--only", default="", help="comma list of task ids")
    ap.add_argument("--label", default="", help="name of this run in the results file (with several models, "
                    "one file each: <label>-<model>)")
    ap.add_argument("--full", action="store_true", help="compact_context = false")
    ap.add_argument("--temperature", type=float)
    ap.add_argument("--threads", type=int, default=2, help="llama-server threads (-t); on a machine busy with "
                    "other work 1 is faster than 2")
    ap.add_argument("--passes", type=int, default=1, help="run each set this many times on the same state (2: "
                    "the second pass's row counts the response-cache hits)")
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    ap.add_argument("--report", default="", help="comma list of saved run labels: print (and store) their table "
                    "from the results files instead of running anything")
    args = ap.parse_args(argv)
    if args.report:
        return _report([lab for lab in args.report.split(",") if lab], write=not args.no_write)
    sets = [s for s in args.sets.split(",") if s]
    only = [s for s in args.only.split(",") if s]
    rows, notes = [], []
    targets: list[tuple[str, str | None]] = [(m, None) for m in args.models.split(",") if m]
    if args.url:
        targets = [(args.model, args.url)]
    if not targets:
        ap.error("give --models 1.5b,0.5b or --url URL --model NAME")
    for model, url in targets:
        # one results file per model: a label given for a run over several models names each model's file
        label = (f"{args.label}-{model}" if len(targets) > 1 else args.label) if args.label else model
        with tempfile.TemporaryDirectory(prefix="edge-agent-eval-") as tmp:
            work = Path(tmp)
            runs: dict[str, list[TaskResult]] = {}
            hwm: dict[str, int] = {}
            if url is None:
                if model not in MODELS:
                    ap.error(f"unknown model {model!r}; the cached ones are {', '.join(MODELS)}")
                with llama_server(model, threads=args.threads,
                                  log_path=CACHE / f"llama-server-{label}.log") as (served, proc):
                    runs = _run_served(label, model, served, proc.pid, sets, args, work, only, hwm)
            else:
                meta = {"model": model, "compact": not args.full, "temperature": args.temperature}
                for name in sets:
                    def keep(done: list[TaskResult], name: str = name, label: str = label,
                             runs: dict[str, list[TaskResult]] = runs, meta: dict[str, Any] = meta) -> None:
                        save(label, {**runs, **by_pass(name, done)}, meta)

                    runs.update(by_pass(name, run_set(name, url, model, work=work, only=only, compact=not args.full,
                                                      temperature=args.temperature, after_each=keep,
                                                      passes=args.passes)))
            saved = save(label, runs, {"model": model, "server_kib": hwm, "compact": not args.full,
                                       "temperature": args.temperature, "threads": args.threads})
            print(f"per-task results: {saved}", file=sys.stderr)
            for name, results in runs.items():
                rows.append(row(label, name, summarize(results)))
                notes += failures(label, name, results)
            if hwm:
                notes.append(f"- {label}: llama-server resident memory {hwm.get('VmHWM', 0) / 1024:.0f} MiB peak")
    text = "\n".join([HEADER, *rows])
    print(text)
    print("\n".join(notes))
    if not args.no_write and not only:
        from bench._sections import replace_section

        replace_section("agent-eval", _section(text, notes))
    return 0


def load_results(label: str) -> dict[str, list[TaskResult]]:
    """A saved run (``<cache>/results/<label>.json``) as task results per set."""
    data = json.loads((CACHE / "results" / f"{label}.json").read_text())
    keys = {f for f in Verdict.__dataclass_fields__}
    return {name: [TaskResult(Verdict(**{k: v for k, v in r.items() if k in keys}), r["seconds"], r["turn"],
                              r["requests"], r.get("exit_status", 0), r.get("pass_no", 1), r.get("load"))
                     for r in results]
            for name, results in data["sets"].items()}


def _report(labels: Sequence[str], *, write: bool) -> int:
    rows, notes = [], []
    for label in labels:
        for name, results in load_results(label).items():
            rows.append(row(label, name, summarize(results)))
            notes += failures(label, name, results)
    text = "\n".join([HEADER, *rows])
    print(text)
    print("\n".join(notes))
    if write:
        from bench._sections import replace_section

        replace_section("agent-eval", _section(text, notes))
    return 0


def _run_served(label: str, model: str, url: str, pid: int, sets: Sequence[str], args: argparse.Namespace,
                work: Path, only: Sequence[str], hwm: dict[str, int]) -> dict[str, list[TaskResult]]:
    """Every set against the model server this run started; the results file is kept current after each task."""
    runs: dict[str, list[TaskResult]] = {}
    meta = {"model": model, "server_kib": hwm, "compact": not args.full, "threads": args.threads,
            "temperature": args.temperature}
    for name in sets:
        print(f"{label}: {name}", file=sys.stderr, flush=True)

        def keep(done: list[TaskResult], name: str = name) -> None:
            hwm.update(memory_kib(pid))
            save(label, {**runs, **by_pass(name, done)}, meta)

        runs.update(by_pass(name, run_set(name, url, MODELS[model], work=work, only=only, compact=not args.full,
                                          temperature=args.temperature, after_each=keep, passes=args.passes)))
    return runs


def _section(table: str, notes: Sequence[str]) -> str:
    return "\n".join([
        "## Field tasks against real small models (`bench/agent_eval.py`, `make agent-eval`)", "",
        "Qwen2.5-Coder-1.5B and -0.5B Instruct (Q4_K_M GGUF) behind `llama-server --jinja -t 2 -c 8192 -np 1` (the "
        "model's own chat template), built and assembled from packages by `tools/agent_eval/setup_server.sh`; "
        "compact mode; each task one `edge-agent agent -m ... --json` process with the daemon on the simulated "
        "NUCLEO-F401RE; turn time is the whole process as a user waits for it. Tasks in "
        "`bench/agent_tasks/` (tuning: prompts were tuned on it; heldout and heldout2: never). A `(pass 2)` row "
        "is the same set asked again on the same state: its cache hits are the response cache answering "
        "repeated questions (turns that ran a tool are never cached). Prompt tokens are per turn, all requests "
        "summed, with the tokens the server had to read (not reused from its cache) in brackets; time to first "
        "token is the server's own prompt time plus one generated token, median over requests; load avg is the "
        "median 1-minute load average at the end of each task (2 cores shared with other jobs). Rows render "
        "from the saved per-task results with `python -m bench.agent_eval --report LABEL,...`.", "",
        table, "", "Failed tasks:", "", *notes])


if __name__ == "__main__":
    raise SystemExit(main())
