"""Endgame databases: exact results of two-row sowing endings, built by retrograde analysis in the
native core (docs/EGDB.md).

    >>> import griot.egdb, tempfile
    >>> d = tempfile.mkdtemp()
    >>> [s["seeds"] for s in griot.egdb.build("abapa(holes=2)", 3, d)]
    [0, 1, 2, 3]
    >>> db = griot.egdb.open_databases("abapa(holes=2)", d)
    >>> griot.egdb.sentence(db.probe(griot.Position("abapa(holes=2) 0,1/1,0 7-7 S 5 -")))
    'draw with best play, unless a repetition decides otherwise'
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from griot._core import Egdb, EgdbError, EgdbProbe, GriotError, Position, Variant
from griot._core import egdb_build as _egdb_build

__all__ = [
    "UNLESS_REPETITION",
    "Databases",
    "Egdb",
    "EgdbError",
    "EgdbProbe",
    "build",
    "default_dir",
    "exact",
    "flip",
    "leads",
    "open_databases",
    "rule_sets",
    "sentence",
]

log = logging.getLogger("griot.egdb")


def default_dir() -> Path:
    """Where databases live unless told otherwise: ``$GRIOT_EGDB_DIR``, else ``~/.cache/griot/egdb``."""
    env = os.environ.get("GRIOT_EGDB_DIR")
    return Path(env) if env else Path.home() / ".cache" / "griot" / "egdb"


def build(
    variant: str,
    seeds: int,
    directory: str | os.PathLike[str],
    progress: Callable[[dict[str, Any]], object] | None = None,
    threads: int | None = None,
) -> list[dict[str, Any]]:
    """Builds the levels 0..``seeds`` of ``variant``'s rule set under ``directory`` in this process
    (the GIL released; ``threads`` expanding each level, default one a core), keeping levels
    already built; a level interrupted mid-way goes on from its work directory. ``progress(event)``
    gets a dict per event: ``event`` is "kept", "started", "expanded" (``done`` positions) or
    "written" (the level's stats). Returns the stats of every level solved by this call.
    Raises :class:`EgdbError`."""
    if seeds < 0:
        raise EgdbError(f"seeds must be at least 0, not {seeds}")
    return _egdb_build(variant, Path(directory), seeds, progress, threads)


def open_databases(variant: str, directory: str | os.PathLike[str]) -> Egdb:
    """The databases of ``variant``'s rule set under ``directory``; damaged or foreign files raise
    :class:`EgdbError` and are never read."""
    return Egdb(variant, Path(directory))


#: What :func:`sentence` adds for a position valued by a cycle whose bounds differ in result.
UNLESS_REPETITION = ", as a repetition decides"


def leads(probe: EgdbProbe, position: Position) -> tuple[int, int] | None:
    """The side to move's final lead over the opponent (stores included) with best play at the
    probe's two bounds, least first: the same number twice unless ``position`` is valued by a
    cycle, where the rules' repetitions decide within them. None out of range. The bounds of a
    position are the best of its moves' bounds, as minimax goes, so this is what agrees with the
    moves (the margin of a position valued by a cycle is a different game's at each position).
    A finished game's lead is its final score's."""
    me = 0 if position.side_to_move == "S" else 1
    outcome = position.outcome
    if outcome is not None:
        final = outcome.scores[me] - outcome.scores[1 - me]
        return final, final
    if probe.lo is None or probe.hi is None:
        return None
    stores = position.stores or (0, 0)
    ahead = stores[me] - stores[1 - me]
    return ahead + probe.lo, ahead + probe.hi


def _result(lead: int, mover: str, margin: bool) -> str:
    """A result named from ``mover``'s final ``lead``: "South wins by 4", "North wins", "draw"."""
    if lead == 0:
        return "draw"
    winner = mover if lead > 0 else ("N" if mover == "S" else "S")
    name = "South" if winner == "S" else "North"
    return f"{name} wins by {abs(lead)}" if margin else f"{name} wins"


def sentence(probe: EgdbProbe, position: Position | None = None) -> str:
    """The probe as a person reads it: "South wins by 4 with best play", "draw with best play",
    or "out of range: <reason>". With ``position`` the margin includes its stores. A position
    valued by a cycle is read from its two bounds (:func:`leads`): one result when they agree on
    it ("North wins with best play"), else both, "between North wins by 3 and a draw with best
    play, as a repetition decides"; a margin is named only where the store threshold cannot
    end the game first."""
    if position is not None and position.outcome is not None:
        final = leads(probe, position)
        assert final is not None
        return f"{_result(final[0], position.side_to_move, True)}: the game is over"
    if probe.kind == "out_of_range":
        return f"out of range: {probe.reason}"
    bounds = leads(probe, position) if position is not None else None
    if probe.cycle and bounds is not None and position is not None:
        mover, margin = position.side_to_move, probe.exact_margin
        low, high = (_result(lead, mover, margin) for lead in bounds)
        if low == high:
            return f"{low} with best play"
        if margin and bounds[0] * bounds[1] > 0:  # one winner, by a margin the repetitions decide
            near, far = sorted(abs(lead) for lead in bounds)
            name = low.split()[0]
            return f"{name} wins by {near} to {far} with best play{UNLESS_REPETITION}"
        if low == "draw":
            low = "a draw"
        if high == "draw":
            high = "a draw"
        return f"between {low} and {high} with best play{UNLESS_REPETITION}"
    tail = UNLESS_REPETITION if probe.cycle else ""
    if probe.winner is None:
        return f"draw with best play{tail}"
    name = "South" if probe.winner == "S" else "North"
    if probe.kind == "winner" or probe.margin is None or position is None:
        return f"{name} wins with best play{tail}"
    stores = position.stores or (0, 0)
    me = 0 if position.side_to_move == "S" else 1
    lead = stores[me] - stores[1 - me] + probe.margin
    return f"{name} wins by {abs(lead)} with best play{tail}"


def exact(db: Egdb | None, position: Position) -> dict[str, Any] | None:
    """The databases' result for ``position`` as plain data (JSON), from the side to move's point
    of view: ``{"result": "win" | "draw" | "loss", "margin": int | None}``, ``margin`` the seeds
    the side to move ends ahead with best play, stores included, when the databases give it
    exactly (None when only the result is exact: a store may still pass the rules' threshold).
    None out of their range, for a position valued by a cycle (not exact: a repetition may
    decide) or without databases."""
    if db is None:
        return None
    probe = db.probe(position)
    if probe.kind == "out_of_range" or probe.cycle:
        return None
    me = position.side_to_move
    result = "draw" if probe.winner is None else ("win" if probe.winner == me else "loss")
    margin = None
    if probe.kind == "exact" and probe.margin is not None:
        stores = position.stores or (0, 0)
        i = 0 if me == "S" else 1
        margin = stores[i] - stores[1 - i] + probe.margin
    return {"result": result, "margin": margin}


def flip(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """:func:`exact`'s result from the other player's point of view."""
    if result is None:
        return None
    margin = result.get("margin")
    other = {"win": "loss", "loss": "win"}.get(result.get("result", "draw"), "draw")
    return {"result": other, "margin": -margin if margin is not None else None}


_DIR_NAME = re.compile(r"^([a-z0-9-]+)_holes_([0-9]+)_$")


def rule_sets(directory: str | os.PathLike[str]) -> list[str]:
    """The rule-set strings (``abapa(holes=6)``) that have a level 0 under ``directory``: the
    directory names are the rule-set strings with ``(``, ``=`` and ``)`` written ``_``."""
    root = Path(directory)
    if not root.is_dir():
        return []
    found = []
    for sub in sorted(root.iterdir()):
        m = _DIR_NAME.match(sub.name)
        if m and (sub / "000.egdb").exists():
            found.append(f"{m.group(1)}(holes={m.group(2)})")
    return found


@functools.lru_cache(maxsize=1024)
def _rules_of(variant: str) -> str:
    """The rule-set string a variant's databases are filed under (its rule set and board size),
    or the variant string itself when it names no board size. Remembered: parsing the variant
    costs more than the lookup it serves, and a gateway asks for every result it relays."""
    try:
        v = Variant(variant)
    except GriotError:
        return variant
    holes = v.options.get("holes")
    return f"{v.id}(holes={holes})" if isinstance(holes, int) else variant


class Databases:
    """The endgame databases a process uses, opened once per rule set from one directory (default
    :func:`default_dir`): what a worker or a gateway searches and scores with, and reports."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_dir()
        self._open: dict[str, Egdb | None] = {}
        self._refused: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, variant: str) -> Egdb | None:
        """The databases of ``variant``'s rule set, if any are built; a damaged file is logged and
        the databases are not used."""
        key = _rules_of(variant)
        with self._lock:
            if key not in self._open:
                db: Egdb | None = None
                try:
                    db = open_databases(variant, self.directory)
                except EgdbError as e:
                    if "refused" in str(e):
                        log.warning("endgame databases not used: %s", e)
                        self._refused[key] = str(e)
                except GriotError:
                    db = None
                self._open[key] = db if db is not None and db.max_seeds is not None else None
            return self._open[key]

    def loaded(self) -> list[dict[str, Any]]:
        """The rule sets opened so far, ``{"rules": "abapa(holes=6)", "max_seeds": 20}``, then those
        refused, ``{"rules": ..., "error": ...}``."""
        with self._lock:
            seen = {db.rules: db.max_seeds for db in self._open.values() if db is not None}
            refused = dict(self._refused)
        return [{"rules": r, "max_seeds": n} for r, n in sorted(seen.items())] + [
            {"rules": r, "error": e} for r, e in sorted(refused.items())
        ]

    def load_all(self) -> list[dict[str, Any]]:
        """Opens every rule set built under the directory (each file checked once) and returns
        :meth:`loaded`."""
        for rules in rule_sets(self.directory):
            self.get(rules)
        return self.loaded()
