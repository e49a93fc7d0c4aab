"""The search tasks' arguments: one schema for the tasks that check them and the callers that build
them (the gateway's evaluator and dispatcher, the distributed search, the task client).

The arguments travel as JSON keyword arguments (plain data, Griot's notation for positions):
:class:`SubtreeArgs` for ``griot.search_subtree``, :class:`PositionArgs` for
``griot.search_position`` and :class:`GameArgs` for ``griot.play_game`` (one game of a match). A
caller builds them with :func:`subtree_args` / :func:`position_args`, which check the plain fields
(types and ranges) at once, where the mistake is; the task checks them whole with
:func:`check_subtree` / :func:`check_position` (the same checks, plus the positions parsed by the
core), which return the parsed arguments; :func:`game_args` and :func:`check_game` likewise. Bad
arguments raise :class:`~griot.tasks.errors.BadTaskArguments`: the task fails without a retry.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Required, TypedDict

import griot
from griot import INFINITE
from griot.match import EngineSpec, MatchError
from griot.tasks.errors import BadTaskArguments

__all__ = [
    "ALIVE_TASKS",
    "EVAL",
    "MAX_DEPTH",
    "MAX_HISTORY",
    "MAX_NODES",
    "PLAY_GAME",
    "SEARCH_POSITION",
    "SEARCH_SUBTREE",
    "SEARCH_TASKS",
    "GameArgs",
    "GameSetup",
    "PositionArgs",
    "PositionSearch",
    "SubtreeArgs",
    "SubtreeSearch",
    "check_game",
    "check_position",
    "check_subtree",
    "deployment_eval",
    "game_args",
    "position_args",
    "subtree_args",
]

SEARCH_SUBTREE = "griot.search_subtree"
SEARCH_POSITION = "griot.search_position"
SEARCH_TASKS = (SEARCH_SUBTREE, SEARCH_POSITION)
PLAY_GAME = "griot.play_game"
#: The tasks whose worker keeps an alive key while they run (a caller re-sends one whose worker died).
ALIVE_TASKS = (*SEARCH_TASKS, PLAY_GAME)
#: Largest table a task searches with when the caller names its size (MB).
MAX_TABLE_MB = 4096


def deployment_eval(environ: Mapping[str, str] = os.environ) -> str:
    """The deployment's evaluation: ``GRIOT_EVAL`` (``learned``, ``tuned``, ``material`` or
    custom weights), in the name the core writes; ``griot.DEFAULT_EVAL`` when unset. Raises
    ``ValueError`` for a name no search takes."""
    raw = environ.get("GRIOT_EVAL", "")
    if not raw:
        return griot.DEFAULT_EVAL
    try:
        return griot.eval_name(raw)
    except griot.GriotError as e:
        raise ValueError(f"environment variable GRIOT_EVAL={raw!r}: {e}") from None


#: The evaluation this process's searches use unless a task names another (``griot.search``'s
#: ``eval``; :func:`deployment_eval`). Callers send it with every search task, so a worker
#: searches under the caller's evaluation whatever its own setting; it is part of the keys of the
#: values searches leave in the cache (the workers' transposition entries, the gateway's
#: results), so that a value found under another evaluation is never served.
EVAL = deployment_eval()
MAX_DEPTH = 120
MAX_HISTORY = 4096
MAX_NODES = 10**12
#: Longest time limit or budget a task takes (seconds).
MAX_SECONDS = 86400


class SubtreeArgs(TypedDict, total=False):
    """``griot.search_subtree``: ``position`` searched to ``depth`` with the window ``(alpha, beta)``
    (node-relative values of the core). ``windows``: ``[depth, alpha, beta]`` of earlier
    iterations at depths below ``depth``; ``search_id``: the distributed search the task belongs
    to; ``resume``: start past the depth the kept table holds; ``fresh``: the search's first task
    on a pool process empties the kept table (no result of an earlier search answers this one);
    ``deadline``: Unix time."""

    variant: Required[str]
    position: Required[str]
    depth: Required[int]
    alpha: Required[int]
    beta: Required[int]
    history: list[str] | None
    deadline: float | None
    use_cache: bool
    search_id: str | None
    windows: list[list[int]] | None
    resume: bool
    fresh: bool
    eval: str


class PositionArgs(TypedDict, total=False):
    """``griot.search_position``: a whole search of ``position`` to ``depth``, for ``time_limit``
    seconds or ``nodes`` nodes (one at least); ``multipv`` exact root moves (0: all);
    ``progress``: report the completed depths; ``budget`` (seconds) and ``min_depth``: stop before
    an iteration foreseen to end past the budget once ``min_depth`` is done. ``table_mb``: search
    with a new table of that many MB, without the shared cache and the endgame databases, so that
    the answer is the one an in-process ``griot.search(..., hash_mb=table_mb)`` gives (what an
    opening book built on the workers needs to equal the one built in process). ``fresh``: empty
    the kept table first (a distributed search whose values must not take deeper results of
    earlier searches)."""

    variant: Required[str]
    position: Required[str]
    depth: int | None
    time_limit: float | None
    multipv: int
    history: list[str] | None
    deadline: float | None
    nodes: int | None
    progress: bool
    search_id: str | None
    budget: float | None
    min_depth: int | None
    table_mb: int | None
    fresh: bool
    eval: str


class GameArgs(TypedDict, total=False):
    """``griot.play_game``: one game of a match, from ``variant``'s start through ``opening`` (moves
    in Griot's notation), between two in-process engines given as match specs
    (:class:`griot.match.EngineSpec`: ``griot;depth=6``), ``south`` moving first; ``repetitions``:
    the occurrence of a position that ends the game (3 by default)."""

    variant: Required[str]
    opening: Required[list[str]]
    south: Required[str]
    north: Required[str]
    repetitions: int


@dataclass(frozen=True, slots=True)
class SubtreeSearch:
    """:class:`SubtreeArgs` checked, the positions parsed."""

    pos: griot.Position
    depth: int
    alpha: int
    beta: int
    history: list[griot.Position]
    deadline: float | None
    use_cache: bool
    search_id: str | None
    windows: list[tuple[int, int, int]]
    resume: bool
    fresh: bool = False
    eval: str = EVAL


@dataclass(frozen=True, slots=True)
class PositionSearch:
    """:class:`PositionArgs` checked, the positions parsed."""

    pos: griot.Position
    depth: int | None
    time_limit: float | None
    multipv: int
    history: list[griot.Position]
    deadline: float | None
    nodes: int | None
    progress: bool
    search_id: str | None
    budget: float | None
    min_depth: int | None
    table_mb: int | None = None
    fresh: bool = False
    eval: str = EVAL


@dataclass(frozen=True, slots=True)
class GameSetup:
    """:class:`GameArgs` checked: the variant, the opening (legal from the start), both engines."""

    variant: griot.Variant
    opening: list[str]
    south: EngineSpec
    north: EngineSpec
    repetitions: int


# -- the checks -------------------------------------------------------------------------------


def _strings(variant: Any, position: Any) -> None:
    if not isinstance(variant, str) or not isinstance(position, str):
        raise BadTaskArguments("variant and position must be strings")


def _position(variant: Any, position: Any) -> griot.Position:
    _strings(variant, position)
    try:
        canonical = griot.Variant(variant).canonical
        pos = griot.Position(position)
    except griot.GriotError as e:
        raise BadTaskArguments(f"{type(e).__name__}: {e}") from None
    if pos.variant.canonical != canonical:
        raise BadTaskArguments(f"position {position!r} is not a position of variant {canonical!r}")
    return pos


def _int(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadTaskArguments(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    return int(value)


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadTaskArguments(f"{name} must be true or false, got {value!r}")
    return value


def _seconds(name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < MAX_SECONDS:
        raise BadTaskArguments(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def _search_id(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise BadTaskArguments(f"search_id must be a string, got {value!r}")
    return value


def _history(history: Any, variant: str | None) -> list[griot.Position]:
    """The history's positions (parsed when ``variant`` is given, else only their shape)."""
    if history is None:
        return []
    if not isinstance(history, list | tuple) or len(history) > MAX_HISTORY:
        raise BadTaskArguments(f"history must be a list of at most {MAX_HISTORY} positions")
    if variant is None:
        if not all(isinstance(h, str) for h in history):
            raise BadTaskArguments("variant and position must be strings")
        return []
    return [_position(variant, h) for h in history]


def _windows(windows: Any, depth: int) -> list[tuple[int, int, int]]:
    if windows is None:
        return []
    if not isinstance(windows, list | tuple) or len(windows) > MAX_DEPTH:
        raise BadTaskArguments(f"windows must be a list of at most {MAX_DEPTH} [depth, alpha, beta]")
    out = []
    for w in windows:
        if not isinstance(w, list | tuple) or len(w) != 3:
            raise BadTaskArguments(f"each window must be [depth, alpha, beta], got {w!r}")
        d = _int("window depth", w[0], 1, max(1, depth - 1))
        a = _int("window alpha", w[1], -INFINITE, INFINITE)
        b = _int("window beta", w[2], -INFINITE, INFINITE)
        if a >= b:
            raise BadTaskArguments(f"window ({a}, {b}) at depth {d} is empty: need alpha < beta")
        out.append((d, a, b))
    return out


def _deadline(deadline: Any) -> float | None:
    if deadline is None:
        return None
    if isinstance(deadline, bool) or not isinstance(deadline, int | float):
        raise BadTaskArguments(f"deadline must be a Unix time in seconds, got {deadline!r}")
    return float(deadline)


def _eval(value: Any) -> str:
    if not isinstance(value, str):
        raise BadTaskArguments(f"eval must be a string, got {value!r}")
    try:
        return griot.eval_name(value)
    except griot.GriotError as e:
        raise BadTaskArguments(str(e)) from None


def _known(args: Mapping[str, Any], schema: type, required: tuple[str, ...]) -> None:
    # The required names are given: under postponed annotations a TypedDict's own
    # ``__required_keys__`` does not see ``Required[...]``.
    unknown = sorted(k for k in args if k not in schema.__annotations__)
    if unknown:
        raise BadTaskArguments(f"unknown arguments {', '.join(unknown)}")
    missing = [k for k in required if k not in args]
    if missing:
        raise BadTaskArguments(f"missing arguments {', '.join(missing)}")


def _subtree(args: Mapping[str, Any], parse: bool) -> SubtreeSearch | None:
    _known(args, SubtreeArgs, ("variant", "position", "depth", "alpha", "beta"))
    variant, position = args["variant"], args["position"]
    pos = _position(variant, position) if parse else None
    if not parse:
        _strings(variant, position)
    depth = _int("depth", args["depth"], 1, MAX_DEPTH)
    alpha = _int("alpha", args["alpha"], -INFINITE, INFINITE)
    beta = _int("beta", args["beta"], -INFINITE, INFINITE)
    if alpha >= beta:
        raise BadTaskArguments(f"window ({alpha}, {beta}) is empty: need alpha < beta")
    search_id = _search_id(args.get("search_id"))
    windows = _windows(args.get("windows"), depth)
    resume = _bool("resume", args.get("resume", False))
    fresh = _bool("fresh", args.get("fresh", False))
    evaluation = _eval(args.get("eval", EVAL))
    use_cache = _bool("use_cache", args.get("use_cache", True))
    history = _history(args.get("history"), pos.variant.canonical if pos is not None else None)
    deadline = _deadline(args.get("deadline"))
    if pos is None:
        return None
    return SubtreeSearch(
        pos, depth, alpha, beta, history, deadline, use_cache, search_id, windows, resume, fresh, evaluation
    )


def _position_search(args: Mapping[str, Any], parse: bool) -> PositionSearch | None:
    _known(args, PositionArgs, ("variant", "position"))
    variant, position = args["variant"], args["position"]
    pos = _position(variant, position) if parse else None
    if not parse:
        _strings(variant, position)
    depth, time_limit, nodes = args.get("depth"), args.get("time_limit"), args.get("nodes")
    if depth is None and time_limit is None and nodes is None:
        raise BadTaskArguments("give depth, time_limit or nodes")
    if depth is not None:
        depth = _int("depth", depth, 1, MAX_DEPTH)
    if nodes is not None:
        nodes = _int("nodes", nodes, 1, MAX_NODES)
    progress = _bool("progress", args.get("progress", False))
    time_limit = _seconds("time_limit", time_limit)
    multipv = _int("multipv", args.get("multipv", 1), 0, 64)
    budget = _seconds("budget", args.get("budget"))
    min_depth = args.get("min_depth")
    if min_depth is not None:
        min_depth = _int("min_depth", min_depth, 1, depth or MAX_DEPTH)
    search_id = _search_id(args.get("search_id"))
    table_mb = args.get("table_mb")
    if table_mb is not None:
        table_mb = _int("table_mb", table_mb, 1, MAX_TABLE_MB)
    fresh = _bool("fresh", args.get("fresh", False))
    evaluation = _eval(args.get("eval", EVAL))
    history = _history(args.get("history"), pos.variant.canonical if pos is not None else None)
    deadline = _deadline(args.get("deadline"))
    if pos is None:
        return None
    return PositionSearch(
        pos,
        depth,
        time_limit,
        multipv,
        history,
        deadline,
        nodes,
        progress,
        search_id,
        budget,
        min_depth,
        table_mb,
        fresh,
        evaluation,
    )


def _engine(side: str, text: Any) -> EngineSpec:
    if not isinstance(text, str):
        raise BadTaskArguments(f"{side} must be an engine spec string, got {text!r}")
    try:
        spec = EngineSpec.parse(text)
    except MatchError as e:
        raise BadTaskArguments(f"{side}: {e}") from None
    if spec.command is not None:
        raise BadTaskArguments(f"{side}: a worker plays Griot's own engine only, not {text!r}")
    return spec


def _game(args: Mapping[str, Any], parse: bool) -> GameSetup | None:
    _known(args, GameArgs, ("variant", "opening", "south", "north"))
    variant, opening = args["variant"], args["opening"]
    if not isinstance(variant, str):
        raise BadTaskArguments("variant must be a string")
    if not isinstance(opening, list | tuple) or not all(isinstance(m, str) for m in opening):
        raise BadTaskArguments("opening must be a list of moves (strings)")
    if len(opening) > MAX_HISTORY:
        raise BadTaskArguments(f"opening must hold at most {MAX_HISTORY} moves")
    south, north = _engine("south", args["south"]), _engine("north", args["north"])
    repetitions = _int("repetitions", args.get("repetitions", 3), 2, 1000)
    if not parse:
        return None
    try:
        game = griot.Variant(variant)
        pos = game.start()
        for m in opening:
            pos = pos.play(pos.parse_move(m))
    except griot.GriotError as e:
        raise BadTaskArguments(f"{type(e).__name__}: {e}") from None
    if pos.is_over:
        raise BadTaskArguments("the opening ends the game")
    return GameSetup(game, list(opening), south, north, repetitions)


def check_subtree(args: Mapping[str, Any]) -> SubtreeSearch:
    """The task's check of its arguments: all of them, the positions parsed."""
    checked = _subtree(args, parse=True)
    assert checked is not None
    return checked


def check_position(args: Mapping[str, Any]) -> PositionSearch:
    """The task's check of its arguments: all of them, the positions parsed."""
    checked = _position_search(args, parse=True)
    assert checked is not None
    return checked


def check_game(args: Mapping[str, Any]) -> GameSetup:
    """The task's check of its arguments: the variant parsed and the opening played."""
    checked = _game(args, parse=True)
    assert checked is not None
    return checked


# -- the builders -----------------------------------------------------------------------------


def subtree_args(
    variant: str,
    position: str,
    depth: int,
    alpha: int,
    beta: int,
    *,
    history: Sequence[str] | None = None,
    deadline: float | None = None,
    use_cache: bool | None = None,
    search_id: str | None = None,
    windows: list[list[int]] | None = None,
    resume: bool | None = None,
    fresh: bool | None = None,
    eval: str = EVAL,
) -> dict[str, Any]:
    """The keyword arguments (:class:`SubtreeArgs`) of a ``griot.search_subtree`` task, the optional
    ones only when given, checked but for the positions' notation (the worker parses them). A
    plain dict: the caller may add the ``deadline`` or ``windows`` known only when it sends.
    ``eval``: the evaluation, this process's (:data:`EVAL`) unless given."""
    args: dict[str, Any] = dict(
        variant=variant, position=position, depth=depth, alpha=alpha, beta=beta, eval=eval
    )
    if history is not None:
        args["history"] = list(history)
    if deadline is not None:
        args["deadline"] = deadline
    if use_cache is not None:
        args["use_cache"] = use_cache
    if search_id is not None:
        args["search_id"] = search_id
    if windows is not None:
        args["windows"] = windows
    if resume is not None:
        args["resume"] = resume
    if fresh is not None:
        args["fresh"] = fresh
    _subtree(args, parse=False)
    return args


def position_args(
    variant: str,
    position: str,
    *,
    depth: int | None = None,
    time_limit: float | None = None,
    multipv: int | None = None,
    history: Sequence[str] | None = None,
    deadline: float | None = None,
    nodes: int | None = None,
    progress: bool | None = None,
    search_id: str | None = None,
    budget: float | None = None,
    min_depth: int | None = None,
    table_mb: int | None = None,
    fresh: bool | None = None,
    eval: str = EVAL,
) -> dict[str, Any]:
    """The keyword arguments (:class:`PositionArgs`) of a ``griot.search_position`` task, the
    optional ones only when given, checked but for the positions' notation (the worker parses
    them). A plain dict: the caller may add the ``deadline`` known only when it sends. ``eval``:
    the evaluation, this process's (:data:`EVAL`) unless given."""
    args: dict[str, Any] = dict(variant=variant, position=position, eval=eval)
    given = {
        "depth": depth,
        "time_limit": time_limit,
        "multipv": multipv,
        "history": list(history) if history is not None else None,
        "deadline": deadline,
        "nodes": nodes,
        "progress": progress,
        "search_id": search_id,
        "budget": budget,
        "min_depth": min_depth,
        "table_mb": table_mb,
        "fresh": fresh,
    }
    args.update({k: v for k, v in given.items() if v is not None})
    _position_search(args, parse=False)
    return args


def game_args(
    variant: str,
    opening: Sequence[str],
    south: str,
    north: str,
    *,
    repetitions: int | None = None,
) -> dict[str, Any]:
    """The keyword arguments (:class:`GameArgs`) of a ``griot.play_game`` task, checked but for
    the opening's legality (the worker plays it)."""
    args: dict[str, Any] = dict(variant=variant, opening=list(opening), south=south, north=north)
    if repetitions is not None:
        args["repetitions"] = repetitions
    _game(args, parse=False)
    return args
