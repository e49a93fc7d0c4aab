"""Fixtures of the gateway tests: one real stack per module (redis-server x2, two Celery worker
processes, the rules service, a gateway process), see ``gateway_stack``."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from gateway_stack import Gateway, Stack, make_stack, start_rules
from workers_stack import BROKERS, RABBITMQ


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
        s.stop()


@pytest.fixture(scope="session")
def gateway(stack: Stack) -> Iterator[Gateway]:
    g = Gateway(stack, ["--window", "4", "--default-depth", "6"]).start()
    try:
        yield g
    finally:
        g.stop()


@pytest.fixture(scope="session")
def rabbit_stack() -> Iterator[Stack]:
    """The workers' stack with RabbitMQ as Celery's broker (Redis for results and the cache), one
    worker: for the dispatcher's tests that go through the broker."""
    if RABBITMQ is None:
        pytest.skip("rabbitmq-server is not installed (make tools)")
    s = make_stack(broker_kind="rabbitmq")
    s.env["GRIOT_QUEUES"] = ""
    try:
        app = s.app()
        s.start_worker("gr1")
        s.wait_ready(app, 1)
        app.close()
        yield s
    finally:
        s.stop()


@pytest.fixture(params=BROKERS)
def broker_stack(request: pytest.FixtureRequest) -> Stack:
    """Each broker's stack in turn: Redis alone (``stack``), RabbitMQ and Redis (``rabbit_stack``)."""
    name = "stack" if request.param == "redis" else "rabbit_stack"
    s: Stack = request.getfixturevalue(name)
    return s
