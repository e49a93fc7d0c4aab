"""The ``griot`` command line: variants, rules, boards, perft (and more as services land)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import griot
from griot import cli_ops, cli_workers, unreachable
from griot.launch.components import SERVER_EXTRA, SystemNameError
from griot.positions import command_position, position_options
from griot.render import board_table, describe

console = Console()
errors = Console(stderr=True, soft_wrap=True, highlight=False)


#: The packages of the ``server`` extra (Celery, the web server, the graph), which a command may need.
SERVER_PACKAGES = frozenset(
    {"celery", "kombu", "billiard", "uvicorn", "starlette", "connectrpc", "matplotlib"}
)


class _GriotGroup(click.Group):
    """Turns Griot's input errors into one clear line and exit status 2, and a missing optional
    package, or a service that does not answer, into one line that says what to do (exit status
    1)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except griot.GriotError as e:
            errors.print(f"[red]error:[/red] {type(e).__name__}: {escape(str(e))}")
            sys.exit(2)
        except SystemNameError as e:  # GRIOT_NAME, read where a command looks for griot up
            errors.print(f"[red]error:[/red] {escape(str(e))}")
            sys.exit(2)
        except ModuleNotFoundError as e:
            package = (e.name or "").partition(".")[0]
            if package not in SERVER_PACKAGES:
                raise
            command = ctx.invoked_subcommand or "this command"
            errors.print(
                f"[red]error:[/red] griot {command} needs {package}, which is not installed: "
                f"pip install '{SERVER_EXTRA}'"
            )
            sys.exit(1)
        except Exception as e:
            line = unreachable.error_line(e)
            if line is None:
                raise
            errors.print(f"[red]error:[/red] {escape(line)}")
            sys.exit(1)


@click.group(cls=_GriotGroup)
@click.version_option(griot.ENGINE_VERSION, prog_name="griot")
@click.option(
    "--rules-file",
    "rules_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Load a user rule file (TOML) first; repeatable.",
)
def main(rules_files: tuple[str, ...]) -> None:
    """Griot: rules and analysis of traditional board games."""
    for path in rules_files:
        griot.load_rule_file(path)


@main.command()
def variants() -> None:
    """List every variant: id, board, one line each."""
    table = Table("id", "board", "options", "name")
    for info in griot.variants():
        v = info.variant()
        geo = v.geometry
        opts = ", ".join(f"{o.name}={o.default}" for o in info.options if o.name != "max_turns")
        table.add_row(info.id, f"{geo['rows']}x{geo['cols']}", opts, info.name)
    console.print(table)


@main.command()
@click.argument("variant")
def rules(variant: str) -> None:
    """Print the full rule set of VARIANT (e.g. abapa, 'leb-bbut-ahbochen(holes=8)')."""
    v = griot.Variant(variant)
    console.print(f"[bold]{v.name}[/bold]  ({v.canonical})")
    info = next((i for i in griot.variants() if i.id == v.id), None)
    if info and info.description:
        console.print(info.description)
    if info and info.source:
        console.print(f"[dim]Source: {info.source}[/dim]")
    for line in v.rules:
        console.print(f"- {line}")
    console.print("Options: " + ", ".join(f"{k}={str(x).lower()}" for k, x in v.options.items()))


@main.command()
@position_options
def show(words: tuple[str, ...], position: str | None) -> None:
    """Show a readable board of a position, with the legal moves: a variant (its start), a whole
    position, or a variant and its body (e.g. griot show abapa; griot show 'abapa
    4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -')."""
    pos = command_position(words, position)
    console.print(str(pos), style="dim")
    console.print(board_table(pos))
    console.print(describe(pos))
    moves = pos.legal_moves()
    if moves:
        console.print("legal moves: " + " ".join(str(m) for m in moves))


@main.command()
@position_options
@click.argument("depth", type=click.IntRange(0, 30))
@click.option("--divide", is_flag=True, help="Split the count by root move.")
def perft(words: tuple[str, ...], depth: int, position: str | None, divide: bool) -> None:
    """Count the leaves of the game tree DEPTH turns deep (every leaf made) from a position: a
    variant (its start), a whole position, or a variant and its body."""
    pos = command_position(words, position)
    start = time.perf_counter()
    if divide:
        split = pos.divide(depth)
        for move, n in split.items():
            click.echo(f"{move}: {n}")
        total = sum(split.values())
    else:
        total = pos.perft(depth)
    seconds = time.perf_counter() - start
    click.echo(str(total))
    click.echo(f"{seconds:.3f} s, {total / seconds / 1e6 if seconds > 0 else 0:.1f} M leaves/s", err=True)


@main.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default=".", required=False)
def examples(directory: Path) -> None:
    """Write the example files the README uses into DIRECTORY (default: here): a game record
    (game.griot, for griot analyze-game) and a rule file (my-rules.toml, for --rules-file).
    A file already there with other contents is left as it is."""
    from importlib.resources import files

    directory.mkdir(parents=True, exist_ok=True)
    for name in EXAMPLES:
        text = files("griot").joinpath("examples", name).read_text(encoding="utf-8")
        target = directory / name
        if target.exists() and target.read_text(encoding="utf-8") != text:
            click.echo(f"{target}: kept (it has other contents)")
            continue
        target.write_text(text, encoding="utf-8")
        click.echo(f"{target}")


#: The example files shipped in the package (python/griot/examples).
EXAMPLES = ("game.griot", "my-rules.toml")


cli_ops.register(main)  # up, status, play


@main.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def lab(args: tuple[str, ...]) -> None:
    """Griot across network-namespace hosts on this machine, to try a fault (root; docs/LAB.md):
    griot lab up | down | fault ... | client ...  (griot lab --help for more)."""
    from griot.lab.__main__ import main as lab_main

    sys.exit(lab_main(list(args)))


@main.command()
@click.argument("engine_a", metavar="A")
@click.argument("engine_b", metavar="B")
@click.option("--variant", default="abapa", show_default=True, help="The game both engines play.")
@click.option(
    "--games", type=click.IntRange(1), default=20, show_default=True, help="At most this many games."
)
@click.option("--plies", type=click.IntRange(0), default=4, show_default=True, help="Random opening moves.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the openings.")
@click.option(
    "--concurrency", "-j", type=click.IntRange(1), default=1, show_default=True, help="Games at once."
)
@click.option(
    "--repetitions",
    type=click.IntRange(2),
    default=3,
    show_default=True,
    help="The occurrence of a position that ends the game (2 for engines that stop at the first repeat).",
)
@click.option(
    "--sprt", default=None, metavar="ELO0,ELO1", help="Stop early on an SPRT (alpha = beta = 0.05)."
)
@click.option(
    "--records",
    "records_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write every game as a record into this folder.",
)
@cli_workers.workers_options
@click.pass_context
def match(
    ctx: click.Context,
    engine_a: str,
    engine_b: str,
    variant: str,
    games: int,
    plies: int,
    seed: int,
    concurrency: int,
    repetitions: int,
    sprt: str | None,
    records_dir: Path | None,
    workers: bool,
    broker_url: str | None,
    result_url: str,
) -> None:
    """Play engine A against engine B over varied openings, colours swapped, and print A's score
    with its 95% interval and Elo.

    An engine is 'griot' or 'uci:COMMAND', then ';key=value' settings: time (s a move), depth,
    nodes, eval, hash, book (an opening book's path), egdb (a directory of endgame databases),
    reductions (on, the default, or off: late-move reductions), name. Example:
    griot match 'griot;time=0.1' 'griot;time=0.1;eval=material'. With --workers each game is a
    task on the Celery workers (Griot's engine only; a depth-limited match plays the same games).
    """
    from griot import match as m
    from griot.record import dump

    games_runner = cli_workers.games_runner(ctx, broker_url, result_url) if workers else None

    try:
        a, b = m.EngineSpec.parse(engine_a), m.EngineSpec.parse(engine_b)
        test = None
        if sprt:
            elo0, _, elo1 = sprt.partition(",")
            test = m.Sprt(float(elo0), float(elo1))
    except ValueError as e:
        errors.print(f"[red]error:[/red] {escape(str(e))}")  # one line: the engine and its setting
        sys.exit(2)
    game = griot.Variant(variant)
    click.echo(f"{game.canonical}: A = {a.label}, B = {b.label}")
    if records_dir is not None:
        records_dir.mkdir(parents=True, exist_ok=True)

    def on_game(result: m.GameResult, stats: m.MatchStats) -> None:
        side = "South" if result.a_is_south else "North"
        click.echo(
            f"game {stats.games}: A ({side}) scores {result.a_points:g} in {len(result.moves)} moves "
            f"({result.reason}) · {stats.summary()}"
        )
        if records_dir is not None:
            dump(m.game_record(game, result, a, b), records_dir / f"game-{stats.games:04d}.griot")

    try:
        outcome = m.run_match(
            game,
            a,
            b,
            games=games,
            plies=plies,
            seed=seed,
            concurrency=concurrency,
            sprt=test,
            repetitions=repetitions,
            on_game=on_game,
            games_runner=games_runner,
        )
    except m.MatchError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"A: {outcome.stats.summary()}")
    if test is not None:
        low, high = test.bounds
        nearer = "{} accepted: A is nearer {:+g} than {:+g} Elo"
        verdict = {
            "H1": nearer.format("H1", test.elo1, test.elo0),
            "H0": nearer.format("H0", test.elo0, test.elo1),
        }
        llr = test.llr(outcome.stats.points)
        click.echo(
            f"SPRT [{test.elo0:g}, {test.elo1:g}]: LLR {llr:.2f}, bounds {low:.2f} and {high:.2f}: "
            + (verdict[outcome.verdict] if outcome.verdict else "no verdict yet")
        )


@main.command()
@click.option("--variant", default="abapa", show_default=True, help="A two-row sowing variant with stores.")
@click.option("--hash", "hash_mb", type=click.IntRange(1, 4096), default=64, show_default=True, help="MB.")
@click.option(
    "--book",
    "book_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="An opening book (griot book build): a position in it is answered from it.",
)
def uci(variant: str, hash_mb: int, book_path: str | None) -> None:
    """Speak the Oware engine protocol (UCI as Oware GUIs use it) on stdin and stdout."""
    from griot import uci as protocol

    try:
        engine = protocol.UciEngine(sys.stdout, variant, hash_mb=hash_mb, book=book_path)
    except protocol.UciError as e:
        raise click.BadParameter(str(e), param_hint="--variant or --book") from None
    engine.run(sys.stdin)


for _module in ("griot.cli_search", "griot.cli_egdb", "griot.cli_book"):
    __import__(_module)
    sys.modules[_module].register(main)


if __name__ == "__main__":
    main()
