"""Griot: an analysis backend for traditional board games (the mancala family and its neighbours).

The rules and the search run in the native core (``griot._core``, Rust); this package re-exports
its typed values and adds the client SDK, configuration and the CLI.

    >>> import griot
    >>> pos = griot.Variant("abapa").start()
    >>> [str(m) for m in pos.legal_moves()]
    ['a', 'b', 'c', 'd', 'e', 'f']
    >>> str(pos.play("c"))
    'abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from griot._core import (
    DEFAULT_EVAL,
    ENGINE_VERSION,
    INFINITE,
    MAX_PLIES,
    WIN,
    WIN_BOUND,
    Egdb,
    GameOutcome,
    GriotError,
    IllegalMoveError,
    Move,
    MoveScore,
    NotationError,
    Position,
    RuleFileError,
    Score,
    SearchResult,
    SearchStop,
    SearchTable,
    TurnEvent,
    UnknownVariantError,
    Variant,
    VariantError,
    builtin_rule_file,
    eval_name,
    eval_scope,
    families,
    register_rule_file,
)
from griot._core import SubtreeOptions as _SubtreeOptions
from griot._core import best_move as _best_move
from griot._core import search as _search

if TYPE_CHECKING:
    from griot.book import Book, BookResult

__all__ = [
    "DEFAULT_EVAL",
    "ENGINE_VERSION",
    "INFINITE",
    "MAX_PLIES",
    "WIN",
    "WIN_BOUND",
    "Egdb",
    "GameOutcome",
    "GriotError",
    "IllegalMoveError",
    "Move",
    "MoveScore",
    "NotationError",
    "OptionInfo",
    "Position",
    "RuleFileError",
    "Score",
    "SearchResult",
    "SearchStop",
    "SearchTable",
    "TurnEvent",
    "UnknownVariantError",
    "Variant",
    "VariantError",
    "VariantInfo",
    "best_move",
    "builtin_rule_file",
    "eval_name",
    "eval_scope",
    "families",
    "load_rule_file",
    "perft",
    "search",
    "variants",
]


@dataclass(frozen=True)
class OptionInfo:
    """One option a variant family accepts."""

    name: str
    type: str
    default: int | bool
    description: str
    min: int | None = None
    max: int | None = None
    choices: tuple[int, ...] | None = None


@dataclass(frozen=True)
class VariantInfo:
    """A game family: its id (the variant string without options), name and options."""

    id: str
    name: str
    kind: str
    builtin: bool
    description: str
    source: str
    options: tuple[OptionInfo, ...]

    def variant(self, **options: int | bool) -> Variant:
        """The variant with these options, e.g. ``info.variant(holes=4)``."""
        if not options:
            return Variant(self.id)
        text = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())
        return Variant(f"{self.id}({text})")


def variants() -> list[VariantInfo]:
    """Every game family Griot plays, sorted by id (user rule files included once loaded)."""
    out = []
    for f in families():
        opts = tuple(
            OptionInfo(
                name=o["name"],
                type=o["type"],
                default=o["default"],
                description=o["description"],
                min=o.get("min"),
                max=o.get("max"),
                choices=o.get("choices"),
            )
            for o in f["options"]
        )
        out.append(
            VariantInfo(
                id=f["id"],
                name=f["name"],
                kind=f["kind"],
                builtin=f["builtin"],
                description=f["description"],
                source=f["source"],
                options=opts,
            )
        )
    return out


def load_rule_file(path: str | Path) -> Variant:
    """Loads a user rule file (TOML) by path and registers its id as a variant.

    Raises RuleFileError naming the file and the bad field (``.field``), or OSError if the file
    cannot be read.
    """
    text = Path(path).read_text(encoding="utf-8")
    try:
        return register_rule_file(text)
    except RuleFileError as e:
        # The core reads text and knows no file: the path is put in front of its message here.
        named = RuleFileError(f"{path}: {e}")
        named.code, named.field, named.option = e.code, e.field, e.option
        raise named from None


def perft(position: Position | str, depth: int) -> int:
    """Leaf count of the game tree ``depth`` turns deep from ``position``, every leaf made."""
    pos = position if isinstance(position, Position) else Position(position)
    return pos.perft(depth)


def _position(position: Position | str) -> Position:
    return position if isinstance(position, Position) else Position(position)


@overload
def search(
    position: Position | str,
    depth: int | None = None,
    time: float | None = None,
    nodes: int | None = None,
    multipv: int = 1,
    *,
    hash_mb: int = 16,
    eval: str = DEFAULT_EVAL,
    progress: Callable[[SearchResult], object] | None = None,
    stop: SearchStop | None = None,
    history: Sequence[Position | str] = (),
    window: tuple[int, int] | None = None,
    shared: Any = None,
    table: SearchTable | None = None,
    new_generation: bool = True,
    iteration_windows: Sequence[tuple[int, int, int]] = (),
    resume: bool = False,
    egdb: Egdb | None = None,
    clock: tuple[float, float] | None = None,
    moves_to_go: int | None = None,
    reductions: bool = False,
    threads: int = 1,
    book: None = None,
) -> SearchResult: ...


@overload
def search(
    position: Position | str,
    depth: int | None = None,
    time: float | None = None,
    nodes: int | None = None,
    multipv: int = 1,
    *,
    hash_mb: int = 16,
    eval: str = DEFAULT_EVAL,
    progress: Callable[[SearchResult], object] | None = None,
    stop: SearchStop | None = None,
    history: Sequence[Position | str] = (),
    window: tuple[int, int] | None = None,
    shared: Any = None,
    table: SearchTable | None = None,
    new_generation: bool = True,
    iteration_windows: Sequence[tuple[int, int, int]] = (),
    resume: bool = False,
    egdb: Egdb | None = None,
    clock: tuple[float, float] | None = None,
    moves_to_go: int | None = None,
    reductions: bool = False,
    threads: int = 1,
    book: Book,
) -> SearchResult | BookResult: ...


def search(
    position: Position | str,
    depth: int | None = None,
    time: float | None = None,
    nodes: int | None = None,
    multipv: int = 1,
    *,
    hash_mb: int = 16,
    eval: str = DEFAULT_EVAL,
    progress: Callable[[SearchResult], object] | None = None,
    stop: SearchStop | None = None,
    history: Sequence[Position | str] = (),
    window: tuple[int, int] | None = None,
    shared: Any = None,
    table: SearchTable | None = None,
    new_generation: bool = True,
    iteration_windows: Sequence[tuple[int, int, int]] = (),
    resume: bool = False,
    egdb: Egdb | None = None,
    clock: tuple[float, float] | None = None,
    moves_to_go: int | None = None,
    reductions: bool = False,
    threads: int = 1,
    book: Book | None = None,
) -> SearchResult | BookResult:
    """Searches ``position`` with the native engine, the GIL released.

    Limits: ``depth`` (turns), ``time`` (seconds), ``nodes``, ``clock=(seconds left,
    increment)`` (a game clock: the search budgets this move from it, with ``moves_to_go`` moves
    until the next time control when there is one); with none of them the search runs until
    ``stop.set()`` is called from another thread. A search stopped by its time inside an
    iteration plays the last completed iteration's move, or a move that iteration already proved
    better. ``multipv`` root moves get exact scores
    (0 = every legal move; the others get upper bounds). ``progress(result)`` is called after each
    completed iteration. ``history`` holds the game's earlier positions, oldest first: repeating
    one of them ends the game as an endless cycle. Deterministic under depth and node limits.
    ``eval`` picks the evaluation at the leaves: ``learned`` (the default, :data:`DEFAULT_EVAL`:
    weights fitted to game outcomes where the variant has them, ``tuned`` elsewhere), ``tuned``
    (the family's measured terms), ``material``, or up to four comma-separated custom weights.

    ``window=(alpha, beta)`` (values as ``Score.value``) searches the root with that window at
    every iteration, as a subtree task of a distributed search does: the result's ``bound`` says
    whether its score is exact or a fail-soft ``lower``/``upper`` bound. ``shared`` plugs in a
    second-level table shared between searches (``griot.workers.cache.RedisTable``): an object with
    ``min_depth`` and ``plies`` and the batched ``fetch(requests)`` / ``publish(entries)``, each
    called once per iteration deep enough. ``table``: a ``SearchTable`` kept between searches
    (``hash_mb`` is then ignored). ``new_generation=False``: the search continues the
    ``table``'s previous one (the subtree tasks of one distributed search): the table's entries do
    not age, and deep ones are not replaced by this search's shallower bounds.
    ``iteration_windows=[(depth, alpha, beta), ...]`` (with ``window``): those iterations below
    the last search with these windows instead: a subtree task repeats the windows its earlier
    tasks searched the same subtree with, so its kept table answers them. ``resume=True``: when
    the ``table`` holds ``position`` searched to some depth k, the iterations start at k + 1 with
    the table's best move first, as the in-process search's next iteration would, instead of
    deepening from 1 again (a subtree task whose previous depth's task left its subtree in the
    kept table); without such an entry the search deepens from 1. ``egdb``: endgame databases
    (``griot.egdb.open_databases``) whose exact results replace the search below every node in
    their range. ``book``: an opening book (:class:`griot.book.Book`); a position it holds is
    answered from it without a search, as a :class:`griot.book.BookResult` (the same attributes,
    ``from_book`` True). ``reductions=True``: late-move reductions, for play: late quiet moves are
    searched a turn shallower first (again at full depth when they beat alpha), which plays
    stronger at equal time, but the value is no longer the full-width alpha-beta value that
    windows, resumed searches and the distributed search rely on (``griot uci`` and the match
    bench's in-process engine play with them). ``threads``: threads searching at once (Lazy SMP:
    auxiliary threads share the table); the result is the main thread's, and a fixed-depth
    full-width search finds the single-threaded value; the node count is every thread's.

        >>> r = search("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", depth=6, multipv=0)
        >>> sorted(m.move for m in r.moves)
        ['a', 'b', 'c', 'd', 'e', 'f']
    """
    if depth is None and time is None and nodes is None and clock is None and stop is None:
        raise ValueError("give a limit (depth, time, nodes or clock) or a stop handle")
    pos = _position(position)
    if book is not None:
        entry = book.probe(pos)
        if entry is not None:
            from griot.book import book_result

            return book_result(pos, entry)
    internal = (
        (window, shared, table) != (None, None, None) or not new_generation or iteration_windows or resume
    )
    subtree = (
        _SubtreeOptions(
            window=window,
            shared=shared,
            table=table,
            new_generation=new_generation,
            iteration_windows=[(d, a, b) for d, a, b in iteration_windows],
            resume=resume,
        )
        if internal
        else None
    )
    return _search(
        pos,
        depth=depth,
        time=time,
        nodes=nodes,
        multipv=multipv,
        hash_mb=hash_mb,
        eval=eval,
        progress=progress,
        stop=stop,
        history=[_position(p) for p in history],
        egdb=egdb,
        clock=clock,
        moves_to_go=moves_to_go,
        reductions=reductions,
        threads=threads,
        subtree=subtree,
    )


def best_move(
    position: Position | str,
    level: int,
    *,
    seed: int = 0,
    stop: SearchStop | None = None,
    history: Sequence[Position | str] = (),
) -> Move | None:
    """The move an AI of strength ``level`` (1 = weakest, 10 = strongest) plays, or None when the
    game is over. Levels 1-8 are deterministic for a ``seed``; 9 and 10 are also capped by time
    (1 s and 3 s)."""
    return _best_move(
        _position(position), level, seed=seed, stop=stop, history=[_position(p) for p in history]
    )
