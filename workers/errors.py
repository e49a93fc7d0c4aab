"""The workers' typed errors: bad input is never retried, infrastructure failures are."""

from __future__ import annotations


class WorkerError(Exception):
    """Base of the errors the workers and the distributed search raise."""


class BadTaskArguments(WorkerError, ValueError):
    """A task got arguments it can never run with (bad variant, position, window, depth...).

    Raised by tasks before any work and listed in their ``throws``: the task fails at once,
    without retries, and the caller re-raises it.
    """


class InfrastructureError(WorkerError):
    """Redis or the broker failed; the task is retried with backoff."""


class ClusterUnavailable(WorkerError):
    """The broker or result backend stayed unreachable longer than the caller's grace period."""


class SearchDeadlineExceeded(WorkerError):
    """The caller's deadline passed before the requested depth completed."""


class TaskFailed(WorkerError):
    """A subtree task kept failing after its re-dispatches (the message says why)."""
