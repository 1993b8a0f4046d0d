"""What a response-cache hit of `edge-agent agent -m ... --json` costs, as a user runs it.

Each row is one `edge-agent agent -m` process (through a small wrapper that reports the modules it
loaded and its own VmHWM from /proc/self/status); rows are run in turns so a change of load hits
them alike. The model is a loopback server that answers at once. Compact mode, one simulated
NUCLEO-F401RE, the tools chosen per question, as installed.

- hit: the question answered before, in a new process (no daemon, then with the daemon serving
  the state directory);
- hit, schemas built as before: the same hit process, but it first builds the tool schemas the way
  the cache key needed them before the key's tool identity was kept on disk (the same-run baseline);
- miss: a new question each time (the model client is loaded and asked);
- `edge-agent --version`: the interpreter and the CLI's import, the floor of any command.

``--baseline-src DIR`` adds a row for the hit of another revision's source tree (``DIR`` holds its
``edge_agent`` package, e.g. from ``git archive REV | tar -x -C DIR``), run the same way in the same
turns; ``--baseline-label TEXT`` names it in the text.

Run: ``python -m bench.agent_cache`` (``--no-write`` prints only).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench._sections import publish
from bench.agent import InstantModel

REPO = Path(__file__).resolve().parent.parent
RUNS = 9
QUESTION = "which pin drives the user led"
WATCH = ("openai", "edge_agent.mcp.tools", "edge_agent.agent.tools", "edge_agent.runtime", "edge_agent.memory",
         "edge_agent.rag")

# Runs `edge-agent` in this interpreter and reports, on its last stderr line, what it loaded and its peak memory.
WRAPPER = """
import json, sys
if sys.argv[1] == "schemas":
    from edge_agent.agent.toolset import build_specs
    build_specs(True, 1)
from edge_agent.cli import main
try:
    rc = main(sys.argv[2:])
except SystemExit as exc:  # --version exits
    rc = exc.code or 0
status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
mods = sorted(sys.modules)
print("\\n" + json.dumps({"rc": rc, "hwm_kib": int(status["VmHWM"].split()[0]), "modules": len(mods),
                           "edge_agent": sum(m.startswith("edge_agent") for m in mods),
                           "watched": [m for m in WATCHED if m in sys.modules]}), file=sys.stderr)
sys.exit(rc)
""".replace("WATCHED", repr(WATCH))


def _config(path: Path, url: str) -> Path:
    path.write_text(f'default_provider = "custom:{url}"\ndefault_model = "bench"\n[agent]\ncompact_context = true\n'
                    '[peripherals]\n[[peripherals.boards]]\nboard = "nucleo-f401re"\ntransport = "sim"\n')
    return path


def _env(src: Path | None) -> dict[str, str]:
    # Bytecode is written and reused, as in an installed package (pip compiles it at install time).
    env = {k: v for k, v in os.environ.items()
           if k not in ("EDGE_AGENT_CONFIG", "NOTIFY_SOCKET", "WATCHDOG_USEC", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPATH"] = str(src or REPO)
    return env


def _run(argv: list[str], env: dict[str, str], *, importtime: bool = False) -> dict[str, Any]:
    """One process: wall seconds, CPU seconds (user + system), what the wrapper reported."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    # From a neutral directory: `python -c` puts the working directory first on sys.path.
    out = subprocess.run(argv[:1] + (["-X", "importtime"] if importtime else []) + argv[1:], capture_output=True,
                         text=True, env=env, check=False, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = out.stderr.strip().splitlines()
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(argv[-6:])} exited {out.returncode}: {out.stderr[-800:]}")
    report = json.loads(lines[-1])
    report.update(wall_s=wall, cpu_s=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    if importtime:  # the sum of every module's own import time, in seconds
        report["import_s"] = sum(int(line.split("|")[0].split(":")[1]) for line in lines
                                 if line.startswith("import time:") and line.split("|")[0].split(":")[1].strip()
                                 .isdigit()) / 1e6
    else:
        report["turn"] = json.loads(out.stdout) if out.stdout.strip().startswith("{") else {}
    return report


def _imports(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """The median import time of three runs under ``-X importtime``."""
    return {"import_s": statistics.median(_run(argv, env, importtime=True)["import_s"] for _ in range(3))}


@contextmanager
def _daemon(config: Path, state: Path) -> Iterator[None]:
    from edge_agent.hub.client import HubClient

    env = _env(None)
    exe = str(Path(sys.executable).with_name("edge-agent"))
    proc = subprocess.Popen([exe, "--config", str(config), "--state", str(state), "run", "--port", "0"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while HubClient.find(state) is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the daemon did not start serving its socket")
            time.sleep(0.1)
        yield
    finally:
        proc.terminate()
        proc.wait(60)


def measure(baseline_src: Path | None = None, runs: int = RUNS) -> dict[str, dict[str, Any]]:
    model = InstantModel()
    try:
        with tempfile.TemporaryDirectory(prefix="edge-agent-cache-bench-") as tmp:
            work = Path(tmp)
            config = _config(work / "c.toml", model.url)
            states = {"plain": work / "state", "daemon": work / "state-daemon", "old": work / "state-old",
                      "miss": work / "state-miss"}  # a miss's exchange is remembered: relevant to the hit
            for s in states.values():
                s.mkdir()

            def agent(state: Path, message: str, mode: str = "-") -> list[str]:
                return [sys.executable, "-c", WRAPPER, mode, "--state", str(state), "--config", str(config), "agent",
                        "-m", message, "--json"]

            rows: dict[str, tuple[list[str], dict[str, str]]] = {
                "hit": (agent(states["plain"], QUESTION), _env(None)),
                "hit, schemas built as before": (agent(states["plain"], QUESTION, "schemas"), _env(None)),
                "version": ([sys.executable, "-c", WRAPPER, "-", "--version"], _env(None)),
            }
            if baseline_src is not None:
                rows["hit, baseline source"] = (agent(states["old"], QUESTION), _env(baseline_src))
            for argv, env in rows.values():  # prime: the first answer is stored, the index built
                _run(argv, env)
            results: dict[str, list[dict[str, Any]]] = {name: [] for name in [*rows, "miss"]}
            for i in range(runs):
                for name, (argv, env) in rows.items():
                    results[name].append(_run(argv, env))
                results["miss"].append(_run(agent(states["miss"], f"{QUESTION}, question {i}"), _env(None)))
            imports = {name: _imports(argv, env) for name, (argv, env) in rows.items()}
            with _daemon(config, states["daemon"]):
                daemon_rows = {"hit with the daemon": agent(states["daemon"], QUESTION),
                               "hit with the daemon, schemas built as before": agent(states["daemon"], QUESTION,
                                                                                     "schemas")}
                for argv in daemon_rows.values():
                    _run(argv, _env(None))
                for name in daemon_rows:
                    results[name] = []
                for _ in range(runs):
                    for name, argv in daemon_rows.items():
                        results[name].append(_run(argv, _env(None)))
                for name, argv in daemon_rows.items():
                    imports[name] = _imports(argv, _env(None))
    finally:
        model.close()
    out: dict[str, dict[str, Any]] = {}
    for name, rs in results.items():
        if name != "version" and name != "miss":
            assert all(r["turn"].get("cached") for r in rs), f"{name}: not every run was a hit"
        out[name] = {"wall_s": statistics.median(r["wall_s"] for r in rs),
                     "cpu_s": statistics.median(r["cpu_s"] for r in rs),
                     "hwm_kib": statistics.median(r["hwm_kib"] for r in rs),
                     "modules": rs[-1]["modules"], "edge_agent": rs[-1]["edge_agent"], "watched": rs[-1]["watched"],
                     "import_s": imports[name]["import_s"] if name in imports else None}
    return out


def _table(m: dict[str, dict[str, Any]]) -> str:
    version = m["version"]["wall_s"]
    lines = [f"| process (median of {RUNS}) | wall | CPU (user + system) | wall vs `--version` | imports "
             "(`-X importtime`, sum) | modules (edge_agent) | peak RSS (VmHWM) | loaded of: openai, tool schemas, "
             "runtime, memory, rag |", "|---|---|---|---|---|---|---|---|"]
    for name, r in m.items():
        shown = "`edge-agent --version`" if name == "version" else name
        imp = f"{r['import_s'] * 1000:.0f} ms" if r["import_s"] is not None else "-"
        loaded = ", ".join(w.replace("edge_agent.", "") for w in r["watched"]) or "none"
        lines.append(f"| {shown} | {r['wall_s'] * 1000:.0f} ms | {r['cpu_s'] * 1000:.0f} ms | "
                     f"{r['wall_s'] / version:.2f}x | {imp} | {r['modules']} ({r['edge_agent']}) | "
                     f"{r['hwm_kib'] / 1024:.0f} MiB | {loaded} |")
    return "\n".join(lines)


def report(m: dict[str, dict[str, Any]], baseline_label: str = "another revision") -> str:
    hit, old = m["hit"], m["hit, schemas built as before"]
    dhit, dold = m["hit with the daemon"], m["hit with the daemon, schemas built as before"]
    load = os.getloadavg()
    text = [
        "### Response-cache hit of a one-shot (`bench/agent_cache.py`)", "",
        "One `edge-agent agent -m ... --json` process per run, answered from the response cache (compact mode, "
        "the simulated NUCLEO-F401RE, tools chosen per question, a loopback model that answers at once for the "
        f"misses); rows run in turns. Load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) "
        "at the end of the run, on 2 CPUs shared with other work: compare the rows with each other, and CPU time "
        "before wall time (the import sums, of three runs each, are the noisiest figure). Bytecode compiled once "
        "and reused, as in an installed package.", "",
        _table(m), "",
        f"A hit now takes {hit['cpu_s'] / old['cpu_s']:.2f}x the CPU time and {hit['wall_s'] / old['wall_s']:.2f}x "
        f"the wall time of the same hit building the tool schemas as the key needed them before "
        f"({old['cpu_s'] * 1000:.0f} -> {hit['cpu_s'] * 1000:.0f} ms CPU); with the daemon "
        f"{dhit['cpu_s'] / dold['cpu_s']:.2f}x CPU and {dhit['wall_s'] / dold['wall_s']:.2f}x wall "
        f"({dold['cpu_s'] * 1000:.0f} -> {dhit['cpu_s'] * 1000:.0f} ms CPU). "
        f"A miss, which loads the model client and builds the schemas, costs {m['miss']['cpu_s'] / hit['cpu_s']:.1f}x "
        "a hit's CPU time.",
    ]
    if "hit, baseline source" in m:
        b = m["hit, baseline source"]
        text.append(f"The hit of {baseline_label} (`--baseline-src`): {b['wall_s'] * 1000:.0f} ms wall, "
                    f"{b['cpu_s'] * 1000:.0f} ms CPU; this one {hit['cpu_s'] / b['cpu_s']:.2f}x its CPU time.")
    return "\n".join(text)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    src, label = None, "another revision"
    if "--baseline-src" in args:
        src = Path(args[args.index("--baseline-src") + 1]).resolve()
    if "--baseline-label" in args:
        label = args[args.index("--baseline-label") + 1]
    publish("agent-cache", lambda: report(measure(src), label), args,
            values=("--baseline-src", "--baseline-label"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
