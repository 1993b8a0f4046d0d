"""Check that each extra, installed alone, imports every module its commands reach.

The development venv has every extra installed at once, so a module that imports a package only some
other extra (or only the developer toolchain) brings in still imports there, and the defect shows first
on a device installed with one extra. This check rebuilds, for the base install and for each extra, an
environment that holds exactly what ``pip install 'edge-agent[EXTRA]'`` would: a fresh venv (no system
site-packages) whose site-packages links the files of the distributions in that extra's requirement
closure, taken from this environment (offline and fast: no download, no build). The closure is read from
pyproject.toml for the project and from each installed distribution's metadata below it, with environment
markers evaluated for this machine.

In the base install's venv a child interpreter imports every module of edge_agent but the backends
that need an extra (:data:`BACKENDS`); in an extra's venv, that extra's backend modules and every
third-party package edge_agent imports that only this extra provides (``numpy`` for ``ml``, ``openai``
for ``agent``): an extra adds packages, so what imports with the base install alone imports with it too.
Imports run only at module level: what a command reaches lazily inside a function is checked statically
instead, in this process: every third-party package that any module imports (at any depth, outside a
``try ... except ImportError`` fallback) must be declared by the base install or by a runtime extra.

    python tools/check_extras.py [EXTRA ...]     # default: base and every runtime extra

Exit status 1 lists every failure.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "edge_agent"
#: Extras a device installs (dev is the developer toolchain).
RUNTIME_EXTRAS = ("linux", "aardvark", "ftdi", "bridge", "pdf", "kumiho", "secrets", "mcp", "agent", "ml")
#: Modules (or packages, with everything under them) that need an extra at import time; every other
#: module of edge_agent must import with the base install alone.
BACKENDS: dict[str, tuple[str, ...]] = {
    "linux": ("edge_agent.bus.linux",),
    "aardvark": ("edge_agent.bus.aardvark",),
    "ftdi": ("edge_agent.bus.ftdi",),
    "bridge": ("edge_agent.bus.bridge.adapter", "edge_agent.bus.bridge.discovery", "edge_agent.bus.bridge.link",
               "edge_agent.bus.bridge.port"),
    "kumiho": ("edge_agent.sync.testserver",),
    "mcp": ("edge_agent.mcp.socket_server", "edge_agent.mcp.server", "edge_agent.mcp.limits",
            "edge_agent.dashboard.web"),
}
#: Import names that differ from the distribution's name and are not recorded in its files.
_IMPORT_ALIASES = {"mcp_types": "mcp"}


def project_requirements(extra: str | None) -> list[Requirement]:
    """The project's requirements for the base install plus ``extra`` (markers evaluated here)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    if extra is not None and extra not in project.get("optional-dependencies", {}):
        raise SystemExit(f"unknown extra {extra!r}")
    raw = list(project["dependencies"]) + (list(project["optional-dependencies"][extra]) if extra else [])
    return [r for r in map(Requirement, raw) if r.marker is None or r.marker.evaluate()]


def closure(requirements: list[Requirement]) -> dict[str, metadata.Distribution]:
    """Every installed distribution the requirements pull in, by canonical name."""
    found: dict[str, metadata.Distribution] = {}
    todo = [(r, frozenset(r.extras)) for r in requirements]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req, extras = todo.pop()
        key = (canonicalize_name(req.name), extras)
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"{req.name} is required but not installed here; run `make install`") from None
        found[key[0]] = dist
        for line in dist.requires or []:
            sub = Requirement(line)
            wanted = sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in (extras or {""}))
            if wanted:
                todo.append((sub, frozenset(sub.extras)))
    return found


def build_venv(where: Path, dists: dict[str, metadata.Distribution]) -> Path:
    """A venv at ``where`` whose site-packages links exactly the files of ``dists``; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    for dist in dists.values():
        base = Path(str(dist.locate_file("")))
        for item in dist.files or []:
            rel = Path(str(item))
            if rel.parts[0] == ".." or rel.suffix == ".pth":
                continue  # scripts outside site-packages; path hooks (the editable install's among them)
            target = site / rel
            source = base / rel
            if target.exists() or not source.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)
    (site / "_edge_agent_source.pth").write_text(f"{ROOT}\n", encoding="utf-8")
    return python


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def backend_of(module: str) -> str | None:
    for extra, prefixes in BACKENDS.items():
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return extra
    return None


_IMPORTER = """
import importlib, json, sys, traceback
failed = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except BaseException as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps(failed))
"""


def check_imports(extra: str | None) -> list[str]:
    """Import what the base install (or ``extra``) adds, in a venv holding exactly that install."""
    wanted = [m for m in module_names() if backend_of(m) == extra]
    if extra is not None:
        wanted += sorted(_only_from(extra))
    with tempfile.TemporaryDirectory(prefix="edge-agent-extra-") as tmp:
        python = build_venv(Path(tmp) / "venv", closure(project_requirements(extra)))
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        run = subprocess.run([str(python), "-c", _IMPORTER, json.dumps(wanted)], capture_output=True, text=True,
                             env=env, cwd=tmp)
    label = f"[{extra}]" if extra else "the base install"
    if run.returncode != 0:
        return [f"{label}: the import check itself failed: {run.stderr.strip()[-400:]}"]
    return [f"{label}: import {name}: {why}" for name, why in sorted(json.loads(run.stdout).items())]


def _guarded_nodes(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside a ``try`` whose handlers catch ImportError (an optional fallback)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                h.type is None or any(n in ast.unparse(h.type) for n in ("ImportError", "ModuleNotFoundError"))
                for h in node.handlers):
            for stmt in node.body:
                guarded.update(id(n) for n in ast.walk(stmt))
    return guarded


def third_party_imports(*, guarded_too: bool = False) -> dict[str, set[str]]:
    """Top-level import name -> modules of edge_agent importing it outside an ImportError fallback."""
    out: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        guarded = _guarded_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            if id(node) in guarded and not guarded_too:
                continue
            for name in names:
                top = name.split(".")[0]
                if top and top not in sys.stdlib_module_names and top not in ("edge_agent", "__future__"):
                    out.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return out


@functools.cache
def _provided() -> dict[str, set[str]]:
    """Top-level import name -> the installs that provide it ("base" or an extra's name)."""
    provided: dict[str, set[str]] = {}
    for extra in (None, *RUNTIME_EXTRAS):
        for dist in closure(project_requirements(extra)).values():
            for top in _top_level_names(dist):
                provided.setdefault(top, set()).add(extra or "base")
    return provided


def _only_from(extra: str) -> set[str]:
    """Third-party names edge_agent imports (fallbacks included) that ``extra`` provides and the base does not."""
    provided = _provided()
    names = {_IMPORT_ALIASES.get(top, top) for top in third_party_imports(guarded_too=True)}
    return {n for n in names if extra in provided.get(n, set()) and "base" not in provided[n]}


def check_declared() -> list[str]:
    """Every third-party package imported anywhere must come from the base install or a runtime extra."""
    provided = _provided()
    problems = []
    for top, where in sorted(third_party_imports().items()):
        name = _IMPORT_ALIASES.get(top, top)
        if name not in provided:
            problems.append(f"{', '.join(sorted(where))} import {top!r}, which neither the base install nor any "
                            "extra declares: add it to [project] dependencies or to the extra whose backend uses "
                            "it (and import it only there)")
    return problems


def _top_level_names(dist: metadata.Distribution) -> set[str]:
    names = set()
    for item in dist.files or []:
        parts = Path(str(item)).parts
        if not parts or parts[0] == ".." or parts[0].endswith((".dist-info", ".egg-info", ".pth")):
            continue
        if parts[0] == "__pycache__":
            continue
        names.add(parts[0].removesuffix(".py").split(".")[0] if len(parts) == 1 else parts[0])
    return names


def main(argv: list[str]) -> int:
    chosen = argv or ["base", *RUNTIME_EXTRAS]
    problems = check_declared()
    # Mostly waiting on the file system and on child interpreters: a few at once finish sooner.
    with ThreadPoolExecutor(max_workers=4) as pool:
        for found in pool.map(lambda e: check_imports(None if e == "base" else e), chosen):
            problems += found
    for line in problems:
        print(line)
    if not problems:
        print(f"every module imports with {', '.join(chosen)} installed alone")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
