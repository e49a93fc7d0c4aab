"""The errors of a worker's own: what the callers see is :mod:`griot.tasks.errors`."""

from __future__ import annotations

from griot.tasks.errors import BadTaskArguments, WorkerError

__all__ = ["BadTaskArguments", "InfrastructureError"]


class InfrastructureError(WorkerError):
    """Redis or the broker failed; the task is retried with backoff."""
