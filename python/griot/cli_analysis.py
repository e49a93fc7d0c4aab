"""``griot analyze-game RECORD``: a whole game's report, through the gateway when one runs (``griot
up``), with the in-process engine otherwise; progress bars while it works, the report as a table
and an evaluation graph written to PNG (matplotlib, in the ``server`` extra).

``griot analyze`` uses :func:`gateway_target` and :func:`evaluate_via_gateway` from here to go
through the gateway too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console, Group
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

import griot
from griot import egdb, launcher, scores
from griot import record as records
from griot.distribution import install_line
from griot.v1 import analysis_pb2, common_pb2

__all__ = ["analyze_game", "gateway_target", "register"]

CLASS_NAMES = {
    analysis_pb2.MOVE_CLASSIFICATION_FORCED: "forced",
    analysis_pb2.MOVE_CLASSIFICATION_BEST: "best",
    analysis_pb2.MOVE_CLASSIFICATION_GOOD: "good",
    analysis_pb2.MOVE_CLASSIFICATION_INACCURACY: "[yellow]inaccuracy[/yellow]",
    analysis_pb2.MOVE_CLASSIFICATION_MISTAKE: "[dark_orange]mistake[/dark_orange]",
    analysis_pb2.MOVE_CLASSIFICATION_BLUNDER: "[red]blunder[/red]",
}


GRAPH_MARKS = (
    (analysis_pb2.MOVE_CLASSIFICATION_INACCURACY, "inaccuracy", "#d4b000"),
    (analysis_pb2.MOVE_CLASSIFICATION_MISTAKE, "mistake", "#e08a00"),
    (analysis_pb2.MOVE_CLASSIFICATION_BLUNDER, "blunder", "#c00"),
)


def graph_marks(report: analysis_pb2.GameReport) -> dict[str, tuple[str, list[tuple[int, float]]]]:
    """The evaluation graph's marked points: for each class of bad move, its colour and (turn, score)."""
    marks: dict[str, tuple[str, list[tuple[int, float]]]] = {}
    for cls, label, colour in GRAPH_MARKS:
        points = [(t.turn + 1, score_number(t.south_score)) for t in report.turns if t.classification == cls]
        if points:
            marks[label] = (colour, points)
    return marks


def gateway_target(explicit: str | None) -> str | None:
    """The gateway to use: the one named (``off``: none), else the running ``griot up``'s if it is
    serving, else None."""
    if explicit:
        return None if explicit == "off" else explicit
    state = launcher.read_state()
    target = (state or {}).get("gateway")
    if target and launcher.grpc_health(target, launcher.ANALYSIS_SERVICE, timeout=1.0) == "SERVING":
        return str(target)
    return None


def _seeds(centi: int) -> str:
    """A loss or threshold (in hundredths of a seed) in seeds, as the scores are shown."""
    return f"{centi / 100:.2f}"


def score_text(s: common_pb2.Score) -> str:
    which = s.WhichOneof("value")
    if s.source == common_pb2.SCORE_SOURCE_DATABASE:
        # Exact by the endgame databases, which count no turns: the result and the final margin.
        margin = f" by {abs(s.final_margin)}" if s.HasField("final_margin") and s.final_margin else ""
        word = {"wins_in": "win", "loses_in": "loss"}.get(which or "", "draw")
        return f"{word}{margin} (exact)"
    if which == "wins_in":
        return f"wins in {s.wins_in}"
    if which == "loses_in":
        return f"loses in {s.loses_in}"
    if which == "draw":
        return "draw"
    return f"{s.centi / 100:+.2f}"


def score_number(s: common_pb2.Score, cap: float = 30.0) -> float:
    """A score in seeds for a graph (proven results drawn at ±cap)."""
    which = s.WhichOneof("value")
    if which == "wins_in":
        return cap
    if which == "loses_in":
        return -cap
    return max(-cap, min(cap, s.centi / 100))


def local_report(rec: records.GameRecord, depth: int, on_turn: Any) -> analysis_pb2.GameReport:
    """The report computed in this process (no gateway): the same arithmetic as the gateway's."""
    positions = rec.positions()
    db = egdb.Databases().get(positions[0].variant.canonical)
    turns = []
    for i, move in enumerate(rec.moves):
        pos = positions[i]
        r = griot.search(pos, depth=depth, multipv=0, egdb=db)
        by_move = {m.move: m.score.value for m in r.moves}
        played = pos.parse_move(move).text
        best = str(r.best_move) if r.best_move is not None else played
        best_v, played_v = by_move.get(best, r.score.value), by_move.get(played, r.score.value)
        exact = [_move_exact(db, pos, m) for m in (best, played)]
        turns.append(scores.turn_analysis(i, pos, played, best, best_v, played_v, *exact))
        on_turn(turns[-1])
    return scores.game_report(positions, turns)


def _move_exact(db: griot.Egdb | None, pos: griot.Position, move: str) -> dict[str, Any] | None:
    """The databases' result of ``move`` in ``pos`` for the mover, if they cover it."""
    child = pos.play(pos.parse_move(move))
    result = egdb.exact(db, child)
    return result if child.side_to_move == pos.side_to_move else egdb.flip(result)


def write_graph(report: analysis_pb2.GameReport, path: Path, title: str) -> None:
    """South's score after every turn, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [t.turn + 1 for t in report.turns]
    ys = [score_number(t.south_score) for t in report.turns]
    fig, ax = plt.subplots(figsize=(9, 3.5), dpi=110)
    ax.axhline(0, color="#888", linewidth=0.8)
    ax.fill_between(xs, ys, 0, where=[y >= 0 for y in ys], color="#f2e6c9", step="mid")
    ax.fill_between(xs, ys, 0, where=[y < 0 for y in ys], color="#5b4a3a", step="mid")
    ax.plot(xs, ys, color="#333", linewidth=1.2, drawstyle="steps-mid")
    for label, (colour, turns) in graph_marks(report).items():
        xs_, ys_ = [x for x, _ in turns], [y for _, y in turns]
        ax.plot(xs_, ys_, "o", color=colour, markersize=5, linestyle="", label=label)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", fontsize="small", frameon=False)
    ax.set_xlabel("turn")
    ax.set_ylabel("South's score (seeds)")
    ax.set_title(title)
    ax.margins(x=0.01)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


@click.command("analyze-game")
@click.argument("record_path", metavar="RECORD", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--depth", "-d", type=click.IntRange(1, 60), default=10, show_default=True, help="Depth per position."
)
@click.option(
    "--png",
    "png",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Evaluation graph to write (default: RECORD with .png).",
)
@click.option(
    "--gateway",
    "gateway",
    envvar="GRIOT_GATEWAY_TARGET",
    default=None,
    help="Gateway host:port ('off': analyse in this process) [GRIOT_GATEWAY_TARGET].",
)
@click.option("--api-key", envvar="GRIOT_API_KEY", default=None, help="Gateway API key [GRIOT_API_KEY].")
def analyze_game(
    record_path: Path, depth: int, png: Path | None, gateway: str | None, api_key: str | None
) -> None:
    """Analyse every move of a game record: a report table and an evaluation graph (PNG)."""
    console = Console()
    rec = records.load(record_path)
    target = gateway_target(gateway)
    total = len(rec.moves)
    source = f"the gateway at {target}" if target else "the engine in this process"
    console.print(f"[bold]{rec.variant}[/bold]: {total} moves, depth {depth}, through {source}")
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        bar = progress.add_task("analysing", total=total)
        if target:
            from griot.client import AnalysisClient, search_limits

            metadata = [("x-api-key", api_key)] if api_key else None
            report = None
            with AnalysisClient(target, metadata=metadata) as client:
                for msg in client.analyze_game(
                    record=records.dumps(rec), limits=search_limits(max_depth=depth), timeout=3600
                ):
                    if msg.HasField("progress"):
                        progress.update(bar, completed=msg.progress.positions_done)
                    else:
                        report = msg.report
            assert report is not None
        else:
            report = local_report(rec, depth, lambda _turn: progress.advance(bar))
        progress.update(bar, completed=total)

    th = report.thresholds
    console.print(
        f"{report.variant}: scores are the mover's, in seeds; a move's loss is the best score less the "
        f"played one (inaccuracy from {_seeds(th.inaccuracy)}, mistake from {_seeds(th.mistake)}, "
        f"blunder from {_seeds(th.blunder)})"
    )
    table = Table(box=box.SIMPLE_HEAD)
    for col in ("turn", "by", "played", "best", "played score", "best score", "loss", "verdict"):
        right = col in ("turn", "played score", "best score", "loss")
        table.add_column(col, justify="right" if right else "left", no_wrap=True)
    for t in report.turns:
        table.add_row(
            str(t.turn + 1),
            "S" if t.player == common_pb2.PLAYER_SOUTH else "N",
            t.played_move,
            t.best_move,
            score_text(t.played_score),
            score_text(t.best_score),
            _seeds(t.loss),
            CLASS_NAMES.get(t.classification, "?"),
        )
    console.print(table)
    summary = Table("player", "moves", "inaccuracies", "mistakes", "blunders", "average loss (seeds)")
    for p in report.players:
        summary.add_row(
            "South" if p.player == common_pb2.PLAYER_SOUTH else "North",
            str(p.moves),
            str(p.inaccuracies),
            str(p.mistakes),
            str(p.blunders),
            _seeds(p.average_loss),
        )
    console.print(summary)
    png = png or record_path.with_suffix(".png")
    try:
        write_graph(report, png, f"{rec.variant}: South's score after each turn (depth {depth})")
        console.print(f"evaluation graph: {png}")
    except ImportError:
        hint = f"no evaluation graph: it needs matplotlib ({install_line('server')})"
        console.print("[dim]" + escape(hint) + "[/dim]")


def evaluate_via_gateway(
    target: str, pos: griot.Position, depth: int | None, seconds: float | None, multipv: int, console: Console
) -> None:
    """``griot analyze`` through the gateway: one table per completed depth."""
    from rich.live import Live

    from griot.client import AnalysisClient, score_sentence, search_limits

    limits = search_limits(max_depth=depth or 0, max_time=seconds)
    last = None
    with AnalysisClient(target) as client, Live(console=console, refresh_per_second=8) as live:
        for msg in client.evaluate(pos, limits, include_move_scores=multipv != 1, timeout=3600):
            e = msg.evaluation
            last = e
            header = (
                f"depth {e.depth} · from the cache · via {target}"
                if e.from_cache
                else f"depth {e.depth} · {e.nodes:,} nodes · {e.nps:,} nodes/s · via {target}"
            )
            table = Table()
            table.add_column("move")
            table.add_column("score", justify="right")
            rows = [(m.move, score_text(m.score)) for m in e.move_scores] or [
                (e.best_move, score_text(e.score))
            ]
            for move, score in rows if multipv == 0 else rows[: max(multipv, 1)]:
                table.add_row(move, score)
            live.update(Group(Text(header), table))
    if last is not None:
        if not console.is_terminal:
            console.line()  # a live display that is not a terminal ends without one
        console.print(
            f"best move [bold]{last.best_move}[/bold]  score {score_text(last.score)}  pv {' '.join(last.pv)}"
        )
        sentence = score_sentence(last.score, pos.side_to_move)
        if sentence is not None and last.score.source == common_pb2.SCORE_SOURCE_DATABASE:
            console.print(f"[bold green]endgame database:[/bold green] {sentence}")


def register(group: click.Group) -> None:
    group.add_command(analyze_game)
