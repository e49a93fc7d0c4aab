"""The README's examples run as written: each ```python block is a doctest session, and each ```sh
block says how it is checked in the comment above it (``<!-- readme-test: KIND -->``): ``run``
blocks run here, line by line; ``with griot up`` blocks run against a started stack, and ``worker
with griot up`` joins one until stopped (tests/ops/test_up.py); ``newcomer`` is the install a
newcomer does (tests/ops/test_newcomer.py); ``make`` is a checkout's two commands (``make up`` runs
in tests/ops/test_up.py, ``make test`` is what CI runs); ``manual`` says why a block is not run."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
SHELL = re.compile(r"(?:<!-- readme-test: (?P<kind>[^>]*?) -->\n)?```sh\n(?P<body>.*?)```", re.S)
KINDS = ("run", "with griot up", "worker with griot up", "newcomer", "make", "manual")


def shell_blocks(kind: str) -> list[str]:
    """The README's shell blocks of one kind, each as its command lines."""
    return [m["body"] for m in SHELL.finditer(README) if (m["kind"] or "").split(" (")[0] == kind]


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_a_readme_python_block_runs(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # examples name files by their path in the repository
    test = doctest.DocTestParser().get_doctest(BLOCKS[index], {}, f"README block {index}", "README.md", 0)
    assert test.examples, f"block {index} has no >>> examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"README block {index} failed (see the output above)"


def test_every_shell_block_says_how_it_is_checked() -> None:
    found = list(SHELL.finditer(README))
    assert len(found) >= 5
    for m in found:
        kind = (m["kind"] or "").split(" (")[0]
        assert kind in KINDS, f"a shell block without a known readme-test comment:\n{m['body']}"
        if kind == "manual":
            assert "(" in (m["kind"] or ""), "a manual block says why it is not run"
    assert shell_blocks("run") and shell_blocks("with griot up") and shell_blocks("newcomer")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("index", range(len(shell_blocks("run"))))
def test_a_readme_shell_block_runs(index: int, tmp_path: Path) -> None:
    """Each line in a fresh, empty folder (the example files come from `griot examples`, as for a
    user of the wheel), with no `griot up` running (the commands that could use one run in
    process), stopped by the first failing line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env["GRIOT_STATE_FILE"] = str(tmp_path / "no-griot-up.json")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    for line in shell_blocks("run")[index].splitlines():
        if not line.strip():
            continue
        result = subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, f"{line}\n{result.stdout}\n{result.stderr}"
        assert result.stdout.strip() and "Traceback" not in result.stderr, (line, result.stderr)


def test_the_make_block_is_the_two_commands_ci_and_the_up_test_run() -> None:
    """``make test`` is the command CI runs (``.ci/run``); ``make up`` runs in tests/ops/test_up.py."""
    (block,) = shell_blocks("make")
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["make up", "make test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "make test" in [line.strip() for line in ci]
