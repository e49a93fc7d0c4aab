"""Shared pytest setup: makes tests/ importable (reference implementations, helpers)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long cross-checks (``slow``) run for minutes each on a loaded machine: they get 30
    minutes instead of the default per-test timeout, unless they set their own."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(1800))
