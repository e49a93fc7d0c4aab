"""A short chaos soak (griot.lab.soak; the long one is bench/chaos_soak.py): live games through the
SDK and the web server, whole-game analyses and a probe, while a seeded schedule cuts a host and
a link, kills a gateway replica and the cache Redis and starts them again, and slows every link."""

from __future__ import annotations

import pytest
from griot.lab import Lab
from griot.lab.soak import ALLOWED_CODES, KINDS, SoakConfig, run

pytestmark = pytest.mark.timeout(240)

#: The seed's schedule: a worker's link to the broker cut, every link slow, the cache Redis killed
#: (empty after it starts again), a gateway host cut, then that gateway replica killed and started
#: again (one fault at a time, 3-6 s each, 2-4 s apart).
CONFIG = SoakConfig(
    seed=4685,
    duration=45.0,
    live_games=6,
    web_games=2,
    analyses=2,
    moves=6,
    live_depth=7,
    analysis_depth=7,
    gap=(2.0, 4.0),
    length=(3.0, 6.0),
    kill=("worker", "gateway", "cache", "broker"),
    sample=40,
    settle=60.0,
)


def test_a_short_chaos_soak_meets_the_targets(lab: Lab) -> None:
    """No job is lost, no value is wrong, every error a client sees is UNAVAILABLE,
    DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED, and after every heal a request is answered within
    30 s."""
    result = run(lab, CONFIG)
    assert {f.kind for f in result.faults} == set(KINDS), result.faults
    assert any(f.kind == "kill" and f.target.startswith("gateway-") for f in result.faults)
    assert result.analyses_done > 0 and result.live_updates > 0 and result.web_updates > 0, result
    assert result.lost_jobs == [], (result.lost_job_lines, result.lost_job_states, result.lost_job_logs)
    assert result.checked > 0 and result.wrong == []
    assert set(result.errors) <= ALLOWED_CODES, result.error_samples
    for fault in result.faults:
        assert fault.recovery is not None and fault.recovery <= CONFIG.recovery_bound, fault
    assert result.problems() == []
