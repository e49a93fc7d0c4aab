"""abapa against OpenSpiel's `oware` (the same rules): random games and perft.

OpenSpiel ends a game on the first repetition of a board since the last capture (and shares the
remaining seeds by row), where Griot's rules end on the third occurrence; the harness therefore stops
at the first repetition and compares with Griot's endless-cycle outcome.
"""

from __future__ import annotations

import random

import griot
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is a test dependency (pip install open-spiel)")


def _board(state: pyspiel.State) -> tuple[list[int], list[int]]:
    t = state.observation_tensor(0)
    return [round(x * 48) for x in t[:12]], [round(x * 48) for x in t[12:14]]


def _griot_board(pos: griot.Position) -> tuple[list[int], list[int]]:
    fields = str(pos).split()
    south, north = fields[1].split("/")
    board = [int(x) for x in south.split(",")] + [int(x) for x in north.split(",")]
    return board, [int(x) for x in fields[2].split("-")]


def _label(side: str, action: int) -> str:
    return chr((ord("a") if side == "S" else ord("A")) + action)


def play_random_games(games: int, seed: int) -> int:
    game = pyspiel.load_game("oware")
    rng = random.Random(seed)
    turns = 0
    for _ in range(games):
        state, pos = game.new_initial_state(), griot.Variant("abapa").start()
        seen: set[bytes] = set()
        while True:
            if pos.key in seen:
                outcome = pos.endless_outcome()
                assert state.is_terminal(), str(pos)
                assert list(outcome.scores) == _board(state)[1], str(pos)
                break
            seen.add(pos.key)
            if state.is_terminal() or pos.is_over:
                assert state.is_terminal() == pos.is_over, str(pos)
                outcome = pos.outcome
                assert outcome is not None
                assert list(outcome.scores) == _board(state)[1], str(pos)
                returns = state.returns()
                winner = None if returns[0] == 0 else ("S" if returns[0] > 0 else "N")
                assert outcome.winner == winner, str(pos)
                break
            assert _griot_board(pos) == _board(state), str(pos)
            actions = state.legal_actions()
            side = pos.side_to_move
            assert [str(m) for m in pos.legal_moves()] == [_label(side, a) for a in actions], str(pos)
            action = rng.choice(actions)
            state.apply_action(action)
            nxt = pos.play(_label(side, action))
            if _griot_board(nxt)[1] != _griot_board(pos)[1]:
                seen.clear()  # captured seeds never return: OpenSpiel forgets earlier boards
            pos = nxt
            turns += 1
    return turns


def test_random_games_agree_with_openspiel() -> None:
    assert play_random_games(games=1000, seed=1) > 50_000


def _openspiel_perft(state: pyspiel.State, depth: int) -> int:
    if depth == 0 or state.is_terminal():
        return 1 if depth == 0 else 0
    total = 0
    for action in state.legal_actions():
        child = state.child(action)
        total += 1 if depth == 1 else _openspiel_perft(child, depth - 1)
    return total


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
def test_perft_agrees_with_openspiel(depth: int) -> None:
    game = pyspiel.load_game("oware")
    assert griot.Variant("abapa").start().perft(depth) == _openspiel_perft(game.new_initial_state(), depth)


@pytest.mark.slow
@pytest.mark.parametrize("depth", [7, 8])
def test_deep_perft_agrees_with_openspiel(depth: int) -> None:
    game = pyspiel.load_game("oware")
    assert griot.Variant("abapa").start().perft(depth) == _openspiel_perft(game.new_initial_state(), depth)
