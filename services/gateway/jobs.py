"""Whole-game analyses as jobs in Redis: any replica streams them, a restarted gateway resumes them.

``griot:{jobs}:job:<id>`` (a hash, :data:`griot.redis_keys.JOB_PREFIX`):

- ``spec``: the game and the limits (JSON), ``total``: positions to analyse, ``state``:
  ``running`` / ``done`` / ``failed`` (``error`` then says why), ``owner``: the client;
- ``turn:<i>``: the finished :class:`~griot.v1.analysis_pb2.TurnAnalysis` of turn ``i`` (bytes);
- ``report``: the final :class:`~griot.v1.analysis_pb2.GameReport` (bytes).

``griot:{jobs}:job:<id>:lease`` (SET NX PX, refreshed every 2 s) names the replica running the job;
``griot:{jobs}:active`` (a sorted set) lists unfinished jobs. Every replica sweeps that set every few
seconds and at start: a job whose lease expired (its replica died) is taken over and finishes
(turns already stored are not searched again, and every searched position is in the evaluation
cache anyway). A client's stream only reads the hash, so it may reconnect to any replica with the
``job_id``.

A cache Redis that cannot be reached, or comes back empty (restarted without persistence, as
``griot up`` runs it), loses no job: every replica holds in memory the hash of each job it made,
runs or streamed to a client, and the fields it was made with (not its turns) of every job its
sweep saw in the active set, so that a job whose replica died just before the server did is
still held somewhere; each until :data:`FINISHED_KEEP` seconds after it no longer runs here or
was last seen active. A replica waits for the server (:data:`OUTAGE_GRACE` seconds at most) and
writes a hash it holds again when it finds it gone: at once for a job it is asked about, and at
every sweep for the others (the fields of an unfinished job only where no replica wrote them
first, so that a finished job is not made unfinished again). A replica asked about a job it
does not hold cannot tell a lost job from one that never was, so a job id starts with the token
of the Redis's life it was made in (``griot:{jobs}:epoch``, :data:`griot.redis_keys.JOBS_EPOCH`,
set by the first replica to find it missing): a job of an earlier life whose hash is missing is
waited for, :data:`RESTORE_WAIT` seconds from the start of the current life at most, as its
holder writes it again; a job of the current life, or an id of no life, is unknown at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

import griot
import grpc
from griot import redis_keys, scores
from griot.priority import Priority
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.evaluator import BATCH, Evaluator, Want
from griot.services.gateway.metrics import GatewayMetrics
from griot.status import StatusError
from griot.v1 import analysis_pb2
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger("griot.gateway.jobs")

ACTIVE = redis_keys.ACTIVE_JOBS
LEASE_MS = 6000
POLL = 0.1
OUTAGE_GRACE = 60.0
"""Seconds a running job waits for its cache Redis to answer again."""
RETRY_EVERY = 0.25
#: The reasons of a turn's failure that pause a job rather than fail it (they pass).
PAUSING = frozenset({"broker_unavailable", "workers_unavailable"})
FINISHED_KEEP = 120.0
"""Seconds a replica keeps a job it no longer runs (finished, paused or taken over), to write it
again if a restarted cache Redis lost it before its client read the report."""
RESTORE_WAIT = OUTAGE_GRACE
"""Seconds from the start of a cache Redis's life during which a job of an earlier life whose hash
is missing is waited for: its holder may still be waiting for the server itself."""
RESTORE_POLL = 0.25
EPOCH = redis_keys.JOBS_EPOCH
#: Hex digits of a life's token, the start of every job id made in it.
TOKEN_LEN = 8

#: What a Redis server that is down or restarting raises.
REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, OSError)
#: The retry hint of an analysis refused or ended by an unreachable cache Redis.
CACHE_RETRY_AFTER = 2.0

T = TypeVar("T")


@dataclass
class JobSpec:
    variant: str
    start: str
    moves: list[str]
    depth: int
    time: float | None
    priority: int
    client: str
    nodes: int | None = None

    def positions(self) -> list[griot.Position]:
        out = [griot.Position(self.start)]
        for m in self.moves:
            out.append(out[-1].play(m))
        return out


def job_key(job_id: str) -> str:
    return f"{redis_keys.JOB_PREFIX}{job_id}"


def _text(value: str | bytes | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


@contextlib.contextmanager
def cache_reachable() -> Iterator[None]:
    """An unreachable cache Redis as UNAVAILABLE (the client tries again), not an internal error."""
    try:
        yield
    except REDIS_DOWN as e:
        raise StatusError(
            grpc.StatusCode.UNAVAILABLE,
            "cache_unavailable",
            f"the gateway cannot reach the cache Redis: try again in {CACHE_RETRY_AFTER:.0f} s",
            retry_after=CACHE_RETRY_AFTER,
        ) from e


def unknown_job(job_id: str) -> StatusError:
    return StatusError(
        grpc.StatusCode.NOT_FOUND, "unknown_job", f"no analysis job {job_id!r} (expired or never issued)"
    )


class Jobs:
    """Creates, runs, resumes and streams game analyses (see the module header)."""

    def __init__(
        self, client: Any, evaluator: Evaluator, config: GatewayConfig, metrics: GatewayMetrics, replica: str
    ) -> None:
        self.redis = client
        self.evaluator = evaluator
        self.config = config
        self.metrics = metrics
        self.replica = replica
        self.running: dict[str, asyncio.Task[None]] = {}
        #: The jobs this replica made, runs or ran lately: when to forget each (never while it
        #: runs here), and its hash as this replica knows it, to write again if Redis lost it.
        self.held: dict[str, tuple[float, dict[str, Any]]] = {}
        self._sweeper: asyncio.Task[None] | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(), name="gateway-jobs")

    async def close(self) -> None:
        tasks = list(self.running.values())
        if self._sweeper is not None:
            tasks.append(self._sweeper)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _sweep_forever(self, every: float = 3.0) -> None:
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("job sweep failed: %s", e)
            await asyncio.sleep(every)

    async def sweep(self) -> None:
        """Writes again every job it holds that Redis lost, and takes over every unfinished job
        whose replica is gone."""
        await self._epoch()
        self._forget_old()
        await self._restore_lost()
        active = [raw.decode() for raw in await self.redis.zrange(ACTIVE, 0, -1)]
        await self._mirror(active)
        for job_id in active:
            if job_id in self.running:
                continue
            if not await self.redis.exists(job_key(job_id)):
                await self.redis.zrem(ACTIVE, job_id)
                continue
            if await self._claim(job_id):
                log.info("resuming a job whose replica is gone", extra={"job_id": job_id})
                self.metrics.count("jobs_resumed")
                self._launch(job_id)

    # -- creating and following ------------------------------------------------------------------

    async def create(self, spec: JobSpec) -> str:
        with cache_reachable():
            token, _ = await self._epoch()
        job_id = token + uuid.uuid4().hex
        key = job_key(job_id)
        header: dict[str, Any] = {
            "spec": json.dumps(asdict(spec)),
            "total": len(spec.moves),
            "state": "running",
            "owner": spec.client,
        }
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping=header)
        pipe.expire(key, self.config.job_ttl)
        pipe.zadd(ACTIVE, {job_id: asyncio.get_running_loop().time()})
        with cache_reachable():
            await pipe.execute()
        # Held from here on: Redis may lose the hash before the job's first turn is written.
        self._hold(job_id, header, running=True)
        self.metrics.count("jobs_started")
        with contextlib.suppress(*REDIS_DOWN):
            await self._claim(job_id)  # else the running job's lease refresh takes it
        self._launch(job_id)
        return job_id

    async def _epoch(self) -> tuple[str, float]:
        """The token of the cache Redis's current life and when it started (wall clock, seconds):
        made by the first replica to find none."""
        fresh = f"{secrets.token_hex(TOKEN_LEN // 2)}:{time.time()}"
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(EPOCH, fresh, nx=True)
        pipe.get(EPOCH)
        _, raw = await pipe.execute()
        token, _, since = (raw or fresh.encode()).decode().partition(":")
        return token, float(since or 0.0)

    async def _lost_wait(self, job_id: str) -> float:
        """Seconds to wait for a job whose hash is missing to be written again by its holder: a job
        made in an earlier life of the cache Redis, asked about early in the current one."""
        if len(job_id) != TOKEN_LEN + 32:
            return 0.0
        token, since = await self._retrying(self._epoch)
        if job_id[:TOKEN_LEN] == token:
            return 0.0
        return max(0.0, min(RESTORE_WAIT, since + RESTORE_WAIT - time.time()))

    async def _retrying(self, op: Callable[[], Awaitable[T]]) -> T:
        """``op()``, again every :data:`RETRY_EVERY` seconds while the cache Redis cannot be
        reached, for :data:`OUTAGE_GRACE` seconds at most (then its error)."""
        since = None
        while True:
            try:
                return await op()
            except REDIS_DOWN as e:
                now = asyncio.get_running_loop().time()
                if since is None:
                    since = now
                    log.warning("cache Redis unreachable, a job waits for it: %s", e)
                elif now - since >= OUTAGE_GRACE:
                    raise
            await asyncio.sleep(RETRY_EVERY)

    async def _hash(self, job_id: str) -> dict[bytes, bytes]:
        """The job's hash. Lost by a restarted Redis: written again at once if this replica holds
        the job, else waited for (:meth:`_lost_wait`) while its holder writes it again."""
        key = job_key(job_id)
        loop = asyncio.get_running_loop()
        end: float | None = None
        while True:
            data: dict[bytes, bytes] = await self._retrying(lambda: self.redis.hgetall(key))
            if data:
                return data
            if job_id in self.held:
                return await self._restore(job_id)
            if end is None:
                end = loop.time() + await self._lost_wait(job_id)
            if loop.time() >= end:
                return data
            await asyncio.sleep(RESTORE_POLL)

    def _hold(self, job_id: str, mapping: dict[str, Any], running: bool = False) -> dict[str, Any]:
        """Keeps ``mapping`` as the job's hash (the same dict, which its runner adds turns to):
        while the job runs here, or :data:`FINISHED_KEEP` seconds."""
        until = math.inf if running else asyncio.get_running_loop().time() + FINISHED_KEEP
        self.held[job_id] = (until, mapping)
        return mapping

    def _forget_old(self) -> None:
        now = asyncio.get_running_loop().time()
        for job_id, (until, _) in list(self.held.items()):
            if until < now and job_id not in self.running:
                del self.held[job_id]

    def _release(self, job_id: str) -> None:
        """The job no longer runs here: held :data:`FINISHED_KEEP` seconds more."""
        if job_id in self.held:
            self._hold(job_id, self.held[job_id][1])

    async def _restore(self, job_id: str) -> dict[bytes, bytes]:
        """Writes the hash of a job this replica holds again, as it knows it: a finished job's
        whole; an unfinished one's turns, and its other fields where no other replica (which may
        have finished it) wrote them first. An unfinished job goes back in the active set (and
        its lease, if it runs here)."""
        _, mapping = self.held[job_id]
        key = job_key(job_id)
        turns = {k: v for k, v in mapping.items() if k.startswith("turn:")}
        state = _text(mapping.get("state"))
        unfinished = state == "running"

        async def write() -> None:
            pipe = self.redis.pipeline(transaction=True)
            if unfinished:
                for k, v in mapping.items():
                    if k not in turns:
                        pipe.hsetnx(key, k, v)
                if turns:
                    pipe.hset(key, mapping=turns)
                pipe.zadd(ACTIVE, {job_id: asyncio.get_running_loop().time()})
                if job_id in self.running:
                    pipe.set(f"{key}:lease", self.replica, px=LEASE_MS)
            else:
                pipe.hset(key, mapping=mapping)
            pipe.expire(key, self.config.job_ttl)
            await pipe.execute()

        await self._retrying(write)
        log.warning(
            "job lost from the cache Redis, written again",
            extra={"job_id": job_id, "state": state, "turns": len(turns)},
        )
        self.metrics.count("jobs_restored")
        return {k.encode(): v if isinstance(v, bytes) else str(v).encode() for k, v in mapping.items()}

    async def _mirror(self, active: list[str]) -> None:
        """Holds the fields every active job was made with (one read per job new to this replica)
        and keeps holding those already held; a held job that left the active set (held
        unfinished, but it runs nowhere now: another replica finished it) is held as it ended."""
        fields = ("spec", "total", "state", "owner")
        seen = set(active)
        fresh = [j for j in active if j not in self.held]
        ended = [
            j
            for j, (_, m) in self.held.items()
            if j not in seen and j not in self.running and _text(m.get("state")) == "running"
        ]
        for job_id in active:
            if job_id in self.held and job_id not in self.running:
                self._hold(job_id, self.held[job_id][1])
        if fresh or ended:
            pipe = self.redis.pipeline(transaction=False)
            for job_id in fresh:
                pipe.hmget(job_key(job_id), fields)
            for job_id in ended:
                pipe.hgetall(job_key(job_id))
            replies = await pipe.execute()
            for job_id, values in zip(fresh, replies, strict=False):
                if values[0] is not None and job_id not in self.held:
                    self._hold(job_id, {k: v for k, v in zip(fields, values, strict=True) if v is not None})
            for job_id, data in zip(ended, replies[len(fresh) :], strict=True):
                if data and job_id in self.held and job_id not in self.running:
                    self._hold(job_id, {k.decode(): v for k, v in data.items()})
        self.metrics.jobs_held.set(len(self.held))

    async def _restore_lost(self) -> None:
        """Writes again every job this replica holds whose hash Redis lost."""
        ids = list(self.held)
        if not ids:
            return
        pipe = self.redis.pipeline(transaction=False)
        for job_id in ids:
            pipe.exists(job_key(job_id))
        for job_id, there in zip(ids, await pipe.execute(), strict=True):
            if not there and job_id in self.held:
                await self._restore(job_id)

    async def resume(self, job_id: str, client: str, authenticated: bool) -> None:
        """Checks a resumed job exists (and belongs to the caller); runs it here if nobody does."""
        with cache_reachable():
            data = await self._hash(job_id)
        owner = data.get(b"owner")
        if owner is None:
            raise unknown_job(job_id)
        if authenticated and owner.decode() != client:
            raise StatusError(
                grpc.StatusCode.PERMISSION_DENIED, "not_owner", "this job belongs to another key"
            )
        state = data.get(b"state")
        with cache_reachable():
            if state == b"running" and job_id not in self.running and await self._claim(job_id):
                self.metrics.count("jobs_resumed")
                self._launch(job_id)

    async def follow(self, job_id: str) -> AsyncIterator[analysis_pb2.AnalyzeGameResponse]:
        """Progress for every finished turn (as they land), then the report."""
        sent: set[int] = set()
        first = True
        while True:
            with cache_reachable():
                data = await self._hash(job_id)
            if not data:
                raise unknown_job(job_id)
            if job_id not in self.running:
                self._hold(job_id, {k.decode(): v for k, v in data.items()})
            total = int(data[b"total"])
            fresh = sorted(i for i in (int(k[5:]) for k in data if k.startswith(b"turn:")) if i not in sent)
            for i in fresh:
                sent.add(i)
                turn = analysis_pb2.TurnAnalysis.FromString(data[f"turn:{i}".encode()])
                yield analysis_pb2.AnalyzeGameResponse(
                    job_id=job_id,
                    progress=analysis_pb2.AnalysisProgress(
                        positions_done=len(sent), positions_total=total, turn=turn
                    ),
                )
                first = False
            if first:
                first = False
                yield analysis_pb2.AnalyzeGameResponse(
                    job_id=job_id,
                    progress=analysis_pb2.AnalysisProgress(positions_done=0, positions_total=total),
                )
            state = data.get(b"state")
            if state == b"done" and b"report" in data:
                yield analysis_pb2.AnalyzeGameResponse(
                    job_id=job_id, report=analysis_pb2.GameReport.FromString(data[b"report"])
                )
                return
            if state == b"failed":
                raise StatusError(
                    grpc.StatusCode.UNAVAILABLE,
                    "job_failed",
                    data.get(b"error", b"the analysis failed").decode(),
                )
            await asyncio.sleep(POLL)

    # -- running ---------------------------------------------------------------------------------

    async def _claim(self, job_id: str) -> bool:
        return bool(await self.redis.set(f"{job_key(job_id)}:lease", self.replica, nx=True, px=LEASE_MS))

    def _launch(self, job_id: str) -> None:
        task = asyncio.get_running_loop().create_task(self._run(job_id), name=f"job-{job_id}")
        self.running[job_id] = task
        self.metrics.jobs.inc()

        def done(_: asyncio.Task[None]) -> None:
            self.running.pop(job_id, None)
            self.metrics.jobs.dec()

        task.add_done_callback(done)

    async def _lease(self, job_id: str) -> None:
        lease = f"{job_key(job_id)}:lease"
        while True:
            await asyncio.sleep(LEASE_MS / 3000)
            owner = await self._retrying(lambda: self.redis.get(lease))
            if owner is not None and owner.decode() != self.replica:
                raise RuntimeError("another replica took the job over")
            await self._retrying(lambda: self.redis.set(lease, self.replica, px=LEASE_MS))

    async def _run(self, job_id: str) -> None:
        key = job_key(job_id)
        lease = asyncio.get_running_loop().create_task(self._lease(job_id))
        try:
            stored = await self._hash(job_id)
            raw = stored.get(b"spec")
            if raw is None:
                return
            spec = JobSpec(**json.loads(raw))
            positions = spec.positions()
            turns: dict[int, analysis_pb2.TurnAnalysis] = {}
            for k, v in stored.items():
                if k.startswith(b"turn:"):
                    turns[int(k[5:])] = analysis_pb2.TurnAnalysis.FromString(v)
            limit = asyncio.Semaphore(max(2, self.config.window * 2))
            header: dict[str, str | int] = {
                "spec": raw.decode(),
                "total": len(spec.moves),
                "state": "running",
                "owner": spec.client,
            }
            held = self._hold(
                job_id,
                {**header, **{f"turn:{j}": t.SerializeToString() for j, t in turns.items()}},
                running=True,
            )

            async def analyse(i: int) -> None:
                async with limit:
                    turn = await self._turn(spec, positions[i], spec.moves[i], i)
                turns[i] = turn
                held[f"turn:{i}"] = turn.SerializeToString()
                mapping = {**header, f"turn:{i}": held[f"turn:{i}"]}
                added = await self._retrying(lambda: self.redis.hset(key, mapping=mapping))
                if added > 1:  # the header was gone: a Redis restarted without the job
                    await self._restore(job_id)

            work = [asyncio.ensure_future(analyse(i)) for i in range(len(spec.moves)) if i not in turns]
            watch = asyncio.ensure_future(lease)
            try:
                pending = set(work)
                while pending:
                    finished, pending = await asyncio.wait(
                        pending | {watch}, return_when=asyncio.FIRST_COMPLETED
                    )
                    if watch in finished:
                        watch.result()  # raises: the job moved to another replica
                    pending.discard(watch)
                    for t in finished:
                        if t is not watch:
                            t.result()
            finally:
                for t in work:
                    t.cancel()
            report = scores.game_report(positions, [turns[i] for i in range(len(spec.moves))])

            final = {
                **header,
                **{f"turn:{j}": t.SerializeToString() for j, t in turns.items()},
                "report": report.SerializeToString(),
                "state": "done",
            }

            async def finish() -> None:
                pipe = self.redis.pipeline(transaction=True)
                pipe.hset(key, mapping=final)
                pipe.expire(key, self.config.job_ttl)
                pipe.zrem(ACTIVE, job_id)
                await pipe.execute()

            self._hold(job_id, final, running=True)
            await self._retrying(finish)
            self.metrics.count("jobs_done")
        except asyncio.CancelledError:
            raise
        except StatusError as e:
            # Saturated, or the broker or the workers out of reach for now: the job waits (its
            # state stays "running") and the sweep takes it up again, here or on another replica.
            if e.status.code == grpc.StatusCode.RESOURCE_EXHAUSTED or e.status.reason in PAUSING:
                log.warning("job %s paused: %s (the sweep resumes it)", job_id, e)
                with contextlib.suppress(Exception):
                    await self.redis.delete(f"{key}:lease")
                return
            await self._fail(job_id, str(e))
        except Exception as e:
            if "another replica" in str(e):
                return
            log.error("job failed", exc_info=e, extra={"job_id": job_id})
            await self._fail(job_id, f"{type(e).__name__}: {e}")
        finally:
            lease.cancel()
            self._release(job_id)

    async def _fail(self, job_id: str, message: str) -> None:
        if job_id in self.held:
            self.held[job_id][1].update(state="failed", error=message)
        with contextlib.suppress(Exception):
            pipe = self.redis.pipeline(transaction=True)
            pipe.hset(job_key(job_id), mapping={"state": "failed", "error": message})
            pipe.zrem(ACTIVE, job_id)
            await pipe.execute()

    async def _turn(
        self, spec: JobSpec, pos: griot.Position, move: str, index: int
    ) -> analysis_pb2.TurnAnalysis:
        want = Want(
            spec.depth,
            spec.time,
            True,
            Priority(spec.priority),
            spec.client,
            None,
            spec.nodes,
            own_table=True,
        )
        result = None
        async for r, final in self.evaluator.evaluate(pos, want):
            result = r
            if final:
                break
        assert result is not None
        played = pos.parse_move(move).text
        by_move = {m: v for m, v, _ in result.moves}
        best_move = result.best or (result.moves[0][0] if result.moves else played)
        best_value = by_move.get(best_move, result.value)
        if played in by_move:
            played_value = by_move[played]
        elif played == best_move:
            played_value = best_value
        else:
            played_value = await self._played_value(spec, pos, played)
        return scores.turn_analysis(
            index,
            pos,
            played,
            best_move,
            best_value,
            played_value,
            result.move_exact.get(best_move, result.exact),
            result.move_exact.get(played),
        )

    async def _played_value(self, spec: JobSpec, pos: griot.Position, played: str) -> int:
        """The value, for the mover, of a played move the search's per-move scores do not name. In
        games whose turns take several steps (Ikibuguzo's choices after a capture, Sabou'iyya's
        H'ajeb captures) the search scores each first step by its best completion, so another
        completion is scored by a search of the position it leads to, one turn shallower."""
        after = pos.play(played)
        want = Want(
            max(1, spec.depth - 1),
            spec.time,
            False,
            Priority(spec.priority),
            spec.client,
            None,
            spec.nodes,
            own_table=True,
        )
        value = None
        async for r, final in self.evaluator.evaluate(after, want):
            value = r.value
            if final:
                break
        assert value is not None
        return value if after.side_to_move == pos.side_to_move else -value


__all__ = ["BATCH", "JobSpec", "Jobs"]
