"""Imports point down: the griot library (python/griot) imports no server and no worker, and the
servers import no worker.

The rules service, the gateway, the browser API and the Celery workers are reachable as
``griot.services`` and ``griot.workers`` (links to the top-level services/ and workers/ folders),
and they import the library; the library never imports them back, not even lazily inside a
function. ``griot up`` starts them as processes by module name (strings, not imports). No command
runs a server in process, so there is no exception to allow: the code the library shares with the
servers (scores and classification, proto conversion, the Celery queues, the task client and the
tasks' arguments, the endgame build's caller side) lives in the library. The servers reach the
workers through that task client (``griot.tasks``), never through ``griot.workers``.

Celery comes with the ``server`` extra: ``import griot``, the command line and the task client's
plain-data modules import none of it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "python" / "griot"
SERVICES = ROOT / "services"
SERVERS = ("griot.services", "griot.workers")
WORKERS = ("griot.workers",)


def _library_files() -> Iterator[Path]:
    for path in sorted(LIBRARY.rglob("*.py")):
        rel = path.relative_to(LIBRARY)
        if rel.parts[0] in ("services", "workers"):
            continue
        yield path


def _package(path: Path) -> list[str]:
    return ["griot", *path.relative_to(LIBRARY).parent.parts]


def _imported(source: str, package: list[str]) -> Iterator[tuple[int, str]]:
    """Every module a file of ``package`` imports (relative imports resolved), with its line, at
    any depth; ``__import__`` and ``importlib.import_module`` calls with a literal name count too."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in ("__import__", "import_module") and isinstance(node.args[0].value, str):
                yield node.lineno, node.args[0].value


def _is_server(module: str, servers: tuple[str, ...] = SERVERS) -> bool:
    return any(module == s or module.startswith(s + ".") for s in servers)


def test_the_library_imports_no_server_or_worker() -> None:
    files = list(_library_files())
    assert len(files) > 20, "the library's files were not found"
    wrong = [
        f"{path.relative_to(LIBRARY)}:{line}: {module}"
        for path in files
        for line, module in _imported(path.read_text(), _package(path))
        if _is_server(module)
    ]
    assert wrong == []


def test_the_servers_import_no_worker() -> None:
    files = sorted(SERVICES.rglob("*.py"))
    assert len(files) > 20, "the servers' files were not found"
    wrong = [
        f"services/{path.relative_to(SERVICES)}:{line}: {module}"
        for path in files
        for line, module in _imported(
            path.read_text(), ["griot", "services", *path.relative_to(SERVICES).parent.parts]
        )
        if _is_server(module, WORKERS)
    ]
    assert wrong == []


def test_the_library_and_its_plain_task_modules_import_no_celery() -> None:
    modules = [
        "griot",
        "griot.cli",
        "griot.tasks",
        "griot.tasks.args",
        "griot.tasks.errors",
        "griot.tasks.outcome",
    ]
    code = (
        f"import sys, {', '.join(modules)}\n"
        "print(' '.join(sorted({m.partition('.')[0] for m in sys.modules} & {'celery', 'kombu'})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


@pytest.mark.parametrize(
    "source",
    [
        "from griot.workers.app import app",
        "def f():\n    import griot.services.gateway\n",
        "from .services.gateway import scores",
        "from . import workers",
        "import importlib\nimportlib.import_module('griot.workers.tasks')",
    ],
)
def test_the_check_sees_every_form_of_import(source: str) -> None:
    assert any(_is_server(m) for _, m in _imported(source, ["griot"]))
    # The same names from a module of the launch package resolve one level further up.
    assert _imported("from ..workers import app", ["griot", "launch"]) and _is_server(
        next(m for _, m in _imported("from ..workers import app", ["griot", "launch"]))
    )


def test_the_servers_check_sees_a_relative_import_of_the_workers() -> None:
    found = [m for _, m in _imported("from ...workers import tasks", ["griot", "services", "gateway"])]
    assert any(_is_server(m, WORKERS) for m in found)
    assert not any(_is_server(m, WORKERS) for _, m in _imported("from griot.tasks import client", ["griot"]))


def test_the_check_lets_library_imports_through() -> None:
    source = "from griot import scores\nfrom . import messages\nimport griot.broker\nimport workers_stack"
    assert not any(_is_server(m) for _, m in _imported(source, ["griot"]))
