"""`make up` builds the board only when a file under web/ changed since it was built (the built
index.html is the stamp): asked of make itself, dry runs with the stamp in a temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(*args: str, index: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-o", ".stamps/web-install", *args, f"BOARD_INDEX={index}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_board_is_built_when_missing_or_changed_and_only_then(tmp_path: Path) -> None:
    index = tmp_path / "board" / "index.html"
    missing = _make("-n", "web-board", index=index)
    assert "web-build" in missing.stdout, missing.stdout + missing.stderr
    index.parent.mkdir()
    index.write_text("<html></html>")
    later = time.time() + 60  # newer than every source, whatever the clock did on checkout
    os.utime(index, (later, later))
    current = _make("-q", "web-board", index=index)
    assert current.returncode == 0, current.stdout + current.stderr
    changed = _make("-n", "-W", "web/app/src/main.ts", "web-board", index=index)
    assert "web-build" in changed.stdout, changed.stdout + changed.stderr
    lock = _make("-n", "-W", "web/package-lock.json", "web-board", index=index)
    assert "web-build" in lock.stdout, lock.stdout + lock.stderr


def test_make_up_builds_the_board_through_its_stamp() -> None:
    recipe = (ROOT / "mk" / "ops.mk").read_text(encoding="utf-8").split("\nup:", 1)[1].split("\n\n", 1)[0]
    assert "web-board" in recipe and "web-build" not in recipe, recipe
