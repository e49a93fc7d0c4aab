"""Distributed deep search of one position across the workers (the caller's side).

- :mod:`.tree`: the search's top plies, expanded here, whose leaves are subtree tasks
  (:class:`ClusterSearch`);
- :mod:`.schedule`: the order in which one search sends its tasks (:class:`SubtreeQueue`), through
  a task runner of :mod:`griot.tasks.client`.
"""

from griot.tasks.distributed.schedule import SubtreeQueue, TaskStats, cluster_workers
from griot.tasks.distributed.tree import (
    EXACT,
    LOWER,
    UPPER,
    ClusterSearch,
    DepthResult,
    MoveValue,
    from_child,
    score_text,
    to_child,
    window_bound,
)

__all__ = [
    "EXACT",
    "LOWER",
    "UPPER",
    "ClusterSearch",
    "DepthResult",
    "MoveValue",
    "SubtreeQueue",
    "TaskStats",
    "cluster_workers",
    "from_child",
    "score_text",
    "to_child",
    "window_bound",
]
