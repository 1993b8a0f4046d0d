"""The project and spaces a capture's revision goes into: ensured (get-or-create) before a batch is sent.

``BatchCreateRevisions`` does not create spaces, so each space path is created segment by segment
first (``ALREADY_EXISTS`` is success) and remembered. A server that no longer has what was remembered
(it restarted empty, or the project was deleted) says so; the cache is then dropped and everything is
ensured again.
"""

from __future__ import annotations

import logging
from typing import Any

from edge_agent.config import KumihoConfig
from edge_agent.sync.client import PERMANENT_CODES, GlobalFailure, is_rpc_error, rpc_code, rpc_details

log = logging.getLogger(__name__)


class UpstreamPlaces:
    """What this worker knows exists upstream: the project and the space paths below it."""

    def __init__(self, config: KumihoConfig) -> None:
        self.config = config
        self.project_ok = False
        self.spaces: set[str] = set()

    def ensure_project(self, client: Any) -> None:
        if self.project_ok:
            return
        project = self.config.project
        try:
            if client.get_project(project) is None:
                client.create_project(project, "AI Cognitive Memory")
        except Exception as exc:
            if not (is_rpc_error(exc) and rpc_code(exc) == "ALREADY_EXISTS"):
                if type(exc).__name__ == "ProjectLimitError":
                    raise GlobalFailure("RESOURCE_EXHAUSTED", f"project limit reached: {exc}") from None
                raise GlobalFailure.wrap(exc, "ensuring the project") from None
        self.project_ok = True

    def ensure_space(self, client: Any, space: str) -> str | None:
        """Create each segment of /<project>/<space>; returns a permanent-failure reason or None.

        A parent the server says is missing while it was cached as existing means the server lost it (it
        restarted empty): the project and the path are ensured again, once.
        """
        if space in self.spaces:
            return None
        reason, parent_gone = self._create_path(client, space)
        if parent_gone:
            self.forget(reason or "a space's parent is missing")
            self.ensure_project(client)
            reason, _ = self._create_path(client, space)
        return reason

    def _create_path(self, client: Any, space: str) -> tuple[str | None, bool]:
        """(permanent-failure reason or None, whether a parent was missing) of creating the space's path."""
        parent = f"/{self.config.project}"
        for seg in space.split("/"):
            path = f"{parent}/{seg}"
            if path[1:] not in self.spaces:
                try:
                    client.create_space(parent, seg)
                except Exception as exc:
                    if not is_rpc_error(exc):
                        raise
                    code = rpc_code(exc)
                    if code != "ALREADY_EXISTS":
                        if code in PERMANENT_CODES:
                            return f"{code}: creating space {path}: {rpc_details(exc)}", code == "NOT_FOUND"
                        raise GlobalFailure.wrap(exc, f"creating space {path}") from None
                self.spaces.add(path[1:])
            parent = path
        self.spaces.add(space)
        return None, False

    def forget(self, why: str) -> None:
        """The server no longer has what was cached as existing: ensure the project and every space again
        before the next write (logged once per loss)."""
        if self.project_ok or self.spaces:
            log.warning("kumiho sync: the server lost what was created there (%s); re-creating the project "
                        "%s and its spaces", why[:200], self.config.project)
        self.project_ok = False
        self.spaces.clear()
