"""Tasks of the distributed endgame-database build (driven by :mod:`griot.egdb_build`).

- ``griot.egdb_chunk_bounds(variant, dir, seeds, start, end, prev, out)``: one pass over positions
  ``start..end`` of a level: reads the level's bounds after the previous pass from ``prev`` (None
  on the first pass), writes the chunk's bounds to ``out``, returns whether any changed.
- ``griot.egdb_chunk_values(variant, dir, seeds, start, end, bounds, out)``: the chunk's values
  from the level's final bounds.

Files, not messages, carry the bounds and values: ``dir`` is a directory every worker and the
caller see at the same path (one machine's disk, or a shared volume mounted at the same path in
every pod). Bad arguments raise :class:`~griot.tasks.errors.BadTaskArguments`, never retried.
"""

from __future__ import annotations

from typing import Any

import griot
from griot._core import egdb_chunk_bounds, egdb_chunk_values
from griot.tasks.errors import BadTaskArguments
from griot.workers.app import app


def _run(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except griot.GriotError as e:
        raise BadTaskArguments(f"{type(e).__name__}: {e}") from None


@app.task(name="griot.egdb_chunk_bounds", throws=(BadTaskArguments,))
def chunk_bounds(
    variant: str, directory: str, seeds: int, start: int, end: int, prev: str | None, out: str
) -> bool:
    """One pass over a chunk of a level; whether any bound changed."""
    return bool(_run(egdb_chunk_bounds, variant, directory, seeds, start, end, prev, out))


@app.task(name="griot.egdb_chunk_values", throws=(BadTaskArguments,))
def chunk_values(
    variant: str, directory: str, seeds: int, start: int, end: int, bounds: str, out: str
) -> None:
    """The values of a chunk of a level from its final bounds."""
    _run(egdb_chunk_values, variant, directory, seeds, start, end, bounds, out)
