"""The Kumiho connection: endpoint and token settings, the headless SDK client, gRPC error details.

Only this module (and the protocol steps) import the ``kumiho`` SDK and gRPC, and only when a client
is built, so the base install imports the sync package without them.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from edge_agent.config import KumihoConfig
from edge_agent.errors import BackendUnavailable, ConfigError

LOCAL_CE_ENDPOINT = "127.0.0.1:9190"
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_ENV_LOCK = threading.Lock()

# gRPC status names by how the outbox treats them.
OFFLINE_CODES = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED"})
BUSY_CODES = frozenset({"RESOURCE_EXHAUSTED", "INTERNAL", "UNKNOWN", "ABORTED"})
PERMANENT_CODES = frozenset({"INVALID_ARGUMENT", "PERMISSION_DENIED", "FAILED_PRECONDITION", "NOT_FOUND",
                             "OUT_OF_RANGE", "ALREADY_EXISTS", "DATA_LOSS"})
AUTH_CODES = frozenset({"UNAUTHENTICATED"})
UNSUPPORTED_CODES = frozenset({"UNIMPLEMENTED"})


def resolve_endpoint(config: KumihoConfig, override: str | None = None) -> str:
    """The gRPC target to use; ConfigError unless TLS is used for every non-loopback host."""
    raw = (override or config.endpoint or (LOCAL_CE_ENDPOINT if config.mode == "local_ce" else "")).strip()
    source = "--kumiho-endpoint" if override else "kumiho.endpoint"
    if not raw:
        raise ConfigError(
            "kumiho.endpoint is empty: set it to the Kumiho gRPC endpoint, e.g. endpoint = "
            "\"https://us-central.kumiho.cloud\", or mode = \"local_ce\" for a community server on this device"
        )
    parsed = urlparse(raw if "://" in raw else f"//{raw}")
    scheme = parsed.scheme.lower() if "://" in raw else ""
    try:
        host, port = parsed.hostname, parsed.port
    except ValueError:
        host, port = None, None
    if not host or scheme not in ("", "https", "grpcs", "http", "grpc"):
        raise ConfigError(f"{source} {raw!r} is not HOST:PORT or https://HOST[:PORT]")
    tls = scheme in ("https", "grpcs") or port == 443 or (port is None and scheme == "")
    if port is None and scheme == "":
        raw = f"https://{host}"  # a bare host means the TLS default port
    loopback = host.lower() in LOOPBACK_HOSTS
    if not loopback and not tls:
        raise ConfigError(
            f"{source} {raw!r}: TLS is required for a non-loopback Kumiho endpoint (tokens would cross the "
            "network in clear text); use https://HOST or port 443"
        )
    if config.mode == "local_ce" and not loopback:
        raise ConfigError(
            f"{source} {raw!r}: mode 'local_ce' talks to a community server on this device only "
            "(it has no authentication and must never be exposed); use a loopback address or mode = 'cloud'"
        )
    return raw


def load_token(config: KumihoConfig, base: Path | None = None) -> str | None:
    """The bearer token: ``KUMIHO_AUTH_TOKEN``, else ``[kumiho] token_file``; None when neither is set."""
    env = os.environ.get("KUMIHO_AUTH_TOKEN", "").strip()
    if env:
        return env
    if not config.token_file:
        return None
    path = Path(os.path.expanduser(config.token_file))
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(
            f"kumiho.token_file {str(path)!r} cannot be read ({exc.strerror}); write the token there "
            "(mode 0600) or set KUMIHO_AUTH_TOKEN"
        ) from None
    if not token:
        raise ConfigError(f"kumiho.token_file {str(path)!r} is empty; write the bearer token into it")
    return token


def token_fingerprint(token: str | None) -> str:
    """A short non-reversible tag for a token, to notice changes without keeping or logging the token."""
    return hashlib.sha256((token or "").encode()).hexdigest()[:12] if token else "none"


class _RetriesAreTheOutboxs(logging.Filter):
    """Drops the SDK's record of each call that failed with a transient code.

    The SDK logs every such call at ERROR ("gRPC call failed after 1 attempts with UNAVAILABLE"). The
    outbox owns every retry and reports an outage itself (one warning when the link goes down, one line
    when it returns), so an offline device would otherwise log an error per retry for days.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.msg if isinstance(record.msg, str) else ""
        return not msg.startswith(("gRPC call failed after", "Transient gRPC error"))


_SDK_LOG_FILTER = _RetriesAreTheOutboxs()


def build_client(endpoint: str, token: str | None, rpc_timeout_s: float) -> Any:
    """A headless SDK client: no discovery, no auto-login, no prompt, SDK retries off, TLS required off-host."""
    try:
        import kumiho  # the `kumiho` extra; imported here so the base install needs no gRPC
    except ImportError as exc:
        raise BackendUnavailable(
            f"upstream sync needs the kumiho SDK ({exc.name} is missing): pip install 'edge-agent[kumiho]'"
        ) from None

    sdk_log = logging.getLogger("kumiho.client")
    if _SDK_LOG_FILTER not in sdk_log.filters:
        sdk_log.addFilter(_SDK_LOG_FILTER)
    with _ENV_LOCK:
        # Read by the SDK's interceptors when the client is built, hence set first, under a lock.
        os.environ["KUMIHO_GRPC_RETRY_MAX_ATTEMPTS"] = "1"
        os.environ["KUMIHO_NO_INTERACTIVE_LOGIN"] = "1"
        os.environ["KUMIHO_DISABLE_AUTO_DISCOVERY"] = "1"
        os.environ["KUMIHO_REQUIRE_TLS"] = "1"
        os.environ["KUMIHO_RPC_TIMEOUT_SECS"] = f"{rpc_timeout_s:g}"
        # token="" (not None) keeps the SDK from loading ~/.kumiho credentials on its own.
        return kumiho.connect(endpoint=endpoint, token=token or "", use_discovery=False, enable_auto_login=False)


def rpc_code(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    try:
        value = code() if callable(code) else None
    except Exception:  # noqa: BLE001 - a broken error object must not crash the worker
        value = None
    return getattr(value, "name", None) or "UNKNOWN"


def rpc_details(exc: BaseException) -> str:
    details = getattr(exc, "details", None)
    try:
        text = details() if callable(details) else str(exc)
    except Exception:  # noqa: BLE001
        text = str(exc)
    return (text or "").replace("\n", " ")[:300]


def is_rpc_error(exc: BaseException) -> bool:
    import grpc

    return isinstance(exc, grpc.RpcError)


def finishing_stub(client: Any) -> Any:
    """The SDK's generated stub on the SDK's channel, entered below its transient-retry interceptor.

    That interceptor is the outermost layer of the channel the SDK builds; even with one attempt it
    waits for each call's status before returning, which turns a gRPC future into a blocking call. The
    layers beneath it (authorization header, correlation id) stay in place, so the finishing calls
    carry the same metadata, cannot be retried behind the outbox's back, and can be in flight
    together. Their deadline is then set per call (``rpc_timeout_s``). Should a future SDK wrap its
    channel differently, the SDK's own stub is used: still correct, just one call at a time.
    """
    channel = getattr(client, "channel", None)
    inner = getattr(channel, "_channel", None)
    if inner is not None and type(getattr(channel, "_interceptor", None)).__name__ == "_TransientRetryInterceptor":
        from kumiho.proto import kumiho_pb2_grpc

        return kumiho_pb2_grpc.KumihoServiceStub(inner)  # type: ignore[no-untyped-call]  # generated, unannotated
    return client.stub


class GlobalFailure(Exception):
    """A failure of the connection or the server as a whole (not of one capture)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message

    @classmethod
    def wrap(cls, exc: BaseException, what: str) -> GlobalFailure:
        if not is_rpc_error(exc):
            raise exc
        return cls(rpc_code(exc), f"{what}: {rpc_details(exc)}")
