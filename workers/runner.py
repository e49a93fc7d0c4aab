"""How a search task runs on a worker, below the thin task definitions of
:mod:`griot.workers.tasks`: the pool process's kept transposition tables and cache client, the
search in a helper thread that a soft time limit or the caller's cancel key stops
(:func:`run_interruptibly`), the task's liveness in the result backend (``griot:alive:<task id>``),
the progress reports, the time budget of the distributed search's first depths (:class:`_BudgetStop`)
and the two searches themselves (:func:`subtree`, :func:`position`), from checked arguments
(:mod:`griot.tasks.args`).

The search runs in a helper thread while the task's main thread waits in short joins, so the soft
time limit (a signal, whose Python handler runs only on the main thread) and a revoke with
``signal='SIGUSR1'`` both reach it at once and set the search's ``SearchStop`` handle: the search
returns its last completed iteration, reported as ``complete: false``.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from typing import Any

import griot
import redis
from celery import signals
from celery.exceptions import SoftTimeLimitExceeded
from griot import egdb, match, redis_keys
from griot._core import SubtreeOptions, search
from griot.redis_keys import progress_key
from griot.tasks.args import ALIVE_TASKS, GameSetup, PositionSearch, SubtreeSearch
from griot.workers import cache as tt
from griot.workers import metrics
from griot.workers.app import app

log = logging.getLogger("griot.workers.tasks")

_cache_client: tt.CacheClient | None = None
_tables: dict[str, griot.SearchTable] = {}
MAX_TABLES = 2
"""Transposition tables a pool process keeps between subtree tasks, one per variant and evaluation (the most
recently used): the caller sends a subtree to the worker that searched it one depth shallower,
which then finds its earlier work in Rust memory (APHID's per-slave tables)."""


_table_search: dict[str, str] = {}
"""The distributed search (its ``search_id``) each kept table last worked for, by kept table."""


def kept_table_key(variant: str, evaluation: str) -> str:
    """Which kept table a search uses: one per variant and evaluation (a value found under one
    evaluation must not answer a search under another)."""
    return f"{variant} {evaluation}"


def search_table(variant: str) -> griot.SearchTable:
    table = _tables.pop(variant, None)
    if table is None:
        while len(_tables) >= MAX_TABLES:
            old = next(iter(_tables))
            _tables.pop(old)
            _table_search.pop(old, None)
        table = griot.SearchTable(settings().hash_mb)
    _tables[variant] = table
    return table


_databases: egdb.Databases | None = None
"""The endgame databases this process uses, each variant's opened once from ``GRIOT_EGDB_DIR``
(the setting the CLI and the gateway read)."""


def loaded_databases() -> egdb.Databases:
    global _databases
    if _databases is None:
        _databases = egdb.Databases()
    return _databases


def databases(variant: str) -> griot.Egdb | None:
    """The endgame databases of ``variant`` under ``GRIOT_EGDB_DIR``, if any are built; a damaged
    file is logged and the databases are not used."""
    return loaded_databases().get(variant)


def _generation(variant: str, search_id: Any) -> dict[str, Any]:
    """The ``griot.search`` argument that makes a task continue its table's search: the tasks of
    one distributed search (same ``search_id``) on one pool process are one search split in
    pieces, so the table does not age between them and a task's first, shallow iterations do not
    replace the deeper results the previous depth's task left for the same positions (measured:
    11 % fewer nodes on abapa to depth 20, bench/RESULTS-workers.md). A task of another search
    (or without an id) starts a new generation, as every search did before."""
    if not isinstance(search_id, str) or not search_id:
        _table_search.pop(variant, None)
        return {}
    same = _table_search.get(variant) == search_id
    _table_search[variant] = search_id
    return {"new_generation": False} if same else {}


def settings() -> Any:
    return app.conf.griot_settings


def cache_client() -> tt.CacheClient:
    """This process's cache client, opened on first use (after the fork)."""
    global _cache_client
    if _cache_client is None:
        _cache_client = tt.connect(settings().cache_url, settings().cache_cluster)
    return _cache_client


@signals.worker_process_init.connect
def _after_fork(**_: Any) -> None:
    global _cache_client
    _cache_client = None
    _tables.clear()
    _table_search.clear()


@signals.celeryd_init.connect
def _worker_main_init(**_: Any) -> None:
    metrics.prepare(settings().metrics_port)


@signals.worker_ready.connect
def _worker_ready(**_: Any) -> None:
    s = settings()
    if s.metrics_port is not None:
        metrics.serve(s.metrics_port, s.metrics_host)


@signals.worker_process_shutdown.connect
def _process_shutdown(pid: int | None = None, **_: Any) -> None:
    metrics.process_dead(pid or os.getpid())


# -- running a search ------------------------------------------------------------------------


CANCEL_PREFIX = redis_keys.CANCEL_PREFIX
_last_cpu = [0.0]  # CPU seconds of this process's last search (its thread's own clock)
_last_times: dict[str, float] = {}  # the last search's timestamps: received, search start and end


ALIVE_PREFIX = redis_keys.ALIVE_PREFIX
ALIVE_TTL_MS = 3000
"""``griot:alive:<task id>`` (result backend's Redis), ``SET PX`` when the worker receives the
task, when the search starts and about every second while it runs: a caller that saw it and
finds it gone without a result knows the worker died (its main process too: a SIGKILLed Celery
parent takes its pool with it) and sends the task again at once, instead of waiting for the
broker's visibility timeout."""


@signals.task_received.connect
def _task_received(request: Any = None, **_: Any) -> None:
    """The worker's main process took a search message off the queue: its alive key says so from
    now on, before the task starts in a pool process and its own beats take over. Without it a
    message a worker held when it died (reserved, not yet started) would wait for the broker's
    visibility timeout; with it the caller sees the key expire without a result and sends the
    task again (a duplicate of a task that was only slow to start is harmless)."""
    task_id = getattr(request, "id", None)
    if not task_id or getattr(request, "name", "") not in ALIVE_TASKS:
        return
    try:
        app.backend.client.set(
            ALIVE_PREFIX + task_id,
            f"{socket.gethostname()}:{os.getpid()}:{time.time():.6f}:received",
            px=ALIVE_TTL_MS,
        )
    except redis.RedisError as e:
        log.warning("cannot write the alive key of a received task: %s", e)


def _cancelled(task_id: str | None, beat: bool = False, first: bool = False) -> bool:
    """Whether the caller asked ``task_id`` to stop; ``beat`` also renews its alive key. ``first``
    (the beat before the search starts) also reads the key's previous value: the time the worker's
    main process received the message (:func:`_task_received`), in ``_last_times``."""
    if not task_id:
        return False
    try:
        pipe = app.backend.client.pipeline(transaction=False)
        pipe.exists(CANCEL_PREFIX + task_id)
        if beat:
            value = f"{socket.gethostname()}:{os.getpid()}"
            pipe.set(ALIVE_PREFIX + task_id, value, px=ALIVE_TTL_MS, get=first)
        replies = pipe.execute()
        if first and isinstance(replies[1], bytes) and replies[1].endswith(b":received"):
            try:
                _last_times["taken"] = float(replies[1].rsplit(b":", 2)[1])
            except ValueError:
                pass
        return bool(replies[0])
    except redis.ResponseError:  # a Redis before 6.2 (no SET ... GET): beat without the read
        return first and _cancelled(task_id, beat)
    except redis.RedisError:
        return False


def run_interruptibly(fn: Any, stop: griot.SearchStop, task_id: str | None = None) -> tuple[Any, bool]:
    """Runs ``fn`` (a native search) in a thread; the soft time limit or the caller's cancel
    key stops it. Returns (result, interrupted)."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        cpu = time.thread_time()
        _last_times["search_started"] = time.time()
        try:
            box["result"] = fn()
            _last_times["search_ended"] = time.time()
            box["cpu"] = time.thread_time() - cpu
        except BaseException as e:  # re-raised on the task's thread
            box["error"] = e
        finally:
            done.set()

    # Not Thread.join: an exception raised by a signal handler inside join() can leave the thread
    # looking finished while it still runs (CPython issue 21822); an Event stays consistent.
    # The alive key is written before the search starts (one round trip, which also sees a cancel
    # that came while the task waited in the queue), so a worker that dies even in a short task
    # leaves a key that expires without a result.
    _last_times.clear()
    interrupted = _cancelled(task_id, beat=True, first=True)
    if interrupted:
        stop.set()
    thread = threading.Thread(target=target, name="griot-search", daemon=True)
    thread.start()
    polls = 0
    while not done.is_set():
        try:
            if done.wait(0.05):
                break
            polls += 1
            if polls % 4 == 0 and not interrupted and _cancelled(task_id, beat=polls % 20 == 4):
                interrupted = True
                stop.set()
        except SoftTimeLimitExceeded:
            interrupted = True
            stop.set()
    thread.join()
    if polls >= 4:  # the key may be a second old: renew it once more, to outlive the result's store
        _cancelled(task_id, beat=True)
    _last_cpu[0] = box.get("cpu", 0.0)
    if "error" in box:
        raise box["error"]
    return box["result"], interrupted


def _time_left(deadline: float | None) -> float | None:
    if deadline is None:
        return None
    return deadline - time.time()


def _observe(task_name: str, outcome: str, seconds: float, variant: str, nodes: int) -> None:
    m = metrics.get()
    if m:
        m["tasks"].labels(task_name, outcome).inc()
        m["seconds"].labels(task_name).observe(seconds)
        m["nodes"].labels(variant).inc(nodes)


def subtree(args: SubtreeSearch, request: Any) -> dict[str, Any]:
    """``griot.search_subtree`` (:class:`~griot.tasks.args.SubtreeArgs`; ``request``: the
    Celery task's request, its id and the worker's name): ``position`` searched to ``depth`` with
    the window ``(alpha, beta)``; ``windows``: the windows earlier tasks searched this subtree
    with, repeated in those iterations so the kept table answers them (the last iteration is the
    real work, as in the in-process search); ``search_id`` names the distributed search it belongs
    to (its tasks on one pool process share the kept table as one search: :func:`_generation`);
    ``resume``: a task that continues its kept table's search starts at the depth after the one
    the table holds its position searched to (the previous distributed depth's task on this
    process left it there), as the in-process search's next iteration does, instead of deepening
    from 1 (measured: 15 % fewer nodes on awale after c F to depth 22, bench/RESULTS-workers.md).
    Returns ``value``, ``bound``, ``depth`` reached, ``complete``, ``best``, ``pv``, ``nodes``,
    timings and where the answer came from."""
    started = time.time()
    pos, depth, alpha, beta = args.pos, args.depth, args.alpha, args.beta
    hist, deadline, early, resume = args.history, args.deadline, args.windows, args.resume
    s = settings()
    canonical = pos.variant.canonical
    out: dict[str, Any] = {"started": started, "worker": request.hostname, "pid": os.getpid()}

    left = _time_left(deadline)
    if left is not None and left <= 0:
        out.update(complete=False, reason="deadline", value=0, bound="upper", depth=0, nodes=0)
        return out

    cacheable = args.use_cache and depth >= s.cache_min_depth and not pos.near_turn_limit(depth)
    cache = tt.Cache(cache_client(), canonical, s.cache_ttl, args.eval) if cacheable else None
    key = pos.key
    holder = f"{socket.gethostname()}:{os.getpid()}:{request.id}:{depth}"

    def from_cache() -> dict[str, Any] | None:
        assert cache is not None
        try:
            (e,) = cache.get_many([key])
        except tt.CACHE_ERRORS:
            return None
        if e is None or not e.answers(depth, alpha, beta):
            return None
        moves = pos.legal_moves()
        best = str(moves[e.best]) if e.best is not None and e.best < len(moves) else None
        return dict(
            value=e.value,
            bound=e.bound,
            depth=depth,
            complete=True,
            best=best,
            pv=[best] if best else [],
            nodes=0,
            source="cache",
        )

    claimed = False
    if cache is not None:
        hit = from_cache()
        if hit is not None:
            cache.count(task_hits=1)
            out.update(hit, finished=time.time())
            _observe("search_subtree", "cache", time.time() - started, canonical, 0)
            return out
        try:
            claimed = cache.try_claim(key, holder, s.inflight_ttl_ms)
            if not claimed:
                # Another worker searches this position now: wait for it, then reuse its result.
                cache.count(inflight_waits=1)
                wait_until = time.time() + min(left if left is not None else s.soft_limit, s.soft_limit)
                tt.wait_for_holder(cache, key, wait_until)
                hit = from_cache()
                if hit is not None:
                    cache.count(inflight_reused=1)
                    out.update(hit, source="inflight", finished=time.time())
                    return out
                claimed = cache.try_claim(key, holder, s.inflight_ttl_ms)
        except tt.CACHE_ERRORS as e:
            log.warning("in-flight marker unavailable (%s): searching anyway", e)

    hook_depth = max(s.cache_min_depth, depth - s.cache_iterations + 1 if s.cache_iterations > 0 else 0)
    table = tt.RedisTable(cache, hook_depth, s.cache_plies) if cache is not None else None
    stop = griot.SearchStop()
    time_limit = max(0.05, left) if left is not None else None
    kept = kept_table_key(canonical, args.eval)
    local = search_table(kept)
    generation = _generation(kept, args.search_id)
    if args.fresh and not generation:  # this search's first task on this table
        local.clear()
    if resume and generation:
        generation["resume"] = True

    iterations: list[int] = []  # the depths the search completed (resumed: from past 1)

    def run() -> griot.SearchResult:
        result: griot.SearchResult = search(
            pos,
            depth=depth,
            time=time_limit,
            stop=stop,
            history=hist,
            progress=lambda x: iterations.append(x.depth),
            egdb=databases(canonical),
            eval=args.eval,
            subtree=SubtreeOptions(
                window=(alpha, beta), shared=table, table=local, iteration_windows=early, **generation
            ),
        )
        return result

    m = metrics.get()
    if m:
        m["busy"].inc()
    try:
        if claimed and cache is not None:
            with tt.Heartbeat(cache, key, holder, s.inflight_ttl_ms):
                r, interrupted = run_interruptibly(run, stop, request.id)
        else:
            r, interrupted = run_interruptibly(run, stop, request.id)
    finally:
        if m:
            m["busy"].dec()
    complete = r.depth == depth or (r.depth == 0 and not pos.legal_moves())
    if cache is not None and table is not None:
        if complete:
            table.publish([(key, depth, r.bound, r.score.value, _move_index(pos, r))])
        table.flush_stats()
    out.update(
        value=r.score.value,
        bound=r.bound,
        depth=r.depth,
        complete=complete,
        reason=None if complete else ("stopped" if interrupted else "time"),
        best=str(r.best_move) if r.best_move is not None else None,
        pv=list(r.pv),
        nodes=r.nodes,
        search_time=r.time,
        search_cpu=_last_cpu[0],
        # When the worker's main process took the message, and the search's own start and end:
        # with ``started`` and ``finished`` they split a task's overheads (bench/distributed.py).
        **{k: _last_times[k] for k in ("taken", "search_started", "search_ended") if k in _last_times},
        continued=bool(generation),
        first_depth=iterations[0] if iterations else None,
        source="search",
        finished=time.time(),
    )
    _observe(
        "search_subtree", "complete" if complete else "incomplete", time.time() - started, canonical, r.nodes
    )
    return out


def _move_index(pos: griot.Position, r: griot.SearchResult) -> int | None:
    if r.best_move is None:
        return None
    texts = [str(m) for m in pos.legal_moves()]
    return texts.index(str(r.best_move)) if str(r.best_move) in texts else None


PROGRESS_EVERY = 0.05
"""Seconds between two progress writes of one search: depths completing faster are folded into
the next write (the key holds every completed depth so far), so a shallow search costs a write or
none, a deep one a write per depth."""
PROGRESS_TTL_S = 3600


def _summary(
    r: griot.SearchResult, pos: griot.Position | None = None, db: griot.Egdb | None = None
) -> dict[str, Any]:
    """One completed depth as plain data: the task's result and each progress entry. With
    databases covering ``pos``, ``exact`` is their result (:func:`griot.egdb.exact`), and each
    move's ``exact`` its result for the mover."""
    out: dict[str, Any] = {
        "best": str(r.best_move) if r.best_move is not None else None,
        "value": r.score.value,
        "score": str(r.score),
        "depth": r.depth,
        "pv": list(r.pv),
        "nodes": r.nodes,
        "time": r.time,
        "moves": [
            {"move": m.move, "value": m.score.value, "bound": m.bound, "pv": list(m.pv)} for m in r.moves
        ],
    }
    root = egdb.exact(db, pos) if pos is not None else None
    if root is not None and pos is not None:
        out["exact"] = root
        for m in out["moves"]:
            m["exact"] = _move_exact(db, pos, m["move"])
    return out


def _move_exact(db: griot.Egdb | None, pos: griot.Position, move: str) -> dict[str, Any] | None:
    """The databases' result of playing ``move`` in ``pos``, for the mover."""
    try:
        child = pos.play(pos.parse_move(move))
    except griot.GriotError:
        return None
    result = egdb.exact(db, child)
    return result if child.side_to_move == pos.side_to_move else egdb.flip(result)


class _ProgressReporter:
    """The search's progress callback: keeps every completed depth and writes them all to
    :func:`griot.redis_keys.progress_key` (and publishes the newest on the channel of that name) at
    most every :data:`PROGRESS_EVERY` seconds. Best effort: a Redis error costs the report, never the
    search."""

    def __init__(self, task_id: str, pos: griot.Position | None = None, db: griot.Egdb | None = None) -> None:
        self.pos, self.db = pos, db
        self.key = progress_key(task_id)
        self.depths: list[dict[str, Any]] = []
        self.written = time.monotonic()  # a search shorter than PROGRESS_EVERY writes nothing

    def __call__(self, r: griot.SearchResult) -> None:
        self.depths.append(_summary(r, self.pos, self.db))
        now = time.monotonic()
        if now - self.written < PROGRESS_EVERY:
            return
        self.written = now
        try:
            # The newest depth is also published on the channel named after the key: the gateway
            # is notified, it does not poll (as the backend publishes each result on its key).
            pipe = app.backend.client.pipeline(transaction=False)
            pipe.set(self.key, json.dumps(self.depths), ex=PROGRESS_TTL_S)
            pipe.publish(self.key, json.dumps(self.depths[-1]))
            pipe.execute()
        except redis.RedisError as e:
            log.warning("progress report failed: %s", e)


class _BudgetStop:
    """A progress callback that stops the search before an iteration foreseen to end past
    ``budget`` seconds (each iteration's time is the last one's times its growth over the one
    before, at least 1.5 and at most 6: sowing games alternate cheaper and dearer depths)."""

    def __init__(self, stop: griot.SearchStop, budget: float, min_depth: int, depth: int | None) -> None:
        self.stop, self.budget, self.min_depth, self.depth = stop, budget, min_depth, depth
        self.times: list[float] = []
        self.stopped = 0  # the depth the search was stopped after (0: not stopped)

    def __call__(self, r: griot.SearchResult) -> None:
        self.times.append(r.time)
        if r.depth < self.min_depth or (self.depth is not None and r.depth >= self.depth) or self.stopped:
            return
        t = self.times
        last = t[-1] - (t[-2] if len(t) > 1 else 0.0)
        before = (t[-2] - t[-3]) if len(t) > 2 else (t[-2] if len(t) > 1 else 0.0)
        growth = min(6.0, max(1.5, last / before)) if before > 1e-4 else 3.0
        if t[-1] + last * growth > self.budget:
            self.stopped = r.depth
            self.stop.set()


def position(args: PositionSearch, request: Any) -> dict[str, Any]:
    """``griot.search_position`` (:class:`~griot.tasks.args.PositionArgs`; ``request``: the
    Celery task's request): a whole search of ``position`` (no window): best move, score, line and
    per-move scores (``multipv`` exact ones, 0 = all). With ``progress`` the completed depths are
    reported as they come (:func:`griot.redis_keys.progress_key`, :data:`PROGRESS_EVERY`).
    ``search_id``: the distributed search whose first depths this is (its subtree tasks here
    continue this table). ``budget`` (seconds, with ``depth``): once ``min_depth`` is complete, no
    iteration starts that would end past ``budget`` seconds, its time foreseen from the last ones'
    growth; the result is then complete at the depth reached (the distributed search's first
    depths: as many as fit in about that time, the rest split into tasks that are worth their
    cost)."""
    started = time.time()
    pos, depth, time_limit, nodes = args.pos, args.depth, args.time_limit, args.nodes
    hist, deadline, multipv, budget = args.history, args.deadline, args.multipv, args.budget
    left = _time_left(deadline)
    if left is not None:
        time_limit = max(0.05, min(time_limit or left, left))
    s = settings()
    canonical = pos.variant.canonical
    # ``table_mb``: a search of its own, the same as an in-process one (no shared or kept table).
    own = args.table_mb is not None
    use_cache = not own and (depth is None or depth >= s.cache_min_depth)
    table = None
    if use_cache and not pos.near_turn_limit(depth or 40):
        table = tt.RedisTable(
            tt.Cache(cache_client(), canonical, s.cache_ttl, args.eval), s.cache_min_depth, s.cache_plies
        )
    stop = griot.SearchStop()
    db = None if own else databases(canonical)
    # With a history the game may end by repetition, which the databases' results do not see: the
    # search still uses them below its root, the result does not claim them.
    exact_of = None if hist else pos
    reporter = _ProgressReporter(request.id, exact_of, db) if args.progress and request.id else None
    if args.table_mb is not None:
        local = griot.SearchTable(args.table_mb)
    else:
        kept = kept_table_key(canonical, args.eval)
        local = search_table(kept)
        if args.fresh:
            local.clear()
        _generation(kept, None)  # a new search for this table, whose subtrees may continue it
        if args.search_id:
            _table_search[kept] = args.search_id

    budget_stop = _BudgetStop(stop, budget, args.min_depth or 1, depth) if budget is not None else None

    def on_depth(r: griot.SearchResult) -> None:
        if reporter is not None:
            reporter(r)
        if budget_stop is not None:
            budget_stop(r)

    def run() -> griot.SearchResult:
        return griot.search(
            pos,
            depth=depth,
            time=time_limit,
            nodes=nodes,
            multipv=multipv,
            table=local,  # kept: the subtrees sent here next start warm
            stop=stop,
            history=hist,
            shared=table,
            progress=on_depth if reporter is not None or budget_stop is not None else None,
            egdb=db,
            eval=args.eval,
            threads=s.search_threads,
        )

    r, interrupted = run_interruptibly(run, stop, request.id)
    budgeted = budget_stop is not None and budget_stop.stopped and r.depth == budget_stop.stopped
    if table is not None:
        table.flush_stats()
    _observe("search_position", "complete", time.time() - started, canonical, r.nodes)
    return {
        **_summary(r, exact_of, db),
        "complete": depth is None or r.depth == depth or not pos.legal_moves() or budgeted,
        "budget_stopped": budgeted,
        "started": started,
        "finished": time.time(),
        "worker": socket.gethostname(),
        "node": request.hostname,
        "interrupted": interrupted,
        "threads": s.search_threads,
    }


def game(args: GameSetup, request: Any) -> dict[str, Any]:
    """``griot.play_game`` (:class:`~griot.tasks.args.GameArgs`): one game of a match
    between two in-process engines (new tables), as :func:`griot.match.play_game` plays it: the
    moves, South's points and how it ended. The caller's cancel or the soft time limit stops it
    between two moves (the task then fails: half a game is no result)."""
    started = time.time()
    stop = griot.SearchStop()

    def play() -> match.GameResult:
        south, north = _StoppablePlayer(args.south, stop), _StoppablePlayer(args.north, stop)
        return match.play_game(args.variant, args.opening, south, north, repetitions=args.repetitions)

    result, interrupted = run_interruptibly(play, stop, request.id)
    if interrupted:
        raise GameStopped("the game was stopped before its end (cancelled or out of time)")
    return {
        "moves": result.moves,
        "south_points": result.south_points,
        "reason": result.reason,
        "started": started,
        "finished": time.time(),
        "worker": socket.gethostname(),
        "node": request.hostname,
    }


class GameStopped(RuntimeError):
    """A game task stopped before the game's end."""


class _StoppablePlayer(match.GriotPlayer):
    """The match's in-process engine, which gives up (a forfeit, then the task fails) at its next
    move once the task's ``stop`` is set."""

    def __init__(self, spec: match.EngineSpec, stop: griot.SearchStop) -> None:
        super().__init__(spec)
        self.task_stop = stop

    def choose(self, positions: list[griot.Position], moves: list[str]) -> str:
        if self.task_stop.is_set:
            raise match.MatchError("stopped")
        return super().choose(positions, moves)
