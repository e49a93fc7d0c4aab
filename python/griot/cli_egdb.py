"""``griot egdb build`` and ``griot egdb probe``: endgame databases (docs/EGDB.md).

``register(group)`` adds the ``egdb`` group to the ``griot`` click group.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from griot import egdb, settings
from griot.distribution import install_line
from griot.positions import command_position, position_options

__all__ = ["egdb_group", "register"]

_DIR_HELP = "Directory of the databases [GRIOT_EGDB_DIR, default ~/.cache/griot/egdb]."


DEFAULT_BROKER = settings.BROKER_URL


def _running_up() -> dict[str, Any]:
    """The running ``griot up``'s endpoints, or nothing."""
    from griot import launcher

    return launcher.read_state() or {}


def _dir(directory: str | None) -> Path:
    return Path(directory) if directory else egdb.default_dir()


@click.group("egdb")
def egdb_group() -> None:
    """Endgame databases: exact results with best play, by retrograde analysis."""


@egdb_group.command("build")
@click.argument("variant")
@click.option("--seeds", "-s", type=click.IntRange(0, 63), required=True, help="Most seeds on the board.")
@click.option("--local", is_flag=True, help="Build in this process instead of across the workers.")
@click.option("--chunks", type=click.IntRange(1), default=8, help="Chunks a level is split into (workers).")
@click.option(
    "--threads",
    type=click.IntRange(1),
    default=None,
    help="Threads expanding a level (--local; default: one a core).",
)
@click.option("--dir", "directory", envvar="GRIOT_EGDB_DIR", default=None, help=_DIR_HELP)
@click.option(
    "--broker-url",
    envvar="GRIOT_BROKER_URL",
    default=None,
    help="The workers' Celery broker [GRIOT_BROKER_URL; default: the running `griot up`'s, else "
    f"{settings.BROKER_URL}].",
)
@click.option(
    "--result-url", envvar="GRIOT_RESULT_URL", default="", help="Their result backend [GRIOT_RESULT_URL]."
)
def build(
    variant: str,
    seeds: int,
    local: bool,
    chunks: int,
    threads: int | None,
    directory: str | None,
    broker_url: str | None,
    result_url: str,
) -> None:
    """Build VARIANT's levels 0..SEEDS, keeping the levels already built (resumable): across the
    Celery workers (the broker's URL; DIR must be visible to every worker at the same path), or in
    this process with --local."""
    console = Console()
    # Unnamed, the workers are the running `griot up`'s, and so is the directory they read.
    up = _running_up() if broker_url is None and not local else {}
    broker = broker_url or str(up.get("broker_url") or DEFAULT_BROKER)
    if directory is None and up.get("egdb_dir"):
        directory = str(up["egdb_dir"])
    where = _dir(directory)
    if not local:
        try:
            import celery  # noqa: F401
        except ModuleNotFoundError:
            raise click.ClickException(
                f"building across the workers needs celery: {install_line('server')}, or use --local"
            ) from None
        from griot.egdb_build import build as build_across
        from griot.tasks.app import client_app
        from griot.unreachable import START_HINT, check_broker

        check_broker(broker, result_url, f"{START_HINT}, give --broker-url, or build here with --local")

        def report(e: dict[str, Any]) -> None:
            if e["event"] == "pass":
                console.print(f"level {e['seeds']:3}: pass {e['pass']}, {e['changed']} chunks changed")
            elif e["event"] in ("kept", "written"):
                console.print(f"level {e['seeds']:3}: {e['event']} ({e['positions']:,} positions)")

        app = client_app(broker, result_url)
        try:
            build_across(app, variant, seeds, where, chunks=chunks, progress=report)
        finally:
            app.close()
        console.print(f"databases in {where}")
        return
    tasks: dict[int, Any] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as bar:

        def progress(e: dict[str, Any]) -> None:
            s = e["seeds"]
            if e["event"] == "kept":
                bar.console.print(f"level {s:3}: kept ({e['positions']:,} positions)")
            elif e["event"] == "started":
                tasks[s] = bar.add_task(f"level {s:3}", total=e["positions"])
            elif e["event"] == "expanded":
                bar.update(tasks[s], completed=e["done"])
            elif e["event"] == "written":
                bar.remove_task(tasks.pop(s))
                rate = e["positions"] / max(e["millis"], 1) * 1000
                bar.console.print(
                    f"level {s:3}: {e['positions']:,} positions in {e['millis'] / 1000:.2f} s "
                    f"({rate:,.0f}/s), {e['passes']} passes, {e['cycle_valued']:,} valued by a cycle"
                )

        egdb.build(variant, seeds, where, progress, threads=threads)
    console.print(f"databases in {where}")


@egdb_group.command("probe")
@position_options
@click.option("--dir", "directory", envvar="GRIOT_EGDB_DIR", default=None, help=_DIR_HELP)
@click.option("--moves", is_flag=True, help="Also each legal move's result, best first.")
def probe(words: tuple[str, ...], position: str | None, directory: str | None, moves: bool) -> None:
    """Print a position's result with best play, e.g. "South wins by 4 with best play" (exact unless
    it says a repetition may decide otherwise). The position: whole, or a variant and its body."""
    pos = command_position(words, position)
    db = egdb.open_databases(str(pos.variant), _dir(directory))
    click.echo(egdb.sentence(db.probe(pos), pos))
    if not moves:
        return
    rows: list[tuple[tuple[int, int], str, str]] = []
    for mv in pos.legal_moves():
        child = pos.play(mv)
        p = db.probe(child)
        # The mover's final lead after this move with best play from there, at the two bounds
        # (one number unless the child is valued by a cycle): the order of the list, best first.
        bounds = egdb.leads(p, child)
        if bounds is None:
            rows.append(((-(10**9), -(10**9)), str(mv), egdb.sentence(p, child)))
            continue
        if child.side_to_move != pos.side_to_move:
            bounds = (-bounds[1], -bounds[0])
        rows.append(((bounds[1], bounds[0]), str(mv), egdb.sentence(p, child)))
    rows.sort(key=lambda r: r[0], reverse=True)
    for _, label, text in rows:
        click.echo(f"  {label}: {text}")


def register(group: click.Group) -> None:
    """Adds ``egdb`` to ``group``."""
    group.add_command(egdb_group)
