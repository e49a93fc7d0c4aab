"""The operational commands of the ``griot`` CLI: ``up``, ``status``, ``play`` and ``worker``.

Registered on the ``main`` group by :mod:`griot.cli` (:func:`register`). Every option of ``up`` and
``status`` also reads a ``GRIOT_*`` environment variable (shown in ``--help``); the deploy files use
the same variables (tests/ops/test_deploy_files.py keeps them in step).
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import griot
from griot import launcher, record, settings
from griot.book import Book, BookError
from griot.positions import FORMS, command_position, position_options
from griot.render import board_table, describe

console = Console()


def _skip(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> frozenset[str]:
    names: set[str] = set()
    for v in value:
        names.update(x.strip() for x in v.split(",") if x.strip())
    known = {s.name for s in launcher.iter_specs()} | {"workers"}
    unknown = names - known
    if unknown:
        raise click.BadParameter(
            f"unknown component(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}"
        )
    return frozenset(names)


@click.command()
@settings.click_options(launcher.UpConfig, "GRIOT")
@click.option(
    "--skip",
    multiple=True,
    callback=_skip,
    help="Components not to start, e.g. --skip workers,gateway [GRIOT_SKIP].",
    envvar="GRIOT_SKIP",
)
@click.option(
    "--color/--no-color",
    envvar="GRIOT_UP_COLOR",
    default=None,
    help="Colour the prefixes (default: when a terminal) [GRIOT_UP_COLOR].",
)
@click.option(
    "--state-file",
    envvar="GRIOT_STATE_FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where the endpoints are written for `griot status` [GRIOT_STATE_FILE].",
)
def up(**kw: object) -> None:
    """Start the whole system here: Redis, rules service, workers, gateway, browser API and demo
    board. Ctrl-C stops it all."""
    ctx = click.get_current_context()
    given_state_file = kw.pop("state_file")
    state_file = given_state_file or launcher.default_state_file(kw["name"])  # type: ignore[arg-type]
    if kw["name"] or given_state_file:
        # Beside another system: the ports not given are picked free, so that neither takes the other's.
        for key in launcher.PORT_KEYS:
            if ctx.get_parameter_source(key) == click.core.ParameterSource.DEFAULT:
                kw[key] = 0
    config = launcher.UpConfig(**kw, state_file=state_file)  # type: ignore[arg-type]
    sys.exit(launcher.Launcher(config).run())


@click.command()
@settings.click_options(launcher.JoinConfig)
@click.option(
    "--state-file",
    envvar="GRIOT_STATE_FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The state file of the system to join [GRIOT_STATE_FILE].",
)
def worker(**kw: Any) -> None:
    """Join one more Celery search worker to the running system (the one `griot status` finds, or
    the broker and cache given), on its queues, until Ctrl-C."""
    state_file = kw.pop("state_file") or launcher.default_state_file(kw["name"])
    config = launcher.JoinConfig(**kw)
    try:
        argv, env = launcher.join_worker(config, launcher.read_state(state_file), state_file)
    except launcher.LaunchError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False)
        sys.exit(1)
    sys.stdout.flush()
    os.execve(argv[0], argv, env)  # the worker in this process: Ctrl-C and signals reach Celery


def _fmt_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _rate(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


@click.command()
@click.option(
    "--rules",
    "rules_target",
    envvar="GRIOT_RULES_TARGET",
    help="Rules service host:port [GRIOT_RULES_TARGET].",
)
@click.option(
    "--gateway",
    "gateway_target",
    envvar="GRIOT_GATEWAY_TARGET",
    help="Gateway host:port [GRIOT_GATEWAY_TARGET].",
)
@click.option("--broker-url", envvar="GRIOT_BROKER_URL", help="[GRIOT_BROKER_URL]")
@click.option("--cache-url", envvar="GRIOT_CACHE_URL", help="[GRIOT_CACHE_URL]")
@click.option(
    "--cache-cluster",
    envvar="GRIOT_CACHE_CLUSTER",
    is_flag=True,
    help="The cache URL names a node of a Redis Cluster: report every node [GRIOT_CACHE_CLUSTER].",
)
@click.option("--timeout", type=float, default=2.0, show_default=True, help="Seconds for each check.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--state-file", envvar="GRIOT_STATE_FILE", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--name",
    envvar="GRIOT_NAME",
    type=launcher.parse_name,
    help="The system `griot up --name NAME` runs (default: the default one) [GRIOT_NAME].",
)
def status(
    rules_target: str | None,
    gateway_target: str | None,
    broker_url: str | None,
    cache_url: str | None,
    cache_cluster: bool,
    timeout: float,
    as_json: bool,
    state_file: Path | None,
    name: str | None,
) -> None:
    """Health of the services, workers, queue lengths, cache size and hit rate.

    Addresses come from the options, else from the running `griot up`, else the defaults
    (rules on 127.0.0.1:50051). Exit status 0 when everything checked is healthy, 1 otherwise."""
    from griot import monitor

    state = launcher.read_state(state_file or launcher.default_state_file(name)) or {}
    rules_target = rules_target or state.get("rules") or f"127.0.0.1:{settings.RULES_PORT}"
    gateway_target = gateway_target or state.get("gateway")
    broker_url = broker_url or state.get("broker_url")
    cache_url = cache_url or state.get("cache_url")
    queues = tuple(state["queues"]) if state.get("queues") else None
    report = monitor.collect(
        rules=rules_target,
        gateway=gateway_target,
        broker_url=broker_url,
        cache_url=cache_url,
        queues=queues,
        timeout=timeout,
        cache_cluster=cache_cluster,
    )
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        sys.exit(0 if report.healthy else 1)

    source = f"griot up (pid {state['pid']})" if state else "no griot up runs here: addresses from options"
    console.print(f"[bold]griot status[/bold] [dim]({source})[/dim]")
    services = Table("service", "address", "health", "ms", title="services", title_justify="left")
    for s in report.services:
        style = "green" if s.status == "SERVING" else "red"
        services.add_row(s.name, s.target, f"[{style}]{s.status}[/{style}]", f"{s.ms:.1f}")
    if not gateway_target:
        services.add_row("gateway", "-", "[dim]not running[/dim]", "")
    console.print(services)

    if report.redis:
        # Five columns fit 80: the rest of each Redis's figures go on a line of their own.
        redis_table = Table("redis", "url", "state", "keys", "memory", title="redis", title_justify="left")
        details = []
        for r in report.redis:
            state_text = "[green]up[/green]" if r.ok else "[red]down[/red]"
            keys, memory = (str(r.keys), _fmt_bytes(r.used_memory)) if r.ok else ("", "")
            redis_table.add_row(r.role, r.url, state_text, keys, memory)
            if r.ok:
                limit = f", max {_fmt_bytes(r.maxmemory)}" if r.maxmemory else ""
                details.append(
                    f"{r.role}: Redis {r.version}, {r.policy}{limit}, {r.evicted_keys} evicted, "
                    f"hits {_rate(r.keyspace_hit_rate)}"
                )
            else:
                details.append(f"{r.role}: [red]{escape(str(r.error))}[/red]")
        console.print(redis_table)
        for line in details:
            console.print(f"  {line}", highlight=False)
    if report.cache_cluster is not None:
        _print_cluster(report.cache_cluster)
    elif not report.redis:
        console.print(
            "[dim]redis: no broker or cache URL (start `griot up`, or give --broker-url/--cache-url)[/dim]"
        )

    if report.queues:
        q = ", ".join(f"{name} {n}" for name, n in report.queues.items())
        console.print(f"queues: {q}")
    if report.workers is not None:
        names = ", ".join(report.workers) if report.workers else "none answering"
        console.print(f"workers: {len(report.workers)} ({names})")
    elif report.workers_note:
        console.print(f"workers: [dim]{report.workers_note}[/dim]")
    if cache_url:
        console.print(
            f"transposition cache hit rate: {_rate(report.tt_hit_rate)}"
            + (f" ({report.tt_stats})" if report.tt_stats else "")
        )
    g = report.gateway_stats
    if g:
        console.print(
            f"gateway: {g.get('requests', 0)} requests · evaluation cache hit rate "
            f"{_rate(g.get('cache_hit_rate'))} · shared searches {g.get('dedup_local', 0)} local, "
            f"{g.get('dedup_remote', 0)} across replicas · tasks {g.get('tasks_sent', 0)} sent, "
            f"{g.get('tasks_cancelled', 0)} cancelled · refused {g.get('rejected', 0)} · jobs "
            f"{g.get('jobs_done', 0)} done, {g.get('jobs_active', 0)} active · live sessions "
            f"{g.get('sessions_started', 0)}"
        )
    for role, entries in report.databases.items():
        for name, entry in sorted(entries.items()):
            console.print(
                f"endgame databases of {role[:-1]} {name}: {_databases_text(entry)}", highlight=False
            )
    for note in report.notes:
        console.print(f"[dim]note: {note}[/dim]")
    sys.exit(0 if report.healthy else 1)


def _print_cluster(cluster: Any) -> None:
    """The cache's Redis Cluster: a row per node (primaries first, each with its replicas), slot
    coverage, and a line for each node that does not answer."""
    if cluster.error:
        console.print(
            f"cache: Redis Cluster at {cluster.url} [red]does not answer[/red]: {escape(cluster.error)}",
            highlight=False,
        )
        return
    table = Table(
        "node", "role", "state", "keys", "memory", title="cache: Redis Cluster", title_justify="left"
    )
    primaries = [n for n in cluster.nodes if n.role == "primary"]
    ordered = []
    for p in primaries:
        ordered.append(p)
        ordered.extend(n for n in cluster.nodes if n.role == "replica" and n.of == p.address)
    ordered.extend(n for n in cluster.nodes if n not in ordered)
    for n in ordered:
        role = f"primary, {n.slots} slots" if n.role == "primary" else f"  replica of {n.of}"
        state = "[green]up[/green]" if n.ok else "[red]down[/red]"
        if n.flags:
            state += f" [dim]({n.flags})[/dim]"
        keys, memory = (str(n.keys), _fmt_bytes(n.used_memory)) if n.ok else ("", "")
        table.add_row(n.address, role, state, keys, memory)
    console.print(table)
    style = "green" if cluster.slots_served == 16384 and cluster.state == "ok" else "red"
    console.print(
        f"  slots: [{style}]{cluster.slots_served} of 16384 served[/{style}] by primaries that answer, "
        f"{cluster.slots_assigned} assigned; cluster state {cluster.state}",
        highlight=False,
    )
    for n in cluster.down:
        what = f"primary of {n.slots} slots" if n.role == "primary" else f"replica of {n.of}"
        console.print(
            f"  [red]cache node {n.address} ({what}) does not answer[/red]: {escape(n.error)}",
            highlight=False,
        )


def _databases_text(entry: dict[str, Any]) -> str:
    """``abapa(holes=6) levels 0-20`` for each rule set of a databases entry, and its directory."""
    parts = [
        f"{d['rules']} levels 0-{d['max_seeds']}"
        if "max_seeds" in d
        else f"{d['rules']} not used: {d.get('error')}"
        for d in entry.get("databases") or []
    ]
    return f"{', '.join(parts) or 'none'} ({entry.get('dir', '?')})"


# ---------------------------------------------------------------------------------------------
# play

PLAY_HELP = (
    """commands: a move (e.g. c) · hint · eval · undo · save [FILE] · load FILE · moves · help · quit"""
)


def _gateway_target(explicit: str | None) -> str | None:
    if explicit:
        return None if explicit == "off" else explicit
    state = launcher.read_state()
    target = (state or {}).get("gateway")
    if target and launcher.grpc_health(target, launcher.ANALYSIS_SERVICE, timeout=1.0) == "SERVING":
        return str(target)
    return None


class Game:
    """The state of ``griot play``: moves from a start position, which side the person plays."""

    def __init__(self, start: griot.Position, human: str, tags: dict[str, str] | None = None) -> None:
        self.start = start
        self.moves: list[str] = []
        self.positions = [start]
        self.human = human
        self.tags = dict(tags or {})

    @property
    def pos(self) -> griot.Position:
        return self.positions[-1]

    def play(self, move: str) -> griot.Position:
        mv = self.pos.parse_move(move)
        nxt = self.pos.play(mv)
        self.moves.append(mv.text)
        self.positions.append(nxt)
        return nxt

    def undo(self) -> int:
        """Takes back moves until it is the person's turn again, having removed at least one of
        theirs; returns how many moves were taken back."""
        removed = 0
        human_removed = False
        while self.moves:
            mover = self.positions[-2].side_to_move
            self.moves.pop()
            self.positions.pop()
            removed += 1
            human_removed = human_removed or mover == self.human
            if human_removed and self.pos.side_to_move == self.human:
                break
        return removed

    def record(self) -> record.GameRecord:
        tags = dict(self.tags)
        tags.setdefault("Date", datetime.date.today().strftime("%Y.%m.%d"))
        return record.GameRecord.from_positions(self.start, self.moves, **tags)


def _open_book(path: str | None, variant: griot.Variant) -> Book | None:
    """The opening book at ``path`` for ``variant``'s games; a clear error for any other file."""
    if path is None:
        return None
    try:
        book = Book.load(path)
    except (OSError, BookError) as e:
        raise click.BadParameter(str(e), param_hint="--book") from None
    if book.variant != variant.canonical:
        raise click.BadParameter(
            f"{path} is a book of {book.variant}, not {variant.canonical}", param_hint="--book"
        )
    return book


def _show(game: Game, opponent_label: str) -> None:
    pos = game.pos
    console.print(board_table(pos))
    console.print(describe(pos))
    if pos.is_over:
        console.print("[bold]game over[/bold] · undo, save [FILE], load FILE or quit")
    elif pos.side_to_move == game.human:
        console.print("your moves: " + " ".join(f"[bold]{m}[/bold]" for m in pos.legal_moves()))


@click.command()
@position_options
@click.option(
    "--level", type=click.IntRange(1, 10), default=3, show_default=True, help="Opponent strength, 1..10."
)
@click.option(
    "--side",
    type=click.Choice(["S", "N", "south", "north"], case_sensitive=False),
    default="S",
    show_default=True,
    help="The side you play (South moves first).",
)
@click.option(
    "--load", "load_path", type=click.Path(exists=True, dir_okay=False), help="Resume a saved game record."
)
@click.option("--seed", type=int, help="Seed of the simple opponent's choices (repeatable games).")
@click.option(
    "--gateway",
    help="Play against the gateway at host:port ('off': never; default: the one `griot up` runs).",
)
@click.option(
    "--book",
    "book_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="An opening book (griot book build): the engine plays its moves in the positions it holds, "
    "until the game repeats a position.",
)
def play(
    words: tuple[str, ...],
    level: int,
    side: str,
    load_path: str | None,
    position: str | None,
    seed: int | None,
    gateway: str | None,
    book_path: str | None,
) -> None:
    """Play a game in the terminal against Griot's engine, from a variant's start, a whole position,
    or a variant and its body: through the gateway when `griot up` runs one, in this process
    otherwise."""
    from griot import opponent as opp

    human = side[0].upper()
    if load_path and (words or position):
        raise click.UsageError("give a position or --load RECORD, not both")
    if load_path:
        rec = record.load(load_path)
        game = Game(rec.start_position(), human, rec.tags)
        for m in rec.moves:
            game.play(m)
    elif words or position:
        game = Game(command_position(words, position), human)
    else:
        raise griot.NotationError(f"no position: {FORMS}; or --load RECORD")

    book = _open_book(book_path, game.pos.variant)
    target = _gateway_target(gateway)
    bot: opp.Opponent = opp.GatewayOpponent(target, seed=seed) if target else opp.local_opponent(seed)
    you, them = ("South", "North") if human == "S" else ("North", "South")
    game.tags.setdefault(you, os.environ.get("USER", "you"))
    game.tags.setdefault(them, f"Griot engine, level {level}")
    with_book = f", opening book {book_path} ({len(book)} positions)" if book is not None else ""
    console.print(
        f"[bold]{game.pos.variant.name}[/bold] ({game.pos.variant.canonical}) · you play {you} · "
        f"opponent: {bot.label}, level {level}{with_book}"
    )
    console.print(f"[dim]{PLAY_HELP}[/dim]")

    while True:
        pos = game.pos
        if not pos.is_over and pos.side_to_move != game.human:
            entry = opp.book_move(book, pos, game.positions[:-1])
            if entry is not None:
                game.play(entry.best)
                console.print(f"[magenta]{them} plays {entry.best}[/magenta] (book)")
                continue
            move = bot.choose_move(pos, level)
            game.play(move.text)
            console.print(f"[magenta]{them} plays {move.text}[/magenta]")
            continue
        _show(game, bot.label)
        try:
            line = input("> " if sys.stdin.isatty() else "").strip()
        except EOFError:
            console.print("bye")
            return
        if not sys.stdin.isatty():
            console.print(f"> {line}")
        if not line:
            continue
        cmd, _, arg = line.partition(" ")
        arg = arg.strip()
        if cmd in ("quit", "q", "exit"):
            console.print("bye")
            return
        if cmd in ("help", "h"):
            console.print(PLAY_HELP)
        elif cmd in ("moves", "?"):
            console.print("legal moves: " + (" ".join(str(m) for m in pos.legal_moves()) or "none"))
        elif cmd == "hint":
            entry = opp.book_move(book, pos, game.positions[:-1])
            if pos.is_over:
                console.print("the game is over")
            elif entry is not None:
                console.print(f"hint: {entry.best}  [dim](book)[/dim]")
            else:
                console.print(f"hint: {bot.choose_move(pos, max(level, 5)).text}  [dim]({bot.label})[/dim]")
        elif cmd == "eval":
            console.print(f"evaluation: {bot.evaluate(pos)}")
        elif cmd == "undo":
            n = game.undo()
            console.print(f"took back {n} move{'s' if n != 1 else ''}" if n else "nothing to undo")
        elif cmd == "save":
            path = Path(arg or f"griot-{pos.variant.id}-{datetime.datetime.now():%Y%m%d-%H%M%S}.griot")
            record.dump(game.record(), path)
            console.print(f"saved {len(game.moves)} moves to {path}")
        elif cmd == "load":
            if not arg:
                console.print("[red]load FILE[/red]")
                continue
            try:
                rec = record.load(arg)
            except (OSError, record.RecordError) as e:
                console.print(f"[red]cannot load {arg}: {e}[/red]")
                continue
            game = Game(rec.start_position(), game.human, rec.tags)
            for m in rec.moves:
                game.play(m)
            console.print(f"loaded {arg}: {rec.variant}, {len(rec.moves)} moves")
            if book is not None and book.variant != game.pos.variant.canonical:
                console.print(f"[dim]the opening book is of {book.variant}: not used in this game[/dim]")
        elif pos.is_over:
            console.print("the game is over: undo, save, load or quit")
        else:
            try:
                game.play(line)
                if not game.pos.is_over:
                    console.print(board_table(game.pos))
            except griot.GriotError as e:
                code = getattr(e, "code", None)
                console.print(f"[red]{e}[/red]" + (f" [dim]({code})[/dim]" if code else ""))


def register(main: click.Group) -> None:
    """Adds ``up``, ``status``, ``play`` and ``worker`` to the ``griot`` group."""
    main.add_command(up)
    main.add_command(status)
    main.add_command(play)
    main.add_command(worker)
