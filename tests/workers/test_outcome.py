"""A task's end as Celery's Redis backend stores it, decoded into the typed outcome callers get."""

from __future__ import annotations

import json

import pytest
from griot.tasks.errors import BadTaskArguments, TaskFailed, TaskRevoked
from griot.tasks.outcome import TaskOutcome


def _decode(meta: object) -> TaskOutcome | None:
    return TaskOutcome.decode(json.dumps(meta).encode())


def test_a_success_carries_its_value() -> None:
    outcome = _decode({"status": "SUCCESS", "result": {"depth": 4, "value": 1}, "task_id": "t"})
    assert outcome is not None and outcome.ok
    assert outcome.result() == {"depth": 4, "value": 1} and outcome.error is None


def test_bad_arguments_come_back_as_the_same_error() -> None:
    meta = {
        "status": "FAILURE",
        "result": {"exc_type": "BadTaskArguments", "exc_message": ["depth must be", "1..120"]},
    }
    outcome = _decode(meta)
    assert outcome is not None and not outcome.ok
    assert isinstance(outcome.error, BadTaskArguments)
    with pytest.raises(BadTaskArguments, match=r"depth must be 1\.\.120"):
        outcome.result()


def test_another_failure_names_its_exception() -> None:
    outcome = _decode({"status": "FAILURE", "result": {"exc_type": "MatchError", "exc_message": ["no book"]}})
    assert outcome is not None and isinstance(outcome.error, TaskFailed)
    assert str(outcome.error) == "MatchError: no book"


def test_a_revoked_task_and_a_success_without_a_value_are_errors() -> None:
    revoked = _decode({"status": "REVOKED", "result": None})
    assert revoked is not None and isinstance(revoked.error, TaskRevoked)
    odd = _decode({"status": "SUCCESS", "result": 3})
    assert odd is not None and isinstance(odd.error, TaskFailed) and not odd.ok


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b'{"status": "STARTED"}', b'{"status": "PENDING"}'])
def test_what_is_no_ended_task_decodes_to_nothing(raw: bytes) -> None:
    assert TaskOutcome.decode(raw) is None
