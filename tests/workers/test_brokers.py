"""The worker paths that go through Celery's broker, on each broker Griot runs on: Redis alone, and
RabbitMQ as the broker with Redis as the result backend (and cache). The distributed search
(worker-direct queues), the two priority queues, the command line's own Celery client, a cancel
(revoke over the broker's control channel plus the cancel key), and what ``griot status`` reads
(queue lengths, the workers answering a ping)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import griot
import pytest
import redis
from celery.exceptions import TaskRevokedError
from griot import monitor, redis_keys
from griot.broker import task_queues
from griot.monitor import queue_lengths
from griot.tasks.app import client_app
from griot.tasks.args import SEARCH_POSITION, position_args
from griot.tasks.distributed import ClusterSearch
from kombu import Connection
from workers_stack import BROKERS, RABBITMQ, Stack, make_stack

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module", params=BROKERS)
def broker_stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    if request.param == "rabbitmq" and RABBITMQ is None:
        pytest.skip("rabbitmq-server is not installed (make tools)")
    s = make_stack(broker_kind=request.param)
    try:
        app = s.app()
        s.start_worker("b1")
        s.start_worker("b2")
        s.wait_ready(app, 2)
        app.close()
        yield s
    finally:
        s.stop()


def test_the_stack_uses_the_broker_it_names(broker_stack: Stack) -> None:
    app = broker_stack.app()
    scheme = "amqp" if broker_stack.rabbit is not None else "redis"
    assert app.conf.broker_url.startswith(scheme) and broker_stack.result_url.startswith("redis")
    app.close()


def test_distributed_search_equals_the_in_process_value(broker_stack: Stack) -> None:
    """Subtrees go to any worker and back to the one that searched them (its own queue)."""
    app = broker_stack.app()
    cs = ClusterSearch(app, capacity=2, split=2, direct_depth=3, min_task_depth=2)
    for pos in (griot.Variant("abapa").start(), griot.Variant("awale").start().play("c")):
        with redis.Redis.from_url(broker_stack.cache.url) as cache:
            cache.flushdb()
        ref = griot.search(pos, depth=7)
        got = cs.search(pos, 7, time_limit=120)
        assert got.depth == 7 and got.value == ref.score.value, (str(pos), got, ref)
    assert cs.stats.sent > 0
    app.close()


def test_both_priority_queues_are_served(broker_stack: Stack) -> None:
    app = broker_stack.app()
    pos = str(griot.Variant("abapa").start())
    kwargs = position_args("abapa", pos, depth=4)
    results = [app.send_task(SEARCH_POSITION, kwargs=kwargs, queue=q.name) for q in task_queues()]
    assert [r.get(timeout=60)["depth"] for r in results] == [4, 4]
    app.close()


def test_queues_are_declared_alike_by_every_party(broker_stack: Stack) -> None:
    """The caller's own app (the command line's) publishes to the queues the workers declared:
    on RabbitMQ a declaration with other arguments would be refused."""
    app = client_app(broker_stack.broker_url, broker_stack.result_url)
    try:
        r = app.send_task(
            SEARCH_POSITION, kwargs=position_args("awale", str(griot.Variant("awale").start()), depth=3)
        )
        assert r.get(timeout=60)["depth"] == 3
    finally:
        app.close()
    if broker_stack.rabbit is not None:
        # The queue carries x-max-priority: RabbitMQ refuses to declare it again without.
        with Connection(broker_stack.broker_url) as conn:  # type: ignore[no-untyped-call]
            channel = conn.channel()
            with pytest.raises(conn.channel_errors, match="PRECONDITION_FAILED"):
                channel.queue_declare(queue="griot.interactive", durable=True)


def test_a_cancelled_search_is_revoked_and_stops(broker_stack: Stack) -> None:
    """A cancel as the callers send it (:func:`griot.tasks.client.cancel` without forgetting the
    result): the revoke reaches the worker over the broker's control channel (the task ends
    ``REVOKED``) and the cancel key stops the running search (its alive key is no longer renewed)."""
    app = broker_stack.app()
    pos = str(griot.Variant("awale").start())
    kwargs = position_args("awale", pos, depth=60)
    r = app.send_task(SEARCH_POSITION, kwargs=kwargs, queue="griot.interactive")
    backend = redis.Redis.from_url(broker_stack.result_url)
    alive = redis_keys.ALIVE_PREFIX + r.id
    deadline = time.monotonic() + 60
    while not backend.exists(alive):  # running on a worker
        assert time.monotonic() < deadline, "the task never started"
        time.sleep(0.05)
    # Every worker holds the revoke before the cancel key stops the search: a search stopped first
    # would end as a plain result, not REVOKED.
    replies = app.control.revoke([r.id], reply=True, timeout=30, limit=2)
    assert len(replies) == 2, replies
    backend.set(redis_keys.CANCEL_PREFIX + r.id, b"1", px=600_000)
    with pytest.raises(TaskRevokedError):
        r.get(timeout=60)
    while backend.exists(alive):
        assert time.monotonic() < deadline, "the cancelled search still runs"
        time.sleep(0.1)
    backend.close()
    app.close()


def test_queue_lengths_come_from_the_broker(broker_stack: Stack) -> None:
    """``griot status``'s queue lengths (kombu's passive declaration), for tasks nobody takes."""
    app = broker_stack.app()
    queue = "griot.test-nobody-lengths"
    before = queue_lengths(broker_stack.broker_url, (queue,))
    assert before == {queue: 0}
    for _ in range(3):
        app.send_task(SEARCH_POSITION, kwargs=position_args("abapa", "x", depth=1), queue=queue)
    lengths = queue_lengths(broker_stack.broker_url, (queue, "griot.interactive"))
    assert lengths == {queue: 3, "griot.interactive": 0}
    app.close()


def test_status_reports_the_broker_its_queues_and_workers(broker_stack: Stack) -> None:
    report = monitor.collect(
        rules=None, gateway=None, broker_url=broker_stack.broker_url, cache_url=broker_stack.cache.url
    )
    broker = next(r for r in report.redis if r.role == "broker")
    assert broker.ok, broker.error
    assert set(report.queues) == {q.name for q in task_queues()}
    assert len(report.workers or []) == 2, report.workers_note
    assert report.healthy
