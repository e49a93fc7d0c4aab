"""A game's history: the positions before the current one, and the repetition rule it decides.

A position (board, stores, side to move, phase; not the turn count) that occurs for the third time
ends the game as an endless cycle (docs/rules/README.md, "Endless play ends the game"), or for the
second time in a variant with ``repetitions=2`` (the first repetition, as some engines end it). A bare
position cannot tell: the API's calls that play or search take a
:class:`~griot.v1.common_pb2.GameHistory` beside their position, as an engine protocol's
``position startpos moves ...`` does. This module turns either of its forms (the moves from a start
position, or the earlier positions themselves) into checked positions, and judges the rule.

Everything here is pure and cheap (a history is at most :data:`MAX_HISTORY` positions, each checked
against the legal moves of the one before it), so servers call it on their event loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from griot._core import GameOutcome, GriotError, IllegalMoveError, NotationError, Position

__all__ = [
    "MAX_HISTORY",
    "REPETITION",
    "HistoryError",
    "earlier_from",
    "earlier_positions",
    "ending_occurrence",
    "follows",
    "occurrences",
    "repeating",
    "repetition_outcome",
    "since_last_capture",
]

#: The most positions a history may hold (a game is cut at 2,000 turns by default).
MAX_HISTORY = 4096
#: The outcome reason of a game ended by a position's third occurrence.
REPETITION = "repetition"
#: The occurrence of a position that ends the game, unless its variant's ``repetitions`` says otherwise.
ENDING_OCCURRENCE = 3


class HistoryError(GriotError):
    """A history that cannot be the game before the position: unreadable, of another variant,
    too long, or not connected by legal moves. ``index`` is the offending entry's (a move's or a
    position's), when one is to blame."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


def _parse(text: str | Position, variant: str, what: str, index: int | None) -> Position:
    if isinstance(text, Position):
        pos = text
    else:
        try:
            pos = Position(text)
        except NotationError as e:
            raise HistoryError(f"{what}: {e}", index) from None
    if pos.variant.canonical != variant:
        raise HistoryError(f"{what} is a {pos.variant.canonical} position, not {variant}", index)
    return pos


def _follows(before: Position, after: Position) -> bool:
    """Whether one legal move leads from ``before`` to ``after`` (the same position, turn count
    aside: the turn count is not part of what repeats)."""
    key = after.key
    return any(before.play(m).key == key for m in before.legal_moves())


def earlier_positions(
    position: Position,
    *,
    start_position: str | Position | None = None,
    moves: Sequence[str] = (),
    positions: Sequence[str | Position] = (),
) -> list[Position]:
    """The positions before ``position`` in its game, oldest first.

    Either ``moves`` (played from ``start_position``, or from the variant's start position when it
    is empty, and leading to ``position``) or ``positions`` (the earlier positions themselves, each
    one legal move after the one before it, the last one move before ``position``). Raises
    :class:`HistoryError` naming the entry at fault."""
    variant = position.variant.canonical
    if moves and positions:
        raise HistoryError("give the history as moves or as positions, not both")
    if len(moves) > MAX_HISTORY or len(positions) > MAX_HISTORY:
        raise HistoryError(f"a history holds at most {MAX_HISTORY} entries")
    if positions and start_position:
        raise HistoryError("a start position goes with moves, not with positions")
    if not moves and not positions:
        return []
    if moves:
        current = (
            _parse(start_position, variant, "the start position", None)
            if start_position
            else position.variant.start()
        )
        out = []
        for i, text in enumerate(moves):
            out.append(current)
            try:
                current = current.play(current.parse_move(text))
            except (NotationError, IllegalMoveError) as e:
                raise HistoryError(f"move {i + 1} ({text!r}): {e}", i) from None
        if current.key != position.key:
            raise HistoryError(f"the history's moves lead to {current}, not to the position {position}")
        return out
    out = [_parse(p, variant, f"position {i + 1}", i) for i, p in enumerate(positions)]
    for i in range(1, len(out)):
        if not _follows(out[i - 1], out[i]):
            raise HistoryError(f"position {i + 1} does not follow position {i} by a legal move", i)
    if not _follows(out[-1], position):
        raise HistoryError("the position does not follow the history's last position by a legal move")
    return out


class HistoryMessage(Protocol):
    """The fields of the API's ``GameHistory`` message."""

    @property
    def start_position(self) -> str: ...
    @property
    def moves(self) -> Sequence[str]: ...
    @property
    def positions(self) -> Sequence[str]: ...


def earlier_from(position: Position, history: HistoryMessage | None) -> list[Position]:
    """:func:`earlier_positions` from a ``GameHistory`` message (None or empty: no history)."""
    if history is None:
        return []
    return earlier_positions(
        position,
        start_position=history.start_position or None,
        moves=list(history.moves),
        positions=list(history.positions),
    )


def follows(before: Position, after: Position) -> bool:
    """Whether one legal move leads from ``before`` to ``after`` (turn counts aside)."""
    return _follows(before, after)


def since_last_capture(position: Position, earlier: Sequence[Position]) -> list[Position]:
    """The positions of ``earlier`` that ``position``'s game can still repeat: those since the last
    change of the stores (a capture), at most :data:`MAX_HISTORY` of them. Stores only grow within
    a round, and a new round changes the position's round field, so no position from before can
    occur again. Games without stores keep the last :data:`MAX_HISTORY` positions."""
    stores = position.stores
    i = len(earlier)
    if stores is not None:
        while i > 0 and earlier[i - 1].stores == stores:
            i -= 1
    else:
        i = 0
    return list(earlier[max(i, len(earlier) - MAX_HISTORY) :])


def repeating(position: Position, earlier: Iterable[Position]) -> bool:
    """Whether the game has already repeated a position (counting ``position``)."""
    keys = [p.key for p in earlier]
    keys.append(position.key)
    return len(set(keys)) < len(keys)


def occurrences(position: Position, earlier: Iterable[Position]) -> int:
    """How many times ``position`` has occurred, counting itself."""
    key = position.key
    return 1 + sum(1 for p in earlier if p.key == key)


def ending_occurrence(position: Position) -> int:
    """The occurrence of a position that ends ``position``'s game: its variant's ``repetitions``
    option (2 ends it at the first repetition), :data:`ENDING_OCCURRENCE` for games without it."""
    value = position.variant.options.get("repetitions", ENDING_OCCURRENCE)
    return value if isinstance(value, int) and not isinstance(value, bool) else ENDING_OCCURRENCE


def repetition_outcome(position: Position, earlier: Iterable[Position]) -> GameOutcome | None:
    """The game's outcome if ``position`` is the third occurrence of itself (or the one its variant's
    ``repetitions`` option names: :func:`ending_occurrence`; the rules then end the
    game as an endless cycle; its reason is reported as :data:`REPETITION`), else None. A position
    the rules already end is left to its own outcome."""
    if position.outcome is not None:
        return None
    if occurrences(position, earlier) < ending_occurrence(position):
        return None
    return position.endless_outcome()
