"""bench/rules_load.py's own parts against the real in-process rules server: the Python load
generator plays random games of every family without errors, percentiles are nearest-rank, and
the CPU accounting reads a process tree's time from /proc."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ServerHandle

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rules_load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rules_load", ROOT / "bench" / "rules_load.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rules_load"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_percentile_is_nearest_rank(rules_load: ModuleType) -> None:
    values = [float(i) for i in range(1, 101)]
    assert rules_load.percentile(values, 0.50) == 50.0
    assert rules_load.percentile(values, 0.99) == 99.0
    assert rules_load.percentile([3.0], 0.99) == 3.0
    assert rules_load.percentile([], 0.5) != rules_load.percentile([], 0.5)  # NaN


def test_python_generator_plays_every_family_without_errors(
    rules_load: ModuleType, rules_server: ServerHandle
) -> None:
    variants = ["awale", "abapa(holes=4)", "bechi", "ikibuguzo", "sabouiyya"]
    requests, errors, answered, latencies = asyncio.run(
        rules_load._client_process_main(rules_server.target, 4, 0.6, 0.2, variants, seed=3, channels=2)
    )
    assert errors == 0
    assert requests == len(latencies) > 0
    assert answered >= requests  # warm-up calls are answered but not counted
    assert all(ms > 0 for ms in latencies)


#: The child burns this much CPU, then says so and waits to be measured.
_SPIN = """
import sys, time
while time.process_time() < 0.2:
    pass
print("spun", flush=True)
sys.stdin.read()
"""


def test_process_tree_cpu_counts_children(rules_load: ModuleType) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _SPIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline() == "spun\n"
        own = rules_load.process_tree_cpu_seconds(child.pid)
        tree = rules_load.process_tree_cpu_seconds(os.getpid())
    finally:
        child.stdin.close()
        child.wait()
        child.stdout.close()
    assert own >= 0.19  # its 0.2 s of CPU, to the clock tick
    assert tree > own  # this process's tree: its own CPU plus the child's
