"""``griot uci``: Griot as an engine that Oware GUIs and tournament runners drive.

The protocol is the Universal Chess Interface as Oware programs adapted it (the dialect the Aualé
GUI speaks): ``uci``, ``isready``, ``ucinewgame``, ``setoption name N value V``, ``position
startpos|fen F [moves M...]``, ``go`` with ``depth``, ``nodes``, ``movetime``, ``wtime``/``btime``/
``winc``/``binc``/``movestogo``, ``infinite`` or ``ponder``, then ``stop``, ``ponderhit`` and
``quit``; the engine answers ``id``, ``option``, ``uciok``, ``readyok``, ``info ...`` after each
completed iteration and one ``bestmove`` per ``go``.

The dialect's notation differs from Griot's:

- moves are hole letters with the cases swapped: South's holes are ``A``-``F`` (Griot's ``a``-``f``)
  and North's ``a``-``f`` (Griot's ``A``-``F``). A move list may be written with or without spaces
  (``moves AfB`` or ``moves A f B``); a principal variation is written without (``pv AfB``).
- ``fen`` is the twelve holes in sowing order (South's from its left, then North's from its left),
  the two stores (South, North) and the side to move, joined by ``-``:
  ``4-4-4-4-4-4-4-4-4-4-4-4-0-0-S``.

The game is ``abapa`` unless ``--variant`` or ``setoption name Variant`` names another two-row
sowing variant whose moves are plain hole letters. An opening book (``--book PATH`` or ``setoption
name Book value PATH``; an empty value drops it) answers the positions it holds without a search:
one ``info`` line with the book's depth and value, then ``bestmove``. The moves played since the
start (or since the ``fen``) are the game's history: a search sees a repetition as the game's end,
as the rules do. ``setoption name Repetitions value 2`` (or a ``Variant`` with ``repetitions=2``)
ends the game at a position's first repetition, as engines such as Aalina and the match runners
that follow them do; 3, the default, at its third occurrence.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

import griot
from griot.book import Book, BookError, BookResult, book_result
from griot.history import repetition_outcome

__all__ = ["GoLimits", "UciEngine", "go_budget", "parse_go"]

#: What a ``go`` reserves for answering: reading the result, printing, the GUI's pipe.
MOVE_OVERHEAD_S = 0.03
#: The most threads the ``Threads`` option accepts.
MAX_THREADS = 64
#: Moves a clock is shared over when ``movestogo`` is not given (Oware games are rarely longer).
DEFAULT_MOVES_TO_GO = 30
#: ``go`` arguments that take a value; ``infinite`` and ``ponder`` stand alone.
_GO_VALUES = ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "mate")


class UciError(ValueError):
    """A command the engine cannot carry out; reported as ``info string error: ...``."""


@dataclass
class GoLimits:
    """The limits of one ``go`` command (times in milliseconds, as the protocol sends them)."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    infinite: bool = False
    ponder: bool = False


def parse_go(tokens: list[str]) -> GoLimits:
    """Parses the words after ``go``; an unknown word or a bad number raises UciError."""
    limits = GoLimits()
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in ("infinite", "ponder"):
            setattr(limits, word, True)
            i += 1
            continue
        if word not in _GO_VALUES:
            raise UciError(f"go: unknown argument {word!r}")
        if i + 1 >= len(tokens):
            raise UciError(f"go: {word} needs a value")
        try:
            value = int(tokens[i + 1])
        except ValueError:
            raise UciError(f"go: {word} {tokens[i + 1]!r} is not an integer") from None
        if value < 0 and word not in ("wtime", "btime"):
            raise UciError(f"go: {word} must not be negative")
        if word != "mate":  # a mate search is an ordinary search here
            setattr(limits, word, value)
        i += 2
    return limits


def go_budget(limits: GoLimits, side: str) -> float | None:
    """Seconds to search for a ``go`` (None: no time limit).

    ``movetime`` is used whole, less the overhead. On a clock the remaining time is shared over the
    moves still to play, plus most of the increment, and never more than half of what is left: a
    search that uses the time it is given is worth more than one that stops early to be safe.
    """
    if limits.infinite:
        return None
    if limits.movetime is not None:
        return max(limits.movetime / 1000.0 - MOVE_OVERHEAD_S, 0.001)
    remaining = limits.wtime if side == "S" else limits.btime
    if remaining is None:
        return None
    increment = (limits.winc if side == "S" else limits.binc) / 1000.0
    left = max(remaining / 1000.0 - MOVE_OVERHEAD_S, 0.0)
    to_go = limits.movestogo if limits.movestogo else DEFAULT_MOVES_TO_GO
    share = left / max(to_go, 1) + 0.75 * increment
    return max(min(share, left / 2), 0.001)


def go_clock(limits: GoLimits, side: str) -> tuple[float, float, int | None] | None:
    """The mover's clock of a ``go`` (seconds left, increment, moves to go), which the search
    budgets itself (it stops early when the next depth would not fit and keeps the rest for later
    moves); None under ``movetime``, ``infinite`` or without a clock."""
    if limits.infinite or limits.movetime is not None:
        return None
    remaining = limits.wtime if side == "S" else limits.btime
    if remaining is None:
        return None
    increment = (limits.winc if side == "S" else limits.binc) / 1000.0
    return max(remaining / 1000.0 - MOVE_OVERHEAD_S, 0.0), increment, limits.movestogo or None


def to_griot_letter(letter: str) -> str:
    """A dialect move letter as Griot's hole label (the case swapped)."""
    return letter.swapcase()


def to_dialect(move: str) -> str:
    """A Griot move as the dialect writes it."""
    return move.swapcase()


class _Stop:
    """The search's stop handle, and an event to wait on for ``go infinite``'s answer."""

    def __init__(self) -> None:
        self.search = griot.SearchStop()
        self.event = threading.Event()

    def set(self) -> None:
        self.search.set()
        self.event.set()


@dataclass
class _Game:
    """The position the GUI set: where it started and the positions played since."""

    start: griot.Position
    history: list[griot.Position] = field(default_factory=list)

    @property
    def current(self) -> griot.Position:
        return self.history[-1] if self.history else self.start

    @property
    def earlier(self) -> list[griot.Position]:
        return [self.start, *self.history[:-1]]


class UciEngine:
    """Reads commands, one a line, and answers on ``out``; searches run on a thread of their own."""

    def __init__(
        self, out: TextIO, variant: str = "abapa", *, hash_mb: int = 64, book: str | None = None
    ) -> None:
        self._out = out
        self._write_lock = threading.Lock()
        self._hash_mb = hash_mb
        self._threads = 1
        self._variant = self._check_variant(variant)
        self._game = _Game(self._variant.start())
        self._search: threading.Thread | None = None
        self._stop = _Stop()
        self._deadline_timer: threading.Timer | None = None
        self._ponder_budget: float | None = None
        self._table = griot.SearchTable(hash_mb)
        self._book: Book | None = None
        self._book_path = ""
        if book:
            self._load_book(book)

    def _load_book(self, path: str) -> None:
        if not path:
            self._book, self._book_path = None, ""
            return
        try:
            book = Book.load(path)
        except (OSError, BookError) as e:
            raise UciError(f"book: {e}") from None
        if book.variant != self._variant.canonical:
            raise UciError(f"book: {path} is a book of {book.variant}, not {self._variant.canonical}")
        self._book, self._book_path = book, path

    # -- the protocol -------------------------------------------------------------------------

    def run(self, lines: TextIO) -> None:
        """Handles commands until ``quit`` or the end of input (which, like ``quit``, stops a search)."""
        for raw in lines:
            if not self.handle(raw):
                break
        self._finish_search()

    def handle(self, line: str) -> bool:
        """Handles one command line; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        handlers: dict[str, Callable[[list[str]], None]] = {
            "uci": self._uci,
            "isready": lambda _: self._send("readyok"),
            "ucinewgame": self._new_game,
            "setoption": self._setoption,
            "position": self._position,
            "go": self._go,
            "stop": lambda _: self._stop.set(),
            "ponderhit": self._ponderhit,
            "debug": lambda _: None,
        }
        if command == "quit":
            self._stop.set()
            return False
        handler = handlers.get(command)
        try:
            if handler is None:
                raise UciError(f"unknown command {command!r}")
            handler(args)
        except (UciError, griot.GriotError) as e:
            self._send(f"info string error: {e}")
        return True

    def _uci(self, _: list[str]) -> None:
        self._send(f"id name Griot {griot.ENGINE_VERSION}")
        self._send("id author the Griot developers")
        self._send(f"option name Hash type spin default {self._hash_mb} min 1 max 4096")
        self._send(f"option name Threads type spin default {self._threads} min 1 max {MAX_THREADS}")
        self._send(f"option name Variant type string default {self._variant.id}")
        self._send(f"option name Book type string default {self._book_path or '<empty>'}")
        repetitions = self._variant.options.get("repetitions")
        if repetitions is not None:
            self._send(f"option name Repetitions type spin default {repetitions} min 2 max 3")
        self._send("uciok")

    def _new_game(self, _: list[str]) -> None:
        self._finish_search()
        self._table.clear()
        self._game = _Game(self._variant.start())

    def _setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        m = re.fullmatch(r"name\s+(.+?)(?:\s+value\s+(.*))?", text)
        if not m:
            raise UciError("setoption: expected 'name <id> [value <x>]'")
        name, value = m.group(1).strip().lower(), (m.group(2) or "").strip()
        self._finish_search()
        if name == "hash":
            try:
                megabytes = int(value)
            except ValueError:
                raise UciError(f"setoption Hash: {value!r} is not an integer") from None
            if not 1 <= megabytes <= 4096:
                raise UciError("setoption Hash: between 1 and 4096")
            self._hash_mb = megabytes
            self._table = griot.SearchTable(megabytes)
        elif name == "threads":
            try:
                threads = int(value)
            except ValueError:
                raise UciError(f"setoption Threads: {value!r} is not an integer") from None
            if not 1 <= threads <= MAX_THREADS:
                raise UciError(f"setoption Threads: between 1 and {MAX_THREADS}")
            self._threads = threads
        elif name == "variant":
            self._variant = self._check_variant(value)
            self._game = _Game(self._variant.start())
            if self._book is not None and self._book.variant != self._variant.canonical:
                self._book, self._book_path = None, ""
        elif name == "book":
            self._load_book("" if value == "<empty>" else value)
        elif name == "repetitions":
            self._variant = self._with_repetitions(value)
            self._game = _Game(self._variant.start())
        else:
            raise UciError(f"setoption: unknown option {m.group(1).strip()!r}")

    def _position(self, args: list[str]) -> None:
        if not args:
            raise UciError("position: expected 'startpos' or 'fen <position>'")
        if args[0] == "startpos":
            start, rest = self._variant.start(), args[1:]
        elif args[0] == "fen" and len(args) >= 2:
            start, rest = self._from_fen(args[1]), args[2:]
        else:
            raise UciError("position: expected 'startpos' or 'fen <position>'")
        letters: list[str] = []
        if rest:
            if rest[0] != "moves":
                raise UciError(f"position: unexpected {rest[0]!r}")
            for token in rest[1:]:
                if not re.fullmatch(r"[A-Za-z]+", token):
                    raise UciError(f"position: {token!r} is not a move")
                letters.extend(token)
        holes = {to_dialect(c["label"]) for c in self._variant.geometry["cells"]}
        game = _Game(start)
        for letter in letters:
            pos = game.current
            if letter not in holes:
                raise UciError(f"position: {letter} is not a hole ({self._hole_names()})")
            if pos.is_over:
                raise UciError(f"position: move {letter} after the end of the game")
            try:
                game.history.append(pos.play(to_griot_letter(letter)))
            except griot.IllegalMoveError as e:
                raise UciError(
                    f"position: move {letter} is illegal after {len(game.history)} moves "
                    f"(in Griot's labels: {e})"
                ) from None
        self._finish_search()
        self._game = game

    def _go(self, args: list[str]) -> None:
        limits = parse_go(args)
        self._finish_search()
        game = self._game
        pos = game.current
        self._stop = _Stop()
        budget = go_budget(limits, pos.side_to_move)
        if limits.ponder:
            # Searched without a limit until the GUI says the move was played (ponderhit) or not.
            self._ponder_budget = budget
            budget = None
        elif budget is not None and go_clock(limits, pos.side_to_move) is None:
            self._arm_deadline(budget)
        self._search = threading.Thread(
            target=self._think, args=(game, limits, self._stop), name="griot-uci-search", daemon=True
        )
        self._search.start()

    def _ponderhit(self, _: list[str]) -> None:
        if self._search is not None and self._ponder_budget is not None:
            self._arm_deadline(self._ponder_budget)
        self._ponder_budget = None

    # -- searching ----------------------------------------------------------------------------

    def _think(self, game: _Game, limits: GoLimits, stop: _Stop) -> None:
        pos = game.current
        started = time.perf_counter()
        best: str | None = None
        ponder: str | None = None
        if not pos.is_over and repetition_outcome(pos, game.earlier) is None:
            moves = pos.legal_moves()
            entry = self._book.probe(pos) if self._book is not None else None
            if len(moves) == 1 and not (limits.infinite or limits.ponder):
                best = str(moves[0])
            elif entry is not None:
                self._send(self._info(book_result(pos, entry), started) + " string book")
                best = entry.best
            else:
                clock = None if limits.ponder else go_clock(limits, pos.side_to_move)
                result = griot.search(
                    pos,
                    depth=limits.depth,
                    nodes=limits.nodes,
                    clock=clock[:2] if clock else None,
                    moves_to_go=clock[2] if clock else None,
                    stop=stop.search,
                    history=game.earlier,
                    table=self._table,
                    progress=lambda r: self._send(self._info(r, started)),
                    reductions=True,
                    threads=self._threads,
                )
                if result.best_move is not None:
                    best = str(result.best_move)
                    if len(result.pv) > 1:
                        ponder = result.pv[1]
                else:
                    best = str(moves[0])
        if limits.infinite or limits.ponder:
            # The protocol: with no limit the answer waits for stop (or ponderhit's deadline).
            stop.event.wait()
        text = f"bestmove {to_dialect(best)}" if best else "bestmove (none)"
        if best and ponder:
            text += f" ponder {to_dialect(ponder)}"
        self._send(text)

    @staticmethod
    def _info(result: griot.SearchResult | BookResult, started: float) -> str:
        score = result.score
        if score.kind == "margin":
            value = f"cp {score.centi}"
        else:
            own_moves = ((score.turns or 1) + 1) // 2
            value = f"mate {own_moves if score.is_win else -own_moves}"
        bound = {"lower": " lowerbound", "upper": " upperbound"}.get(result.bound, "")
        elapsed_ms = int((time.perf_counter() - started) * 1000)
        pv = "".join(to_dialect(m) for m in result.pv)
        return (
            f"info depth {result.depth} seldepth {result.seldepth} time {elapsed_ms} "
            f"nodes {result.nodes} nps {result.nps} hashfull {result.hashfull} "
            f"score {value}{bound}" + (f" pv {pv}" if pv else "")
        )

    def _arm_deadline(self, seconds: float) -> None:
        if self._deadline_timer is not None:
            self._deadline_timer.cancel()
        self._deadline_timer = threading.Timer(seconds, self._stop.set)
        self._deadline_timer.daemon = True
        self._deadline_timer.start()

    def _finish_search(self) -> None:
        """Stops a running search and waits for its ``bestmove``."""
        if self._search is not None:
            self._stop.set()
            self._search.join()
            self._search = None
        if self._deadline_timer is not None:
            self._deadline_timer.cancel()
            self._deadline_timer = None
        self._ponder_budget = None

    # -- notation -----------------------------------------------------------------------------

    def _with_repetitions(self, value: str) -> griot.Variant:
        """The variant with its ``repetitions`` option (the occurrence of a position that ends the
        game) set to ``value``: the search and the history then end a game there."""
        if "repetitions" not in self._variant.options:
            raise UciError(f"setoption Repetitions: {self._variant.id} has no repetition rule")
        try:
            occurrence = int(value)
        except ValueError:
            raise UciError(f"setoption Repetitions: {value!r} is not an integer") from None
        options = {**self._variant.options, "repetitions": occurrence}
        text = ",".join(
            f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in sorted(options.items())
        )
        return self._check_variant(f"{self._variant.id}({text})")

    def _check_variant(self, text: str) -> griot.Variant:
        variant = griot.Variant(text)
        kinds = {info.id: info.kind for info in griot.variants()}
        labels = [c["label"] for c in variant.geometry["cells"]]
        if kinds.get(variant.id) != "rule_file" or len(labels) > 52:
            raise UciError(f"{variant.id}: the protocol speaks two-row sowing games with stores only")
        if any(len(str(m)) != 1 for m in variant.start().legal_moves()):
            raise UciError(f"{variant.id}: its moves are not plain hole letters")
        return variant

    def _hole_names(self) -> str:
        n = len(self._variant.geometry["cells"]) // 2
        return f"South A-{chr(ord('A') + n - 1)}, North a-{chr(ord('a') + n - 1)}"

    def _from_fen(self, text: str) -> griot.Position:
        holes = len(self._variant.geometry["cells"])
        parts = text.split("-")
        if len(parts) != holes + 3 or parts[-1] not in ("S", "N"):
            raise UciError(f"fen: expected {holes} holes, two stores and S or N joined by '-', got {text!r}")
        try:
            counts = [int(p) for p in parts[:-1]]
        except ValueError:
            raise UciError(f"fen: {text!r} holds a count that is not an integer") from None
        n = holes // 2
        south = ",".join(str(c) for c in counts[:n])
        north = ",".join(str(c) for c in counts[n:holes])
        body = f"{south}/{north} {counts[holes]}-{counts[holes + 1]} {parts[-1]} 0 -"
        return griot.Position(f"{self._variant.canonical} {body}")

    def _send(self, line: str) -> None:
        with self._write_lock:
            self._out.write(line + "\n")
            self._out.flush()


def main(
    variant: str = "abapa", hash_mb: int = 64, lines: TextIO | None = None, book: str | None = None
) -> None:
    """Runs the protocol on standard input and output."""
    UciEngine(sys.stdout, variant, hash_mb=hash_mb, book=book).run(lines or sys.stdin)
