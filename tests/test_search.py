"""The search from Python: limits, stop from another thread, progress, multi-PV, levels."""

from __future__ import annotations

import threading
import time

import griot
import pytest

START = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"


def test_depth_limit_and_result_fields() -> None:
    r = griot.search(START, depth=6)
    assert r.depth == 6
    assert r.best_move is not None and r.best_move == r.pv[0]
    assert r.best_move in griot.Position(START).legal_moves()
    assert r.nodes > 0 and r.time >= 0
    assert r.score.kind == "margin" and isinstance(r.score.centi, int)


def test_deterministic_under_depth_and_nodes() -> None:
    a = griot.search(START, depth=8)
    b = griot.search(START, depth=8)
    assert (a.nodes, a.pv, a.score) == (b.nodes, b.pv, b.score)
    a = griot.search(START, nodes=5000)
    b = griot.search(START, nodes=5000)
    assert a.nodes == 5000
    assert (a.pv, a.score, a.depth) == (b.pv, b.score, b.depth)


def test_reductions_reach_the_depth_with_fewer_nodes_and_stay_deterministic() -> None:
    full = griot.search(START, depth=12)
    a = griot.search(START, depth=12, reductions=True)
    b = griot.search(START, depth=12, reductions=True)
    assert a.depth == full.depth == 12 and a.nodes < full.nodes
    assert a.best_move in griot.Position(START).legal_moves()
    assert (a.nodes, a.pv, a.score) == (b.nodes, b.pv, b.score)
    # Off by default: the full-width value, as analysis and the distributed search need.
    assert griot.search(START, depth=12, reductions=False).nodes == full.nodes


def test_two_threads_find_the_single_threaded_value() -> None:
    for body in (START, "abapa 0,5,1,6,2,7/3,0,4,4,1,5 5-5 N 14 -"):
        one = griot.search(body, depth=10)
        two = griot.search(body, depth=10, threads=2)
        assert (two.depth, two.score) == (one.depth, one.score)
        assert two.best_move in griot.Position(body).legal_moves()
    with pytest.raises(ValueError, match="threads"):
        griot.search(START, depth=2, threads=0)


def test_time_limit() -> None:
    t = time.monotonic()
    r = griot.search(START, time=0.2)
    assert time.monotonic() - t < 1.0
    assert r.depth >= 4


def test_stop_from_another_thread() -> None:
    stop = griot.SearchStop()
    threading.Timer(0.2, stop.set).start()
    t = time.monotonic()
    r = griot.search(START, stop=stop)
    assert time.monotonic() - t < 2.0
    assert stop.is_set and r.best_move is not None


def test_search_needs_a_limit() -> None:
    with pytest.raises(ValueError):
        griot.search(START)


def test_progress_after_each_iteration() -> None:
    seen: list[int] = []
    r = griot.search(START, depth=7, progress=lambda info: seen.append(info.depth))
    assert seen == list(range(1, 8))
    assert r.depth == 7


def test_progress_exception_stops_and_is_raised() -> None:
    def boom(info: griot.SearchResult) -> None:
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        griot.search(START, depth=30, progress=boom)


@pytest.mark.parametrize("variant", ["abapa", "oware", "2-4", "awale", "nyakun", "abapa(holes=4,seeds=3)"])
def test_multipv_scores_every_legal_move(variant: str) -> None:
    pos = griot.Variant(variant).start()
    r = griot.search(pos, depth=5, multipv=0)
    assert sorted(m.move for m in r.moves) == sorted(str(m) for m in pos.legal_moves())
    assert all(m.bound == "exact" for m in r.moves)
    values = [m.score.value for m in r.moves]
    assert values == sorted(values, reverse=True)
    assert r.moves[0].move == r.best_move


def test_multipv_one_bounds_the_others() -> None:
    r = griot.search(START, depth=6, multipv=1)
    assert r.moves[0].bound == "exact"
    assert len(r.moves) == 6


def test_proven_win_reads_as_turns() -> None:
    r = griot.search("abapa 0,0,0,0,0,1/1,0,0,0,0,1 24-21 S 40 -", depth=4)
    assert r.score.is_win and r.score.turns == 1 and r.score.margin is None
    assert str(r.score) == "win in 1"
    over = griot.search("abapa 0,0,0,0,0,0/0,0,0,0,0,0 25-23 N 41 -", depth=3)
    assert over.best_move is None and over.score.is_loss


def test_score_encoding_is_the_cores() -> None:
    """The constants and the text the services share come from the core: a search's proven win
    reads the same through ``griot.Score(value)`` as through its result."""
    r = griot.search("abapa 0,0,0,0,0,1/1,0,0,0,0,1 24-21 S 40 -", depth=4)
    assert r.score.value == griot.WIN - 1 and r.score.value >= griot.WIN_BOUND
    assert griot.Score(r.score.value) == r.score and str(griot.Score(r.score.value)) == "win in 1"
    assert griot.WIN_BOUND == griot.WIN - griot.MAX_PLIES and griot.INFINITE == griot.WIN + 1
    assert str(griot.Score(-150)) == "-1.50" and griot.Score(-150).own_turns is None
    assert str(griot.Score(griot.WIN_BOUND - 1)) == "+9899.99"  # past the proven band: a margin
    assert str(griot.Score(-griot.WIN + 4)) == "loss in 4"
    # In the mover's own turns: a win 3 turns away is on its 2nd turn; a loss 5 away after 2 turns.
    assert [griot.Score(griot.WIN - n).own_turns for n in (0, 1, 2, 3)] == [1, 1, 1, 2]
    assert [griot.Score(-griot.WIN + n).own_turns for n in (0, 1, 2, 5)] == [0, 0, 1, 2]
    for bad in (griot.INFINITE, -griot.INFINITE, 2**31 - 1):
        with pytest.raises(griot.GriotError, match="outside"):
            griot.Score(bad)


def test_levels() -> None:
    pos = griot.Position(START)
    legal = pos.legal_moves()
    for level in range(1, 9):
        mv = griot.best_move(pos, level, seed=3)
        assert mv in legal
        assert griot.best_move(pos, level, seed=3) == mv
    picks = {str(griot.best_move(pos, 1, seed=s)) for s in range(30)}
    assert len(picks) > 1
    with pytest.raises(griot.GriotError):
        griot.best_move(pos, 11)


def test_history_repetition_counts() -> None:
    # Searching with history is accepted and deterministic.
    pos = griot.Position(START)
    after = pos.play("a").play("A")
    r = griot.search(after, depth=4, history=[pos, pos.play("a")])
    assert r.best_move in after.legal_moves()


def test_bench_runs() -> None:
    lines = griot._core.bench()
    assert len(lines) >= 5 and all(line["nodes"] > 0 for line in lines)


def test_resume_starts_past_the_kept_tables_depth() -> None:
    """``resume=True`` over a kept table that holds the position searched to depth 8 runs depth 9
    alone and finds the value a search deepening from 1 finds; a stop in that first iteration
    returns depth 1's result (incomplete); an empty table deepens from 1."""
    pos = griot.Variant("awale").start().play("c")
    want = griot.search(pos, depth=9)
    table = griot.SearchTable(16)
    griot.search(pos, depth=8, table=table)
    seen: list[int] = []
    r = griot.search(
        pos, depth=9, table=table, new_generation=False, resume=True, progress=lambda x: seen.append(x.depth)
    )
    assert seen == [9]
    assert (r.depth, r.score) == (9, want.score)
    cut = griot.search(pos, depth=14, nodes=100, table=table, new_generation=False, resume=True)
    assert cut.depth == 1 and cut.best_move is not None
    seen.clear()
    fresh = griot.search(
        pos, depth=9, table=griot.SearchTable(16), resume=True, progress=lambda x: seen.append(x.depth)
    )
    assert seen == list(range(1, 10)) and fresh.score == want.score


def test_the_distributed_searchs_options_reach_the_core_as_one_object() -> None:
    """The window and kept-table arguments of ``griot.search`` reach the core as one
    ``SubtreeOptions``, apart from the user's options: the core's search given that object finds
    what ``griot.search`` finds given the keywords; a window out of range is refused where the
    object is made; a window above the value fails low (an upper bound)."""
    from griot._core import SubtreeOptions
    from griot._core import search as core_search

    pos = griot.Variant("awale").start().play("c")
    value = griot.search(pos, depth=6).score.value
    keywords = griot.search(pos, depth=6, window=(value - 40, value + 40))
    options = SubtreeOptions(window=(value - 40, value + 40))
    direct = core_search(pos, depth=6, subtree=options)
    assert (direct.score, direct.bound, direct.best_move) == (keywords.score, "exact", keywords.best_move)
    assert direct.score.value == value
    assert core_search(pos, depth=6, subtree=SubtreeOptions(window=(value + 1, value + 40))).bound == "upper"
    assert (
        options.window,
        options.table,
        options.new_generation,
        options.iteration_windows,
        options.resume,
    ) == (
        (value - 40, value + 40),
        None,
        True,
        [],
        False,
    )
    with pytest.raises(griot.GriotError, match="window"):
        SubtreeOptions(window=(5, 5))
    with pytest.raises(griot.GriotError, match="iteration window 3"):
        griot.search(pos, depth=4, window=(-5, 5), iteration_windows=[(3, 2, 1)])
