"""The search tasks' argument schema: what a caller builds is what the task accepts, and a mistake
is refused where it is made (the caller) with the message the task would give."""

from __future__ import annotations

import griot
import pytest
from griot.tasks.args import (
    EVAL,
    MAX_DEPTH,
    check_game,
    check_position,
    check_subtree,
    deployment_eval,
    game_args,
    position_args,
    subtree_args,
)
from griot.tasks.errors import BadTaskArguments

pytestmark = pytest.mark.timeout(60)

START = str(griot.Variant("abapa").start())


def test_a_built_subtree_call_is_the_one_the_task_checks() -> None:
    after = str(griot.Position(START).play(griot.Position(START).legal_moves()[0]))
    args = subtree_args("abapa", after, 6, -50, 50, history=[START], use_cache=False, search_id="s1")
    assert args == {
        "variant": "abapa",
        "position": after,
        "depth": 6,
        "alpha": -50,
        "beta": 50,
        "history": [START],
        "use_cache": False,
        "search_id": "s1",
        "eval": EVAL,
    }
    args["windows"] = [[4, -10, 10]]  # known only when it is sent
    checked = check_subtree(dict(args, deadline=1e9))
    assert (checked.depth, checked.alpha, checked.beta, checked.use_cache) == (6, -50, 50, False)
    assert [str(h) for h in checked.history] == [START] and str(checked.pos) == after
    assert checked.windows == [(4, -10, 10)] and checked.deadline == 1e9 and not checked.resume


def test_a_built_position_call_leaves_out_what_is_not_given() -> None:
    args = position_args("abapa", START, depth=8, multipv=0, progress=True)
    assert args == {
        "variant": "abapa",
        "position": START,
        "depth": 8,
        "multipv": 0,
        "progress": True,
        "eval": EVAL,
    }
    checked = check_position(args)
    assert (checked.depth, checked.multipv, checked.progress, checked.time_limit) == (8, 0, True, None)
    assert check_position({"variant": "abapa", "position": START, "nodes": 1000}).multipv == 1


def test_a_task_carries_its_caller_s_evaluation_in_the_core_s_name_for_it() -> None:
    assert EVAL == deployment_eval() == griot.DEFAULT_EVAL  # the tests run without GRIOT_EVAL
    args = position_args("abapa", START, depth=4, eval="tuned")
    assert args["eval"] == "tuned" and check_position(args).eval == "tuned"
    sub = subtree_args("abapa", START, 4, -1, 1, eval="3,1")
    assert check_subtree(sub).eval == "3,1,0,0"  # custom weights, as cache keys write them
    # A task that names none (sent by an older caller) takes this process's.
    assert check_position({"variant": "abapa", "position": START, "depth": 4}).eval == EVAL


def test_the_deployment_s_evaluation_comes_from_griot_eval() -> None:
    assert deployment_eval({}) == griot.DEFAULT_EVAL
    assert deployment_eval({"GRIOT_EVAL": ""}) == griot.DEFAULT_EVAL
    assert deployment_eval({"GRIOT_EVAL": "tuned"}) == "tuned"
    with pytest.raises(ValueError, match="GRIOT_EVAL='strong'"):
        deployment_eval({"GRIOT_EVAL": "strong"})


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: subtree_args("abapa", START, 0, -1, 1), "depth must be an integer in [1, 120]"),
        (lambda: subtree_args("abapa", START, 5, 3, 3), "window (3, 3) is empty"),
        (lambda: subtree_args("abapa", START, 5, -1, 1, windows=[[5, 0, 1]]), "window depth"),
        (lambda: subtree_args("abapa", START, 5, -1, 1, resume=1), "resume must be true or false"),  # type: ignore[arg-type]
        (lambda: subtree_args("abapa", START, 5, -1, 1, history=[3]), "must be strings"),  # type: ignore[list-item]
        (lambda: position_args("abapa", START), "give depth, time_limit or nodes"),
        (lambda: position_args("abapa", START, depth=MAX_DEPTH + 1), "depth must be an integer"),
        (lambda: position_args("abapa", START, time_limit=-1.0), "time_limit must be a positive number"),
        (
            lambda: position_args("abapa", START, depth=5, min_depth=6),
            "min_depth must be an integer in [1, 5]",
        ),
        (lambda: position_args("abapa", START, depth=5, search_id=7), "search_id must be a string"),  # type: ignore[arg-type]
        (lambda: position_args("abapa", START, depth=5, table_mb=0), "table_mb must be an integer"),
        (lambda: position_args("abapa", START, depth=5, eval="best"), 'eval "best": expected'),
        (lambda: subtree_args("abapa", START, 5, -1, 1, eval=3), "eval must be a string"),  # type: ignore[arg-type]
        (lambda: game_args("abapa", [], "uci:x;depth=2", "griot;depth=1"), "Griot's own engine only"),
        (lambda: game_args("abapa", [], "griot", "griot;depth=1"), "south: 'griot': give time="),
        (lambda: game_args("abapa", [3], "griot;depth=2", "griot;depth=1"), "list of moves"),  # type: ignore[list-item]
        (lambda: game_args("abapa", [], "griot;depth=2", "griot;depth=1", repetitions=1), "repetitions"),
    ],
)
def test_a_caller_s_mistake_is_refused_when_it_builds_the_call(build: object, message: str) -> None:
    with pytest.raises(BadTaskArguments, match=None) as e:
        build()  # type: ignore[operator]
    assert message in str(e.value)


def test_the_task_refuses_what_only_parsing_finds_and_names_it() -> None:
    # The builder leaves the notation to the worker: the task's check parses it.
    args = position_args("abapa", "abapa not-a-position", depth=3)
    with pytest.raises(BadTaskArguments, match="NotationError"):
        check_position(args)
    other = str(griot.Variant("awale").start())
    with pytest.raises(BadTaskArguments, match="is not a position of variant"):
        check_subtree(subtree_args("abapa", other, 3, -1, 1))
    with pytest.raises(BadTaskArguments, match="unknown arguments colour"):
        check_position({"variant": "abapa", "position": START, "depth": 3, "colour": "red"})
    with pytest.raises(BadTaskArguments, match="missing arguments alpha, beta"):
        check_subtree({"variant": "abapa", "position": START, "depth": 3})


def test_a_game_call_is_the_one_the_task_checks_and_its_opening_is_played() -> None:
    args = game_args("abapa", ["c", "C"], "griot;depth=2;hash=4", "griot;depth=1", repetitions=2)
    assert args == {
        "variant": "abapa",
        "opening": ["c", "C"],
        "south": "griot;depth=2;hash=4",
        "north": "griot;depth=1",
        "repetitions": 2,
    }
    setup = check_game(args)
    assert setup.variant.canonical == "abapa" and setup.opening == ["c", "C"] and setup.repetitions == 2
    assert (setup.south.depth, setup.south.hash_mb, setup.north.depth) == (2, 4, 1)
    with pytest.raises(BadTaskArguments, match=r"IllegalMoveError|NotationError"):
        check_game(game_args("abapa", ["c", "c"], "griot;depth=2", "griot;depth=1"))
    with pytest.raises(BadTaskArguments, match="unknown arguments colour"):
        check_game({**args, "colour": "red"})
    assert check_position(position_args("abapa", START, depth=3, table_mb=8)).table_mb == 8
