"""The pieces the field-task run stands on: a recording proxy in front of the model server, the daemon
on the simulated board, and llama-server started from the cache that ``tools/agent_eval/setup_server.sh``
fills.

The proxy forwards each chat request to the model server unchanged and keeps what the results table
needs from the answer: HTTP status, prompt tokens, and llama-server's own timings (tokens it had to
process versus reuse from its cache, prompt and generation milliseconds), so the time to first token
is the server's measurement, not a guess from the client side.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CACHE = Path(os.environ.get("EDGE_AGENT_CACHE", Path.home() / ".cache" / "edge_agent")) / "llm"
MODELS = {"1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m", "0.5b": "qwen2.5-coder-0.5b-instruct-q4_k_m"}


def edge_agent_command() -> list[str]:
    script = Path(sys.executable).with_name("edge-agent")
    return [str(script)] if script.exists() else [sys.executable, "-m", "edge_agent.cli"]


class RecordingProxy:
    """Forwards ``/v1/...`` to ``upstream`` (an API base URL) and records one entry per request."""

    def __init__(self, upstream: str, timeout: float = 600.0) -> None:
        self.upstream = upstream.rstrip("/")
        self.records: list[dict[str, Any]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0) or 0)) if method == "POST" else None
                path = self.path[len("/v1"):] if self.path.startswith("/v1") else self.path
                req = urllib.request.Request(proxy.upstream + path, data=body, method=method,
                                             headers={"content-type": self.headers.get("content-type",
                                                                                       "application/json")})
                t0 = time.perf_counter()
                try:
                    with urllib.request.urlopen(req, timeout=timeout) as up:
                        status, data, ctype = up.status, up.read(), up.headers.get("content-type", "")
                except urllib.error.HTTPError as exc:
                    status, data, ctype = exc.code, exc.read(), exc.headers.get("content-type", "")
                except OSError as exc:
                    status, data, ctype = 502, json.dumps({"error": {"message": str(exc)}}).encode(), \
                        "application/json"
                if method == "POST":
                    proxy.records.append(_record(status, data, time.perf_counter() - t0))
                self.send_response(status)
                self.send_header("content-type", ctype or "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self._forward("POST")

            def do_GET(self) -> None:  # noqa: N802
                self._forward("GET")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _record(status: int, data: bytes, seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {"status": status, "seconds": seconds}
    try:
        body = json.loads(data)
    except ValueError:
        return out
    if not isinstance(body, dict):
        return out
    usage = body.get("usage") or {}
    out["prompt_tokens"] = usage.get("prompt_tokens")
    out["completion_tokens"] = usage.get("completion_tokens")
    t = body.get("timings") or {}
    if t:
        out["new_prompt_tokens"] = t.get("prompt_n")
        out["prompt_ms"] = t.get("prompt_ms")
        per_token = (t.get("predicted_ms") or 0) / max(1, t.get("predicted_n") or 1)
        out["ttft_s"] = ((t.get("prompt_ms") or 0) + per_token) / 1000
    if status >= 400:
        out["error"] = str((body.get("error") or {}).get("message", ""))[:300]
    return out


@contextmanager
def daemon(config: Path, state: Path, timeout: float = 90) -> Iterator[subprocess.Popen[bytes]]:
    """`edge-agent run` on ``config``/``state`` until its socket answers; stopped with SIGTERM after."""
    from edge_agent.hub.client import HubClient

    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    log = open(state / "daemon.log", "wb")  # noqa: SIM115 - closed below, after the process
    proc = subprocess.Popen([*edge_agent_command(), "--config", str(config), "--state", str(state), "run"],
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while HubClient.find(state) is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the daemon did not start; see {state / 'daemon.log'}")
            time.sleep(0.1)
        yield proc
    finally:
        stop(proc)
        log.close()


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if the process has not exited within 30 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def llama_server(model: str, *, threads: int = 2, ctx: int = 8192,
                 log_path: Path | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """llama-server from the cache with ``model`` (a key of MODELS) and its own chat template (--jinja).

    Yields (API base URL, process). FileNotFoundError says to run the setup script when the cache
    lacks the server or the model.
    """
    server, gguf = CACHE / "llama-server", CACHE / "models" / f"{MODELS[model]}.gguf"
    for need in (server, gguf):
        if not need.exists():
            raise FileNotFoundError(f"{need} is missing; run tools/agent_eval/setup_server.sh (or make agent-eval)")
    port = free_port()
    out = open(log_path or os.devnull, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([str(server), "-m", str(gguf), "--jinja", "-t", str(threads), "-c", str(ctx), "-np", "1",
                             "--host", "127.0.0.1", "--port", str(port)], stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama-server exited with status {proc.returncode}; see {log_path}")
            try:
                with urllib.request.urlopen(base + "/health", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama-server did not become healthy within 300 s")
            time.sleep(0.5)
        yield base + "/v1", proc
    finally:
        stop(proc)
        out.close()


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB (empty when it is gone)."""
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    except OSError:
        pass
    return out
