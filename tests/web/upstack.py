"""The web tests' real stack (the fixture ``griot_stack`` is in conftest.py), shared by the endpoint
tests and the browser tests: what `griot up` starts (python/griot/launcher.py, run in process), on
loopback ports the OS picks: a redis-server for the broker and one for the cache, the rules
service, ONE Celery search worker, the analysis gateway, and the web server (griot.services.web) in front
of the rules service and the gateway, serving the built demo board when there is one. Small on
purpose (one worker process, gateway default depth 4) so that CI stays quick. Every component's log
goes to web-stack.log under ARTIFACTS when the stack stops."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from griot.launcher import Launcher, UpConfig

ROOT = Path(__file__).resolve().parents[2]
#: Where the tests leave what people look at afterwards (logs, screenshots; CI keeps them):
#: $GRIOT_ARTIFACTS, or test-artifacts/ in the checkout (git-ignored).
ARTIFACTS = Path(os.environ.get("GRIOT_ARTIFACTS") or ROOT / "test-artifacts").resolve()
LOG = ARTIFACTS / "web-stack.log"

#: Depth of the gateway's evaluations when a request names none (the demo board names none) and of
#: its game analyses: shallow, to keep the browser tests cheap.
GATEWAY_DEFAULT_DEPTH = 4


@dataclass(frozen=True)
class GriotStack:
    """Addresses of the running stack."""

    rules: str  # host:port of the rules gRPC server
    gateway: str  # host:port of the analysis gateway (gRPC)
    web: str  # http://host:port of griot.services.web (Connect, gRPC-Web, the demo board)


@contextlib.contextmanager
def run_stack(state_dir: Path) -> Iterator[GriotStack]:
    """Starts the stack, yields its addresses, stops every process afterwards."""
    LOG.parent.mkdir(parents=True, exist_ok=True)
    config = UpConfig(
        rules_port=0,
        rules_metrics_port=0,
        gateway_port=0,
        gateway_metrics_port=0,
        web_port=0,
        worker_metrics_port=0,
        workers=1,
        cache_maxmemory="64mb",
        start_timeout=90.0,
        log_format="json",
        verbose=True,  # the whole log goes to the file
        color=False,
        state_file=state_dir / "state.json",
    )
    with LOG.open("w") as out:
        with pytest.MonkeyPatch.context() as env:
            # The components inherit the launcher's environment: a shallow gateway, small tables.
            env.setenv("GRIOT_GATEWAY_DEFAULT_DEPTH", str(GATEWAY_DEFAULT_DEPTH))
            env.setenv("GRIOT_HASH_MB", "16")
            launcher = Launcher(config, out=out)
            launcher.start()  # waits until every component is healthy; raises LaunchError if not
        try:
            names = {s.name for s in launcher.active}
            missing = {"rules", "worker", "gateway", "web"} - names
            assert not missing, f"griot up did not start {missing}: {launcher.skipped}"
            v = launcher.values
            yield GriotStack(
                rules=f"{v['host']}:{v['rules_port']}",
                gateway=f"{v['host']}:{v['gateway_port']}",
                web=f"http://{v['host']}:{v['web_port']}",
            )
        finally:
            launcher.stop()
