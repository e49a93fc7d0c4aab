"""Who plays against you in ``griot play``: one interface, three sources, best first.

- :class:`GatewayOpponent`: the analysis gateway's ``BestMove`` (when a gateway runs: issue 8);
- :class:`EngineOpponent`: the in-process search engine, ``griot.best_move`` (when the search lands);
- :class:`SimpleOpponent`: a **simple stand-in**, not Griot's engine: a few plies of minimax on the
  store difference, with random tie-breaks. It exists so that ``griot play`` works before the search
  engine does, and says so in its label.

:func:`choose_move` is the module-level entry point: ``choose_move(position, level)``.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, Protocol

import griot
from griot._core import Move, Position

#: Levels accepted everywhere (the gateway's BestMove takes 1..10).
MIN_LEVEL, MAX_LEVEL = 1, 10


class Opponent(Protocol):
    """Anything that picks a move for a position at a strength level (1..10)."""

    label: str

    def choose_move(self, position: Position, level: int) -> Move: ...

    def evaluate(self, position: Position) -> str: ...


@lru_cache(maxsize=64)
def _owners(variant: str) -> tuple[str | None, ...]:
    return tuple(c["owner"] for c in griot.Variant(variant).geometry["cells"])


def material(pos: Position, player: str) -> int:
    """``player``'s store minus the other's; boards without stores count the seeds on each side."""
    outcome = pos.outcome
    if outcome is not None:
        if outcome.winner is None:
            return 0
        return 10_000 if outcome.winner == player else -10_000
    stores = pos.stores
    if stores is not None:
        mine, theirs = (stores[0], stores[1]) if player == "S" else (stores[1], stores[0])
        return mine - theirs
    owners = _owners(pos.variant.canonical)
    diff = 0
    for owner, seeds in zip(owners, pos.cells, strict=False):
        if owner == player:
            diff += seeds
        elif owner is not None:
            diff -= seeds
    return diff


class SimpleOpponent:
    """Minimax on :func:`material` to ``level - 1`` plies (at most 4), level 1 plays at random."""

    label = "simple opponent (material lookahead; not the Griot engine)"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def _value(self, pos: Position, player: str, depth: int) -> int:
        if depth == 0 or pos.is_over:
            return material(pos, player)
        values = [self._value(child, player, depth - 1) for _, child in pos.successors()]
        if not values:
            return material(pos, player)
        return max(values) if pos.side_to_move == player else min(values)

    def scored_moves(self, position: Position, depth: int) -> list[tuple[Move, int]]:
        player = position.side_to_move
        return [(m, self._value(child, player, depth - 1)) for m, child in position.successors()]

    def choose_move(self, position: Position, level: int) -> Move:
        moves = position.legal_moves()
        if not moves:
            raise griot.IllegalMoveError("no legal move: the game is over")
        if level <= 1:
            return self.rng.choice(moves)
        scored = self.scored_moves(position, min(level - 1, 4))
        best = max(v for _, v in scored)
        return self.rng.choice([m for m, v in scored if v == best])

    def evaluate(self, position: Position) -> str:
        if position.is_over:
            return "game over"
        scored = self.scored_moves(position, 4)
        best = max(v for _, v in scored)
        side = "South" if position.side_to_move == "S" else "North"
        moves = " ".join(f"{m}:{v:+d}" for m, v in scored)
        return f"{side} {best:+d} seeds after 4 plies (simple lookahead, not the engine) · {moves}"


class EngineOpponent:
    """The native search, through ``griot.best_move(position, level=...)`` (issue: search engine)."""

    label = "Griot engine"

    def choose_move(self, position: Position, level: int) -> Move:
        result: Any = griot.best_move(position, level=level)  # type: ignore[attr-defined]
        move = getattr(result, "move", result)
        return position.parse_move(move if isinstance(move, str | Move) else str(move))

    def evaluate(self, position: Position) -> str:
        evaluate = getattr(griot, "evaluate", None)
        if evaluate is None:
            return SimpleOpponent().evaluate(position)
        return str(evaluate(position))


class GatewayOpponent:
    """The gateway's ``BestMove`` and ``Evaluate`` (the system started by ``griot up``)."""

    def __init__(self, target: str, timeout: float = 30.0) -> None:
        from griot.client import AnalysisClient

        self.target = target
        self.client = AnalysisClient(target, timeout=timeout)
        self.label = f"Griot engine via the gateway at {target}"

    def choose_move(self, position: Position, level: int) -> Move:
        response = self.client.best_move(position, level=max(MIN_LEVEL, min(level, MAX_LEVEL)))
        return position.parse_move(response.move)

    def evaluate(self, position: Position) -> str:
        from griot.client import search_limits

        last = None
        for message in self.client.evaluate(position, search_limits(max_time=2.0), timeout=10):
            last = message
        return str(last).strip() if last is not None else "no evaluation"


def local_opponent(seed: int | None = None) -> Opponent:
    """The engine when the search exists in this build, else the simple stand-in."""
    if hasattr(griot, "best_move"):
        return EngineOpponent()
    return SimpleOpponent(seed)


def choose_move(position: Position, level: int) -> Move:
    """A move for ``position`` at ``level`` (1..10): ``griot.best_move`` when it exists, else the
    clearly labelled simple opponent."""
    return local_opponent().choose_move(position, level)
