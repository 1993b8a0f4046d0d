"""No bare ``Any`` crosses a package boundary: what one package hands another is typed.

The definitions, read from the syntax tree of every module (like test_layers, whose units these are):

* A *package* is a unit of edge_agent: a subpackage (``bus``, ``hub``, ``memory``...) or a top-level
  module (``errors``, ``paths``...). Modules of one package may share whatever they like.
* A name *crosses a boundary* when a module of one package imports it from a module of another:
  ``from edge_agent.bus.base import Adapter``, ``from edge_agent.bus import Adapter`` (followed through
  the package's re-exports, lazy ``__getattr__`` imports included, to the module that defines it), or a
  module import (``from edge_agent.bus import base``, ``import edge_agent.bus.base as base``) and then
  ``base.Adapter``. Imports inside functions and under ``TYPE_CHECKING`` count too. A crossing class
  takes its edge_agent base classes across with it.
* The *seam* of a crossing name is what the importer sees of it: a function's parameter and return
  annotations; a class's public methods (no leading underscore, or a dunder such as ``__init__``) and
  public class-level annotations (dataclass, pydantic and TypedDict fields, Protocol members) and the
  annotated public attributes its ``__init__`` sets (``self.hello: JsonObject = {}``); a
  module-level variable's annotation; a module-level type alias's definition.
* *Bare Any* is ``typing.Any`` anywhere in a seam's annotation, nested ones too (``dict[str, Any]``,
  ``Callable[..., Any]``), or a name that resolves to a module-level type alias whose definition holds
  ``Any`` (``Payload = dict[str, Any]`` hides nothing).
* Genuine JSON data whose shape the receiver checks at run time (a socket frame, a tool's arguments,
  an HTTP body) is typed with the aliases of ``edge_agent/jsontypes.py`` (``JsonValue``, ``JsonObject``),
  defined once there and precise (a recursive union of the JSON kinds, no ``Any``), so this test
  needs no exception for them. ``object`` is accepted: it promises nothing, so the receiver must check.

A failure names the seam as ``file:line name`` and the module that imports it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "edge_agent"
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def top_level(tree: ast.Module) -> Iterator[ast.stmt]:
    """Statements at module level, looking inside ``if`` and ``try`` blocks (TYPE_CHECKING, fallbacks)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.If):
            todo[:0] = [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            todo[:0] = [*node.body, *(s for h in node.handlers for s in h.body), *node.orelse]
        else:
            yield node


def public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def init_attributes(node: ast.ClassDef) -> Iterator[ast.AnnAssign]:
    """The annotated public attributes a class's ``__init__`` sets (``self.name: T = ...``)."""
    for item in node.body:
        if isinstance(item, FUNCTIONS) and item.name == "__init__":
            for sub in ast.walk(item):
                if (isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Attribute)
                        and isinstance(sub.target.value, ast.Name) and sub.target.value.id == "self"
                        and public(sub.target.attr)):
                    yield sub


@dataclass(frozen=True)
class Definition:
    module: str
    name: str
    node: ast.stmt


@dataclass
class Crossing:
    """A name defined in one package and imported by others."""

    definition: Definition
    importers: list[str] = field(default_factory=list)


class Index:
    """The modules of one edge_agent tree (the real one, or a small one a test writes)."""

    def __init__(self, package: Path) -> None:
        self.package = package
        self.paths = {self.module_name(p): p for p in sorted(package.rglob("*.py"))}
        self.trees: dict[str, ast.Module] = {}
        self.resolved: dict[tuple[str, str], Definition | None] = {}

    def module_name(self, path: Path) -> str:
        parts = list(path.relative_to(self.package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)

    def rel(self, module: str) -> str:
        return self.paths[module].relative_to(self.package.parent).as_posix()

    def tree(self, module: str) -> ast.Module:
        if module not in self.trees:
            path = self.paths[module]
            self.trees[module] = ast.parse(path.read_text(encoding="utf-8"), str(path))
        return self.trees[module]

    def absolute(self, module: str, node: ast.ImportFrom) -> str:
        """The absolute module an ``ImportFrom`` in ``module`` reads from."""
        if not node.level:
            return node.module or ""
        package = module if self.paths[module].name == "__init__.py" else module.rpartition(".")[0]
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        return ".".join(base + ([node.module] if node.module else []))

    def resolve(self, module: str, name: str) -> Definition | None:
        """Where ``name`` as seen in ``module`` is defined, following imports within edge_agent."""
        key = (module, name)
        if key not in self.resolved:
            self.resolved[key] = None  # a cycle of re-exports resolves to nothing
            self.resolved[key] = self._resolve(module, name)
        return self.resolved[key]

    def _resolve(self, module: str, name: str) -> Definition | None:
        if module not in self.paths:
            return None
        tree = self.tree(module)
        for node in top_level(tree):
            if isinstance(node, (*FUNCTIONS, ast.ClassDef)) and node.name == name:
                return Definition(module, name, node)
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                return Definition(module, name, node)
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return Definition(module, name, node)
        # Re-exports, at module level or inside a lazy ``__getattr__``.
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = self.absolute(module, node)
                for alias in node.names:
                    if (alias.asname or alias.name) == name and f"{source}.{alias.name}" not in self.paths:
                        return self.resolve(source, alias.name)
        return None

    def imported_names(self, module: str) -> Iterator[tuple[int, str, str]]:
        """(line, module, name) of every edge_agent name that ``module`` takes from another module."""
        tree = self.tree(module)
        root = self.package.name
        module_aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = self.absolute(module, node)
                if source != root and not source.startswith(f"{root}."):
                    continue
                for alias in node.names:
                    if f"{source}.{alias.name}" in self.paths:
                        module_aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                    else:
                        yield node.lineno, source, alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == root or alias.name.startswith(f"{root}."):
                        module_aliases[alias.asname or root] = alias.name if alias.asname else root
        for node in ast.walk(tree):
            chain = dotted(node) if isinstance(node, ast.Attribute) else None
            head, _, rest = (chain or "").partition(".")
            if head not in module_aliases or not rest:
                continue
            target, parts = module_aliases[head], rest.split(".")
            while parts and f"{target}.{parts[0]}" in self.paths:
                target = f"{target}.{parts.pop(0)}"
            if parts:
                yield node.lineno, target, parts[0]

    def crossings(self) -> dict[tuple[str, str], Crossing]:
        found: dict[tuple[str, str], Crossing] = {}
        done: set[tuple[str, str, str]] = set()
        todo: list[tuple[Definition, str, str]] = []  # (definition, importing unit, where it is used)
        for importer in self.paths:
            for line, source, name in self.imported_names(importer):
                definition = self.resolve(source, name)
                if definition is not None:
                    todo.append((definition, unit_of(importer), f"{self.rel(importer)}:{line}"))
        while todo:
            definition, unit, used = todo.pop()
            if unit_of(definition.module) == unit:
                continue
            key = (definition.module, definition.name)
            crossing = found.setdefault(key, Crossing(definition))
            if used not in crossing.importers:
                crossing.importers.append(used)
            if (*key, unit) in done:
                continue
            done.add((*key, unit))
            # What the importer reaches through this name crosses too: base classes, and the
            # edge_agent classes its signatures name (a method returning a store hands over the store).
            for expr in self.signature(definition):
                for node in ast.walk(expr):
                    if isinstance(node, ast.Name) and (reached := self.resolve(definition.module, node.id)):
                        todo.append((reached, unit, f"{used} via {definition.name}"))
            if isinstance(definition.node, ast.ClassDef):
                for base in definition.node.bases:
                    chain = dotted(base)
                    if chain and "." not in chain and (parent := self.resolve(definition.module, chain)):
                        todo.append((parent, unit, f"{used} via {definition.name}'s base"))
        return found

    def signature(self, definition: Definition) -> Iterator[ast.expr]:
        """The annotations of everything an importer of ``definition`` sees, strings parsed."""
        node = definition.node
        functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        annotations: list[ast.expr | None] = []
        if isinstance(node, FUNCTIONS):
            functions.append(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, FUNCTIONS) and public(item.name):
                    functions.append(item)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and public(item.target.id):
                    annotations.append(item.annotation)
            annotations += [a.annotation for a in init_attributes(node)]
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        for func in functions:
            a = func.args
            annotations += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x]
            annotations.append(func.returns)
        for expr in annotations:
            if expr is None:
                continue
            for sub in ast.walk(expr):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    try:
                        yield ast.parse(sub.value, mode="eval").body
                    except SyntaxError:
                        pass
            yield expr

    def any_names(self, module: str) -> set[str]:
        """The local spellings under which ``module`` sees ``typing.Any``."""
        names = set()
        for node in ast.walk(self.tree(module)):
            if isinstance(node, ast.ImportFrom) and node.module in ("typing", "typing_extensions"):
                names |= {a.asname or a.name for a in node.names if a.name == "Any"}
            elif isinstance(node, ast.Import):
                names |= {f"{a.asname or a.name}.Any" for a in node.names if a.name in ("typing", "typing_extensions")}
        return names

    def is_any_alias(self, module: str, name: str, depth: int) -> bool:
        """Whether ``name`` in ``module`` is a module-level alias whose definition holds Any."""
        definition = self.resolve(module, name)
        if definition is None or not isinstance(definition.node, (ast.Assign, ast.AnnAssign)):
            return False
        value = definition.node.value
        if value is None or isinstance(value, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant, ast.Call)):
            return False  # data (``__all__``, a table, a default), not a type
        return self.mentions_any(definition.module, value, depth + 1)

    def mentions_any(self, module: str, annotation: ast.expr | None, depth: int = 0) -> bool:
        if annotation is None or depth > 4:
            return False
        spellings = self.any_names(module)
        for node in ast.walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    inner = ast.parse(node.value, mode="eval").body
                except SyntaxError:
                    continue
                if self.mentions_any(module, inner, depth):
                    return True
            elif isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) in spellings:
                return True
            if isinstance(node, ast.Name) and self.is_any_alias(module, node.id, depth):
                return True
        return False

    def function_seams(self, module: str, func: ast.FunctionDef | ast.AsyncFunctionDef,
                       owner: str) -> Iterator[tuple[int, str]]:
        args = func.args
        for arg, star in [*((a, "") for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)),
                          (args.vararg, "*"), (args.kwarg, "**")]:
            if arg is not None and self.mentions_any(module, arg.annotation):
                yield arg.lineno, f"{owner}{func.name} parameter {star}{arg.arg}"
        if self.mentions_any(module, func.returns):
            yield func.lineno, f"{owner}{func.name} returns Any"

    def seams(self, definition: Definition) -> Iterator[tuple[int, str]]:
        """(line, what) of every bare Any in what an importer of ``definition`` sees."""
        module, node = definition.module, definition.node
        if isinstance(node, FUNCTIONS):
            yield from self.function_seams(module, node, "")
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, FUNCTIONS) and public(item.name):
                    yield from self.function_seams(module, item, f"{node.name}.")
                elif (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                      and public(item.target.id) and self.mentions_any(module, item.annotation)):
                    yield item.lineno, f"{node.name}.{item.target.id} is annotated with Any"
            for attr in init_attributes(node):
                if isinstance(attr.target, ast.Attribute) and self.mentions_any(module, attr.annotation):
                    yield attr.lineno, f"{node.name}.{attr.target.attr} is annotated with Any"
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            annotation = node.annotation if isinstance(node, ast.AnnAssign) else None
            if self.mentions_any(module, annotation):
                yield node.lineno, f"{definition.name} is annotated with Any"
            elif self.is_any_alias(module, definition.name, 0):
                yield node.lineno, f"{definition.name} is an alias holding Any"

    def violations(self) -> list[tuple[str, int, str, str]]:
        """(file, line, what, who imports it) of every bare Any at a seam, in file and line order."""
        out: list[tuple[str, int, str, str]] = []
        for crossing in self.crossings().values():
            users = sorted(crossing.importers)
            used = ", ".join(users[:2]) + (f" and {len(users) - 2} more" if len(users) > 2 else "")
            for line, what in self.seams(crossing.definition):
                out.append((self.rel(crossing.definition.module), line, what, used))
        return sorted(out)


def report(violations: list[tuple[str, int, str, str]]) -> list[str]:
    return [f"{path}:{line} {what} (imported by {used})" for path, line, what, used in violations]


def test_the_walk_follows_every_kind_of_import() -> None:
    found = Index(PACKAGE).crossings()
    assert len(found) > 100
    assert ("edge_agent.errors", "EdgeAgentError") in found  # a direct import
    assert ("edge_agent.bus.adapter", "Adapter") in found  # through a re-export in another module
    assert ("edge_agent.bus.registry", "open_adapter") in found  # through the package's re-export
    # A lazy __getattr__ re-export resolves to its module.
    link = Index(PACKAGE).resolve("edge_agent.bus.bridge", "Link")
    assert link is not None and link.module == "edge_agent.bus.bridge.link"


def test_the_check_names_each_bare_any_with_its_file_and_line(tmp_path: Path) -> None:
    lib = tmp_path / "edge_agent" / "lib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("from .api import C, f\n")
    (lib / "api.py").write_text(
        "from typing import Any\n"
        "Payload = dict[str, Any]\n"
        "def f(x: int, **kw: Any) -> 'list[Any]': ...\n"
        "def g(x: Payload) -> object: ...\n"
        "def h(x: int) -> int: ...\n"
        "def unused(x: Any) -> Any: ...\n"
        "class Base:\n"
        "    def base(self) -> Any: ...\n"
        "class C(Base):\n"
        "    field: Any\n"
        "    def __init__(self) -> None:\n"
        "        self.handle: Any = None\n"
        "        self._own: Any = None\n"
        "    _private: Any\n"
        "    def m(self, a: 'int | Any') -> int: ...\n"
        "    def _hidden(self) -> Any: ...\n")
    (lib / "inner.py").write_text("from typing import Any\nfrom .api import unused\ndef i(x: Any) -> None: ...\n")
    (tmp_path / "edge_agent" / "app.py").write_text(
        "from edge_agent.lib import C, f\n"
        "from edge_agent.lib import api\n"
        "import edge_agent.lib.inner as inner\n"
        "def run() -> None:\n"
        "    api.g(api.h(1))\n"
        "    inner.i(1)\n")
    assert report(Index(tmp_path / "edge_agent").violations()) == [
        "edge_agent/lib/api.py:2 Payload is an alias holding Any (imported by edge_agent/app.py:5 via g)",
        "edge_agent/lib/api.py:3 f parameter **kw (imported by edge_agent/app.py:1)",
        "edge_agent/lib/api.py:3 f returns Any (imported by edge_agent/app.py:1)",
        "edge_agent/lib/api.py:4 g parameter x (imported by edge_agent/app.py:5)",
        "edge_agent/lib/api.py:8 Base.base returns Any (imported by edge_agent/app.py:1 via C's base)",
        "edge_agent/lib/api.py:10 C.field is annotated with Any (imported by edge_agent/app.py:1)",
        "edge_agent/lib/api.py:12 C.handle is annotated with Any (imported by edge_agent/app.py:1)",
        "edge_agent/lib/api.py:15 C.m parameter a (imported by edge_agent/app.py:1)",
        "edge_agent/lib/inner.py:3 i parameter x (imported by edge_agent/app.py:6)",
    ]


def test_no_bare_any_crosses_a_package_boundary() -> None:
    found = Index(PACKAGE).violations()
    new = [v for v in found if f"{v[0]} {v[2]}" not in KNOWN]
    assert not new, (f"{len(new)} bare Any at package seams (type them; JSON data as jsontypes.JsonValue):\n"
                     + "\n".join(report(new)))


#: The seams still typed with Any, each to be typed and struck from here, never added to. (A stale entry
#: does not fail the test, so that deleting or typing code elsewhere never breaks it; strike it anyway.)
KNOWN: set[str] = set()
