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

if TYPE_CHECKING:
    from griot import book, match

__all__ = ["app", "book_evaluator", "games_runner", "workers_options"]

F = TypeVar("F", bound=Callable[..., Any])


def workers_options(f: F) -> F:
    """``--workers``, ``--broker-url`` and ``--result-url``."""
    f = click.option(
        "--result-url", envvar="GRIOT_RESULT_URL", default="", help="Their result backend [GRIOT_RESULT_URL]."
    )(f)
    f = click.option(
        "--broker-url",
        envvar="GRIOT_BROKER_URL",
        default=settings.BROKER_URL,
        show_default=True,
        help="The workers' Celery broker (with --workers) [GRIOT_BROKER_URL].",
    )(f)
    return click.option("--workers", is_flag=True, help="Run on the Celery workers (the broker's URL).")(f)


def _need_celery() -> None:
    try:
        import celery  # noqa: F401
    except ModuleNotFoundError:
        raise click.ClickException("--workers needs celery: pip install 'griot[server]'") from None


def app(ctx: click.Context, broker_url: str, result_url: str) -> Any:
    """The Celery client app of the workers at ``broker_url``, closed with the command."""
    _need_celery()
    from griot.tasks.app import client_app

    # The task client's warnings while it retries an unreachable broker come every half second:
    # the command says once, at the end, what failed.
    logging.getLogger("griot.tasks").setLevel(logging.ERROR)
    client = client_app(broker_url, result_url)
    ctx.call_on_close(client.close)
    return client


def games_runner(ctx: click.Context, broker_url: str, result_url: str) -> match.GamesRunner:
    """A match's runner whose games are tasks on the workers at ``broker_url``."""
    client = app(ctx, broker_url, result_url)
    from griot.tasks.blocking import games_runner as runner

    return runner(client)


def book_evaluator(ctx: click.Context, broker_url: str, result_url: str, table_mb: int) -> book.Evaluator:
    """A book build's evaluator whose searches are tasks on the workers at ``broker_url``."""
    client = app(ctx, broker_url, result_url)
    from griot.tasks.blocking import book_evaluator as evaluator

    return evaluator(client, table_mb)
