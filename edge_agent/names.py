"""Names that become directory names or namespaces: one rule each, checked when the config loads.

A workspace name is a directory under the state directory, so it may not contain a path separator
or be '.' or '..'. A memory namespace is a short path-like label ('default', 'lab/bench-2'); its
segments may not be empty, '.' or '..'. A device id names the device upstream and in space paths. A
capture type labels what a watch stores; the memory store refuses captures of any other form.
Each check returns what is wrong (a sentence) or None.
"""

from __future__ import annotations

import re

WORKSPACE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}")
DEVICE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: A capture's type: a lowercase label ('fact', 'sensor_anomaly'); the memory store refuses any other.
CAPTURE_TYPE = re.compile(r"[a-z][a-z0-9_.-]{0,63}")


def workspace_problem(name: str) -> str | None:
    """Why ``name`` cannot be a workspace (directory) name, or None."""
    if not WORKSPACE_NAME.fullmatch(name) or name in (".", ".."):
        return (f"{name!r} is not a workspace name: it becomes a directory name, so use 1-64 letters, digits, "
                "'_', '.' or '-' starting with a letter or digit (no '/', not '..'), e.g. 'bench-2'")
    return None


def namespace_problem(name: str) -> str | None:
    """Why ``name`` cannot be a memory namespace, or None."""
    segments = name.split("/")
    if not NAMESPACE.fullmatch(name) or any(s in ("", ".", "..") for s in segments):
        return (f"{name!r} is not a namespace: use up to 128 letters, digits and '_ . : / -' starting with a "
                "letter or digit, with no empty, '.' or '..' segment, e.g. 'lab/bench-2'")
    return None


def device_id_problem(name: str) -> str | None:
    """Why ``name`` cannot be a device id, or None ('' means derive one, so it is accepted)."""
    if name and not DEVICE_ID.fullmatch(name):
        return (f"{name!r} is not a device id: use 1-64 letters, digits, '-' or '_' starting with a letter or "
                "digit (it names the device upstream), e.g. 'lab-pi-03'")
    return None


def capture_type_problem(name: str) -> str | None:
    """Why ``name`` cannot be a capture type, or None."""
    if not CAPTURE_TYPE.fullmatch(name):
        return (f"{name!r} is not a capture type: the memory store takes a lowercase label of up to 64 letters, "
                "digits and '_ . -' starting with a letter, e.g. 'anomaly', 'state_change' or 'sensor_anomaly'")
    return None
