"""Every line that tells a user what to install names the distribution pyproject.toml builds: the
registry's `griot` is another project's, so `pip install griot` would install that. The messages
themselves are checked where they are printed (tests/ops/test_without_extras.py, test_newcomer.py)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from griot.distribution import DISTRIBUTION, SERVER_EXTRA, install_line

ROOT = Path(__file__).resolve().parents[1]
BUILT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]

#: A pip install line, or a requirement with an extra, that names a Griot distribution.
INSTALL = re.compile(r"pip3? install\s+(?:-\S+\s+)*[\"']?(?P<name>[A-Za-z0-9_.-]+)")
EXTRA = re.compile(r"(?<![\w.-])(?P<name>griot[\w.-]*)\[(?:server|redis|deploy|test|openspiel)\]")
#: Other projects a line may tell a user to install.
OTHERS = {"maturin", "open-spiel", "mypy", "pyyaml", "redis-server", "chromium"}


def _files() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "deploy" / "Dockerfile", ROOT / "Makefile"]
    for folder, pattern in [
        ("docs", "**/*.md"),
        ("deploy", "**/*.md"),
        ("mk", "*.mk"),
        ("python/griot", "**/*.py"),
        ("services", "**/*.py"),
        ("workers", "**/*.py"),
        ("web", "*.md"),
    ]:
        found += [p for p in (ROOT / folder).glob(pattern) if "node_modules" not in p.parts]
    return sorted({p for p in found if p.is_file()})


def test_the_distribution_is_the_one_pyproject_builds() -> None:
    assert DISTRIBUTION == BUILT and SERVER_EXTRA == f"{BUILT}[server]"
    assert install_line("server") == f"pip install '{BUILT}[server]'"


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_install_line_names_the_built_distribution(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for pattern in (INSTALL, EXTRA):
        for m in pattern.finditer(text):
            name = m["name"]
            if name in OTHERS or name in (".", "-e") or name.startswith(("$", "{", ".[")):
                continue
            assert name == BUILT, f"{path.relative_to(ROOT)}: {m.group(0)!r} installs {name!r}, not {BUILT!r}"
