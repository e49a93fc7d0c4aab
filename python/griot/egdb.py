"""Endgame databases: exact results of two-row sowing endings, built by retrograde analysis in the
native core (docs/EGDB.md).

    >>> import griot.egdb, tempfile
    >>> d = tempfile.mkdtemp()
    >>> [s["seeds"] for s in griot.egdb.build("abapa(holes=2)", 3, d)]
    [0, 1, 2, 3]
    >>> db = griot.egdb.open_databases("abapa(holes=2)", d)
    >>> griot.egdb.sentence(db.probe(griot.Position("abapa(holes=2) 0,1/1,0 7-7 S 5 -")))
    'draw with best play'
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from griot._core import Egdb, EgdbError, EgdbProbe, Position
from griot._core import egdb_build as _egdb_build

__all__ = ["Egdb", "EgdbError", "EgdbProbe", "build", "default_dir", "open_databases", "sentence"]


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


def sentence(probe: EgdbProbe, position: Position | None = None) -> str:
    """The probe as a person reads it: "South wins by 4 with best play", "draw with best play",
    or "out of range: <reason>". With ``position`` the margin includes its stores."""
    if probe.kind == "out_of_range":
        return f"out of range: {probe.reason}"
    if probe.winner is None:
        return "draw with best play"
    name = "South" if probe.winner == "S" else "North"
    if probe.kind == "winner" or probe.margin is None or position is None:
        return f"{name} wins with best play"
    stores = position.stores or (0, 0)
    me = 0 if position.side_to_move == "S" else 1
    lead = stores[me] - stores[1 - me] + probe.margin
    return f"{name} wins by {abs(lead)} with best play"
