"""The gateway assembled: Celery app, Redis clients, dispatcher, evaluator, jobs, servicer, the
API-key interceptor and TLS, as a :class:`griot.services.common.server.ServiceSpec`."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import socket
import uuid
from collections.abc import Awaitable
from typing import Any, Protocol

import grpc
from griot import egdb
from griot.services.common.loopstall import LoopStallMonitor
from griot.services.common.rpc import RpcMetrics
from griot.services.common.server import ServiceSpec
from griot.services.gateway.auth import ApiKeyInterceptor, Guard, KeyStore
from griot.services.gateway.batch import BATCH_TIMEOUT, batcher, connect, connect_cluster
from griot.services.gateway.cache import EvalCache
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.dispatch import Dispatcher
from griot.services.gateway.evaluator import Evaluator
from griot.services.gateway.jobs import Jobs
from griot.services.gateway.metrics import DATABASES_EVERY, DATABASES_PREFIX, GatewayMetrics
from griot.services.gateway.servicer import SERVICE_NAME, servicer_class
from griot.tasks.app import client_app
from griot.tasks.client import backend_url
from griot.v1 import analysis_pb2_grpc

log = logging.getLogger("griot.gateway")


class _Closable(Protocol):
    def aclose(self) -> Awaitable[None]: ...


class Gateway:
    """Everything one gateway process runs; :meth:`spec` serves it."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.replica = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.keys = KeyStore(config)
        self.guard = Guard(self.keys)
        self.metrics: GatewayMetrics | None = None
        self.loop_monitor: LoopStallMonitor | None = None
        self._background: list[asyncio.Task[Any]] = []

    def _celery(self) -> Any:
        return client_app(self.config.broker_url, self.config.result_url)

    def _cache_client(self, max_connections: int = 64, socket_timeout: float | None = 5.0) -> Any:
        """A client of the cache Redis, or of the Redis Cluster it names (``--cache-cluster``)."""
        if self.config.cache_cluster:
            # The batcher times each batch itself; the others keep their socket timeout.
            return connect_cluster(
                self.config.cache_url,
                max_connections=max_connections,
                socket_timeout=socket_timeout or BATCH_TIMEOUT,
            )
        return connect(self.config.cache_url, max_connections=max_connections, socket_timeout=socket_timeout)

    def add_servicers(self, server: grpc.aio.Server, rpc_metrics: RpcMetrics) -> None:
        self.metrics = GatewayMetrics(rpc_metrics.registry)
        if self.config.loop_stall_report > 0:
            self.loop_monitor = LoopStallMonitor(self.config.loop_stall_report, rpc_metrics.registry)
        self.celery = self._celery()
        self.cache_redis = self._cache_client()
        self.result_redis = connect(backend_url(self.celery))
        # The hot paths' commands (cache scripts, session saves, result reads and deletes) are
        # batched, one pipeline per turn of the event loop; jobs, session reads and metrics await
        # their own commands.
        self.cache_batch_redis = self._cache_client(max_connections=2, socket_timeout=None)
        self.cache_batch = batcher(self.cache_batch_redis)
        self.dispatcher = Dispatcher(self.celery, self.config, self.metrics, self.result_redis)
        self.cache = EvalCache(self.cache_batch, self.config.eval_ttl)
        self.databases = egdb.Databases()
        self.evaluator = Evaluator(
            self.dispatcher, self.cache, self.config, self.metrics, self.replica, self.databases
        )
        self.jobs = Jobs(self.cache_redis, self.evaluator, self.config, self.metrics, self.replica)
        servicer = servicer_class(rpc_metrics)(
            self.evaluator,
            self.jobs,
            self.cache_redis,
            self.cache_batch,
            self.guard,
            self.config,
            self.metrics,
        )
        analysis_pb2_grpc.add_AnalysisServiceServicer_to_server(servicer, server)

    async def on_start(self) -> None:
        assert self.metrics is not None
        # The modules and objects of startup (Celery, gRPC, protobuf: most of the heap) live as
        # long as the process: kept out of every garbage collection from now on, and young
        # objects collected seventy times less often than by default (each request makes
        # thousands; nearly all are freed by reference counting before any collection). At 1,000
        # live games a collection of the young generation took ~10 ms: at 7,000 objects, 4 % of
        # the gateway's CPU, at 50,000 under 1.5 %.
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 10)
        if self.loop_monitor is not None:
            self.loop_monitor.start()
        self.dispatcher.start()
        self.jobs.start()
        loop = asyncio.get_running_loop()
        self._background.append(loop.create_task(self.metrics.flush_forever(self.cache_redis)))
        if self.config.distributed_routing:
            # The workers' broadcast once before the first distributed search needs it.
            self._background.append(loop.create_task(self.evaluator.workers.get()))
        # Every rule set's levels are opened (and their files checked) once, before the first
        # evaluation needs them.
        loaded = await asyncio.to_thread(self.databases.load_all)
        self._background.append(loop.create_task(self._report_databases()))
        log.info(
            "gateway ready",
            extra={
                "replica": self.replica,
                "auth": self.keys.enabled,
                "queues": [self.config.interactive_queue, self.config.batch_queue],
                "window": self.config.window,
                "databases": loaded,
            },
        )

    async def _report_databases(self) -> None:
        """Keeps :data:`~griot.services.gateway.metrics.DATABASES_PREFIX` of this replica current
        for ``griot status`` (best effort)."""
        key = DATABASES_PREFIX + self.replica
        while True:
            entry = {"dir": str(self.databases.directory), "databases": self.databases.loaded()}
            try:
                await self.cache_redis.set(key, json.dumps(entry), ex=int(3 * DATABASES_EVERY))
            except Exception as e:  # Redis down: reported again on the next round
                log.debug("databases report failed: %s", e)
            await asyncio.sleep(DATABASES_EVERY)

    async def on_stop(self) -> None:
        for t in self._background:
            t.cancel()
        if self.loop_monitor is not None:
            self.loop_monitor.stop()
        await self.jobs.close()
        await self.dispatcher.close()
        if self.metrics is not None:
            with contextlib.suppress(Exception):
                await self.metrics.flush(self.cache_redis)
        # Jobs this replica ran are resumed by the next sweep of any replica (their leases expire).
        with contextlib.suppress(Exception):
            await self.cache_batch.aclose()
        for client in (self.cache_redis, self.cache_batch_redis, self.result_redis):
            with contextlib.suppress(Exception):
                await client.aclose()

    def credentials(self) -> grpc.ServerCredentials | None:
        if not self.config.tls_cert:
            return None
        assert self.config.tls_key
        with open(self.config.tls_key, "rb") as k, open(self.config.tls_cert, "rb") as c:
            return grpc.ssl_server_credentials([(k.read(), c.read())])

    def spec(self) -> ServiceSpec:
        return ServiceSpec(
            name="gateway",
            service_names=[SERVICE_NAME],
            add_servicers=self.add_servicers,
            env_prefix="GRIOT_GATEWAY",
            interceptors=[ApiKeyInterceptor(self.keys)],
            credentials=self.credentials(),
            on_start=self.on_start,
            on_stop=self.on_stop,
        )


def service_spec(config: GatewayConfig | None = None) -> ServiceSpec:
    """The gateway as :func:`griot.services.common.server.run` serves it."""
    return Gateway(config or GatewayConfig()).spec()
