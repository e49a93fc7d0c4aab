"""Plays random games through the core and an independent reference implementation side by side.

At every turn both must agree on the position text, the legal moves and the outcome (winner and
final scores; the reason's wording is not compared). Where a turn can take several steps (a
reference with ``mid_turn``), the moves compared are whole turns (:func:`reference_turns`). Used
by the cross-check tests of every game.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import griot

#: How many times the default games the ``slow`` cross-checks play: once in CI (their games run to
#: the full turn limit, where the default run stops short); the
#: 10- and 20-fold runs passed when the games landed (``GRIOT_CROSSCHECK_FACTOR=20``).
SLOW_FACTOR = int(os.environ.get("GRIOT_CROSSCHECK_FACTOR", "1"))


@dataclass
class Disagreement:
    """Where the core and the reference first differ."""

    variant: str
    game: int
    position: str
    what: str
    core: object
    reference: object

    def __str__(self) -> str:
        return (
            f"{self.variant} game {self.game}: {self.what} differ at {self.position!r}\n"
            f"  core:      {self.core!r}\n  reference: {self.reference!r}"
        )


def _core_outcome(pos: griot.Position) -> tuple[str | None, tuple[int, int]] | None:
    o = pos.outcome
    return None if o is None else (o.winner, tuple(o.scores))  # type: ignore[return-value]


def _ref_outcome(ref: ModuleType, text: str) -> tuple[str | None, tuple[int, int]] | None:
    o = ref.outcome(text)
    return None if o is None else (o["winner"], tuple(o["score"]))


def reference_turns(ref: ModuleType, text: str) -> dict[str, str | None]:
    """A reference's whole turns in ``text``: its moves, and where the position after one is still
    inside the turn (``ref.mid_turn``: the same player goes on), every way the turn can go on, the
    steps joined by ``/``; each with the position the turn leads to. Where the reference says no
    move here can leave the turn open (``ref.turn_may_continue``, a cheap look at the text), every
    move is a whole turn and its position is left ``None``, to be played on demand
    (:func:`after_turn`): playing every move of every position made the cross-checks several
    times slower."""
    may_continue = getattr(ref, "turn_may_continue", None)
    if may_continue is not None and not may_continue(text):
        return dict.fromkeys(ref.legal_moves(text))
    out: dict[str, str | None] = {}

    def walk(position: str, steps: list[str]) -> None:
        for m in ref.legal_moves(position):
            after = ref.play(position, m)
            if ref.mid_turn(after):
                walk(after, [*steps, m])
            else:
                out["/".join([*steps, m])] = after

    walk(text, [])
    return out


def after_turn(ref: ModuleType, text: str, turns: dict[str, str | None], move: str) -> str:
    """The position the turn ``move`` of :func:`reference_turns` leads to."""
    after = turns[move]
    return ref.play(text, move) if after is None else after


def crosscheck(
    ref: ModuleType,
    variant: str,
    games: int,
    seed: int,
    max_turns: int = 400,
    compare_moves: bool = True,
    successor_key: Callable[[str], str] = str,
) -> tuple[int, list[Disagreement]]:
    """Plays ``games`` random games; returns (turns played, disagreements found).

    With ``compare_moves`` false (games whose move spelling is the module's own), the sets of
    successor positions are compared instead of the move lists.
    """
    rng = random.Random(seed)
    turns = 0
    found: list[Disagreement] = []
    for g in range(games):
        start = ref.start(variant)
        core = griot.Variant(variant).start()
        if str(core) != start:
            return turns, [Disagreement(variant, g, start, "start position", str(core), start)]
        text = start
        for _ in range(max_turns):
            co, ro = _core_outcome(core), _ref_outcome(ref, text)
            if co != ro:
                found.append(Disagreement(variant, g, text, "outcome", co, ro))
                break
            if co is not None:
                break
            if compare_moves and hasattr(ref, "mid_turn"):
                ct = [str(m) for m in core.legal_moves()]
                rt = reference_turns(ref, text)
                if sorted(ct) != sorted(rt):
                    found.append(Disagreement(variant, g, text, "legal moves (turns)", ct, sorted(rt)))
                    break
                mv = rng.choice(sorted(rt))
                core = core.play(mv)
                text = after_turn(ref, text, rt, mv)
            elif compare_moves:
                cm = [str(m) for m in core.legal_moves()]
                rm = list(ref.legal_moves(text))
                if sorted(cm) != sorted(rm):
                    found.append(Disagreement(variant, g, text, "legal moves", cm, rm))
                    break
                mv = rng.choice(sorted(rm))
                core = core.play(mv)
                text = ref.play(text, mv)
            else:
                cs = sorted(successor_key(str(p)) for _, p in core.successors())
                rs = sorted(successor_key(ref.play(text, m)) for m in ref.legal_moves(text))
                if cs != rs:
                    found.append(Disagreement(variant, g, text, "successor positions", cs, rs))
                    break
                text = rng.choice(rs)
                core = griot.Position(text)
            turns += 1
            if str(core) != text:
                found.append(Disagreement(variant, g, text, "position after the move", str(core), text))
                break
        if len(found) >= 3:
            break
    return turns, found
