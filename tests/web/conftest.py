"""Fixtures shared by the endpoint tests and the browser tests: the real stack (upstack.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from upstack import GriotStack, run_stack


@pytest.fixture(scope="session")
def griot_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GriotStack]:
    """What `griot up` starts, small (one worker, a shallow gateway), on free loopback ports."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (`make test` installs it)")
    with run_stack(tmp_path_factory.mktemp("griot-up")) as stack:
        yield stack
