"""The search tasks: each checks its plain-data arguments against the schema its callers build them
with (:mod:`griot.tasks.args`) and runs the native search (:mod:`griot.workers.runner`:
the GIL released, stopped by the soft time limit or the caller's cancel key, alive while it runs).

- ``griot.search_subtree`` (:class:`~griot.tasks.args.SubtreeArgs`): one subtree of a
  distributed search, with a window; returns the fail-soft value and its bound.
- ``griot.search_position`` (:class:`~griot.tasks.args.PositionArgs`): a whole search of a
  position (best move, score, line, per-move scores), for shallow or batch work; with
  ``progress`` its completed depths are reported in Redis as they come; with ``table_mb`` it is
  a search of its own (a new table, no shared cache): the in-process search's answer.
- ``griot.play_game`` (:class:`~griot.tasks.args.GameArgs`): one game of a match between
  two configurations of the engine (``griot match --workers``).

Bad arguments raise :class:`~griot.tasks.errors.BadTaskArguments` (listed in ``throws``: no retry,
no traceback noise); Redis or broker failures are retried with backoff (:class:`GriotTask`).

The remote control command ``griot_databases`` (``app.control.broadcast("griot_databases",
reply=True)``, what ``griot status`` asks) answers the endgame databases the worker opened at start
from ``GRIOT_EGDB_DIR``: ``{"dir": ..., "databases": [{"rules": "abapa(holes=6)", "max_seeds":
20}, ...]}`` (a refused rule set has ``error`` instead of ``max_seeds``).
"""

from __future__ import annotations

from typing import Any, Unpack

import redis
from celery import Task, signals
from celery.worker.control import inspect_command
from griot.tasks.args import (
    PLAY_GAME,
    SEARCH_POSITION,
    SEARCH_SUBTREE,
    GameArgs,
    PositionArgs,
    SubtreeArgs,
    check_game,
    check_position,
    check_subtree,
)
from griot.tasks.errors import BadTaskArguments
from griot.workers import runner
from griot.workers.app import app
from griot.workers.errors import InfrastructureError


class GriotTask(Task):  # type: ignore[misc]
    """Retries infrastructure failures with backoff; bad input fails at once."""

    autoretry_for = (InfrastructureError, redis.ConnectionError, redis.TimeoutError)
    retry_backoff = True
    retry_backoff_max = 10
    retry_jitter = True
    max_retries = 5
    throws = (BadTaskArguments,)
    acks_late = True
    reject_on_worker_lost = True


@app.task(base=GriotTask, name=SEARCH_SUBTREE, bind=True)
def search_subtree(self: Task, **kwargs: Unpack[SubtreeArgs]) -> dict[str, Any]:
    """A subtree of a distributed search, searched with a window: ``value``, ``bound``
    (``exact``/``lower``/``upper``), ``depth`` reached, ``complete``, ``best``, ``pv``, ``nodes``,
    timings and where the answer came from (``search``, ``cache``, ``inflight``)."""
    return runner.subtree(check_subtree(kwargs), self.request)


@app.task(base=GriotTask, name=SEARCH_POSITION, bind=True)
def search_position(self: Task, **kwargs: Unpack[PositionArgs]) -> dict[str, Any]:
    """A whole search of a position: best move, score, line and per-move scores, ``complete``,
    timings and the worker that ran it."""
    return runner.position(check_position(kwargs), self.request)


@signals.worker_init.connect
def _open_databases(**_: Any) -> None:
    # Before the pool forks: every pool process inherits the opened (mapped, checked) levels.
    runner.loaded_databases().load_all()


@inspect_command(name="griot_databases")
def griot_databases(state: Any) -> dict[str, Any]:
    """The endgame databases this worker opened: its directory and each rule set's levels."""
    dbs = runner.loaded_databases()
    return {"dir": str(dbs.directory), "databases": dbs.loaded()}


@app.task(base=GriotTask, name=PLAY_GAME, bind=True)
def play_game(self: Task, **kwargs: Unpack[GameArgs]) -> dict[str, Any]:
    """One game of a match: ``moves`` (from the start, the opening included), ``south_points``
    (1, 1/2 or 0), ``reason`` (how it ended), timings and the worker that played it."""
    return runner.game(check_game(kwargs), self.request)
