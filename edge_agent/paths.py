"""Where edge_agent finds its configuration, state and bundled data.

Precedence, highest first:

* config file: ``--config FILE`` -> ``EDGE_AGENT_CONFIG`` -> ``./edge-agent.toml`` ->
  ``$CONFIGURATION_DIRECTORY/edge-agent.toml`` (systemd) -> ``/etc/edge-agent/edge-agent.toml``;
  none found means the embedded defaults. ``--config none`` (or ``EDGE_AGENT_CONFIG=none``) asks for the
  embedded defaults without looking anywhere: a checkout's ``make run`` uses it when the checkout has no
  ``edge-agent.toml``, so it never picks up the installed service's board config from /etc.
* state directory: ``--state DIR`` -> ``EDGE_AGENT_STATE`` -> ``$STATE_DIRECTORY`` (systemd) ->
  ``$XDG_STATE_HOME/edge-agent`` -> ``~/.local/state/edge-agent``.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import BinaryIO, Literal, TextIO, cast, overload

#: Modes of everything under the state directory: it holds memories, tokens and device ids, so only
#: the service user reads it. Applied explicitly, so a loose umask (0022 outside systemd) cannot widen them.
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600

_REPO_ROOT = Path(__file__).resolve().parent.parent


#: The system-wide file an installed service and its users share (the last place searched; a test
#: points it elsewhere, so a machine with the service installed does not change the tests' defaults).
SYSTEM_CONFIG = Path("/etc/edge-agent/edge-agent.toml")

#: The --config / $EDGE_AGENT_CONFIG value that means "the embedded defaults, no file" (a file of that name
#: in the working directory is still reachable as ./none).
NO_CONFIG = "none"


def find_config(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """Return the config file to load, or None for the embedded defaults."""
    for given in (explicit, os.environ.get("EDGE_AGENT_CONFIG")):
        if given:
            return None if os.fspath(given) == NO_CONFIG else Path(given)
    candidates = [Path("edge-agent.toml")]
    if os.environ.get("CONFIGURATION_DIRECTORY"):
        candidates.append(Path(os.environ["CONFIGURATION_DIRECTORY"].split(":")[0]) / "edge-agent.toml")
    candidates.append(SYSTEM_CONFIG)
    return next((p for p in candidates if p.is_file()), None)


def state_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Return the state directory (not created here)."""
    if explicit:
        return Path(explicit)
    for var in ("EDGE_AGENT_STATE", "STATE_DIRECTORY"):
        if os.environ.get(var):
            return Path(os.environ[var].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "edge-agent"


def ensure_state_dir(path: Path) -> Path:
    """Create the state directory if needed; a path that cannot be one is a ConfigError saying so."""
    from edge_agent.errors import ConfigError

    try:
        private_dir(path)
    except FileExistsError:
        raise ConfigError(f"state directory {path} exists but is not a directory; "
                          "pass --state DIR (or set EDGE_AGENT_STATE) to a directory") from None
    except OSError as exc:
        raise ConfigError(f"cannot create the state directory {path}: {exc.strerror or exc}; "
                          "pass --state DIR (or set EDGE_AGENT_STATE) to a writable directory") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(f"the state directory {path} is not writable by this user; "
                          "pass --state DIR (or set EDGE_AGENT_STATE) to a writable directory")
    return path


def private_dir(path: str | os.PathLike[str]) -> Path:
    """Create a state directory (and missing parents); each one created here is 0700 whatever the umask.

    An existing directory keeps its mode: it may be systemd's StateDirectory= or one the user chose.
    """
    path = Path(path)
    created: list[Path] = []
    probe = path
    while not probe.exists() and not probe.is_symlink() and probe != probe.parent:
        created.append(probe)
        probe = probe.parent
    path.mkdir(parents=True, exist_ok=True)
    for directory in created:
        try:
            directory.chmod(PRIVATE_DIR_MODE)
        except OSError:  # created concurrently by another user, or gone again
            pass
    return path


def own_private_dir(path: str | os.PathLike[str]) -> Path:
    """A directory only this program uses inside the state directory: created 0700 like :func:`private_dir`,
    and narrowed to 0700 when it exists wider (made by an older version, or under a wide umask).

    Unlike the state directory itself (which systemd or the user may have opened to a group on purpose),
    nothing else belongs in it, so a group that may traverse the state directory reads nothing here.
    """
    path = private_dir(path)
    try:
        st = path.stat()
        if st.st_mode & 0o777 != PRIVATE_DIR_MODE and st.st_uid == os.geteuid():
            path.chmod(PRIVATE_DIR_MODE)
    except OSError:
        pass
    return path


def _private_opener(path: str, flags: int) -> int:
    fd = os.open(path, flags | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    try:
        st = os.fstat(fd)
        # Exactly 0600: the umask may have cut the owner's bits, and an older file may be wider.
        if st.st_mode & 0o777 != PRIVATE_FILE_MODE and st.st_uid == os.geteuid():
            os.fchmod(fd, PRIVATE_FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


TextMode = Literal["w", "a", "a+", "w+", "r+"]
BinaryMode = Literal["wb", "ab", "ab+", "wb+", "r+b"]


@overload
def open_private(path: str | os.PathLike[str], mode: TextMode = "w", *, encoding: str | None = None) -> TextIO: ...
@overload
def open_private(path: str | os.PathLike[str], mode: BinaryMode, *, encoding: None = None) -> BinaryIO: ...
def open_private(path: str | os.PathLike[str], mode: TextMode | BinaryMode = "w", *,
                 encoding: str | None = None) -> TextIO | BinaryIO:
    """``open()`` for a file in the state directory: created (or tightened to) 0600."""
    if "b" not in mode and encoding is None:
        encoding = "utf-8"
    return cast("TextIO | BinaryIO",
                open(path, mode, encoding=encoding, opener=_private_opener))  # noqa: SIM115 - the caller closes it


def private_file(path: str | os.PathLike[str]) -> Path:
    """Make sure ``path`` exists as a 0600 file (empty if new), e.g. before SQLite opens it.

    SQLite gives the database's -wal, -shm and journal files the database file's own mode.
    """
    os.close(_private_opener(os.fspath(path), os.O_WRONLY | os.O_CREAT | os.O_APPEND))
    return Path(path)


def write_private(path: str | os.PathLike[str], data: str | bytes, *, fsync: bool = False) -> None:
    """Replace ``path`` atomically (temporary file, then rename) with a 0600 file holding ``data``."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open_private(tmp, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _bundled(packaged: str, repo_dir: str) -> Path:
    """Locate bundled data: inside an installed wheel, else the source checkout's folder."""
    try:
        candidate = Path(str(resources.files("edge_agent") / packaged))
        if candidate.is_dir():
            return candidate
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - zipimport or odd loaders
        pass
    return _REPO_ROOT / repo_dir


def bundled_boards_dir() -> Path:
    """Directory of board data files (TOML) shipped with the package."""
    return _bundled("_boards", "boards")


def bundled_datasheets_dir() -> Path:
    """Directory of the default datasheets shipped with the package."""
    return _bundled("_datasheets", "datasheets")


def bundled_vectors_dir() -> Path:
    """Directory of the firmware-bridge golden vectors shipped with the package."""
    return _bundled("_vectors", "firmware_bridge/vectors")
