"""The gateway's hot-path Redis commands, batched: those issued in one turn of the event loop go
to Redis together in one redis-py pipeline (``redis.asyncio``, one round trip).

At 1,000 live games the gateway sends a handful of commands per evaluation (the session save, the
cache script, the deletes of read results); awaiting each on its own would cost a pool checkout,
a write and a read per command. :class:`Batcher` hands each caller a future at once (no task per
command) and sends what accumulated as one pipeline on one connection it keeps (redis-py's
``Connection``: ``pack_commands``, ``send_packed_command``, ``read_response``; replies raw, as the
server sent them); one pipeline is in flight at a time, so commands are written in the order they
were asked and a batch grows while the previous one is out. Connecting, reconnection after a
restart (redis-py's ``Retry`` of the client), timeouts, authentication and TLS are redis-py's.

On a Redis Cluster (``GRIOT_CACHE_CLUSTER``) :class:`ClusterBatcher` sends the same batches
through redis-py's cluster pipelines (``redis.asyncio.cluster``): split by node, one round trip to
each node at once, following moved slots (a failover, a reshard) as redis-py does. A node that
does not answer fails its own commands alone, and is skipped for :data:`NODE_PAUSE` seconds
(its commands fail at once, a cache miss): the others' commands never wait for it. Every command
and script the gateway batches touches the keys of one slot (:mod:`griot.redis_keys`);
:meth:`Batcher.by_slot` splits a list of keys for a script over many.

Lua scripts are redis-py :class:`~redis.commands.core.AsyncScript` objects: batched as
``EVALSHA``; a server that lost its scripts (a restart) answers ``NOSCRIPT`` and the script is run
again through the ``Script`` object, which loads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import hiredis
import redis.asyncio as aioredis
from griot.redis_url import cluster_node_url, parse_sentinel, sentinel_primary
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger("griot.gateway.redis")

BATCH_TIMEOUT = 5.0
"""Seconds a batch's replies may take before its connection is given up (and the batch tried
again on a new one)."""


NODE_PAUSE = 10.0
"""Seconds a cluster node that did not answer is skipped before a batch tries it again."""


class NodeSkipped(RedisConnectionError):
    """A cluster node did not answer a moment ago: the command was not sent (a cache miss)."""


@dataclass(slots=True)
class _Command:
    args: tuple[Any, ...]
    future: asyncio.Future[Any]
    #: The script an ``EVALSHA`` runs, with its keys and arguments (run again on ``NOSCRIPT``).
    script: tuple[AsyncScript, Sequence[Any], Sequence[Any]] | None = None


class Batcher:
    """Sends the commands of one turn of the loop in one pipeline (see the module header)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.client = client
        self._pending: list[_Command] = []
        self._soon = False  # a flush is due in this turn of the loop
        #: A command waits that must not wait any longer (sent without a delay, hurried, or its
        #: delay over): the next pipeline goes as soon as none is in flight.
        self._due = False
        self._deadline: float | None = None  # when the earliest delayed command is due
        self._later: asyncio.TimerHandle | None = None
        self._flushing: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._conn: AbstractConnection | None = None

    def send(self, *args: Any, delay: float = 0.0) -> asyncio.Future[Any]:
        """Queues one command and returns the future of its reply (a Redis error reply is its
        exception). With a ``delay`` (seconds) the command may wait that long for others to
        share its pipeline: it goes with the next command sent without one, at :meth:`hurry`, or
        when the delay is over."""
        return self._queue(_Command(args, self._get_loop().create_future()), delay)

    async def execute(self, *args: Any) -> Any:
        """One command's reply (sent with the others of this turn of the loop)."""
        return await self.send(*args)

    async def execute_many(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Commands sent together, in this order; their replies. The first error reply is raised
        once every reply is in."""
        futures = [self.send(*c) for c in commands]
        done = await asyncio.gather(*futures, return_exceptions=True)
        for r in done:
            if isinstance(r, BaseException):
                raise r
        return list(done)

    def hurry(self) -> None:
        """Sends the commands waiting out a ``delay`` as soon as it can."""
        if self._pending:
            self._due = True
            self._soon_flush()

    def script(self, source: str) -> BatchedScript:
        return BatchedScript(self, self.client.register_script(source))

    def by_slot(self, keys: list[str]) -> list[list[str]]:
        """``keys`` in groups a script may touch together: one group on one Redis."""
        return [keys]

    def _get_loop(self) -> asyncio.AbstractEventLoop:
        # asyncio.get_running_loop() costs a getpid() call on Python 3.11: looked up once.
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    def _queue(self, command: _Command, delay: float = 0.0) -> asyncio.Future[Any]:
        self._pending.append(command)
        if not delay:
            self._due = True
            self._soon_flush()
        else:
            loop = self._get_loop()
            at = loop.time() + delay
            if self._deadline is None or at < self._deadline:
                self._deadline = at
                if self._later is not None:
                    self._later.cancel()
                self._later = loop.call_at(at, self._expire)
        return command.future

    def _soon_flush(self) -> None:
        if self._flushing is None and not self._soon:
            self._soon = True
            self._get_loop().call_soon(self._flush)

    def _expire(self) -> None:
        self._later = None
        self._due = True
        self._flush()

    def _flush(self) -> None:
        self._soon = False
        if self._flushing is None and self._pending and self._due:
            self._flushing = self._get_loop().create_task(self._drain())

    async def _drain(self) -> None:
        """Sends pipelines while a command is due; the commands queued while one is in flight go
        in the next (delayed ones too: they share it)."""
        try:
            while self._pending and self._due:
                batch, self._pending = self._pending, []
                self._due = False
                self._deadline = None
                if self._later is not None:
                    self._later.cancel()
                    self._later = None
                await self._run(batch)
        except asyncio.CancelledError:  # closing: nobody will send them
            for c in self._pending:
                if not c.future.done():
                    c.future.set_exception(ConnectionError("the Redis client is closed"))
            self._pending = []
            raise
        finally:
            self._flushing = None

    async def _run(self, batch: list[_Command]) -> None:
        try:
            if self._conn is None:
                self._conn = await self.client.connection_pool.get_connection()  # type: ignore[no-untyped-call]
            conn = self._conn
            replies = await conn.retry.call_with_retry(
                lambda: self._exchange(conn, batch), lambda _: conn.disconnect()
            )
        except Exception as e:
            for c in batch:
                if not c.future.done():
                    c.future.set_exception(e)
            return
        self._settle(batch, replies)

    def _settle(self, batch: list[_Command], replies: Sequence[Any]) -> None:
        """Hands each command its reply (a script the server lost is run again)."""
        for c, reply in zip(batch, replies, strict=True):
            if isinstance(reply, NoScriptError) and c.script is not None:
                self._get_loop().create_task(self._rerun(c))
            elif c.future.done():
                continue
            elif isinstance(reply, Exception):
                c.future.set_exception(reply)
            else:
                c.future.set_result(reply)

    @staticmethod
    async def _exchange(conn: AbstractConnection, batch: list[_Command]) -> list[Any]:
        """Writes the batch's commands and reads their replies (an error reply in its place)."""
        # hiredis's packer (C) rather than redis-py's (Python); one timeout for the whole batch
        # rather than one per reply (the batcher's connections have no socket timeout).
        packed = b"".join([hiredis.pack_command(c.args) for c in batch])
        await conn.send_packed_command(packed, check_health=False)
        replies: list[Any] = []
        async with asyncio.timeout(BATCH_TIMEOUT):
            for _ in batch:
                try:
                    replies.append(await conn.read_response())
                except ResponseError as e:
                    replies.append(e)
        return replies

    async def _rerun(self, c: _Command) -> None:
        assert c.script is not None
        script, keys, args = c.script
        try:
            reply = await script(keys=keys, args=args)
        except Exception as e:
            if not c.future.done():
                c.future.set_exception(e)
            return
        if not c.future.done():
            c.future.set_result(reply)

    async def _send_queued(self) -> None:
        """Sends what is queued and waits (5 s at most) for the batch under way."""
        self._due = True
        self._flush()
        if self._flushing is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._flushing), 5.0)

    async def aclose(self) -> None:
        """Sends what is queued and gives the connection back (the client's owner closes the
        client)."""
        if self._loop is None:
            return
        await self._send_queued()
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await self.client.connection_pool.release(conn)


class ClusterBatcher(Batcher):
    """A :class:`Batcher` over a Redis Cluster: each batch goes as one redis-py cluster pipeline
    per node, all at once (replies as redis-py parses them). A node whose pipeline fails to
    reach it (a connection error, a timeout) fails its commands alone and is skipped for
    :data:`NODE_PAUSE` seconds."""

    def __init__(self, client: RedisCluster) -> None:
        super().__init__(client)  # type: ignore[arg-type]
        self.cluster = client
        self._skip_until: dict[str, float] = {}
        #: Pipelines that failed to reach each node (each started a pause), by node name.
        self.trips: dict[str, int] = {}
        self._refreshing: asyncio.Task[None] | None = None

    def _node_of(self, args: tuple[Any, ...]) -> str:
        """The name of the node serving a command's first key (``?`` when the client knows none
        yet: redis-py routes it)."""
        if args[0] in ("EVALSHA", "EVAL"):
            key = args[3] if int(args[2]) > 0 else None
        else:
            key = args[1] if len(args) > 1 else None
        if key is None:
            return "?"
        try:
            node = self.cluster.get_node_from_key(key)
        except Exception:  # no slot table yet
            return "?"
        return "?" if node is None else str(node.name)

    def by_slot(self, keys: list[str]) -> list[list[str]]:
        """``keys`` grouped by hash slot (a cluster runs a script on keys of one slot)."""
        groups: dict[int, list[str]] = {}
        for k in keys:
            groups.setdefault(self.cluster.keyslot(k), []).append(k)
        return list(groups.values())

    async def _run(self, batch: list[_Command]) -> None:
        by_node: dict[str, list[_Command]] = {}
        for c in batch:
            by_node.setdefault(self._node_of(c.args), []).append(c)
        # One turn: the pipelines hold one connection of each node between them.
        async with self._turn():
            await asyncio.gather(*(self._run_on(node, commands) for node, commands in by_node.items()))

    async def _run_on(self, node: str, batch: list[_Command]) -> None:
        loop = self._get_loop()
        left = self._skip_until.get(node, 0.0) - loop.time()
        if left > 0:
            self._fail(batch, NodeSkipped(f"cache node {node} did not answer: skipped for {left:.1f} s more"))
            return
        pipe = self.cluster.pipeline()
        for c in batch:
            pipe.execute_command(*c.args)
        try:
            replies = await asyncio.wait_for(pipe.execute(raise_on_error=False), BATCH_TIMEOUT)
        except (RedisConnectionError, RedisTimeoutError, TimeoutError, OSError) as e:
            if node != "?":
                self._skip_until[node] = loop.time() + NODE_PAUSE
                self.trips[node] = self.trips.get(node, 0) + 1
            self._refresh_slots()
            self._fail(batch, e)
            return
        except Exception as e:
            self._fail(batch, e)
            return
        self._settle(batch, replies)

    def _refresh_slots(self) -> None:
        """Has the client learn the slots again (a replica may be taking over the node's), in a
        task of its own: the batch timeout may have cut redis-py's own refresh short."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = self._get_loop().create_task(self._learn_slots())

    async def _learn_slots(self) -> None:
        try:
            await self.cluster.nodes_manager.initialize()
        except Exception as e:  # the next failure tries again
            log.warning("cannot learn the cluster's slots again: %s", e)

    @staticmethod
    def _fail(batch: list[_Command], error: Exception) -> None:
        for c in batch:
            if not c.future.done():
                c.future.set_exception(error)

    def _turn(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """One of the client's turns (:class:`WaitingRedisCluster`), if it counts them."""
        turns = getattr(self.cluster, "turns", None)
        return turns if isinstance(turns, asyncio.Semaphore) else contextlib.nullcontext()

    async def aclose(self) -> None:
        """Sends what is queued (the client's owner closes the client; a cluster pipeline holds no
        connection of its own between batches)."""
        if self._loop is None:
            return
        await self._send_queued()
        if self._refreshing is not None and not self._refreshing.done():
            self._refreshing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._refreshing


class BatchedScript:
    """A Lua script whose calls are batched as ``EVALSHA`` (see the module header)."""

    def __init__(self, batcher: Batcher, script: AsyncScript) -> None:
        self.batcher = batcher
        self.script = script

    async def __call__(self, keys: Sequence[Any] = (), args: Sequence[Any] = ()) -> Any:
        return await self.send(keys, args)

    def send(
        self, keys: Sequence[Any] = (), args: Sequence[Any] = (), then: Callable[[Any], Any] | None = None
    ) -> asyncio.Future[Any]:
        """The script's reply (passed through ``then`` if given) in a future, with no task between
        the command and its caller. Cancelling the future does not take the command back."""
        b = self.batcher
        sha = self.script.sha
        fut = b._get_loop().create_future()
        b._queue(_Command(("EVALSHA", sha, len(keys), *keys, *args), fut, (self.script, keys, args)))
        if then is None:
            return fut
        result: asyncio.Future[Any] = b._get_loop().create_future()

        def settle(f: asyncio.Future[Any]) -> None:
            if result.done():
                return
            if f.cancelled():
                result.cancel()
            elif (e := f.exception()) is not None:
                result.set_exception(e)
            else:
                try:
                    result.set_result(then(f.result()))
                except Exception as bad:
                    result.set_exception(bad)

        fut.add_done_callback(settle)
        return result


def connect(url: str, max_connections: int = 64, socket_timeout: float | None = 5.0) -> aioredis.Redis:
    """A ``redis.asyncio`` client of ``url`` (``redis://``, ``rediss://``, ``unix://``, with user
    and password as redis-py reads them) whose requests wait for one of at most
    ``max_connections`` connections (thousands of streams share them; the default pool fails with
    "Too many connections" instead). A command whose connection was lost (a Redis restart) is
    sent again on a new one, up to three times within about a second. A :class:`Batcher`'s own
    client is made with ``socket_timeout=None`` (it times each batch). A ``redis+sentinel://``
    URL (:mod:`griot.redis_url`) gives a client of the primary the Sentinels name, following a
    failover (its pool is redis-py's Sentinel pool, which does not wait for a free connection)."""
    sentinel = parse_sentinel(url)
    if sentinel is not None:
        client: aioredis.Redis = sentinel_primary(
            sentinel,
            aio=True,
            socket_timeout=socket_timeout,
            socket_connect_timeout=5,
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
        )
        return client
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=10,
        socket_timeout=socket_timeout,
        socket_connect_timeout=5,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
    )
    return aioredis.Redis.from_pool(pool)  # closing the client closes its pool


class WaitingRedisCluster(RedisCluster):
    """redis-py's asyncio cluster client whose commands wait their turn: at most
    ``max_connections`` of them (and of :class:`ClusterBatcher`'s pipelines) are out at once.
    redis-py's cluster client has no waiting pool: a command that finds its node's
    ``max_connections`` connections all busy fails (``MaxConnectionsError``) instead of
    waiting for one. A command or pipeline holds one connection of each node it reaches, so
    this bound keeps every node's pool within its limit and a burst queues here."""

    def __init__(self, max_connections: int = 64, **kwargs: Any) -> None:
        super().__init__(max_connections=max_connections, **kwargs)
        #: A turn per connection a node may have; a command holds one while it is out.
        self.turns = asyncio.Semaphore(max_connections)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        async with self.turns:
            return await super().execute_command(*args, **kwargs)


def connect_cluster(url: str, max_connections: int = 64, socket_timeout: float | None = 5.0) -> RedisCluster:
    """A ``redis.asyncio`` cluster client of the Redis Cluster that ``url`` names a node of (it
    learns the others from it): a :class:`WaitingRedisCluster`, whose commands wait for one of
    at most ``max_connections`` turns rather than fail when a node's pool is full. A command
    that meets a moved slot or a lost node is sent again where the cluster now says (redis-py's
    retries). A Sentinel URL is refused (ValueError: a cluster fails over by itself)."""
    return WaitingRedisCluster.from_url(
        cluster_node_url(url),
        max_connections=max_connections,
        socket_timeout=socket_timeout,
        socket_connect_timeout=5,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
    )


def batcher(client: aioredis.Redis | RedisCluster) -> Batcher:
    """The batcher of ``client``: :class:`ClusterBatcher` for a cluster client."""
    if isinstance(client, RedisCluster):
        return ClusterBatcher(client)
    return Batcher(client)


__all__ = [
    "BatchedScript",
    "Batcher",
    "ClusterBatcher",
    "NodeSkipped",
    "WaitingRedisCluster",
    "batcher",
    "connect",
    "connect_cluster",
]
