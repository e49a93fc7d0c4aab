"""The ``--workers`` options of the commands whose work the Celery workers can do (``griot match``,
``griot book build``), and their runners on the workers (:mod:`griot.tasks.blocking`).

Celery comes with the ``server`` extra: it is imported only when a command is given ``--workers``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from griot import settings
from griot.distribution import install_line

if TYPE_CHECKING:
    from griot import book, match

__all__ = ["app", "book_evaluator", "broker_of", "games_runner", "workers_options"]

F = TypeVar("F", bound=Callable[..., Any])


def workers_options(f: F) -> F:
    """``--workers``, ``--broker-url`` and ``--result-url``."""
    f = click.option(
        "--result-url", envvar="GRIOT_RESULT_URL", default="", help="Their result backend [GRIOT_RESULT_URL]."
    )(f)
    f = click.option(
        "--broker-url",
        envvar="GRIOT_BROKER_URL",
        default=None,
        help="The workers' Celery broker (with --workers) [GRIOT_BROKER_URL; default: the running "
        f"`griot up`'s, else {settings.BROKER_URL}].",
    )(f)
    return click.option("--workers", is_flag=True, help="Run on the Celery workers (the broker's URL).")(f)


def broker_of(broker_url: str | None) -> str:
    """The broker named, else the running ``griot up``'s, else :data:`griot.settings.BROKER_URL`."""
    if broker_url:
        return broker_url
    from griot import launcher

    return str((launcher.read_state() or {}).get("broker_url") or settings.BROKER_URL)


def _need_celery() -> None:
    try:
        import celery  # noqa: F401
    except ModuleNotFoundError:
        raise click.ClickException(f"--workers needs celery: {install_line('server')}") from None


def app(ctx: click.Context, broker_url: str | None, result_url: str) -> Any:
    """The Celery client app of the workers at ``broker_url`` (:func:`broker_of`), closed with the
    command; :class:`~griot.unreachable.Unreachable` when that broker does not answer."""
    _need_celery()
    from griot.tasks.app import client_app

    broker = broker_of(broker_url)
    # Celery would retry an unreachable broker for half a minute and then print its own
    # multi-line message: a broker that refuses a connection is one line before any task is sent.
    from griot.unreachable import START_HINT, check_broker

    check_broker(broker, result_url, f"{START_HINT}, or give --broker-url")
    # The task client's warnings while it retries an unreachable broker come every half second:
    # the command says once, at the end, what failed.
    logging.getLogger("griot.tasks").setLevel(logging.ERROR)
    client = client_app(broker, result_url)
    ctx.call_on_close(client.close)
    return client


def games_runner(ctx: click.Context, broker_url: str | None, result_url: str) -> match.GamesRunner:
    """A match's runner whose games are tasks on the workers at ``broker_url``."""
    client = app(ctx, broker_url, result_url)
    from griot.tasks.blocking import games_runner as runner

    return runner(client)


def book_evaluator(
    ctx: click.Context, broker_url: str | None, result_url: str, table_mb: int
) -> book.Evaluator:
    """A book build's evaluator whose searches are tasks on the workers at ``broker_url``."""
    client = app(ctx, broker_url, result_url)
    from griot.tasks.blocking import book_evaluator as evaluator

    return evaluator(client, table_mb)
