"""The typed errors a caller of the workers' tasks sees: bad input is never retried, a cluster out
of reach or a search out of time is the caller's to report."""

from __future__ import annotations


class WorkerError(Exception):
    """Base of the errors the tasks, the task client and the distributed search raise."""


class BadTaskArguments(WorkerError, ValueError):
    """A task got arguments it can never run with (bad variant, position, window, depth...).

    Raised by the schema before a task is sent, and by tasks before any work (listed in their
    ``throws``: the task fails at once, without retries); a caller that reads such a failure gets
    this error again (:attr:`griot.tasks.outcome.TaskOutcome.error`).
    """


class ClusterUnavailable(WorkerError):
    """The broker or result backend stayed unreachable longer than the caller's grace period."""


class SearchDeadlineExceeded(WorkerError):
    """The caller's deadline passed before the requested depth completed."""


class TaskFailed(WorkerError):
    """A task ended in failure (the message says why), or kept failing after its re-dispatches."""


class TaskRevoked(WorkerError):
    """A task was revoked before it gave a result (its deadline expired at the broker, or it was
    cancelled)."""


__all__ = [
    "BadTaskArguments",
    "ClusterUnavailable",
    "SearchDeadlineExceeded",
    "TaskFailed",
    "TaskRevoked",
    "WorkerError",
]
