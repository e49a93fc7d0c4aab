"""A game's history (griot.history): both of its forms, their checks, and the repetition rule a
history decides (a position's third occurrence ends the game)."""

from __future__ import annotations

import griot
import pytest
from griot.history import (
    MAX_HISTORY,
    HistoryError,
    earlier_positions,
    occurrences,
    repetition_outcome,
)

from tests.history_cycle import CYCLE, CYCLE_START, played


def test_the_cycle_returns_to_its_start_and_nothing_ends_it_without_a_history() -> None:
    line = played(CYCLE * 2)
    assert line[12].key == line[0].key == line[24].key
    assert line[12].turns != line[0].turns, "the turn count is not part of what repeats"
    assert all(p.outcome is None for p in line)


def test_the_third_occurrence_ends_the_game_as_an_endless_cycle() -> None:
    line = played(CYCLE * 2)
    earlier = line[:-1]
    assert occurrences(line[-1], earlier) == 3
    assert occurrences(line[12], line[:12]) == 2
    assert repetition_outcome(line[12], line[:12]) is None
    outcome = repetition_outcome(line[-1], earlier)
    assert outcome is not None
    # Each player takes the seeds on their own side: 20 + 1 against 26 + 1.
    assert outcome.scores == (21, 27)
    assert outcome.winner == "N"


def test_moves_from_a_start_position_give_the_positions_before() -> None:
    line = played(CYCLE * 2)
    got = earlier_positions(line[-1], start_position=CYCLE_START, moves=CYCLE * 2)
    assert [str(p) for p in got] == [str(p) for p in line[:-1]]


def test_moves_from_the_variants_start_by_default() -> None:
    start = griot.Variant("abapa").start()
    after = start.play("c").play("C")
    got = earlier_positions(after, moves=["c", "C"])
    assert [str(p) for p in got] == [str(start), str(start.play("c"))]


def test_positions_are_checked_move_by_move() -> None:
    line = played(CYCLE)
    got = earlier_positions(line[-1], positions=[str(p) for p in line[:-1]])
    assert [p.key for p in got] == [p.key for p in line[:-1]]
    # A gap (one position left out in the middle) is refused, naming the entry.
    gapped = [str(p) for p in line[:5]] + [str(p) for p in line[6:-1]]
    with pytest.raises(HistoryError, match="position 6 does not follow position 5") as e:
        earlier_positions(line[-1], positions=gapped)
    assert e.value.index == 5
    # The last earlier position must be one move before the position itself.
    with pytest.raises(HistoryError, match="does not follow the history's last position"):
        earlier_positions(line[-1], positions=[str(p) for p in line[:-2]])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"moves": ["f", "x"]}, "move 2 .'x'."),
        ({"moves": ["f", "a"]}, "move 2 .'a'."),
        ({"moves": ["f"]}, "lead to"),
        ({"positions": ["awale nonsense"]}, "position 1"),
        ({"positions": ["abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"]}, "is a abapa position, not awale"),
        ({"moves": ["f"], "positions": [CYCLE_START]}, "not both"),
        ({"moves": ["f"] * (MAX_HISTORY + 1)}, "at most"),
        ({"positions": [CYCLE_START], "start_position": CYCLE_START}, "goes with moves"),
    ],
)
def test_a_bad_history_is_refused_with_its_reason(kwargs: dict[str, object], message: str) -> None:
    after_two = played(["f", "F"])[-1]
    kwargs = {"start_position": CYCLE_START, **kwargs} if "moves" in kwargs else kwargs
    with pytest.raises(HistoryError, match=message):
        earlier_positions(after_two, **kwargs)  # type: ignore[arg-type]


def test_history_error_is_a_griot_error() -> None:
    assert issubclass(HistoryError, griot.GriotError)
    assert earlier_positions(griot.Position(CYCLE_START)) == []


def test_a_variant_ending_at_the_first_repetition_ends_it_there() -> None:
    line = played(CYCLE, start=CYCLE_START.replace("awale", "awale(repetitions=2)"))
    assert line[0].variant.options["repetitions"] == 2
    assert occurrences(line[-1], line[:-1]) == 2
    assert repetition_outcome(line[-2], line[:-2]) is None
    outcome = repetition_outcome(line[-1], line[:-1])
    assert outcome is not None
    assert outcome.scores == (21, 27)
    # The default variant goes on to the third occurrence.
    assert repetition_outcome(played(CYCLE)[-1], played(CYCLE)[:-1]) is None
