"""``griot worker``: one more search worker joins a running system, found the way ``griot status``
finds it (its state file) or named by its broker's and cache's URLs.

The worker runs the launcher's own command line for its workers (the ``worker`` component), with
the environment the launcher gives them, less what only the launcher reads (JSON logs for its
console, the metrics port it hands out).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from griot.launch.components import SERVER_EXTRA, JoinConfig, LaunchError, spec
from griot.launch.processes import module_available


def join_worker(
    config: JoinConfig, state: dict[str, Any] | None, state_file: Path
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of a worker joining the system ``state`` describes
    (None: none runs), or the one ``config``'s URLs name; a :class:`LaunchError` when neither
    says where the system is."""
    from griot.egdb import default_dir as egdb_default_dir
    from griot.redis_keys import queues as default_queues

    state = state or {}
    broker_url = config.broker_url or state.get("broker_url")
    cache_url = config.cache_url or state.get("cache_url")
    if not broker_url:
        which = f"griot up --name {config.name}" if config.name else "griot up"
        raise LaunchError(
            f"no {which} runs here (no state in {state_file}) and no broker named: start `{which}`, "
            "or give --broker-url and --cache-url (GRIOT_BROKER_URL, GRIOT_CACHE_URL)"
        )
    if not module_available("celery"):
        raise LaunchError(f"a worker needs Celery: pip install '{SERVER_EXTRA}'")
    queues = ",".join(state.get("queues") or default_queues())
    concurrency = config.concurrency or os.cpu_count() or 1
    values = {
        "python": sys.executable,
        # A name of its own beside the launcher's worker0, worker1 ... (the pid stays: exec).
        "index": f"-joined{os.getpid()}",
        "worker_concurrency": concurrency,
        "queues": queues,
    }
    argv = [a.format_map(values) for a in spec("worker").argv]
    env = dict(os.environ)
    env.update(
        {
            "GRIOT_BROKER_URL": broker_url,
            "GRIOT_QUEUES": queues,
            "GRIOT_WORKER_CONCURRENCY": str(concurrency),
            "GRIOT_EGDB_DIR": str(egdb_default_dir()),
            "PYTHONUNBUFFERED": "1",
        }
    )
    if cache_url:
        env["GRIOT_CACHE_URL"] = cache_url
    return argv, env
