"""The workers' runners of the blocking commands: ``griot match --workers`` and ``griot book build
--workers`` send their work to the Celery workers through the task client
(:class:`~griot.tasks.client.ClientRunner`):

- :func:`games_runner`: each game of a match is a ``griot.play_game`` task; results come back in
  the games' order;
- :func:`book_evaluator`: each search of a book's build is a ``griot.search_position`` task with
  a table of its own (``table_mb``), so the answers are the in-process searches'.

Both drive a :class:`ClientRunner` on an event loop in a thread of its own (:class:`_Tasks`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine, Generator, Sequence
from typing import Any

import griot
from griot import book as books
from griot import match
from griot.priority import Priority
from griot.tasks.args import PLAY_GAME, SEARCH_POSITION, game_args, position_args
from griot.tasks.client import ClientRunner, Task
from griot.tasks.errors import ClusterUnavailable, TaskFailed
from griot.tasks.outcome import TaskOutcome

__all__ = ["book_evaluator", "games_runner"]


class _Tasks:
    """A :class:`ClientRunner` on an event loop of its own thread, for blocking callers."""

    def __init__(self, app: Any, capacity: int = 2) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="griot-tasks", daemon=True)
        self.thread.start()
        self.runner = ClientRunner(app, capacity=capacity)
        self.call(self.runner.start())

    def submit(self, coro: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def call(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return self.submit(coro).result()

    def run(self, name: str, kwargs: dict[str, Any], kwargsrepr: str) -> concurrent.futures.Future[Any]:
        """Sends a task to the batch queue; its future gives the task's outcome."""

        async def run() -> TaskOutcome:  # the task's future belongs to the loop
            return await self.runner.run(Task(name, kwargs, Priority.BATCH.queue, kwargsrepr=kwargsrepr))

        return self.submit(run())

    def close(self) -> None:
        try:
            self.call(self.runner.close())  # cancels (revokes) the tasks still running
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()


def _result(future: concurrent.futures.Future[Any], what: str, error: type[Exception]) -> dict[str, Any]:
    """The result of a task that succeeded; ``error`` names a failed one or an unreachable cluster."""
    try:
        outcome: TaskOutcome = future.result()
    except ClusterUnavailable as e:
        raise error(f"{what}: {e}") from None
    if outcome.value is None:
        failure = outcome.error
        why = failure if isinstance(failure, TaskFailed) else f"{type(failure).__name__}: {failure}"
        raise error(f"{what} failed on the workers: {why}")
    return outcome.value


def games_runner(app: Any) -> match.GamesRunner:
    """A :data:`griot.match.GamesRunner` that plays each game as a ``griot.play_game`` task on
    ``app``'s workers, all sent at once (the workers' pools set the pace)."""

    def run(
        variant: griot.Variant,
        a: match.EngineSpec,
        b: match.EngineSpec,
        jobs: list[match.Job],
        repetitions: int,
    ) -> Generator[match.GameResult | None, None, None]:
        tasks = _Tasks(app)
        futures: list[concurrent.futures.Future[Any]] = []
        try:
            for n, (opening, a_south) in enumerate(jobs, start=1):
                south, north = (a, b) if a_south else (b, a)
                kwargs = game_args(
                    variant.canonical, opening, south.text, north.text, repetitions=repetitions
                )
                futures.append(tasks.run(PLAY_GAME, kwargs, f"game {n} of {len(jobs)}"))
            for n, ((opening, a_south), f) in enumerate(zip(jobs, futures, strict=True), start=1):
                r = _result(f, f"game {n}", match.MatchError)
                yield match.GameResult(
                    opening, a_south, list(r["moves"]), float(r["south_points"]), r["reason"]
                )
        finally:
            for f in futures:
                f.cancel()
            tasks.close()

    return run


def book_evaluator(app: Any, table_mb: int = books.BUILD_HASH_MB) -> books.Evaluator:
    """A :data:`griot.book.Evaluator` that runs each search as a ``griot.search_position`` task
    with a new table of ``table_mb`` MB on ``app``'s workers, a batch at once."""

    def evaluate(requests: Sequence[books.EvalRequest]) -> list[books.EvalResult]:
        if not requests:
            return []
        tasks = _Tasks(app)
        try:
            futures = []
            for r in requests:
                variant = griot.Position(r.position).variant.canonical
                kwargs = position_args(
                    variant, r.position, depth=r.depth, multipv=r.multipv, table_mb=table_mb
                )
                futures.append(tasks.run(SEARCH_POSITION, kwargs, f"book depth {r.depth}"))
            out = []
            for r, f in zip(requests, futures, strict=True):
                res = _result(f, f"the search of {r.position}", books.BookError)
                if not res.get("complete", False):
                    # Stopped by the soft time limit: a shallower value has no place in the book.
                    raise books.BookError(
                        f"the search of {r.position} did not finish depth {r.depth} in the workers' "
                        "time limit (GRIOT_TASK_SOFT_LIMIT)"
                    )
                moves = [(str(m["move"]), int(m["value"])) for m in res.get("moves", [])]
                out.append(books.EvalResult(res.get("best"), int(res["value"]), moves))
            return out
        finally:
            tasks.close()

    return evaluate
