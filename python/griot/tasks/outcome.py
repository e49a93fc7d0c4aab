"""A finished task as its callers see it, decoded once from the result meta Celery's backend stored.

Celery's Redis backend stores a task's end as JSON (``status``, ``result``; a failure's ``result``
is the exception as ``exc_type`` and ``exc_message``). The task client reads it where it arrives
(a result message or its safety poll) and hands every caller a :class:`TaskOutcome`: the value of
a task that succeeded, or a typed error (:mod:`griot.tasks.errors`); no caller reads the meta.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from griot.tasks.errors import BadTaskArguments, TaskFailed, TaskRevoked, WorkerError

__all__ = ["READY_STATES", "TaskOutcome"]

#: The states of a task that has ended (Celery's ``READY_STATES`` that the backend stores).
READY_STATES = frozenset({"SUCCESS", "FAILURE", "REVOKED"})


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """How a task ended: ``value`` (what it returned, a dict) when it succeeded, else ``error``."""

    #: ``"SUCCESS"``, ``"FAILURE"`` or ``"REVOKED"``.
    status: str
    value: dict[str, Any] | None = None
    error: WorkerError | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None

    def result(self) -> dict[str, Any]:
        """The value, or the error raised."""
        if self.value is None:
            raise self.error or TaskFailed(f"the task ended {self.status}")
        return self.value

    @classmethod
    def decode(cls, raw: bytes | str) -> TaskOutcome | None:
        """The outcome stored as ``raw``, or None if that is no ended task's meta."""
        try:
            meta = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(meta, dict):
            return None
        return cls.from_meta(meta)

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> TaskOutcome | None:
        status = meta.get("status")
        if status not in READY_STATES:
            return None
        result = meta.get("result")
        if status == "SUCCESS":
            if isinstance(result, dict):
                return cls("SUCCESS", value=result)
            return cls("FAILURE", error=TaskFailed(f"the task returned {result!r}, not a result"))
        if status == "REVOKED":
            return cls("REVOKED", error=TaskRevoked("the task was revoked before it ended"))
        exc_type, message = "error", result
        if isinstance(result, dict):
            exc_type = str(result.get("exc_type") or "error")
            message = result.get("exc_message")
        if isinstance(message, list | tuple):
            message = " ".join(str(m) for m in message)
        if exc_type == BadTaskArguments.__name__:
            return cls("FAILURE", error=BadTaskArguments(str(message)))
        return cls("FAILURE", error=TaskFailed(f"{exc_type}: {message}"))
