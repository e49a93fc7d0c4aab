"""Type stubs of the native core (checked by mypy.stubtest)."""

import os
from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol, final, type_check_only

__all__ = [
    "DEFAULT_EVAL",
    "ENGINE_VERSION",
    "INFINITE",
    "MAX_PLIES",
    "WIN",
    "WIN_BOUND",
    "Egdb",
    "EgdbError",
    "EgdbProbe",
    "GameOutcome",
    "GriotError",
    "IllegalMoveError",
    "Move",
    "MoveScore",
    "NotationError",
    "Position",
    "RuleFileError",
    "Score",
    "SearchResult",
    "SearchStop",
    "SearchTable",
    "SubtreeOptions",
    "TurnEvent",
    "UnknownVariantError",
    "Variant",
    "VariantError",
    "bench",
    "best_move",
    "builtin_rule_file",
    "egdb_build",
    "egdb_chunk_bounds",
    "egdb_chunk_values",
    "egdb_level_info",
    "egdb_mark_work",
    "egdb_write_level",
    "eval_name",
    "eval_scope",
    "families",
    "level_choice",
    "level_settings",
    "register_rule_file",
    "score_bound_to_child",
    "score_from_child",
    "search",
]

ENGINE_VERSION: Final[str]
#: The evaluation a search uses unless told another: ``learned`` (the learned evaluation where the
#: variant has fitted weights, the tuned one elsewhere).
DEFAULT_EVAL: Final[str]
WIN: Final[int]
WIN_BOUND: Final[int]
MAX_PLIES: Final[int]
INFINITE: Final[int]

def score_bound_to_child(value: int) -> int:
    """A window bound of a node as its child sees it, one ply lower, within ±INFINITE."""

def score_from_child(value: int) -> int:
    """A child's value as its parent sees it, one ply higher."""

def eval_name(text: str) -> str:
    """An evaluation's name as searches write it (``learned``, ``tuned``, ``material``, or custom
    weights in their canonical form); raises :class:`GriotError` for a name no search takes."""

def eval_scope(text: str) -> str:
    """What names an evaluation in cached values' keys: :func:`eval_name`, and for ``learned``
    the digest of the shipped weights (``learned.<8 hex digits>``), which a refit changes without
    a new engine version; raises :class:`GriotError` for a name no search takes."""

class GriotError(ValueError):
    """Base of every error Griot raises for bad input."""

    code: str | None
    field: str | None
    option: str | None

class NotationError(GriotError):
    """A position or move that could not be parsed."""

class VariantError(GriotError):
    """A malformed variant string or a bad option (see .option)."""

class UnknownVariantError(VariantError):
    """No game has this variant id."""

class RuleFileError(VariantError):
    """A rule file with a bad field (see .field)."""

class EgdbError(GriotError):
    """An endgame database that cannot be built or read."""

class IllegalMoveError(GriotError):
    """A move that is not legal in the position (see .code)."""

@final
class Variant:
    def __new__(cls, text: str) -> Variant: ...
    @property
    def id(self) -> str: ...
    @property
    def canonical(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def options(self) -> dict[str, int | bool]: ...
    @property
    def rules(self) -> list[str]: ...
    @property
    def geometry(self) -> dict[str, Any]: ...
    def start(self) -> Position: ...
    def position(self, body: str) -> Position: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Move:
    @property
    def text(self) -> str: ...
    @property
    def steps(self) -> list[str]: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class GameOutcome:
    @property
    def winner(self) -> str | None: ...
    @property
    def scores(self) -> tuple[int, int]: ...
    @property
    def reason(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...

@final
class TurnEvent:
    @property
    def kind(self) -> str: ...
    @property
    def player(self) -> str | None: ...
    @property
    def cell(self) -> int | None: ...
    @property
    def cells(self) -> list[int]: ...
    @property
    def seeds(self) -> int: ...
    @property
    def detail(self) -> str | None: ...

@final
class Position:
    def __new__(cls, text: str) -> Position: ...
    @property
    def variant(self) -> Variant: ...
    @property
    def side_to_move(self) -> str: ...
    @property
    def turns(self) -> int: ...
    def near_turn_limit(self, depth: int) -> bool:
        """Whether a search ``depth`` turns deep may meet the turn limit (then not cacheable)."""
    @property
    def cells(self) -> list[int]: ...
    @property
    def stores(self) -> tuple[int, int] | None: ...
    def legal_moves(self) -> list[Move]: ...
    def parse_move(self, text: Move | str) -> Move: ...
    def check(self, mv: Move | str) -> None: ...
    def is_legal(self, mv: Move | str) -> bool: ...
    @property
    def mid_turn(self) -> bool: ...
    def play(self, mv: Move | str) -> Position: ...
    def play_with_events(self, mv: Move | str) -> tuple[Position, list[TurnEvent]]: ...
    def successors(self) -> list[tuple[Move, Position]]: ...
    @property
    def outcome(self) -> GameOutcome | None: ...
    @property
    def is_over(self) -> bool: ...
    def endless_outcome(self) -> GameOutcome: ...
    @property
    def key(self) -> bytes: ...
    @property
    def zobrist(self) -> int: ...
    def perft(self, depth: int) -> int: ...
    def divide(self, depth: int) -> dict[str, int]: ...
    def random_playouts(self, count: int, seed: int = 0) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def families() -> list[dict[str, Any]]: ...
def register_rule_file(text: str) -> Variant: ...
def builtin_rule_file(id: str) -> str | None: ...

@final
class Score:
    def __new__(cls, value: int) -> Score: ...
    @property
    def kind(self) -> str: ...
    @property
    def centi(self) -> int | None: ...
    @property
    def margin(self) -> float | None: ...
    @property
    def turns(self) -> int | None: ...
    @property
    def own_turns(self) -> int | None: ...
    @property
    def is_win(self) -> bool: ...
    @property
    def is_loss(self) -> bool: ...
    @property
    def value(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __lt__(self, value: Score, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class MoveScore:
    @property
    def move(self) -> str: ...
    @property
    def score(self) -> Score: ...
    @property
    def bound(self) -> str: ...
    @property
    def pv(self) -> list[str]: ...

@final
class SearchResult:
    @property
    def best_move(self) -> Move | None: ...
    @property
    def score(self) -> Score: ...
    @property
    def pv(self) -> list[str]: ...
    @property
    def depth(self) -> int: ...
    @property
    def seldepth(self) -> int: ...
    @property
    def nodes(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def nps(self) -> int: ...
    @property
    def moves(self) -> list[MoveScore]: ...
    @property
    def hashfull(self) -> int: ...
    @property
    def bound(self) -> str: ...

@final
class SearchTable:
    def __new__(cls, megabytes: int = 64) -> SearchTable: ...
    def clear(self) -> None: ...
    @property
    def bytes(self) -> int: ...

@final
class SearchStop:
    def __new__(cls) -> SearchStop: ...
    def set(self) -> None: ...
    def clear(self) -> None: ...
    @property
    def is_set(self) -> bool: ...

_SharedEntry = tuple[bytes, int, str, int, int | None]

@type_check_only
class _SharedTable(Protocol):
    """A second-level table for `search`: batched, one fetch and one publish per iteration."""

    min_depth: int
    plies: int
    def fetch(self, requests: list[tuple[bytes, int]]) -> Iterable[_SharedEntry]: ...
    def publish(self, entries: list[_SharedEntry]) -> None: ...

@final
class SubtreeOptions:
    def __new__(
        cls,
        *,
        window: tuple[int, int] | None = None,
        shared: _SharedTable | None = None,
        table: SearchTable | None = None,
        new_generation: bool = True,
        iteration_windows: list[tuple[int, int, int]] | None = None,
        resume: bool = False,
    ) -> SubtreeOptions: ...
    @property
    def window(self) -> tuple[int, int] | None: ...
    @property
    def shared(self) -> _SharedTable | None: ...
    @property
    def table(self) -> SearchTable | None: ...
    @property
    def new_generation(self) -> bool: ...
    @property
    def iteration_windows(self) -> list[tuple[int, int, int]]: ...
    @property
    def resume(self) -> bool: ...

def search(
    position: Position,
    depth: int | None = None,
    time: float | None = None,
    nodes: int | None = None,
    multipv: int = 1,
    hash_mb: int = 16,
    eval: str = ...,  # DEFAULT_EVAL
    progress: Callable[[SearchResult], object] | None = None,
    stop: SearchStop | None = None,
    history: list[Position] | None = None,
    egdb: Egdb | None = None,
    clock: tuple[float, float] | None = None,
    moves_to_go: int | None = None,
    reductions: bool = False,
    threads: int = 1,
    *,
    subtree: SubtreeOptions | None = None,
) -> SearchResult: ...
def best_move(
    position: Position,
    level: int,
    seed: int = 0,
    stop: SearchStop | None = None,
    history: list[Position] | None = None,
) -> Move | None: ...
def level_settings(level: int) -> tuple[int, int, float | None]: ...
def level_choice(level: int, moves: list[tuple[str, int, str]], seed: int) -> str | None: ...
def bench() -> list[dict[str, Any]]: ...

@final
class Egdb:
    def __new__(cls, variant: str, dir: str | os.PathLike[str]) -> Egdb: ...
    @property
    def rules(self) -> str: ...
    @property
    def max_seeds(self) -> int | None: ...
    def probe(self, position: Position) -> EgdbProbe: ...

@final
class EgdbProbe:
    @property
    def kind(self) -> str: ...
    @property
    def margin(self) -> int | None: ...
    @property
    def winner(self) -> str | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def cycle(self) -> bool: ...
    @property
    def lo(self) -> int | None: ...
    @property
    def hi(self) -> int | None: ...
    @property
    def exact_margin(self) -> bool: ...

def egdb_build(
    variant: str,
    dir: str | os.PathLike[str],
    seeds: int,
    progress: Callable[[dict[str, Any]], object] | None = None,
    threads: int | None = None,
) -> list[dict[str, Any]]: ...
def egdb_level_info(variant: str, dir: str | os.PathLike[str], seeds: int) -> tuple[int, str]: ...
def egdb_mark_work(work: str | os.PathLike[str]) -> None: ...
def egdb_chunk_bounds(
    variant: str,
    dir: str | os.PathLike[str],
    seeds: int,
    start: int,
    end: int,
    prev: str | os.PathLike[str] | None,
    out: str | os.PathLike[str],
) -> bool: ...
def egdb_chunk_values(
    variant: str,
    dir: str | os.PathLike[str],
    seeds: int,
    start: int,
    end: int,
    bounds: str | os.PathLike[str],
    out: str | os.PathLike[str],
) -> None: ...
def egdb_write_level(
    variant: str,
    dir: str | os.PathLike[str],
    seeds: int,
    values: str | os.PathLike[str],
    bounds: str | os.PathLike[str],
) -> None: ...
