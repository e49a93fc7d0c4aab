"""The broker's host restarted, in a lab of its own with RabbitMQ as the broker (the results stay in
the cache Redis, as deploy/README.md's RabbitMQ variant has them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from griot.lab import Lab, LabShape
from griot.lab.netns import lab_namespaces

from .conftest import LAB_ENV, analysis_through_fault, need_lab
from .conftest import PREFIX as LAB_PREFIX

pytestmark = pytest.mark.timeout(420)

PREFIX = LAB_PREFIX + "r-"


@pytest.fixture(scope="module")
def rabbit_lab() -> Iterator[Lab]:
    need_lab()
    with Lab(LabShape(workers=2, gateways=1, broker="rabbitmq"), prefix=PREFIX, env=LAB_ENV) as lab:
        yield lab
    assert lab_namespaces(PREFIX) == []


def test_the_broker_host_restarts_during_a_game_analysis(rabbit_lab: Lab) -> None:
    """A whole-game analysis runs when the RabbitMQ host dies and starts again on its own disk. The
    workers and the gateway connect again (Celery's and Kombu's retries); the tasks the broker held
    come back from its durable queues and those it had handed out come back unacknowledged, and
    the gateway sends again what it could not publish meanwhile. The client sees its analysis
    complete (at worst an UNAVAILABLE it resumes by the job's id), with the report an uninterrupted
    run gives: every turn analysed, none lost."""
    lab = rabbit_lab

    def restart_broker() -> None:
        lab.kill("broker")
        lab.restart("broker", timeout=120)

    analysis_through_fault(lab, 12, restart_broker, timeout=300)
