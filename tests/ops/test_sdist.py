"""The sdist is complete: a wheel built from it (as `pip install griot-mancala` does where no wheel fits)
has every source the build and the package need, and the board already built, so that neither Node
nor a checkout is needed. Compiling it again would take minutes of release build; instead the test
checks that the archive holds every tracked file the wheel is made of, and that Cargo resolves the
unpacked workspace, dependencies included, from its lock file alone."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "python" / "griot" / "board"


def _tracked(*paths: str) -> set[str]:
    out = subprocess.run(
        ["git", "ls-files", "-s", "--", *paths], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    # Mode 120000 is a symbolic link: the two that make griot.services and griot.workers.
    return {line.split("\t", 1)[1] for line in out.splitlines() if not line.startswith("120000")}


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    if not (BOARD / "index.html").is_file():
        pytest.skip("the board is not built: run `make web-build`")
    out = tmp_path_factory.mktemp("sdist")
    built = subprocess.run(
        [sys.executable, "-m", "maturin", "sdist", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    (archive,) = out.glob("griot_mancala-*.tar.gz")
    unpacked = out / "src"
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked, filter="data")
    (top,) = unpacked.iterdir()
    return top


def test_the_sdist_holds_every_source_and_the_board(sdist: Path) -> None:
    have = {str(p.relative_to(sdist)) for p in sdist.rglob("*") if p.is_file()}
    need = _tracked("crates", "python", "Cargo.toml", "Cargo.lock", "pyproject.toml", "README.md")
    # The servers and workers ship as files under griot/ (their folders are linked in the checkout).
    need |= {f"python/griot/{p}" for p in _tracked("services", "workers") if p.endswith(".py")}
    assert not need - have, sorted(need - have)
    board = {str(p.relative_to(ROOT)) for p in BOARD.rglob("*") if p.is_file()}
    assert board and not board - have, sorted(board - have)


def test_cargo_resolves_the_unpacked_workspace_from_its_lock_file(sdist: Path) -> None:
    if shutil.which("cargo") is None:
        pytest.skip("no Rust toolchain")
    meta = subprocess.run(
        ["cargo", "metadata", "--locked", "--offline", "--format-version", "1",
         "--manifest-path", str(sdist / "crates" / "griot-py" / "Cargo.toml")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert meta.returncode == 0, meta.stderr[-3000:]
    # The workspace's two crates and their dependencies, resolved at the lock file's versions.
    for name in ("griot-core", "griot-py", "pyo3"):
        assert f'"name":"{name}"' in meta.stdout, name
