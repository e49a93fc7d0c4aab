"""Opening books: the best move and value of the positions near a variant's start, found by deep
searches and backed up by minimax, so that an engine plays them without searching.

A book is a JSON-lines file (``docs/BOOKS.md``): a header line, then one line per position::

    {"book": 1, "variant": "abapa", "engine": "0.1.0", "depth": 16, "plies": 4, "width": 0, "eval": "learned"}
    {"position": "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", "best": "f", "value": 40, "depth": 20, "ply": 0}

Positions are in Griot's notation and moves in Griot's move notation; ``value`` is the score for
the side to move (``Score.value``: centi-seeds, or a proven result near ``griot.WIN``) and
``depth`` the turns it looks ahead (the search's depth plus the book's moves below the position).

:func:`build` expands the tree from the start to ``plies`` turns (every move, or the ``width``
best by a shallower search), evaluates its leaves with searches to ``depth``, backs the values
up and returns the :class:`Book`. The searches go through an :data:`Evaluator`: in this process
(:func:`local_evaluator`), or on the Celery workers (``griot book build --workers``). Each search
has a new table of ``hash_mb`` MB, and searches are deterministic under a depth limit, so both
give the same book. The positions are searched without the game's history: a book holds the
first turns of a game, where no position repeats.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import griot
from griot._core import score_from_child

__all__ = [
    "FORMAT_VERSION",
    "Book",
    "BookEntry",
    "BookError",
    "BookResult",
    "EvalRequest",
    "EvalResult",
    "Evaluator",
    "build",
    "local_evaluator",
]

FORMAT_VERSION = 1
#: Table size (MB) of each search of a build: part of what makes it reproducible.
BUILD_HASH_MB = 16


class BookError(ValueError):
    """A book file that cannot be read, or a build that cannot be made."""


@dataclass(frozen=True)
class BookEntry:
    """One position of a book: its best move, value for the side to move, and the turns looked
    ahead; ``ply``: its distance from the start."""

    position: str
    best: str
    value: int
    depth: int
    ply: int

    def line(self) -> str:
        return json.dumps(
            {
                "position": self.position,
                "best": self.best,
                "value": self.value,
                "depth": self.depth,
                "ply": self.ply,
            }
        )


@dataclass
class Book:
    """A book in memory: its header and entries by position notation."""

    variant: str
    depth: int
    plies: int
    width: int = 0
    engine: str = griot.ENGINE_VERSION
    #: The evaluation its searches used (the searches use the default one, :data:`griot.DEFAULT_EVAL`).
    eval: str = griot.DEFAULT_EVAL
    entries: dict[str, BookEntry] = field(default_factory=dict)

    def probe(self, position: griot.Position | str) -> BookEntry | None:
        """The entry of ``position``, if the book holds it."""
        return self.entries.get(str(position))

    def __len__(self) -> int:
        return len(self.entries)

    def dumps(self) -> str:
        header = {
            "book": FORMAT_VERSION,
            "variant": self.variant,
            "engine": self.engine,
            "depth": self.depth,
            "plies": self.plies,
            "width": self.width,
            "eval": self.eval,
        }
        lines = [json.dumps(header)]
        lines += [e.line() for e in sorted(self.entries.values(), key=lambda e: (e.ply, e.position))]
        return "\n".join(lines) + "\n"

    def write(self, path: str | os.PathLike[str]) -> None:
        """Writes the book (whole or not at all: a temporary file renamed)."""
        target = Path(path)
        tmp = target.with_name(target.name + ".part")
        tmp.write_text(self.dumps(), encoding="utf-8")
        os.replace(tmp, target)

    @staticmethod
    def loads(text: str, source: str = "book") -> Book:
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            raise BookError(f"{source}: empty")
        try:
            header = json.loads(lines[0])
            if not isinstance(header, dict) or header.get("book") != FORMAT_VERSION:
                raise BookError(f"{source}: not a Griot book (format {FORMAT_VERSION})")
            variant = griot.Variant(str(header["variant"])).canonical
            book = Book(
                variant,
                int(header["depth"]),
                int(header["plies"]),
                int(header.get("width", 0)),
                str(header.get("engine", "")),
                # A header without the field predates it, when the searches used the tuned one.
                str(header.get("eval", "tuned")),
            )
            for n, line in enumerate(lines[1:], start=2):
                row = json.loads(line)
                pos = griot.Position(str(row["position"]))
                if pos.variant.canonical != variant:
                    raise BookError(f"{source}:{n}: a position of {pos.variant.canonical}, not {variant}")
                move = pos.parse_move(str(row["best"]))
                pos.check(move)
                key = str(pos)
                book.entries[key] = BookEntry(
                    key, move.text, int(row["value"]), int(row["depth"]), int(row["ply"])
                )
        except (ValueError, KeyError, TypeError, griot.GriotError) as e:
            if isinstance(e, BookError):
                raise
            raise BookError(f"{source}: {type(e).__name__}: {e}") from None
        return book

    @staticmethod
    def load(path: str | os.PathLike[str]) -> Book:
        """Reads a book file; BookError names what is wrong with it."""
        return Book.loads(Path(path).read_text(encoding="utf-8"), str(path))


# -- the search result a book gives --------------------------------------------------------------


@dataclass(frozen=True)
class BookResult:
    """What ``griot.search(..., book=...)`` returns for a position in the book: the attributes of
    a :class:`griot.SearchResult` (no nodes searched), with ``from_book`` True."""

    best_move: griot.Move
    score: griot.Score
    depth: int
    pv: list[str]
    seldepth: int = 0
    nodes: int = 0
    time: float = 0.0
    nps: int = 0
    hashfull: int = 0
    bound: str = "exact"
    moves: list[Any] = field(default_factory=list)
    from_book: bool = True


def book_result(position: griot.Position, entry: BookEntry) -> BookResult:
    move = position.parse_move(entry.best)
    return BookResult(move, griot.Score(entry.value), entry.depth, [entry.best], seldepth=entry.depth)


# -- building ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvalRequest:
    """One search of a build: ``position`` (notation) to ``depth``; ``multipv`` 0 for every
    move's exact score (to choose the moves to expand), 1 for the best."""

    position: str
    depth: int
    multipv: int = 1


@dataclass(frozen=True)
class EvalResult:
    """A search's answer: the best move (None when the game is over), its value for the side to
    move, and (``multipv`` 0) each move's value, best first."""

    best: str | None
    value: int
    moves: list[tuple[str, int]] = field(default_factory=list)


#: Runs a batch of searches (in any order, at once if it can) and returns their answers in order.
Evaluator = Callable[[Sequence[EvalRequest]], list[EvalResult]]


def local_evaluator(hash_mb: int = BUILD_HASH_MB) -> Evaluator:
    """Searches in this process, one after the other, each with a new table."""

    def evaluate(requests: Sequence[EvalRequest]) -> list[EvalResult]:
        out = []
        for r in requests:
            res = griot.search(r.position, depth=r.depth, multipv=r.multipv, hash_mb=hash_mb)
            best = str(res.best_move) if res.best_move is not None else None
            out.append(EvalResult(best, res.score.value, [(m.move, m.score.value) for m in res.moves]))
        return out

    return evaluate


def backed_up(parent: griot.Position, child: griot.Position, child_value: int) -> int:
    """The value for ``parent``'s mover of a move to ``child`` valued ``child_value`` for its own
    mover: negated when the turn passes, a proven result one turn further away."""
    return score_from_child(-child_value if child.side_to_move != parent.side_to_move else child_value)


def build(
    variant: str,
    plies: int,
    depth: int,
    evaluate: Evaluator,
    *,
    width: int = 0,
    select_depth: int | None = None,
    progress: Callable[[dict[str, Any]], object] | None = None,
) -> Book:
    """The book of ``variant``'s first ``plies`` turns: every move (``width`` 0) or the ``width``
    best by a search to ``select_depth`` (default: half of ``depth``) is expanded; the leaves are
    searched to ``depth`` and the values backed up by minimax."""
    if plies < 1 or depth < 1 or width < 0:
        raise BookError("plies and depth must be at least 1, width at least 0")
    game = griot.Variant(variant)
    emit = progress or (lambda e: None)
    start = game.start()
    # Level by level: the positions at each distance from the start, each once (transpositions
    # share one node), with the moves expanded from it.
    levels: list[dict[str, griot.Position]] = [{str(start): start}]
    children: dict[str, list[tuple[str, str]]] = {}
    for ply in range(plies):
        frontier = [p for p in levels[-1].values() if not p.is_over]
        ranked: dict[str, list[str]] = {}
        if width and frontier:
            answers = evaluate([EvalRequest(str(p), select_depth or max(1, depth // 2), 0) for p in frontier])
            for p, a in zip(frontier, answers, strict=True):
                ranked[str(p)] = [m for m, _ in a.moves]
        nxt: dict[str, griot.Position] = {}
        for p in frontier:
            legal = [m.text for m in p.legal_moves()]
            moves = [m for m in ranked.get(str(p), legal) if m in legal][: width or None] if width else legal
            kids = []
            for m in moves:
                child = p.play(p.parse_move(m))
                key = str(child)
                nxt.setdefault(key, child)
                kids.append((m, key))
            children[str(p)] = kids
        levels.append(nxt)
        emit({"event": "expanded", "ply": ply + 1, "positions": len(nxt)})
    leaves = [p for p in levels[-1].values() if not p.is_over]
    emit({"event": "leaves", "positions": len(leaves)})
    answers = evaluate([EvalRequest(str(p), depth) for p in leaves])
    value: dict[str, int] = {}
    entries: dict[str, BookEntry] = {}
    for p, a in zip(leaves, answers, strict=True):
        key = str(p)
        value[key] = a.value
        if a.best is not None:
            entries[key] = BookEntry(key, a.best, a.value, depth, plies)
    for ply in range(plies - 1, -1, -1):
        for key, p in levels[ply].items():
            if p.is_over:
                continue
            best: tuple[int, str] | None = None
            for m, child_key in children[key]:
                child = levels[ply + 1][child_key]
                v = value[child_key] if child_key in value else _over_value(child)
                v = backed_up(p, child, v)
                if best is None or v > best[0]:
                    best = (v, m)
            assert best is not None
            value[key] = best[0]
            entries[key] = BookEntry(key, best[1], best[0], depth + plies - ply, ply)
    emit({"event": "done", "positions": len(entries)})
    return Book(game.canonical, depth, plies, width, entries=entries)


def _over_value(pos: griot.Position) -> int:
    """A finished game's value for the side that would move: a win or loss now, or a draw."""
    outcome = pos.outcome
    assert outcome is not None
    if outcome.winner is None or outcome.winner not in ("S", "N"):
        return 0
    return griot.WIN if outcome.winner == pos.side_to_move else -griot.WIN
