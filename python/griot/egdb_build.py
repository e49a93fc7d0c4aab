"""The distributed endgame-database build, its caller's side: each level, in increasing seed count,
is split into chunks that the workers compute (their tasks ``griot.egdb_chunk_bounds`` and
``griot.egdb_chunk_values``, sent by name), one Celery group a pass, until no bound
changes; then one group computes the values and this process writes the level's file.

Resumable: a level whose file is present and whole is kept (a damaged one is refused); within a
level, the bounds of the last complete pass are kept in ``<level>.work/`` and a new run goes on
from them, so an interrupted build gives the same files as an uninterrupted one. The bounds
iteration is Jacobi's (each pass reads the previous pass's bounds), which converges to the same
fixpoints as the in-process solve: the files are byte-identical to ``griot egdb build --local``.

The directory must be visible to every worker at the same path (a shared volume in a cluster).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery import Celery, group

from griot import egdb
from griot._core import egdb_level_info, egdb_mark_work, egdb_write_level

__all__ = ["build"]


def _concat(parts: list[Path], into: Path) -> None:
    tmp = into.with_suffix(".part")
    with open(tmp, "wb") as out:
        for p in parts:
            with open(p, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
    os.replace(tmp, into)
    for p in parts:
        p.unlink()


def build(
    app: Celery,
    variant: str,
    seeds: int,
    directory: str | os.PathLike[str],
    *,
    chunks: int = 8,
    timeout: float = 3600.0,
    pass_limit: int | None = None,
    progress: Callable[[dict[str, Any]], object] | None = None,
) -> bool:
    """Builds levels 0..``seeds`` of ``variant`` under ``directory`` across ``app``'s workers.
    ``pass_limit`` stops after that many passes in all (the state is kept for a later run).
    Returns True when every level is built. Raises :class:`griot.egdb.EgdbError` for a rule set
    without databases or a damaged level file, and the tasks' errors."""
    root = Path(directory).resolve()
    emit = progress or (lambda e: None)
    passes = 0
    for s in range(seeds + 1):
        positions, level_path = egdb_level_info(variant, root, s)
        path = Path(level_path)
        if path.exists():
            # Opening checks every level up to this one: a damaged file is refused, not kept.
            db = egdb.open_databases(variant, root)
            if db.max_seeds is None or db.max_seeds < s:
                raise egdb.EgdbError(f"{path}: level present but lower levels are missing")
            emit({"event": "kept", "seeds": s, "positions": positions})
            continue
        emit({"event": "started", "seeds": s, "positions": positions})
        work = path.with_suffix(".work")
        work.mkdir(parents=True, exist_ok=True)
        # Bounds another format's interrupted build left are started over (as in process).
        egdb_mark_work(work)
        n = max(1, min(chunks, positions))
        cuts = [positions * j // n for j in range(n + 1)]
        done = sorted(int(p.name.split(".")[1]) for p in work.glob("bounds.*.all"))
        k = done[-1] if done else -1
        prev: Path | None = work / f"bounds.{k}.all" if k >= 0 else None
        while True:
            if pass_limit is not None and passes >= pass_limit:
                return False
            k += 1
            outs = [work / f"bounds-{k}-{j}.chunk" for j in range(n)]
            job = group(
                [
                    app.signature(
                        "griot.egdb_chunk_bounds",
                        args=(variant, str(root), s, a, b, str(prev) if prev else None, str(out)),
                    )
                    for a, b, out in zip(cuts[:-1], cuts[1:], outs, strict=True)
                ],
                app=app,
            )
            changed = job.apply_async().get(timeout=timeout)
            passes += 1
            merged = work / f"bounds.{k}.all"
            _concat(outs, merged)
            emit({"event": "pass", "seeds": s, "pass": k, "changed": sum(map(bool, changed))})
            if prev is not None:
                prev.unlink()
                if not any(changed):
                    break
            prev = merged
        parts = [work / f"values-{j}.chunk" for j in range(n)]
        group(
            [
                app.signature(
                    "griot.egdb_chunk_values", args=(variant, str(root), s, a, b, str(merged), str(out))
                )
                for a, b, out in zip(cuts[:-1], cuts[1:], parts, strict=True)
            ],
            app=app,
        ).apply_async().get(timeout=timeout)
        values = work / "values.all"
        _concat(parts, values)
        egdb_write_level(variant, root, s, values, merged)
        shutil.rmtree(work)
        emit({"event": "written", "seeds": s, "positions": positions, "passes": k + 1})
    return True
