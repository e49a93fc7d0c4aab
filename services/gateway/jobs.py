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
``griot up`` runs it), does not end a running job: the replica running it waits for the server
(:data:`OUTAGE_GRACE` seconds at most), writes the job's hash again whole, with every turn it holds,
when a write finds it gone, and a stream following a job this replica runs waits for that.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
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
"""Seconds a replica keeps a job it finished, to write it again if a restarted cache Redis lost
it before its client read the report."""

#: What a Redis server that is down or restarting raises.
REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, OSError)

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
        #: Jobs this replica finished lately: when to forget each, and its hash as last written.
        self.finished: dict[str, tuple[float, dict[str, Any]]] = {}
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
        """Takes over every unfinished job whose replica is gone."""
        for raw in await self.redis.zrange(ACTIVE, 0, -1):
            job_id = raw.decode()
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
        job_id = uuid.uuid4().hex
        key = job_key(job_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(
            key,
            mapping={
                "spec": json.dumps(asdict(spec)),
                "total": len(spec.moves),
                "state": "running",
                "owner": spec.client,
            },
        )
        pipe.expire(key, self.config.job_ttl)
        pipe.zadd(ACTIVE, {job_id: asyncio.get_running_loop().time()})
        await pipe.execute()
        self.metrics.count("jobs_started")
        await self._claim(job_id)
        self._launch(job_id)
        return job_id

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
        """The job's hash; while this replica runs the job, waits (:data:`OUTAGE_GRACE` at most)
        for it to be written again when a restarted Redis lost it."""
        key = job_key(job_id)
        end = asyncio.get_running_loop().time() + OUTAGE_GRACE
        while True:
            data: dict[bytes, bytes] = await self._retrying(lambda: self.redis.hgetall(key))
            if not data and job_id in self.finished:
                return await self._write_finished_again(job_id)
            if data or job_id not in self.running or asyncio.get_running_loop().time() >= end:
                return data
            await asyncio.sleep(POLL)

    def _keep_finished(self, job_id: str, mapping: dict[str, Any]) -> None:
        now = asyncio.get_running_loop().time()
        for old, (until, _) in list(self.finished.items()):
            if until < now:
                del self.finished[old]
        self.finished[job_id] = (now + FINISHED_KEEP, mapping)

    async def _write_finished_again(self, job_id: str) -> dict[bytes, bytes]:
        """A job this replica finished, lost by a restarted cache Redis: written again as it was."""
        _, mapping = self.finished[job_id]

        async def write() -> None:
            pipe = self.redis.pipeline(transaction=True)
            pipe.hset(job_key(job_id), mapping=mapping)
            pipe.expire(job_key(job_id), self.config.job_ttl)
            await pipe.execute()

        await self._retrying(write)
        log.warning("finished job lost from the cache Redis, written again", extra={"job_id": job_id})
        return {k.encode(): v if isinstance(v, bytes) else str(v).encode() for k, v in mapping.items()}

    async def resume(self, job_id: str, client: str, authenticated: bool) -> None:
        """Checks a resumed job exists (and belongs to the caller); runs it here if nobody does."""
        owner = (await self._hash(job_id)).get(b"owner")
        if owner is None:
            raise unknown_job(job_id)
        if authenticated and owner.decode() != client:
            raise StatusError(
                grpc.StatusCode.PERMISSION_DENIED, "not_owner", "this job belongs to another key"
            )
        state = await self.redis.hget(job_key(job_id), "state")
        if state == b"running" and job_id not in self.running and await self._claim(job_id):
            self.metrics.count("jobs_resumed")
            self._launch(job_id)

    async def follow(self, job_id: str) -> AsyncIterator[analysis_pb2.AnalyzeGameResponse]:
        """Progress for every finished turn (as they land), then the report."""
        sent: set[int] = set()
        first = True
        while True:
            data = await self._hash(job_id)
            if not data:
                raise unknown_job(job_id)
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
            raw = await self.redis.hget(key, "spec")
            if raw is None:
                return
            spec = JobSpec(**json.loads(raw))
            positions = spec.positions()
            done = {int(k[5:]) for k in await self.redis.hkeys(key) if k.startswith(b"turn:")}
            turns: dict[int, analysis_pb2.TurnAnalysis] = {}
            for i in done:
                data = await self.redis.hget(key, f"turn:{i}")
                if data is not None:
                    turns[i] = analysis_pb2.TurnAnalysis.FromString(data)
            limit = asyncio.Semaphore(max(2, self.config.window * 2))
            header: dict[str, str | int] = {
                "spec": raw.decode(),
                "total": len(spec.moves),
                "state": "running",
                "owner": spec.client,
            }

            async def restore() -> None:
                pipe = self.redis.pipeline(transaction=True)
                pipe.hset(
                    key,
                    mapping={**header, **{f"turn:{j}": t.SerializeToString() for j, t in turns.items()}},
                )
                pipe.expire(key, self.config.job_ttl)
                pipe.zadd(ACTIVE, {job_id: asyncio.get_running_loop().time()})
                pipe.set(f"{key}:lease", self.replica, px=LEASE_MS)
                await pipe.execute()

            async def analyse(i: int) -> None:
                async with limit:
                    turn = await self._turn(spec, positions[i], spec.moves[i], i)
                turns[i] = turn
                mapping = {**header, f"turn:{i}": turn.SerializeToString()}
                added = await self._retrying(lambda: self.redis.hset(key, mapping=mapping))
                if added > 1:  # the header was gone: a Redis restarted without the job
                    log.warning("job lost from the cache Redis, written again", extra={"job_id": job_id})
                    await self._retrying(restore)

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

            await self._retrying(finish)
            self._keep_finished(job_id, final)
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

    async def _fail(self, job_id: str, message: str) -> None:
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
