"""Evaluations of positions: from the cache, from a search already running (single flight), or
from a new search at the workers; results stream to every subscriber as depths complete.

- **single flight in a replica**: requests for a position already being looked up or searched
  here, as deep or deeper, subscribe to that flight instead of starting one, without a Redis
  round trip (the search's priority rises to interactive when a person joins a batch search
  still waiting);
- **cache first**: a new flight first reads the cache (one script that also claims the in-flight
  marker below when it will search); an entry at least as deep as asked (and with every move
  scored, if asked) answers at once (``from_cache``);
- **single flight across replicas**: a replica searching a position holds a marker in Redis
  (:mod:`griot.services.gateway.cache`); another replica that needs no more than that waits for the
  cache entry the first one writes (and searches itself if the marker vanishes);
- **cancellation**: a search whose last subscriber left (a client gone, a live position
  superseded) is cancelled, queued or running (:meth:`Dispatcher.cancel`);
- **shape of the work**: one ``griot.search_position`` task per position, or for interactive
  evaluations at least ``distributed_depth`` deep (without a node limit, and not asking for every
  move's score, which the distributed search does not prove), a distributed
  search over the cluster (:class:`griot.tasks.distributed.ClusterSearch`), whose subtree tasks
  go through the dispatcher as the caller's interactive searches. Either way an interactive
  search streams its completed depths: the task reports them in Redis as they come (depths done
  within 50 ms of the last report are folded into the next; a search that short sends only its
  final result), the cluster search after each depth.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import griot
import grpc
from griot import egdb
from griot.priority import Priority
from griot.services.gateway.cache import EvalCache, EvalResult, Lookup, cacheable, flight_key
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.dispatch import BATCH, INTERACTIVE, Dispatcher, DispatcherRunner, Search
from griot.services.gateway.metrics import GatewayMetrics
from griot.status import StatusError
from griot.tasks.args import SEARCH_POSITION, position_args
from griot.tasks.distributed import ClusterSearch, cluster_workers
from griot.tasks.errors import BadTaskArguments

log = logging.getLogger("griot.gateway.evaluator")

FLIGHT_TTL_MS = 10_000


def _shared(pos: griot.Position, want: Want, depth: int) -> bool:
    """Whether a search's result goes through the shared cache: not near the turn limit, and
    not searched with a game's history (its result holds in that game only)."""
    return not want.history and cacheable(pos, depth)


def _history_key(history: tuple[str, ...]) -> bytes:
    """Apart from the position's key, what a flight's key holds of its history."""
    return hashlib.blake2b("\n".join(history).encode(), digest_size=16).digest() if history else b""


FOLLOW_POLL = 0.02


#: The table of a search that asks for one of its own (``griot.search``'s default size: the value
#: is the in-process search's).
OWN_TABLE_MB = 16


@dataclass(frozen=True)
class Want:
    """What a request asks: a depth (always set; time- or node-limited requests set a cap), an
    optional time limit, whether every move must be scored, how urgent, whose, until when, and
    an optional node limit."""

    depth: int
    time: float | None
    all_moves: bool
    priority: Priority
    client: str
    deadline: float | None
    nodes: int | None = None
    #: The game's earlier positions (Griot notation, oldest first): the search scores their
    #: repetition as the game's end, so its result is the position's in this game only.
    history: tuple[str, ...] = ()
    #: Searched in a table of its own (:data:`OWN_TABLE_MB`), as ``griot.search`` in process: no
    #: shared or kept table, so the value depends on nothing else that ran (a game analysis'
    #: turns, whose report must not change with what was in flight when a replica died).
    own_table: bool = False

    @property
    def budgeted(self) -> bool:
        """Whether a time or node budget, not only the depth, decides where the search stops."""
        return self.time is not None or self.nodes is not None


@dataclass(eq=False)
class _Flight:
    pos: griot.Position
    want: Want
    subscribers: list[Watch] = field(default_factory=list)
    last: EvalResult | None = None
    search: Search | None = None
    task: asyncio.Task[None] | None = None
    done: bool = False
    #: The final result or an error went out: nobody new may subscribe.
    closed: bool = False
    #: This replica holds the position's in-flight marker for this flight.
    claimed: bool = False
    #: The cache lookup (or the decision to skip it) is over.
    looked_up: bool = False
    #: Set when ``looked_up`` becomes true, made only for a subscriber that waits for it.
    lookup_waiter: asyncio.Future[None] | None = None

    def lookup_over(self) -> None:
        self.looked_up = True
        w = self.lookup_waiter
        if w is not None and not w.done():
            w.set_result(None)

    def serves(self, want: Want) -> bool:
        w = self.want
        if self.done or self.closed or (want.all_moves and not w.all_moves):
            return False
        if w.budgeted or want.budgeted:
            return w.time == want.time and w.nodes == want.nodes and w.depth >= want.depth
        return w.depth >= want.depth


_END = object()
#: What a watch's ``deliver`` gets when its evaluation was cancelled (no result follows).
END = _END


class Watch:
    """One subscriber of a flight (:meth:`Evaluator.watch`)."""

    __slots__ = ("deliver", "flight", "over")

    def __init__(self, flight: _Flight, deliver: Callable[[Any], None]) -> None:
        self.flight = flight
        self.deliver = deliver
        self.over = False  # the last item went out, or the watch was closed

    def send(self, item: Any) -> None:
        if self.over:
            return
        if item is _END or isinstance(item, BaseException) or item[1]:
            self.close()
        self.deliver(item)

    def lookup(self) -> asyncio.Future[None] | None:
        """A future done once the flight's cache lookup is over (a cached answer has then been
        delivered), or None if it is over already."""
        flight = self.flight
        if flight.looked_up or self.over:
            return None
        if flight.lookup_waiter is None:
            flight.lookup_waiter = asyncio.get_running_loop().create_future()
        return flight.lookup_waiter

    def close(self) -> None:
        """Leaves the flight; its search is cancelled if nobody else waits for it."""
        if self.over:
            return
        self.over = True
        flight = self.flight
        with contextlib.suppress(ValueError):
            flight.subscribers.remove(self)
        if not flight.subscribers and not flight.done and not flight.closed and flight.task is not None:
            flight.task.cancel()


class Evaluator:
    """See the module header. One per gateway process."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        cache: EvalCache,
        config: GatewayConfig,
        metrics: GatewayMetrics,
        replica: str,
        databases: egdb.Databases | None = None,
    ) -> None:
        #: The endgame databases this gateway scores with, besides the workers' results: what a
        #: worker without them or the distributed search leaves out (:meth:`EvalResult.with_databases`).
        self.databases = databases
        self.dispatcher = dispatcher
        self.cache = cache
        self.config = config
        self.metrics = metrics
        self.replica = replica
        self.flights: dict[tuple[str, bytes], list[_Flight]] = {}
        #: In-flight markers this replica holds (key -> flights holding it), refreshed together.
        self.claims: dict[str, int] = {}
        self._refresher: asyncio.Task[None] | None = None
        self.workers = WorkerMap(dispatcher, config.interactive_queue)
        self._orphans: set[asyncio.Task[None]] = set()  # releases of cancelled lookups' claims
        # The counters of every request, their label looked up once.
        self._hit = metrics.cache.labels("hit")
        self._miss = metrics.cache.labels("miss")
        self._dedup_local = metrics.dedup.labels("local")

    def _need(self, want: Want) -> int:
        """The depth a cache entry must reach to answer ``want`` (a budgeted request takes the
        default depth's entry)."""
        return min(want.depth, self.config.default_depth) if want.budgeted else want.depth

    async def evaluate(self, pos: griot.Position, want: Want) -> AsyncIterator[tuple[EvalResult, bool]]:
        """Yields ``(result, final)`` per completed depth; the last has ``final`` set."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        watch = self.watch(pos, want, queue.put_nowait)
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
                if item[1]:
                    return
        finally:
            watch.close()

    def watch(self, pos: griot.Position, want: Want, deliver: Callable[[Any], None]) -> Watch:
        """Calls ``deliver`` with each ``(result, final)`` of the evaluation as it comes (the
        last has ``final`` set), or with an exception, or with :data:`END` if the evaluation was
        cancelled; nothing after that one. The same as :meth:`evaluate` without a queue and a
        task between the flight and its subscriber: a live session builds its message in
        ``deliver``. ``close()`` the watch when it is no longer wanted (its search is cancelled
        if nobody else waits for it)."""
        key = (pos.variant.canonical, pos.key + _history_key(want.history))
        flight = None
        for f in self.flights.get(key, ()):
            if f.serves(want):
                flight = f
                break
        if flight is not None:
            self._miss.inc()
            self.metrics.count("cache_misses")
            self._dedup_local.inc()
            self.metrics.count("dedup_local")
            if flight.search is not None:
                if want.priority == INTERACTIVE:
                    self.dispatcher.promote(flight.search)
                # A search still waiting here takes the latest deadline of its subscribers (one
                # already sent keeps its own: the joiner may then see DEADLINE_EXCEEDED early).
                if flight.search.task_id is None and flight.search.deadline is not None:
                    flight.search.deadline = (
                        None if want.deadline is None else max(want.deadline, flight.search.deadline)
                    )
        else:
            # The flight reads the cache itself: requests arriving meanwhile join it, not Redis.
            flight = _Flight(pos, want)
            self.flights.setdefault(key, []).append(flight)
            flight.task = asyncio.get_running_loop().create_task(self._run(key, flight))
        w = Watch(flight, deliver)
        flight.subscribers.append(w)
        if flight.last is not None:
            w.send((flight.last, False))
        return w

    # -- internals -------------------------------------------------------------------------------

    async def _lookup(self, flight: _Flight) -> Lookup | None:
        """The flight's cache entry and, if it will search and may claim, the in-flight marker
        claimed (or another replica's search found): one round trip. None when the position is
        not cached (near the turn limit) or Redis failed (a miss). A cancelled caller does not
        cut the command (its connection stays usable); a marker it claimed is released."""
        pos, want = flight.pos, flight.want
        if not _shared(pos, want, want.depth):
            return None
        claim = not want.budgeted
        args = (pos, self._need(want), want.all_moves, self.replica, FLIGHT_TTL_MS, claim)
        # Queued at once, no task for it.
        job = self.cache.lookup_soon(*args)
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            job.add_done_callback(self._release_orphan(pos))
            raise
        except Exception as e:
            log.warning("cache read failed: %s", e)
            return None

    def _release_orphan(self, pos: griot.Position) -> Callable[[asyncio.Future[Lookup]], None]:
        def done(job: asyncio.Future[Lookup]) -> None:
            if not job.cancelled() and job.exception() is None and job.result().claimed:
                task = asyncio.get_running_loop().create_task(self._release(pos))
                self._orphans.add(task)
                task.add_done_callback(self._orphans.discard)

        return done

    async def _release(self, pos: griot.Position) -> None:
        with contextlib.suppress(Exception):
            await self.cache.release(pos, self.replica)

    async def _follow_remote(self, flight: _Flight, other: tuple[int, bool] | None) -> EvalResult | None:
        """Waits for another replica's search of the position when it covers the request."""
        pos, want = flight.pos, flight.want
        if want.budgeted or not _shared(pos, want, want.depth):
            return None
        try:
            if other is None or other[0] < want.depth or (want.all_moves and not other[1]):
                return None
            self.metrics.dedup.labels("remote").inc()
            self.metrics.count("dedup_remote")
            while want.deadline is None or time.time() < want.deadline:
                await asyncio.sleep(FOLLOW_POLL)
                entry, running = await self.cache.watch(pos)
                if entry is not None and entry.answers(want.depth, want.all_moves):
                    return entry
                if not running:
                    return None
        except Exception as e:
            log.warning("following another replica's search failed: %s", e)
        return None

    def _hold(self, flight: _Flight) -> None:
        """Notes that ``flight`` holds its position's marker: refreshed until released."""
        flight.claimed = True
        key = flight_key(flight.pos)
        self.claims[key] = self.claims.get(key, 0) + 1
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.get_running_loop().create_task(self._refresh())

    def _unhold(self, flight: _Flight) -> None:
        if not flight.claimed:
            return
        flight.claimed = False
        key = flight_key(flight.pos)
        n = self.claims.get(key, 0) - 1
        if n > 0:
            self.claims[key] = n
        else:
            self.claims.pop(key, None)

    async def _run(self, key: tuple[str, bytes], flight: _Flight) -> None:
        pos, want = flight.pos, flight.want
        try:
            lookup = await self._lookup(flight)
            entry = lookup.entry if lookup is not None else None
            if entry is not None and entry.answers(self._need(want), want.all_moves):
                self._hit.inc()
                self.metrics.count("cache_hits")
                flight.last = entry
                self._publish(flight, (entry, True))
                return  # the lookup is over (finally, below)
            flight.lookup_over()  # before the search: an acknowledgement waiting on it goes now
            self._miss.inc()
            self.metrics.count("cache_misses")
            if lookup is not None and lookup.claimed:
                self._hold(flight)
            if (
                want.all_moves
                and not want.budgeted
                and entry is not None
                and not entry.all
                and entry.depth > want.depth
                and _shared(pos, want, entry.depth)
            ):
                # The cache keeps one entry a position, deeper wins, and at equal depth an entry
                # with every move scored wins: an all-moves request behind a deeper best-move-only
                # entry would be refused by that rule and miss every time. Searched to the entry's
                # depth, its result replaces the entry and answers both kinds from then on.
                want = flight.want = replace(want, depth=entry.depth)
            if not flight.claimed:
                other = lookup.other if lookup is not None else None
                followed = await self._follow_remote(flight, other)
                if followed is not None:
                    flight.last = followed
                    self._publish(flight, (followed, True))
                    return
                if other is None and not want.budgeted and _shared(pos, want, want.depth):
                    # Nobody's marker, none claimed by the lookup (it failed, or this every-move
                    # search goes deeper than asked): claim now.
                    try:
                        if await self.cache.claim(
                            pos, want.depth, want.all_moves, self.replica, FLIGHT_TTL_MS
                        ):
                            self._hold(flight)
                    except Exception as e:
                        log.warning("cannot set the in-flight marker: %s", e)
            # The distributed search proves the best move's value and bounds the others': an
            # evaluation that asks for every move's exact score is one multi-PV task.
            distributed = (
                want.depth >= self.config.distributed_depth and want.nodes is None and not want.all_moves
            )
            # Either stores and publishes its final result itself.
            if distributed and want.priority == INTERACTIVE:
                await self._distributed(flight)
            else:
                await self._single(flight)
        except asyncio.CancelledError:
            self._publish(flight, _END)
        except BaseException as e:
            self._publish(flight, e if isinstance(e, StatusError | griot.GriotError) else _wrap(e))
        finally:
            flight.lookup_over()
            flight.done = True
            flights = self.flights.get(key, [])
            with contextlib.suppress(ValueError):
                flights.remove(flight)
            if not flights:
                self.flights.pop(key, None)
            if flight.claimed:
                self._unhold(flight)
                with contextlib.suppress(Exception):
                    await self.cache.release(pos, self.replica)

    async def _store(self, flight: _Flight, result: EvalResult) -> None:
        """Caches a final result (before anyone hears of it: a client that asks again at once
        finds it) and releases the flight's marker in the same round trip. A Redis error costs
        only the cache entry."""
        pos = flight.pos
        if result.depth <= 0 or not _shared(pos, flight.want, result.depth):
            return
        self._exact(flight, result)
        release = self.replica if flight.claimed else None
        try:
            await self.cache.put(pos, result, release=release)
        except Exception as e:
            log.warning("cache write failed: %s", e)
            return
        if release is not None:
            self._unhold(flight)

    async def _refresh(self) -> None:
        """Extends every marker this replica holds, one command a tick, while it holds any."""
        while self.claims:
            await asyncio.sleep(FLIGHT_TTL_MS / 3000)
            if self.claims:
                with contextlib.suppress(Exception):
                    await self.cache.refresh(list(self.claims), FLIGHT_TTL_MS)

    def _exact(self, flight: _Flight, result: EvalResult) -> None:
        # With a history the game may end by repetition, which the databases' values do not see;
        # a finished game's result is the rules' own.
        if flight.want.history or result.depth == 0:
            return
        if self.databases is not None and result.exact is None:
            result.with_databases(flight.pos, self.databases.get(flight.pos.variant.canonical))

    def _publish(self, flight: _Flight, item: Any) -> None:
        if isinstance(item, tuple) and isinstance(item[0], EvalResult):
            self._exact(flight, item[0])
        if item is _END or isinstance(item, BaseException) or item[1]:
            flight.closed = True
        for w in list(flight.subscribers):
            w.send(item)

    async def _single(self, flight: _Flight) -> None:
        pos, want = flight.pos, flight.want
        streamed = want.priority == INTERACTIVE
        try:
            kwargs = position_args(
                pos.variant.canonical,
                str(pos),
                depth=want.depth,
                multipv=0 if want.all_moves else 1,
                time_limit=want.time,
                nodes=want.nodes,
                progress=streamed or None,
                history=list(want.history) or None,
                table_mb=OWN_TABLE_MB if want.own_table else None,
            )
        except BadTaskArguments as e:  # the status the task's own refusal would have had
            raise StatusError(grpc.StatusCode.INVALID_ARGUMENT, "bad_request", str(e)) from None
        flight.search = self.dispatcher.submit(
            SEARCH_POSITION, kwargs, want.priority, want.client, want.deadline
        )
        if streamed:
            flight.search.on_progress = lambda entry: self._progressed(flight, entry)
        r = await self.dispatcher.wait(flight.search)
        result = EvalResult.from_task(r, want.all_moves)
        flight.last = result
        await self._store(flight, result)
        self._publish(flight, (result, True))

    def _progressed(self, flight: _Flight, entry: dict[str, Any]) -> None:
        """A depth the task completed (from its progress key): streamed, not cached (the final
        result is)."""
        try:
            result = EvalResult.from_task(entry, flight.want.all_moves)
        except (KeyError, TypeError, ValueError):
            return
        if result.depth >= flight.want.depth or flight.closed:
            return  # the task's own result carries the last depth, marked final
        flight.last = result
        self._publish(flight, (result, False))

    async def _distributed(self, flight: _Flight) -> None:
        pos, want = flight.pos, flight.want
        # The subtree tasks are the caller's interactive searches at the dispatcher: its quota,
        # its priority, the gateway's bounds and window.
        runner = DispatcherRunner(self.dispatcher, want.client, INTERACTIVE)
        # Routed (``distributed_routing``), subtrees go back to the worker whose table holds
        # their last depth, and no more tasks than the workers have processes are out at once:
        # otherwise a subtree lands on any worker, with a cold table, and queued tasks wait with
        # windows a finished sibling would have narrowed. Off by default: under live games a
        # routed task waits on its busy worker's own queue, is suspected after 3 s, and the
        # ping's thread holds the event loop for tens of milliseconds.
        workers = await self.workers.get() if self.config.distributed_routing else None
        capacity = min(runner.capacity, sum(workers.values())) if workers else runner.capacity
        search = ClusterSearch(
            runner,
            queue=self.config.interactive_queue,
            capacity=capacity,
            workers=workers,
            split=self.config.distributed_split,
            direct_depth=min(8, want.depth),
            min_task_depth=4,
            # The first task searches on while a depth is foreseen to fit this time: the split
            # iterations start where a depth is worth its tasks' fixed cost.
            direct_seconds=self.config.distributed_direct_seconds or None,
        )
        time_limit = want.time
        if want.deadline is not None:
            left = want.deadline - time.time()
            time_limit = left if time_limit is None else min(time_limit, left)
        last: EvalResult | None = None
        try:
            async for r in self._iterate(search, pos, want.depth, time_limit, flight):
                last = r
        except asyncio.CancelledError:
            # The dispatcher revokes the search's subtree tasks (and counts them) as it closes.
            raise
        if last is None:
            raise StatusError(
                grpc.StatusCode.DEADLINE_EXCEEDED, "deadline", "no depth completed before the deadline"
            )
        if last.depth < want.depth:
            await self._store(flight, last)
            self._publish(flight, (last, True))

    async def _iterate(
        self, search: Any, pos: griot.Position, depth: int, time_limit: float | None, flight: _Flight
    ) -> AsyncIterator[EvalResult]:
        want = flight.want
        async for r in search.iterate(pos, depth, time_limit=time_limit, history=want.history):
            last = EvalResult(
                depth=r.depth,
                value=r.value,
                best=r.best_move,
                pv=list(r.pv),
                moves=[[m.move, m.value, m.bound] for m in r.moves],
                all=0,
                nodes=r.nodes,
                time=r.elapsed,
            )
            flight.last = last
            if r.depth >= want.depth:
                await self._store(flight, last)
            self._publish(flight, (last, r.depth >= want.depth))
            yield last


def _wrap(e: BaseException) -> StatusError:
    log.error("search failed", exc_info=e)
    return StatusError(
        grpc.StatusCode.UNAVAILABLE, "search_failed", f"the search failed: {type(e).__name__}: {e}"
    )


__all__ = ["BATCH", "END", "INTERACTIVE", "Evaluator", "Want", "Watch"]


class WorkerMap:
    """The worker nodes serving the interactive queue and their pool sizes, as the distributed
    search routes subtrees by them (:func:`griot.tasks.distributed.cluster_workers`): asked with a
    broadcast when the gateway starts and then at most every :attr:`REFRESH` seconds, in a thread
    (it blocks), and shared by every search of the replica. A search starts with the last answer;
    one before any answer waits for it. An empty answer (no worker replied in time) leaves the
    search unrouted. The broadcast's thread takes the interpreter's lock from the event loop for
    a few milliseconds, hence once a minute, not per search."""

    REFRESH = 60.0
    TIMEOUT = 1.0

    def __init__(self, dispatcher: Dispatcher, queue: str) -> None:
        self.dispatcher = dispatcher
        self.queue = queue
        self.known: dict[str, int] = {}
        self.asked_at: float | None = None
        self._asking: asyncio.Task[None] | None = None

    async def get(self) -> dict[str, int] | None:
        """The usable workers (known and not lost), asking them first when the answer is older
        than :attr:`REFRESH`; the gateway calls it once at its start."""
        now = time.monotonic()
        if self._asking is None and (self.asked_at is None or now - self.asked_at >= self.REFRESH):
            self.asked_at = now
            self._asking = asyncio.create_task(self._ask())
        if self.known or self._asking is None:
            return self._usable()
        with contextlib.suppress(Exception):
            await asyncio.shield(self._asking)
        return self._usable()

    def _usable(self) -> dict[str, int] | None:
        lost = self.dispatcher.tasks.lost_workers
        workers = {w: n for w, n in self.known.items() if w not in lost and n > 0}
        return workers or None

    async def _ask(self) -> None:
        try:
            found = await asyncio.to_thread(cluster_workers, self.dispatcher.app, self.queue, self.TIMEOUT)
        except Exception as e:  # a broker outage: keep the last answer, ask again later
            log.warning("could not list the workers: %s", e)
        else:
            self.known = found
            self.dispatcher.tasks.workers_seen(found)
        finally:
            self._asking = None
