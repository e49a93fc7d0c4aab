"""``griot up``'s names in one place, for the CLI, ``griot status``, the test stacks and the benches.

The launcher itself is :mod:`griot.launch`: the table of components, Redis discovery, the
component processes and the supervision that starts, restarts and stops them.
"""

from __future__ import annotations

from griot.launch.components import (
    ANALYSIS_SERVICE,
    COMMON_ENV,
    COMPONENTS,
    PORT_KEYS,
    RULES_SERVICE,
    SERVER_EXTRA,
    WEB_APP_DIST,
    ComponentSpec,
    Health,
    JoinConfig,
    LaunchError,
    SystemNameError,
    UpConfig,
    default_state_file,
    iter_specs,
    parse_name,
    spec,
)
from griot.launch.join import join_worker
from griot.launch.processes import (
    Process,
    _ephemeral_range,
    celery_worker_argv,
    free_port,
    grpc_health,
    http_ok,
    module_available,
    with_parent_death,
)
from griot.launch.redis_discovery import find_redis_server, mask_url, redis_argv, redis_db_url, redis_ping
from griot.launch.supervisor import Backoff, Launcher, read_state, render_line

__all__ = [
    "ANALYSIS_SERVICE",
    "COMMON_ENV",
    "COMPONENTS",
    "PORT_KEYS",
    "RULES_SERVICE",
    "SERVER_EXTRA",
    "WEB_APP_DIST",
    "Backoff",
    "ComponentSpec",
    "Health",
    "JoinConfig",
    "LaunchError",
    "Launcher",
    "Process",
    "SystemNameError",
    "UpConfig",
    "_ephemeral_range",
    "celery_worker_argv",
    "default_state_file",
    "find_redis_server",
    "free_port",
    "grpc_health",
    "http_ok",
    "iter_specs",
    "join_worker",
    "mask_url",
    "module_available",
    "parse_name",
    "read_state",
    "redis_argv",
    "redis_db_url",
    "redis_ping",
    "render_line",
    "spec",
    "with_parent_death",
]
