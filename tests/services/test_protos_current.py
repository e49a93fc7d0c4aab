"""The committed generated code (python/griot/v1) is what protos/ generates: the same check as
`make protos-check`, run by every test run so that CI proves it."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_is_current(tmp_path: Path) -> None:
    subprocess.run(
        [str(ROOT / "scripts" / "gen_protos.sh"), str(tmp_path)],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHON": sys.executable},
    )
    fresh = tmp_path / "griot" / "v1"
    committed = ROOT / "python" / "griot" / "v1"
    names = sorted(p.name for p in fresh.iterdir() if p.is_file())
    assert names == sorted(p.name for p in committed.iterdir() if p.is_file() and p.suffix in (".py", ".pyi"))
    _, mismatch, errors = filecmp.cmpfiles(fresh, committed, names, shallow=False)
    assert not mismatch and not errors, f"stale generated code: {mismatch + errors}; run `make protos`"
