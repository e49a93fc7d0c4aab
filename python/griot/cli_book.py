"""``griot book build`` and ``griot book probe``: opening books (docs/BOOKS.md).

``register(group)`` adds the ``book`` group to the ``griot`` click group.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

import griot
from griot import book as books
from griot import cli_workers
from griot.positions import command_position, position_options

__all__ = ["book_group", "register"]


@click.group("book")
def book_group() -> None:
    """Opening books: the first turns' best moves, by deep searches backed up by minimax."""


@book_group.command("build")
@click.argument("variant")
@click.option(
    "--plies", type=click.IntRange(1, 30), required=True, help="Turns from the start the book holds."
)
@click.option("--depth", type=click.IntRange(1, 120), required=True, help="Depth of the leaves' searches.")
@click.option(
    "--width",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Moves expanded at each position, the best by a search to half the depth (0: every move).",
)
@click.option(
    "--hash",
    "hash_mb",
    type=click.IntRange(1, 4096),
    default=books.BUILD_HASH_MB,
    show_default=True,
    help="MB of each search's table.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The book's file [default: VARIANT-pPLIES-dDEPTH.book].",
)
@cli_workers.workers_options
@click.pass_context
def build(
    ctx: click.Context,
    variant: str,
    plies: int,
    depth: int,
    width: int,
    hash_mb: int,
    out: Path | None,
    workers: bool,
    broker_url: str | None,
    result_url: str,
) -> None:
    """Build VARIANT's opening book to PLIES turns, its leaves searched to DEPTH: in this process,
    or with --workers as search tasks on the Celery workers (the same book)."""
    canonical = griot.Variant(variant).canonical
    target = out or Path(f"{canonical}-p{plies}-d{depth}.book")
    evaluate: books.Evaluator
    if workers:
        evaluate = cli_workers.book_evaluator(ctx, broker_url, result_url, hash_mb)
    else:
        evaluate = books.local_evaluator(hash_mb)

    def report(e: dict[str, Any]) -> None:
        if e["event"] == "expanded":
            click.echo(f"ply {e['ply']}: {e['positions']} positions")
        elif e["event"] == "leaves":
            click.echo(f"searching {e['positions']} leaves to depth {depth}")

    try:
        book = books.build(canonical, plies, depth, evaluate, width=width, progress=report)
        book.write(target)
    except (books.BookError, OSError) as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"{len(book)} positions in {target}")


@book_group.command("probe")
@position_options
@click.option(
    "--book",
    "book_path",
    type=click.Path(exists=True, dir_okay=False),
    required=True,
    help="The book's file.",
)
def probe(words: tuple[str, ...], position: str | None, book_path: str) -> None:
    """Print a position's book move and value, or say that the book does not hold it. The
    position: whole, or a variant and its body."""
    try:
        book = books.Book.load(book_path)
    except books.BookError as e:
        raise click.ClickException(str(e)) from None
    pos = command_position(words, position)
    entry = book.probe(pos)
    if entry is None:
        click.echo("not in the book")
        return
    click.echo(f"{entry.best} {griot.Score(entry.value)} (depth {entry.depth})")


def register(group: click.Group) -> None:
    """Adds ``book`` to ``group``."""
    group.add_command(book_group)
