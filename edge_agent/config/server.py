"""``[server]``: the MCP server inside `edge-agent run` (address, token, TLS, allowed hosts and origins)."""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from edge_agent.config._base import _each_matches, _Section


class ServerConfig(_Section):
    http_enabled: bool = Field(True, description="Serve MCP over streamable HTTP inside `edge-agent run`.")
    host: str = Field("127.0.0.1", description="Listen address; another than loopback keeps the bearer token "
                      "requirement.")
    port: int = Field(8765, ge=0, le=65535, description="HTTP port; 0 picks a free one.")
    token_file: str = Field("", description="Bearer token file; empty means <state>/mcp-token.")
    watchdog: bool = Field(True, description="Send WATCHDOG=1 when the unit sets WatchdogSec.")
    record_hardware_writes: bool = Field(
        False, description="Store each gpio_write/i2c_write/spi_transfer made through MCP as a low-importance "
        "command_execution capture (an audit trail that syncs upstream with [kumiho] enabled).")
    allow_public_bind: bool = Field(
        False, description="Allow a `host` other than loopback (the device and its token become reachable from "
        "the network); use with tls_cert/tls_key and allowed_hosts.")
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Extra Host names clients use for this device, e.g. \"pi.lan\" or "
        "\"192.168.1.20\" (loopback names, the bound address and the host name are always allowed).")
    allowed_origins: list[str] = Field(
        default_factory=list, description="Extra browser origins allowed to call the server, e.g. "
        "\"https://tools.example.lan\" (this server's own origins are always allowed).")
    tls_cert: str = Field("", description="PEM certificate file: serve HTTPS (with tls_key); relative to the "
                          "config file.")
    tls_key: str = Field("", description="PEM private key file for tls_cert; relative to the config file.")

    @field_validator("allowed_hosts")
    @classmethod
    def _plain_hosts(cls, hosts: list[str]) -> list[str]:
        for h in hosts:
            if not h.strip() or "/" in h or " " in h.strip():
                raise ValueError(f"{h!r} is not a host name or address; write names like \"pi.lan\" or "
                                 "\"192.168.1.20\" (no scheme, no path)")
        return hosts

    @field_validator("allowed_origins")
    @classmethod
    def _origin_form(cls, origins: list[str]) -> list[str]:
        return _each_matches(origins, r"https?://[^/\s]+/?",
                             "is not an origin; write scheme://host[:port], e.g. \"https://pi.lan:8765\"")

    @model_validator(mode="after")
    def _tls_pair(self) -> ServerConfig:
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls_cert and tls_key go together: set both to serve HTTPS, or neither")
        return self
