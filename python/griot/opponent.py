"""Who plays against you in ``griot play``: one interface, two sources, best first.

- :class:`GatewayOpponent`: the analysis gateway's ``BestMove`` (when ``griot up`` runs a gateway);
- :class:`EngineOpponent`: the in-process search engine, ``griot.best_move`` and ``griot.search``.

Either plays from an opening book first when ``griot play --book`` gives one (:func:`book_move`).
:func:`choose_move` is the module-level entry point: ``choose_move(position, level)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import griot
from griot._core import Move, Position
from griot.history import repeating

if TYPE_CHECKING:
    from griot.book import Book, BookEntry

#: Levels accepted everywhere (the gateway's BestMove takes 1..10).
MIN_LEVEL, MAX_LEVEL = 1, 10


class Opponent(Protocol):
    """Anything that picks a move for a position at a strength level (1..10)."""

    label: str

    def choose_move(self, position: Position, level: int) -> Move: ...

    def evaluate(self, position: Position) -> str: ...


class EngineOpponent:
    """The native search in this process: ``griot.best_move`` at a level, ``griot.search`` to explain."""

    label = "Griot engine"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = random.randrange(1 << 32) if seed is None else seed

    def choose_move(self, position: Position, level: int) -> Move:
        move = griot.best_move(position, max(MIN_LEVEL, min(level, MAX_LEVEL)), seed=self.seed)
        if move is None:
            raise griot.IllegalMoveError("the game is over: there is no move to choose")
        self.seed += 1
        return move

    def evaluate(self, position: Position, seconds: float = 1.0) -> str:
        result = griot.search(position, time=seconds, multipv=0)
        side = "South" if position.side_to_move == "S" else "North"
        moves = " ".join(f"{m.move}:{m.score}" for m in result.moves)
        return f"{side} {result.score} at depth {result.depth} · best {result.best_move} · {moves}"


class GatewayOpponent:
    """The gateway's ``BestMove`` and ``Evaluate`` (the system started by ``griot up``)."""

    def __init__(self, target: str, timeout: float = 30.0, seed: int | None = None) -> None:
        from griot.client import AnalysisClient

        self.target = target
        self.client = AnalysisClient(target, timeout=timeout)
        self.label = f"Griot engine via the gateway at {target}"
        # As the engine in process: a seed per game, the next one each move.
        self.seed = random.randrange(1 << 32) if seed is None else seed

    def choose_move(self, position: Position, level: int) -> Move:
        level = max(MIN_LEVEL, min(level, MAX_LEVEL))
        response = self.client.best_move(position, level=level, seed=self.seed)
        self.seed += 1
        return position.parse_move(response.move)

    def evaluate(self, position: Position) -> str:
        from griot.cli_analysis import score_text
        from griot.client import search_limits

        last = None
        limits = search_limits(max_time=2.0)
        for message in self.client.evaluate(position, limits, include_move_scores=True, timeout=10):
            last = message.evaluation
        if last is None:
            return "no evaluation"
        side = "South" if position.side_to_move == "S" else "North"
        moves = " ".join(f"{m.move}:{score_text(m.score)}" for m in last.move_scores)
        text = f"{side} {score_text(last.score)} at depth {last.depth} · best {last.best_move}"
        return f"{text} · {moves}" if moves else text


def local_opponent(seed: int | None = None) -> Opponent:
    """The in-process engine."""
    return EngineOpponent(seed)


def choose_move(position: Position, level: int) -> Move:
    """A move for ``position`` at ``level`` (1..10) from the in-process engine."""
    return local_opponent().choose_move(position, level)


def book_move(book: Book | None, position: Position, earlier: Sequence[Position]) -> BookEntry | None:
    """The book's entry for ``position`` (its move is the one to play), or None when the book does
    not hold it or the game has already repeated a position (``earlier``: the game's positions
    before this one): a book move could then end the game by repetition, which the book does not
    know, so the search, which sees the game's history, decides."""
    if book is None or repeating(position, earlier):
        return None
    return book.probe(position)
