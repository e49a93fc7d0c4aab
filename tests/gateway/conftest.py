"""Fixtures of the gateway tests: one real stack per module (redis-server x2, two Celery worker
processes, the rules service, a gateway process), see ``gateway_stack``."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from gateway_stack import Gateway, Stack, make_stack, start_rules


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    s = make_stack()
    s.env["GRIOT_QUEUES"] = ""
    app = s.app()
    s.start_worker("gw1")
    s.start_worker("gw2")
    s.wait_ready(app, 2)
    app.close()
    rules, target = start_rules(s)
    s.env["GRIOT_RULES_TARGET"] = target
    try:
        yield s
    finally:
        os.killpg(rules.pid, signal.SIGTERM)
        rules.wait(timeout=10)
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


@pytest.fixture(scope="session")
def gateway(stack: Stack) -> Iterator[Gateway]:
    g = Gateway(stack, ["--window", "4", "--default-depth", "6"]).start()
    try:
        yield g
    finally:
        g.stop()
