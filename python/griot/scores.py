"""Scores, classifications, game reports and strength levels: pure arithmetic the gateway and
``griot analyze-game`` (in process) share.

Values are the core's raw values (``griot.Score.value``): centi-units of margin for the side to
move, or ``WIN - n`` / ``-(WIN - n)`` for a win / loss proven ``n`` turns (both players' turns) away.

Classification thresholds (centi-units of loss against the best move; 100 = one seed or piece)
-------------------------------------------------------------------------------------------
Chosen per game family from what one seed or piece is worth on its board, so that a blunder is a
loss that usually decides a game between equal players:

======================================  ==========  =======  =======  ===========
family                                  inaccuracy  mistake  blunder  proven result
======================================  ==========  =======  =======  ===========
two-row sowing (rule files: abapa,      100         300      600      4800
awale, oware, dakar, ... 48 seeds)
leb-bbut-ahbochen (2-10 holes, small)   100         200      400      4000
bechi (2x4 or 2x3, six seeds a hole)    100         200      400      4800
ikibuguzo (4x8, captures of whole       200         400      800      6400
holes re-sown)
sabouiyya (12 pieces each; a piece =    100         200      400      1200
100)
======================================  ==========  =======  =======  ===========

A proven result counts as the family's "proven result" margin (a win as +margin, a loss as
-margin), so turning a proven win into anything else, or walking into a proven loss, is a
blunder. Where the endgame databases give both moves' final margins, the loss is the seeds given
away (100 a seed) and any change of result (win, draw, loss) is a blunder: the search rates every
move the databases call won alike. A move that is the only legal one is ``forced``; a move
scoring as well as the best is ``best``; a loss below the inaccuracy threshold is ``good``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from griot import WIN_BOUND, Position, Score
from griot._core import level_choice, level_settings
from griot.egdb import flip
from griot.messages import PLAYERS, outcome_message
from griot.v1 import analysis_pb2, common_pb2


@dataclass(frozen=True)
class Thresholds:
    """Losses (centi-units) from which a move is an inaccuracy, a mistake, a blunder; and the
    margin a proven result counts as."""

    inaccuracy: int
    mistake: int
    blunder: int
    proven: int

    def message(self) -> analysis_pb2.ClassificationThresholds:
        return analysis_pb2.ClassificationThresholds(
            inaccuracy=self.inaccuracy, mistake=self.mistake, blunder=self.blunder
        )


SOWING = Thresholds(100, 300, 600, 4800)
#: Per game id; every other game (the two-row sowing rule files) uses :data:`SOWING`.
FAMILY_THRESHOLDS: dict[str, Thresholds] = {
    "leb-bbut-ahbochen": Thresholds(100, 200, 400, 4000),
    "bechi": Thresholds(100, 200, 400, 4800),
    "ikibuguzo": Thresholds(200, 400, 800, 6400),
    "sabouiyya": Thresholds(100, 200, 400, 1200),
}


def thresholds(game_id: str) -> Thresholds:
    """The thresholds of a game family (by the variant's game id)."""
    return FAMILY_THRESHOLDS.get(game_id, SOWING)


def score_message(value: int, exact: dict[str, Any] | None = None) -> common_pb2.Score:
    """A raw value as ``griot.v1.Score`` (proven results in the side to move's own turns), with its
    source. ``exact``: the endgame databases' result for the position (:func:`griot.egdb.exact`),
    which then decides the score: the result, and the final margin when they give it."""
    score = Score(value)
    turns = score.own_turns
    if exact is not None:
        out = common_pb2.Score(source=common_pb2.SCORE_SOURCE_DATABASE)
        result = exact.get("result")
        # The databases store results, not distances: the turns are the search's when it agrees.
        if result == "win":
            out.wins_in = turns if turns is not None and score.is_win else 1
        elif result == "loss":
            out.loses_in = turns if turns is not None and not score.is_win else 1
        else:
            out.draw = True
        if exact.get("margin") is not None:
            out.final_margin = int(exact["margin"])
        return out
    if turns is None:
        return common_pb2.Score(centi=value, source=common_pb2.SCORE_SOURCE_HEURISTIC)
    source = common_pb2.SCORE_SOURCE_SEARCH
    if score.is_win:
        return common_pb2.Score(wins_in=turns, source=source)
    return common_pb2.Score(loses_in=turns, source=source)


def negate(value: int) -> int:
    """The same value from the other side's point of view."""
    return -value


def centi(value: int, t: Thresholds) -> int:
    """A value on the centi-unit scale of losses: proven results count as ``t.proven``."""
    if value >= WIN_BOUND:
        return t.proven
    if value <= -WIN_BOUND:
        return -t.proven
    return max(-t.proven, min(t.proven, value))


def classify(
    best: int, played: int, legal_moves: int, played_is_best: bool, t: Thresholds
) -> tuple[int, analysis_pb2.MoveClassification.ValueType]:
    """(loss in centi-units, ``MoveClassification``) of a played move scoring ``played`` where the
    best scores ``best`` (both from the mover's point of view)."""
    loss = 0 if played_is_best else max(0, centi(best, t) - centi(played, t))
    if legal_moves <= 1:
        return loss, analysis_pb2.MOVE_CLASSIFICATION_FORCED
    if loss == 0:
        return 0, analysis_pb2.MOVE_CLASSIFICATION_BEST
    if loss >= t.blunder or (best >= WIN_BOUND and played < WIN_BOUND):
        return loss, analysis_pb2.MOVE_CLASSIFICATION_BLUNDER
    if loss >= t.mistake:
        return loss, analysis_pb2.MOVE_CLASSIFICATION_MISTAKE
    if loss >= t.inaccuracy:
        return loss, analysis_pb2.MOVE_CLASSIFICATION_INACCURACY
    return loss, analysis_pb2.MOVE_CLASSIFICATION_GOOD


_RESULT_ORDER = {"loss": -1, "draw": 0, "win": 1}


def _exact_loss(
    best: dict[str, Any] | None,
    played: dict[str, Any] | None,
    legal_moves: int,
    played_is_best: bool,
    t: Thresholds,
) -> tuple[int, analysis_pb2.MoveClassification.ValueType] | None:
    """The loss and classification of a played move from the databases' final margins of both
    moves (the mover's), when they give both: the seeds given away, and a blunder for any change
    of result. None otherwise (the search's values decide)."""
    if best is None or played is None or best.get("margin") is None or played.get("margin") is None:
        return None
    loss, cls = classify(100 * best["margin"], 100 * played["margin"], legal_moves, played_is_best, t)
    order = _RESULT_ORDER.get
    if legal_moves > 1 and (order(played.get("result", ""), 0) < order(best.get("result", ""), 0)):
        cls = analysis_pb2.MOVE_CLASSIFICATION_BLUNDER
    return loss, cls


def turn_analysis(
    index: int,
    pos: Position,
    played: str,
    best: str,
    best_value: int,
    played_value: int,
    best_exact: dict[str, Any] | None = None,
    played_exact: dict[str, Any] | None = None,
) -> analysis_pb2.TurnAnalysis:
    """Turn ``index`` of a game: the move ``played`` in ``pos`` against the ``best`` one, with their
    values for the mover, classified by the game family's thresholds. ``best_exact`` and
    ``played_exact``: the endgame databases' results of the two moves for the mover, if any."""
    t = thresholds(pos.variant.id)
    legal = len(pos.legal_moves())
    exact = _exact_loss(best_exact, played_exact, legal, played == best, t)
    loss, cls = exact or classify(best_value, played_value, legal, played == best, t)
    mover = pos.side_to_move
    return analysis_pb2.TurnAnalysis(
        turn=index,
        player=PLAYERS.get(mover, common_pb2.PLAYER_UNSPECIFIED),
        position=str(pos),
        played_move=played,
        best_move=best,
        best_score=score_message(best_value, best_exact),
        played_score=score_message(played_value, played_exact),
        loss=loss,
        classification=cls,
        south_score=score_message(
            played_value if mover == "S" else -played_value,
            played_exact if mover == "S" else flip(played_exact),
        ),
    )


def game_report(
    positions: Sequence[Position], turns: Sequence[analysis_pb2.TurnAnalysis]
) -> analysis_pb2.GameReport:
    """The report of a game (``positions``: the start and the position after each move) from its
    analysed turns: each player's counts of bad moves and average loss, and the outcome once the
    game is over."""
    variant = positions[0].variant
    t = thresholds(variant.id)
    report = analysis_pb2.GameReport(variant=variant.canonical, turns=turns, thresholds=t.message())
    c = analysis_pb2
    for player in (common_pb2.PLAYER_SOUTH, common_pb2.PLAYER_NORTH):
        mine = [x for x in turns if x.player == player]
        report.players.add(
            player=player,
            moves=len(mine),
            inaccuracies=sum(x.classification == c.MOVE_CLASSIFICATION_INACCURACY for x in mine),
            mistakes=sum(x.classification == c.MOVE_CLASSIFICATION_MISTAKE for x in mine),
            blunders=sum(x.classification == c.MOVE_CLASSIFICATION_BLUNDER for x in mine),
            average_loss=round(sum(x.loss for x in mine) / len(mine)) if mine else 0,
        )
    outcome = positions[-1].outcome
    if outcome is not None:
        report.outcome.CopyFrom(outcome_message(outcome))
    return report


# ---------------------------------------------------------------------------------------------
# Strength levels (the core's ``search::level`` table, applied to a worker's multi-PV result)


@dataclass(frozen=True)
class Level:
    depth: int
    margin: int
    time: float | None


#: Each level's settings, from the core's table (``griot.best_move`` plays by the same).
LEVELS: dict[int, Level] = {n: Level(*level_settings(n)) for n in range(1, 11)}


def choose(level: int, moves: Sequence[Sequence[Any]], best: str | None, seed: int) -> str | None:
    """The move ``level`` (1..10) plays from a search's root moves ``(move, value, bound)`` (best
    first): the core's pick, the one ``griot.best_move`` makes from the same values and ``seed``
    (0 included), uniformly among the exactly scored moves within the level's margin of the best,
    never a proven loss when the best is not one; the best move at levels without a margin."""
    if not moves:
        return best
    if LEVELS[level].margin == 0:
        return best or str(moves[0][0])
    rows = [(str(m), int(v), str(b)) for m, v, b in moves]
    return level_choice(level, rows, seed) or best
