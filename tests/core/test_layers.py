"""Layers import downward only: every import of every module in edge_agent, read from its syntax tree.

A unit is a top-level module or subpackage of edge_agent. A unit may import units in lower layers
and itself; units in the same layer may import each other but not in a cycle. Imports inside
functions and under TYPE_CHECKING count too: they are dependencies all the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "edge_agent"

#: Lowest first. A unit not listed is an application entry point: it sits in the top layer.
LAYERS: list[set[str]] = [
    # "" is edge_agent/__init__.py (the version)
    {"", "errors", "paths", "names", "chips", "holders", "credentials", "jsontypes"},
    {"config"},
    {"identity"},
    {"rag", "pins", "memory", "sync"},
    {"bus"},
    {"drivers"},  # sensor drivers talk through the bus port API
    {"watch"},
    # The application's own order, downward: the faces (cli, agent, mcp, the daemon and the dashboard: a unit
    # not listed) stand on the hub, which decides for every face whether a call runs in the daemon or in
    # this process and binds the tools to a runtime; the runtime serves the service actions; an action
    # names every lower part it uses and nothing above (a runtime reaches it only as the structural
    # RuntimeLike it declares).
    {"services"},
    {"runtime"},
    {"hub"},
]
TOP = len(LAYERS)
#: The hardware layer works from plain data; it never reads the application's configuration model.
NO_CONFIG = {"chips", "bus", "drivers"}
BUS_BACKENDS = {"sim", "bridge", "linux", "aardvark", "ftdi"}


def layer_of(unit: str) -> int:
    return next((i for i, units in enumerate(LAYERS) if unit in units), TOP)


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, root: Path = PACKAGE) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every edge_agent import in the file."""
    mod = module_name(path, root)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from edge_agent import bus` imports the subpackage, not a name of edge_agent/__init__.
            names = [f"{target}.{a.name}" if target == "edge_agent" and a.name != "__version__" else target
                     for a in node.names]
        else:
            continue
        for name in names:
            if name == "edge_agent" or name.startswith("edge_agent."):
                yield node.lineno, name


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def all_imports() -> list[tuple[str, int, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, target in imports(path):
            out.append((f"{path.relative_to(PACKAGE.parent)}:{line}", module_name(path), target))
    return out


def test_the_application_layers_stand_in_order_faces_hub_runtime_services() -> None:
    faces = ("cli", "agent", "mcp", "daemon")
    assert all(layer_of(face) == TOP for face in faces)
    assert TOP > layer_of("hub") > layer_of("runtime") > layer_of("services") > layer_of("drivers")
    edges = {(unit_of(src), unit_of(t)) for _, src, t in all_imports()}
    # Each face reaches the state directory through the hub; the hub reaches the runtime and the actions.
    assert {("cli", "hub"), ("agent", "hub"), ("mcp", "hub"), ("hub", "runtime"), ("hub", "services"),
            ("services", "bus")} <= edges
    assert not {(a, b) for a, b in edges if a == "hub" and b in faces}


def test_the_walk_sees_the_package() -> None:
    found = all_imports()
    assert len(found) > 100
    assert any(src.startswith("edge_agent.runtime") and unit_of(t) == "config" for _, src, t in found)


def test_every_import_points_to_a_lower_layer_or_the_same_one() -> None:
    bad = [f"{where}: {unit_of(src) or 'edge_agent'} (layer {layer_of(unit_of(src))}) imports {target} "
           f"(layer {layer_of(unit_of(target))})"
           for where, src, target in all_imports() if layer_of(unit_of(target)) > layer_of(unit_of(src))]
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_units_of_one_layer_do_not_import_each_other_in_a_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for _, src, target in all_imports():
        a, b = unit_of(src), unit_of(target)
        if a != b:
            graph.setdefault(a, set()).add(b)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))
        return False

    cycles = {frozenset({a, b}) for a, targets in graph.items() for b in targets if reaches(b, a)}
    assert not cycles, f"import cycles between units: {sorted(map(sorted, cycles))}"


def test_the_hardware_layer_does_not_read_the_application_config() -> None:
    bad = [f"{where}: {src} imports {target}" for where, src, target in all_imports()
           if unit_of(src) in NO_CONFIG and unit_of(target) == "config"]
    assert not bad, "\n".join(bad)


def test_bus_core_does_not_import_a_backend_and_backends_do_not_import_each_other() -> None:
    def backend(module: str) -> str | None:
        parts = module.split(".")
        return parts[2] if len(parts) > 2 and parts[1] == "bus" and parts[2] in BUS_BACKENDS else None

    bad = [f"{where}: {src} imports {target}" for where, src, target in all_imports()
           if unit_of(src) == "bus" and backend(target) is not None and backend(src) != backend(target)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(("source", "expected"), [
    ("from edge_agent.config import Settings\n", ["edge_agent.config"]),
    ("def f():\n    import edge_agent.runtime\n", ["edge_agent.runtime"]),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from edge_agent.mcp import tools\n", ["edge_agent.mcp"]),
    ("from edge_agent import bus, __version__\n", ["edge_agent.bus", "edge_agent"]),
    ("from . import world\nfrom ..base import Adapter\n", ["edge_agent.bus.sim", "edge_agent.bus.base"]),
])
def test_the_import_reader_sees_every_form(tmp_path: Path, source: str, expected: list[str]) -> None:
    pkg = tmp_path / "edge_agent" / "bus" / "sim"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source)
    assert [t for _, t in imports(pkg / "__init__.py", tmp_path / "edge_agent")] == expected
