"""The gateway's request checks that need no stack: a live stream's later updates reuse the
request's checked search, and are refused as the first one would be once the call's deadline is
too close."""

from __future__ import annotations

import time

import grpc
import pytest
from griot.priority import Priority
from griot.services.gateway.evaluator import Want
from griot.services.gateway.wire import DEADLINE_MARGIN, still_in_time
from griot.status import StatusError

pytestmark = pytest.mark.timeout(30)


def _want(deadline: float | None) -> Want:
    return Want(6, None, False, Priority.INTERACTIVE, "anyone", deadline)


def test_a_want_serves_later_updates_until_its_call_s_deadline() -> None:
    for want in (_want(None), _want(time.time() + 60)):
        assert still_in_time(want) is want
    with pytest.raises(StatusError) as e:
        # The Want's deadline already holds back the margin: past it, the call's own deadline
        # is less than DEADLINE_MARGIN away.
        still_in_time(_want(time.time() - DEADLINE_MARGIN / 10))
    assert e.value.status.code == grpc.StatusCode.DEADLINE_EXCEEDED
