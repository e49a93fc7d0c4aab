"""Engine matches: two engine configurations play each other over varied openings, colours swapped.

A match is how a change to the engine earns its place: every opening (random moves from the start,
seeded) is played twice, each engine taking each side once; the score is engine A's points (win 1,
draw 1/2) over the games played, with its 95% interval and the Elo difference it means. A match
may stop early on a sequential probability ratio test (SPRT), as chess engine testing frameworks
do: it ends as soon as the games say, with the error rates asked for, whether A is ``elo0`` or
``elo1`` stronger than B.

Engines are described by a spec string: ``griot`` (the engine in this process) or ``uci:COMMAND``
(any program speaking the Oware engine protocol, ``griot uci`` among them), then ``;key=value``
settings: ``time`` (seconds a move), ``depth``, ``nodes`` (an external engine is sent ``go nodes
N``, which not every engine understands: ``griot uci`` does), ``eval`` (Griot only: ``learned``,
the default, ``tuned``, ``material`` or weights), ``hash`` (MB), ``book`` (Griot only: an
opening book's path, :mod:`griot.book`), ``egdb`` (Griot only: a directory of endgame
databases, :mod:`griot.egdb`), ``reductions`` (Griot only: ``on``, the default, or ``off`` for
a full-width search) and ``name``. For example ``griot;time=0.1;eval=material`` or
``uci:java -jar Aalina.jar;time=0.1;name=Aalina``.

The games may be played elsewhere: ``run_match(..., games_runner=...)`` hands the list of games
(opening, colours) to a runner that yields their results in that order; the Celery workers'
runner (``griot match --workers``) plays each game as a task. The openings are the same seeded
ones, and the engine's tables are new for each game either way, so a depth- or node-limited
match plays the same games on the workers as in this process.

The referee is Griot's rules: a move an engine gives is checked, an illegal one or no answer loses the
game, and a position's third occurrence ends the game as the variant's endless cycle.
"""

from __future__ import annotations

import contextlib
import math
import random
import shlex
import subprocess
import threading
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import griot
from griot.book import Book, BookError
from griot.egdb import Egdb, EgdbError, open_databases
from griot.record import GameRecord
from griot.uci import to_dialect, to_griot_letter

__all__ = [
    "EngineSpec",
    "GameResult",
    "MatchError",
    "MatchStats",
    "Sprt",
    "game_jobs",
    "openings",
    "play_game",
    "run_match",
]

#: Settings an engine spec may carry.
_KEYS = ("time", "timing", "depth", "nodes", "eval", "hash", "book", "egdb", "reductions", "name")
#: Extra seconds an external engine has to answer beyond its budget before it forfeits the game.
ANSWER_GRACE_S = 10.0
#: Seconds an external engine has to start and answer ``uci`` and ``isready`` (a JVM on a busy
#: machine takes several).
HANDSHAKE_S = 60.0


class MatchError(ValueError):
    """A spec, an option or an engine that cannot be used."""


@dataclass(frozen=True)
class EngineSpec:
    """One engine configuration: what plays and with which limits."""

    command: tuple[str, ...] | None = None
    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    eval: str = griot.DEFAULT_EVAL
    hash_mb: int = 64
    name: str = ""
    #: How the in-process engine spends ``time``: ``deadline`` searches until the time is up and
    #: plays the last completed depth (as ``griot uci`` does); ``search`` gives the time to the
    #: search's own limit, which does not start a depth it does not expect to finish.
    timing: str = "deadline"
    #: An opening book (its path): a position in it is answered from it, without a search.
    book: str = ""
    #: A directory of endgame databases (``griot egdb build``) the search uses for the game's rule
    #: set: the databases on, where a match compares them on and off.
    egdb: str = ""
    #: Late-move reductions in the in-process engine (``reductions=off`` searches full width, as
    #: analysis does): on by default, as ``griot uci`` plays.
    reductions: bool = True

    @staticmethod
    def parse(text: str) -> EngineSpec:
        head, *settings = [part.strip() for part in text.split(";")]
        command: tuple[str, ...] | None = None
        if head.startswith("uci:"):
            command = tuple(shlex.split(head[4:]))
            if not command:
                raise MatchError(f"{text!r}: uci: needs a command")
        elif head != "griot":
            raise MatchError(f"{text!r}: an engine is 'griot' or 'uci:COMMAND'")
        values: dict[str, str] = {}
        for setting in settings:
            key, sep, value = setting.partition("=")
            if not sep or key not in _KEYS:
                raise MatchError(f"{text!r}: {setting!r} is not one of {', '.join(k + '=' for k in _KEYS)}")
            values[key] = value

        def number(key: str, kind: type[int] | type[float], default: str | None = None) -> Any:
            raw = values.get(key, default)
            if raw is None:
                return None
            try:
                value = kind(raw)
            except ValueError:
                what = "a whole number" if kind is int else "a number"
                raise MatchError(f"{text!r}: {key}={raw!r} is not {what}") from None
            if value < 0 or (value == 0 and key != "time"):
                raise MatchError(f"{text!r}: {key}={raw!r} must be more than 0")
            return value

        try:
            spec = EngineSpec(
                command=command,
                time=number("time", float),
                depth=number("depth", int),
                nodes=number("nodes", int),
                eval=values.get("eval", griot.DEFAULT_EVAL),
                hash_mb=number("hash", int, "64"),
                name=values.get("name", ""),
                timing=values.get("timing", "deadline"),
                book=values.get("book", ""),
                egdb=values.get("egdb", ""),
                reductions=values.get("reductions", "on") == "on",
            )
        except ValueError as e:
            raise MatchError(f"{text!r}: {e}") from None
        if values.get("reductions", "on") not in ("on", "off"):
            raise MatchError(f"{text!r}: reductions is 'on' or 'off'")
        if spec.timing not in ("deadline", "search"):
            raise MatchError(f"{text!r}: timing is 'deadline' or 'search'")
        if spec.time is None and spec.depth is None and spec.nodes is None:
            raise MatchError(f"{text!r}: give time=, depth= or nodes=")
        if command is not None and spec.book:
            raise MatchError(f"{text!r}: book= is Griot's own (an external engine has its own book)")
        if command is not None and spec.egdb:
            raise MatchError(f"{text!r}: egdb= is Griot's own (an external engine has its own tables)")
        if command is not None and not spec.reductions:
            raise MatchError(f"{text!r}: reductions= is Griot's own")
        return spec

    @property
    def text(self) -> str:
        """The spec string of this configuration (:meth:`parse` gives it back): what a game task
        carries to a worker."""
        head = "griot" if self.command is None else "uci:" + shlex.join(self.command)
        settings = [
            f"{k}={v!r}" if isinstance(v, float) else f"{k}={v}"
            for k, v in (("time", self.time), ("depth", self.depth), ("nodes", self.nodes))
            if v is not None
        ]
        settings += [f"eval={self.eval}", f"hash={self.hash_mb}", f"timing={self.timing}"]
        settings += [
            f"{k}={v}" for k, v in (("book", self.book), ("egdb", self.egdb), ("name", self.name)) if v
        ]
        settings += [] if self.reductions else ["reductions=off"]
        return ";".join([head, *settings])

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        limits = [
            f"{k}={v}" for k, v in (("time", self.time), ("depth", self.depth), ("nodes", self.nodes)) if v
        ]
        who = "griot" if self.command is None else " ".join(self.command)
        extra = [] if self.command is not None or self.eval == griot.DEFAULT_EVAL else [f"eval={self.eval}"]
        extra += ["book"] if self.book else []
        extra += ["egdb"] if self.egdb else []
        extra += [] if self.reductions else ["reductions=off"]
        return f"{who} ({', '.join(limits + extra)})"


class Player(Protocol):
    """One engine during one game."""

    def choose(self, positions: list[griot.Position], moves: list[str]) -> str:
        """The move (Griot notation) in ``positions[-1]``, reached from ``positions[0]`` by ``moves``."""
        ...

    def new_game(self) -> None:
        """Forgets the last game (its tables), keeping what was learnt of the engine (JIT, books)."""
        ...

    @property
    def alive(self) -> bool: ...

    def close(self) -> None: ...


class GriotPlayer:
    """The engine in this process; a time budget is searched to its end, stopped at the deadline."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.table = griot.SearchTable(spec.hash_mb)
        try:
            self.book = Book.load(spec.book) if spec.book else None
        except (OSError, BookError) as e:
            raise MatchError(f"{spec.label}: {e}") from None
        self._databases: dict[str, Egdb] = {}

    def databases(self, variant: griot.Variant) -> Egdb | None:
        """The endgame databases of ``variant``'s rule set under the spec's ``egdb`` directory,
        opened (and checked) once; None without a directory. MatchError when they cannot be."""
        if not self.spec.egdb:
            return None
        key = variant.canonical
        if key not in self._databases:
            try:
                db = open_databases(key, self.spec.egdb)
            except (OSError, EgdbError) as e:
                raise MatchError(f"{self.spec.label}: {e}") from None
            if db.max_seeds is None:
                raise MatchError(f"{self.spec.label}: no endgame databases of {key} under {self.spec.egdb}")
            self._databases[key] = db
        return self._databases[key]

    def choose(self, positions: list[griot.Position], moves: list[str]) -> str:
        pos = positions[-1]
        legal = pos.legal_moves()
        if len(legal) == 1:
            return str(legal[0])
        entry = self.book.probe(pos) if self.book is not None else None
        if entry is not None:
            return entry.best
        stop = griot.SearchStop()
        own_clock = self.spec.timing == "search"
        timer = None
        if self.spec.time is not None and not own_clock:
            timer = threading.Timer(self.spec.time, stop.set)
            timer.start()
        try:
            result = griot.search(
                pos,
                depth=self.spec.depth,
                nodes=self.spec.nodes,
                time=self.spec.time if own_clock else None,
                stop=stop,
                eval=self.spec.eval,
                history=positions[:-1],
                table=self.table,
                egdb=self.databases(pos.variant),
                reductions=self.spec.reductions,
            )
        finally:
            if timer is not None:
                timer.cancel()
        return str(result.best_move if result.best_move is not None else legal[0])

    def new_game(self) -> None:
        self.table.clear()

    @property
    def alive(self) -> bool:
        return True

    def close(self) -> None:
        pass


class UciPlayer:
    """An external engine speaking the Oware engine protocol through its pipes."""

    def __init__(self, spec: EngineSpec) -> None:
        assert spec.command is not None
        self.spec = spec
        try:
            self.proc = subprocess.Popen(
                list(spec.command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as e:
            raise MatchError(f"cannot start {' '.join(spec.command)}: {e}") from None
        self._lines: list[str] = []
        self._ready = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._send("uci")
        self._wait_for("uciok", HANDSHAKE_S)
        self._send("ucinewgame")
        self._send("isready")
        self._wait_for("readyok", HANDSHAKE_S)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._ready:
                self._lines.append(line.strip())
                self._ready.notify_all()
        with self._ready:
            self._lines.append("")  # the engine closed its output
            self._ready.notify_all()

    def _send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise MatchError(f"{self.spec.label} exited") from None

    def _wait_for(self, word: str, seconds: float) -> str:
        """The first line from now on that starts with ``word``; MatchError after ``seconds``."""
        with self._ready:
            ok = self._ready.wait_for(
                lambda: any(line.startswith(word) or line == "" for line in self._lines), timeout=seconds
            )
            found = next((line for line in self._lines if line.startswith(word) or line == ""), None)
            if not ok or found is None or found == "":
                raise MatchError(f"{self.spec.label}: no {word!r} in {seconds:.0f} s")
            del self._lines[: self._lines.index(found) + 1]
            return found

    def choose(self, positions: list[griot.Position], moves: list[str]) -> str:
        letters = "".join(to_dialect(m) for m in moves)
        self._send("position startpos" + (f" moves {letters}" if letters else ""))
        go = []
        if self.spec.depth is not None:
            go.append(f"depth {self.spec.depth}")
        if self.spec.nodes is not None:
            go.append(f"nodes {self.spec.nodes}")
        if self.spec.time is not None:
            go.append(f"movetime {max(1, round(self.spec.time * 1000))}")
        self._send("go " + " ".join(go))
        budget = (self.spec.time or 0.0) + ANSWER_GRACE_S * (3 if self.spec.time is None else 1)
        answer = self._wait_for("bestmove", budget).split()
        if len(answer) < 2 or len(answer[1]) != 1:
            raise MatchError(f"{self.spec.label}: answered {' '.join(answer)!r}")
        return to_griot_letter(answer[1])

    def new_game(self) -> None:
        self._send("ucinewgame")
        self._send("isready")
        self._wait_for("readyok", HANDSHAKE_S)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._send("quit")
                self.proc.wait(timeout=5)
            except (MatchError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


def make_player(spec: EngineSpec) -> Player:
    return GriotPlayer(spec) if spec.command is None else UciPlayer(spec)


@dataclass
class GameResult:
    """One game: the opening, who played South, the moves and how it ended (points for South)."""

    opening: list[str]
    a_is_south: bool
    moves: list[str]
    south_points: float
    reason: str

    @property
    def a_points(self) -> float:
        return self.south_points if self.a_is_south else 1.0 - self.south_points


def play_game(
    variant: griot.Variant,
    opening: list[str],
    south: Player,
    north: Player,
    *,
    a_is_south: bool = True,
    repetitions: int = 3,
) -> GameResult:
    """Plays one game from ``variant``'s start through ``opening``, refereed by Griot's rules: a
    position (board, stores, side to move; not the turn count) occurring for the ``repetitions``-th
    time ends the game as the variant's endless cycle (3 is Griot's reading; 2 that of engines which
    end an Oware game at its first repetition)."""
    pos = variant.start()
    positions = [pos]
    moves: list[str] = []
    seen: Counter[bytes] = Counter([pos.key])
    for m in opening:
        move = pos.parse_move(m)
        pos = pos.play(move)
        moves.append(move.text)
        positions.append(pos)
        seen[pos.key] += 1
    while True:
        outcome = pos.outcome
        reason = outcome.reason if outcome is not None else ""
        if outcome is None and seen[pos.key] >= repetitions:
            outcome, reason = pos.endless_outcome(), "repetition"
        if outcome is not None:
            points = 1.0 if outcome.winner == "S" else 0.0 if outcome.winner == "N" else 0.5
            return GameResult(opening, a_is_south, moves, points, reason)
        mover = pos.side_to_move
        player = south if mover == "S" else north
        try:
            text = player.choose(positions, moves)
            move = pos.parse_move(text)
            pos.check(move)
        except (griot.GriotError, MatchError) as e:
            loser_points = 0.0 if mover == "S" else 1.0
            return GameResult(opening, a_is_south, moves, loser_points, f"{mover} forfeits: {e}")
        pos = pos.play(move)
        moves.append(move.text)
        positions.append(pos)
        seen[pos.key] += 1


#: One game of a match: its opening and whether engine A plays South.
Job = tuple[list[str], bool]
#: Plays a match's games elsewhere: given the variant, both engines, the games and the repetition
#: rule, yields each game's result in the games' order (None for a game it did not play); stops
#: early (and stops what it started) when the iteration is closed.
GamesRunner = Callable[
    [griot.Variant, EngineSpec, EngineSpec, list[Job], int], Generator["GameResult | None", None, None]
]


def game_jobs(variant: griot.Variant, games: int, plies: int, seed: int) -> list[Job]:
    """The games of a match: ``games`` rounded up to pairs, each seeded opening with A as South
    then as North."""
    pairs = (games + 1) // 2
    starts = openings(variant, plies, seed)
    return [
        (opening, a_south) for opening in (next(starts) for _ in range(pairs)) for a_south in (True, False)
    ]


def openings(variant: griot.Variant, plies: int, seed: int) -> Iterator[list[str]]:
    """Random openings of ``plies`` moves, seeded, each leaving a game still to play."""
    rng = random.Random(seed)
    while True:
        pos = variant.start()
        moves: list[str] = []
        for _ in range(plies):
            legal = pos.legal_moves()
            if not legal:
                break
            m = rng.choice(legal)
            moves.append(m.text)
            pos = pos.play(m)
        if not pos.is_over:
            yield moves


def elo(score: float) -> float:
    """The Elo difference a score (0 < score < 1) means; ±inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo_diff: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo_diff / 400.0))


@dataclass(frozen=True)
class Sprt:
    """A sequential test of H0: A is ``elo0`` stronger against H1: ``elo1``, with error rates
    ``alpha`` (accepting H1 wrongly) and ``beta`` (accepting H0 wrongly). No verdict comes before
    ``min_games``: the normal approximation of a handful of games (six wins in six) passes either
    bound of a wide test long before it means anything."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_games: int = 20

    @property
    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, points: list[float]) -> float:
        """The log-likelihood ratio of H1 over H0 given the per-game points, in the normal
        approximation of the game score (draws count through the variance)."""
        if len(points) < 2:
            return 0.0
        # One win and one loss added to the games: a run of identical results then has a variance,
        # and the test a sane step, instead of deciding on two games.
        sample = [*points, 1.0, 0.0]
        n = len(sample)
        mean = sum(sample) / n
        var = sum((p - mean) ** 2 for p in sample) / n
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

    def verdict(self, points: list[float]) -> str | None:
        """``"H1"`` (A's strength is nearer ``elo1`` than ``elo0``), ``"H0"`` (nearer ``elo0``), or
        None to play on."""
        if len(points) < self.min_games:
            return None
        lower, upper = self.bounds
        value = self.llr(points)
        return "H1" if value >= upper else "H0" if value <= lower else None


@dataclass
class MatchStats:
    """Engine A's results: wins, draws, losses, score with its 95% interval and the Elo it means."""

    points: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def wdl(self) -> tuple[int, int, int]:
        return self.points.count(1.0), self.points.count(0.5), self.points.count(0.0)

    @property
    def score(self) -> float:
        return sum(self.points) / len(self.points) if self.points else 0.5

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval of the score: Wilson's, which stays sound at 0 and 1 and on few games
        (a draw counts as half a win, so drawn games make it wider than it need be, never narrower)."""
        n = len(self.points)
        if n == 0:
            return 0.0, 1.0
        z = 1.96
        p = self.score
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def summary(self) -> str:
        w, d, lost = self.wdl
        low, high = self.interval
        return (
            f"score {self.score:.3f} [{low:.3f}, {high:.3f}] over {self.games} games "
            f"(W {w} D {d} L {lost}), Elo {_elo_text(elo(self.score))} "
            f"[{_elo_text(elo(low))}, {_elo_text(elo(high))}]"
        )


def _elo_text(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value) or 0:+d}"  # never "-0"


@dataclass
class MatchResult:
    stats: MatchStats
    games: list[GameResult]
    verdict: str | None


def run_match(
    variant: griot.Variant,
    a: EngineSpec,
    b: EngineSpec,
    *,
    games: int,
    plies: int = 4,
    seed: int = 1,
    concurrency: int = 1,
    sprt: Sprt | None = None,
    repetitions: int = 3,
    on_game: Callable[[GameResult, MatchStats], None] | None = None,
    games_runner: GamesRunner | None = None,
) -> MatchResult:
    """Plays up to ``games`` games (rounded up to pairs: each opening with both colours), ``concurrency``
    at a time (or through ``games_runner``), stopping early when ``sprt`` reaches a verdict."""
    if games < 1:
        raise MatchError("games must be at least 1")
    for spec in (a, b):
        if spec.command is not None:
            geometry = variant.geometry
            if geometry["rows"] != 2 or len(geometry["cells"]) != 12:
                raise MatchError(f"{spec.label}: the engine protocol speaks 2x6 sowing games only")
    jobs = game_jobs(variant, games, plies, seed)
    stats = MatchStats()
    done: list[GameResult] = []
    verdict: str | None = None
    lock = threading.Lock()
    stop = threading.Event()

    # Each thread keeps its two engines from game to game, as a GUI does: an external engine's
    # start (a JVM's, its books) is paid once, not once a game.
    local = threading.local()
    started: list[Player] = []

    def player(role: str, spec: EngineSpec) -> Player:
        players: dict[str, Player] = local.__dict__.setdefault("players", {})
        current = players.get(role)
        if current is None or not current.alive:
            current = make_player(spec)
            players[role] = current
            with lock:
                started.append(current)
        else:
            current.new_game()
        return current

    def one(job: tuple[list[str], bool]) -> GameResult | None:
        opening, a_south = job
        if stop.is_set():
            return None
        engine_a, engine_b = player("a", a), player("b", b)
        south, north = (engine_a, engine_b) if a_south else (engine_b, engine_a)
        return play_game(variant, opening, south, north, a_is_south=a_south, repetitions=repetitions)

    with contextlib.ExitStack() as closing:
        results: Iterable[GameResult | None]
        if games_runner is not None:
            if a.command is not None or b.command is not None:
                raise MatchError("the workers play Griot's own engine only (griot;...)")
            results = closing.enter_context(
                contextlib.closing(games_runner(variant, a, b, jobs, repetitions))
            )
        else:
            closing.callback(_close_all, started)  # after the pool is done with them
            pool = closing.enter_context(ThreadPoolExecutor(max_workers=max(1, concurrency)))
            results = pool.map(one, jobs)
        for result in results:
            if verdict is not None:
                break
            if result is None:
                continue  # not started, or finished after the verdict: never half a pair
            with lock:
                done.append(result)
                stats.points.append(result.a_points)
                if on_game is not None:
                    on_game(result, stats)
                # Decided on whole pairs only, so that colour never tips a verdict.
                if sprt is not None and verdict is None and stats.games % 2 == 0:
                    verdict = sprt.verdict(stats.points)
                    if verdict is not None:
                        stop.set()
    return MatchResult(stats, done, verdict)


def _close_all(players: list[Player]) -> None:
    for p in players:
        p.close()


def game_record(variant: griot.Variant, result: GameResult, a: EngineSpec, b: EngineSpec) -> GameRecord:
    """A game as a record (``docs/RECORDS.md``) naming both engines."""
    south, north = (a, b) if result.a_is_south else (b, a)
    points = {1.0: "1-0", 0.0: "0-1"}.get(result.south_points, "1/2-1/2")
    record = GameRecord.from_positions(
        variant.start(), result.moves, South=south.label, North=north.label, Termination=result.reason
    )
    # A repetition or a forfeit ends the game where the rules alone would play on.
    record.result = points
    return record
