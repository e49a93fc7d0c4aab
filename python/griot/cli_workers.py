"""The ``--workers`` options of the commands whose work the Celery workers can do (``griot match``,
``griot book build``).

The library does not import the workers' package (their task client lives there), so such a
command, given ``--workers``, runs ``python -m griot.workers.cli`` with its own arguments, as
``griot up`` runs the servers by module name; that module runs the same command with its runners
in ``ctx.obj`` (:func:`runner`), and the command then uses them.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["WORKERS_MODULE", "app", "rerun_on_workers", "runner", "workers_options"]

#: The module that runs the ``griot`` command with the workers' runners.
WORKERS_MODULE = "griot.workers.cli"

F = TypeVar("F", bound=Callable[..., Any])


def workers_options(f: F) -> F:
    """``--workers``, ``--broker-url`` and ``--result-url``."""
    f = click.option(
        "--result-url", envvar="GRIOT_RESULT_URL", default="", help="Their result backend [GRIOT_RESULT_URL]."
    )(f)
    f = click.option(
        "--broker-url",
        envvar="GRIOT_BROKER_URL",
        default="redis://127.0.0.1:6379/0",
        show_default=True,
        help="The workers' Celery broker (with --workers) [GRIOT_BROKER_URL].",
    )(f)
    return click.option("--workers", is_flag=True, help="Run on the Celery workers (the broker's URL).")(f)


def runner(ctx: click.Context, name: str) -> Callable[..., Any] | None:
    """The runner ``name`` the workers' module put in ``ctx.obj``; None when this process is the
    plain ``griot`` command."""
    obj = ctx.find_root().obj
    found = obj.get(name) if isinstance(obj, dict) else None
    return found if callable(found) else None


def _need_celery() -> None:
    try:
        import celery  # noqa: F401
    except ModuleNotFoundError:
        raise click.ClickException("--workers needs celery: pip install 'griot[server]'") from None


def app(broker_url: str, result_url: str) -> Any:
    """The Celery client app of the workers at ``broker_url``."""
    _need_celery()
    from griot.broker import client_app

    return client_app(broker_url, result_url)


def _options(level: click.Context) -> list[str]:
    args: list[str] = []
    for p in level.command.params:
        value = level.params.get(p.name or "")
        if not isinstance(p, click.Option) or value is None or p.name == "workers":
            continue
        flag = max(p.opts, key=len)
        if p.is_flag:
            args += [flag] if value else []
        elif p.multiple:
            for v in value:
                args += [flag, str(v)]
        else:
            args += [flag, str(value)]
    return args


def _argv(ctx: click.Context) -> list[str]:
    """The command line that gives ``ctx``'s command (and its groups' options) its parameters,
    with ``--workers``; the arguments last, after ``--``."""
    chain: list[click.Context] = []
    c: click.Context | None = ctx
    while c is not None:
        chain.append(c)
        c = c.parent
    args: list[str] = []
    for level in reversed(chain):
        if level.parent is not None:
            args.append(level.info_name or level.command.name or "")
        args += _options(level)
    positional: list[str] = []
    for p in ctx.command.params:
        if isinstance(p, click.Argument):
            value = ctx.params.get(p.name or "")
            positional += [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]
    return [*args, "--workers", "--", *positional]


def rerun_on_workers(ctx: click.Context) -> None:
    """Runs this command in the workers' module (its output passed through) and exits with its
    status."""
    _need_celery()
    argv = [sys.executable, "-m", WORKERS_MODULE, *_argv(ctx)]
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            click.echo(line, nl=False)
    ctx.exit(proc.returncode)


def on_workers(
    ctx: click.Context, name: str, broker_url: str, result_url: str
) -> tuple[Callable[..., Any], Any] | None:
    """For a command run with --workers: the workers' runner ``name`` and a client app of the
    workers at ``broker_url``, closed with the command. None when this process is the plain
    ``griot`` command: it has then run the command again in the workers' module, and the caller
    returns."""
    make = runner(ctx, name)
    if make is None:
        rerun_on_workers(ctx)
        return None
    client = app(broker_url, result_url)
    ctx.call_on_close(client.close)
    return make, client
