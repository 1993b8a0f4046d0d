"""Each extra installed alone imports every module its commands reach (tools/check_extras.py).

The development venv holds every extra at once, so an import that only another extra satisfies passes
everywhere but on a device: a Pi installed with ``[linux]`` failed every pin name with
``No module named 'pathspec'``. These run the check against venvs holding exactly one install each.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_extras", ROOT / "tools" / "check_extras.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_third_party_import_is_declared_by_the_base_install_or_a_runtime_extra(tool: ModuleType) -> None:
    assert tool.check_declared() == []


def test_the_datasheet_index_and_pin_names_need_only_the_base_install(tool: ModuleType) -> None:
    names = set(tool.closure(tool.project_requirements(None)))
    assert "pathspec" in names
    assert not names & {"smbus2", "mcp", "anyio", "openai", "pyserial", "hatchling", "mypy"}


def test_a_venv_built_for_one_extra_holds_nothing_of_the_others(tool: ModuleType) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        python = tool.build_venv(Path(tmp) / "venv", tool.closure(tool.project_requirements("linux")))
        probe = "import importlib.util as u; print([n for n in ('smbus2', 'gpiozero', 'serial', 'mcp', 'pytest') " \
                "if u.find_spec(n)])"
        out = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True, cwd=tmp)
    assert out.stdout.strip() == "['smbus2', 'gpiozero']"


def test_a_module_that_imports_an_undeclared_package_is_named(tool: ModuleType, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "edge_agent"
    (package / "rag").mkdir(parents=True)
    (package / "rag" / "files.py").write_text("import pathspec\ntry:\n    import pypdf\nexcept ImportError:\n"
                                              "    pypdf = None\n\ndef f():\n    import hatchling\n")
    monkeypatch.setattr(tool, "PACKAGE", package)
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    assert set(tool.third_party_imports()) == {"pathspec", "hatchling"}  # the fallback import is allowed


@pytest.mark.slow
def test_each_extra_installed_alone_imports_what_it_reaches() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "check_extras.py")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
