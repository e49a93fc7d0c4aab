"""CLI commands of the search: ``griot analyze`` and ``griot bench``.

``register(group)`` adds them to the ``griot`` click group.
"""

from __future__ import annotations

import threading

import click
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

import griot
from griot import egdb
from griot._core import bench as _bench
from griot.positions import command_position, position_options

__all__ = ["analyze", "bench", "register"]


def _table(result: griot.SearchResult, multipv: int) -> Group:
    header = Text(
        f"depth {result.depth} (selective {result.seldepth}) · {result.nodes:,} nodes · "
        f"{result.nps:,} nodes/s · {result.time:.2f} s"
    )
    table = Table()
    table.add_column("move")
    table.add_column("score", justify="right")
    table.add_column("bound")
    table.add_column("line")
    shown = result.moves if multipv == 0 else result.moves[: max(multipv, 1)]
    for m in shown:
        table.add_row(m.move, str(m.score), m.bound, " ".join(m.pv))
    return Group(header, table)


@click.command()
@position_options
@click.option("--depth", "-d", type=click.IntRange(1, 120), default=None, help="Depth in turns.")
@click.option("--time", "-t", "seconds", type=click.FloatRange(0), default=None, help="Seconds.")
@click.option("--nodes", "-n", type=click.IntRange(1), default=None, help="Node limit.")
@click.option("--multipv", "-k", type=click.IntRange(0), default=1, help="Lines to score exactly (0 = all).")
@click.option("--hash", "hash_mb", type=click.IntRange(0), default=64, help="Table size in MB.")
@click.option(
    "--threads", type=click.IntRange(1, 256), default=1, show_default=True, help="Threads searching at once."
)
@click.option(
    "--gateway",
    "gateway",
    envvar="GRIOT_GATEWAY_TARGET",
    default=None,
    help="Gateway host:port; 'off' searches in this process. Default: the running "
    "`griot up`'s gateway, else this process [GRIOT_GATEWAY_TARGET].",
)
def analyze(
    words: tuple[str, ...],
    position: str | None,
    depth: int | None,
    seconds: float | None,
    nodes: int | None,
    multipv: int,
    hash_mb: int,
    threads: int,
    gateway: str | None,
) -> None:
    """Search a position and show every iteration as it completes: through the gateway when one
    runs (`griot up`), in this process otherwise. The position: a variant (its start), a whole
    position, or a variant and its body.

    Without --depth, --time or --nodes the search runs until Ctrl-C.
    """
    if depth is not None and seconds is not None:
        raise click.UsageError("give --depth or --time, not both")
    pos = command_position(words, position)
    console = Console()
    console.print(f"[bold]{pos}[/bold]")
    from griot.cli_analysis import evaluate_via_gateway, gateway_target

    target = gateway_target(gateway) if nodes is None and (depth or seconds) else None
    if target:
        evaluate_via_gateway(target, pos, depth, seconds, multipv, console)
        return
    db = _databases(pos, console)
    if db is not None:
        exact = db.probe(pos)
        if exact.kind != "out_of_range":
            line = f"[bold green]endgame database:[/bold green] {egdb.sentence(exact, pos)}"
            console.print(line, soft_wrap=True)
    stop = griot.SearchStop()
    box: dict[str, griot.SearchResult] = {}
    with Live(console=console, refresh_per_second=8, transient=False) as live:

        def progress(result: griot.SearchResult) -> None:
            box["last"] = result
            live.update(_table(result, multipv))

        def run() -> None:
            box["final"] = griot.search(
                pos,
                depth=depth,
                time=seconds,
                nodes=nodes,
                multipv=multipv,
                hash_mb=hash_mb,
                progress=progress,
                stop=stop,
                egdb=db,
                threads=threads,
            )

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.1)
        except KeyboardInterrupt:
            stop.set()
            worker.join()
        final = box.get("final")
        if final is not None:
            live.update(_table(final, multipv))
    if final is not None:
        if not console.is_terminal:
            console.line()  # a live display that is not a terminal ends without one
        console.print(
            f"best move [bold]{final.best_move}[/bold]  score {_score(final, pos, db)}  "
            f"pv {' '.join(final.pv)}"
        )


def _score(result: griot.SearchResult, pos: griot.Position, db: griot.Egdb | None) -> str:
    """The search's score as the last line shows it: a drawn value the databases prove is "draw"
    (the search's +0.00 reads as an even heuristic score beside the databases' "draw with best
    play"); any other score as the search gives it."""
    proven = egdb.exact(db, pos)
    if proven is not None and proven["result"] == "draw" and result.score.value == 0:
        return "draw (endgame database)"
    return str(result.score)


def _databases(pos: griot.Position, console: Console) -> griot.Egdb | None:
    """The endgame databases of ``pos``'s rule set in the default directory, if any are built; a
    damaged file is reported and the databases are not used."""
    try:
        db = egdb.open_databases(str(pos.variant), egdb.default_dir())
    except egdb.EgdbError as e:
        if "refused" in str(e):
            console.print(f"[yellow]endgame databases not used:[/yellow] {e}")
        return None
    return db if db.max_seeds is not None else None


@click.command()
def bench() -> None:
    """Search a fixed set of positions to fixed depths: the total node count is the search's
    signature (pinned by a test), with nodes per second."""
    console = Console()
    lines = _bench()
    table = Table(title="griot bench")
    for col in ("position", "depth", "nodes", "time (s)", "best", "score"):
        table.add_column(col, justify="right" if col in ("depth", "nodes", "time (s)") else "left")
    for line in lines:
        table.add_row(
            line["position"],
            str(line["depth"]),
            f"{line['nodes']:,}",
            f"{line['time']:.3f}",
            line["best"],
            line["score"],
        )
    console.print(table)
    total = sum(line["nodes"] for line in lines)
    seconds = sum(line["time"] for line in lines)
    console.print(f"nodes {total}")
    console.print(f"nps {int(total / seconds) if seconds > 0 else 0}")


def register(group: click.Group) -> None:
    """Adds ``analyze``, ``analyze-game`` and ``bench`` to the ``griot`` command group."""
    from griot.cli_analysis import analyze_game

    group.add_command(analyze)
    group.add_command(analyze_game)
    group.add_command(bench)
