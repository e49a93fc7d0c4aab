"""The tree of a distributed deep search of one position (the caller's side; the gateway uses it).

The caller expands the top ``split`` plies of the tree itself and sends the subtrees below them
to the workers as ``griot.search_subtree`` tasks, each with an alpha-beta window. The top plies are
searched as a principal-variation search whose leaves are tasks:

- every top node keeps, for each child, an interval ``[lo, hi]`` of what the tasks proved about
  its value (exact results close it, fail-high/fail-low results move one end); the node is done
  when its best child is known exactly (or a bound settles its own window), so the root's value is
  the exact minimax value at the requested depth whatever order results arrive in;
- children are taken in the previous iteration's order; the first ("eldest brother") is searched
  with the node's window, the others with a null window at the best value so far, re-searched
  when they fail high (young brothers wait, as in YBWC);
- APHID-like speculation (``speculate="pv"``, the default: on the principal variation's nodes,
  whose eldest everything else waits for): while the eldest is still running, idle worker slots
  start its younger brothers with a null window at the node's value from the previous iteration
  of the same parity (sowing scores swing between odd and even depths); when the eldest's result
  sets a floor below a guess, that speculative search is revoked and searched again at the floor,
  as is one under the floor not sent yet; otherwise its result settles the brother (a fail low
  under the floor) or it is searched again;
- ``overlap`` (off by default): depth d + 1 starts beside depth d once depth d's root has its
  eldest's result, its tasks only in slots depth d has no task for;
- the search's queue (:class:`griot.tasks.distributed.schedule.SubtreeQueue`) keeps at most
  ``capacity`` tasks at the workers, mandatory work before speculation; subtrees a cut-off made
  useless are revoked (queued ones are dropped, running ones see a cancel key and stop their
  search). The tasks go through a task runner (:class:`griot.tasks.client.TaskRunner`): the
  gateway's admits them through its dispatcher under the caller's quota, priority and bounds; a
  standalone caller's (:class:`griot.tasks.client.ClientRunner`, made from a Celery app) sends
  them on a task client of its own.

Iterative deepening runs across the cluster: the first depths (tasks too small to be worth a
queue round trip) in one ``griot.search_position`` task, then one distributed iteration per depth,
each completed depth reported as it lands (:meth:`ClusterSearch.iterate` is an async iterator;
:meth:`ClusterSearch.search` a blocking call with a callback).

Failures: a task that raises ``BadTaskArguments`` fails the search with that error; other task
failures are run again; tasks whose worker died or that a Redis restart lost are dispatched
again by the task client (:class:`griot.tasks.client.TaskClient`), duplicates being harmless
(the first result wins, the in-flight marker makes the second wait for the first); a broker
unreachable for longer than ``outage_grace`` raises :class:`ClusterUnavailable`. A result is never
made from a partial task: incomplete subtree results are searched again or fail the depth.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from celery import Celery

import griot
from griot import INFINITE, WIN
from griot._core import score_bound_to_child, score_from_child
from griot.tasks.args import SEARCH_POSITION, position_args, subtree_args
from griot.tasks.client import ClientRunner, TaskRunner
from griot.tasks.distributed.schedule import SubtreeQueue, TaskStats
from griot.tasks.errors import SearchDeadlineExceeded, TaskFailed

log = logging.getLogger(__name__)

EXACT, LOWER, UPPER = "exact", "lower", "upper"


# -- score arithmetic: the core's (search::score), one ply at a time ----------------------------

#: A parent-relative window bound as its child sees it, one ply lower, within ±INFINITE.
to_child = score_bound_to_child
#: A child's node-relative value as its parent sees it, one ply higher.
from_child = score_from_child


def window_bound(v: int, alpha: int, beta: int) -> str:
    return UPPER if v <= alpha else LOWER if v >= beta else EXACT


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveValue:
    """A root move's value: exact for the best move, an upper bound for the others."""

    move: str
    value: int
    bound: str


@dataclass(frozen=True)
class DepthResult:
    """One completed depth of a distributed search."""

    depth: int
    best_move: str | None
    value: int
    score: str
    pv: list[str]
    moves: list[MoveValue]
    nodes: int
    elapsed: float
    tasks: int
    cache_answers: int
    redispatched: int


def score_text(v: int) -> str:
    return str(griot.Score(v))


_TAG: contextvars.ContextVar[tuple[int, int, int]] = contextvars.ContextVar("griot_cluster_tag")
"""(distributed iteration, eldest chain, 1 if below a speculative search) of the subtree searches
made in this asyncio task."""
TRACE_KEYS = ("sent", "taken", "started", "search_started", "search_ended", "finished", "notified")


# -- the top of the tree ---------------------------------------------------------------------


class _Node:
    """A position in the top plies: its children (made once) and what earlier iterations learnt."""

    __slots__ = ("children", "estimates", "key", "order", "position", "text", "windows", "worker")

    def __init__(self, position: griot.Position) -> None:
        self.position = position
        self.text = str(position)
        self.key = position.zobrist
        self.children: list[tuple[str, _Node, int]] | None = None  # (move, node, sign)
        self.order: list[int] | None = None
        self.estimates: dict[int, int] = {}  # depth -> value found (node-relative)
        self.worker: str | None = None  # the worker that searched this subtree last
        # depth -> the window (node-relative) of the last task that searched this subtree to
        # that depth: the next, deeper task repeats them in its shallower iterations.
        self.windows: dict[int, tuple[int, int]] = {}

    def expand(self) -> list[tuple[str, _Node, int]]:
        if self.children is None:
            side = self.position.side_to_move
            self.children = [
                (str(m), _Node(c), -1 if c.side_to_move != side else 1) for m, c in self.position.successors()
            ]
            self.order = list(range(len(self.children)))
        return self.children

    def estimate(self, depth: int, low: bool = False) -> int | None:
        """The value this node is expected to have at ``depth``: its value at the previous depth
        of the same parity, else the nearest earlier one; ``low``: the lower of the two previous
        depths' values, when both are known."""
        if low and depth - 1 in self.estimates and depth - 2 in self.estimates:
            return min(self.estimates[depth - 1], self.estimates[depth - 2])
        for d in (depth - 2, depth - 1, depth - 3):
            if d in self.estimates:
                return self.estimates[d]
        return None


def _outcome_value(pos: griot.Position, outcome: Any) -> int:
    if outcome.winner is None:
        return 0
    return WIN if outcome.winner == pos.side_to_move else -WIN


@dataclass
class _Found:
    value: int
    bound: str
    pv: list[str]


async def _decided(fails_low: bool, sign: int) -> _Found:
    """A child's result for a window beyond every possible value, in the child's terms: seen from
    the parent an upper bound of a win in one ply (``fails_low``) or a lower bound of a loss in one."""
    v, bound = (WIN - 1, UPPER) if fails_low else (1 - WIN, LOWER)
    if sign < 0:
        return _Found(-to_child(v), {LOWER: UPPER, UPPER: LOWER}[bound], [])
    return _Found(to_child(v), bound, [])


class ClusterSearch:
    """Searches positions across the Celery workers (see the module header).

    ``runner``: what the tasks go through (:class:`griot.tasks.client.TaskRunner`; the gateway's
    admits them through its dispatcher), or a Celery app: each search then runs a
    :class:`griot.tasks.client.ClientRunner` of its own, closed with it, that gives up after
    ``outage_grace`` seconds without the broker or the result backend.
    ``capacity``: tasks kept queued or running (about the number of pool processes of the
    workers serving ``queue``); ``split``: top plies the caller expands (1 = root moves, 2 = their
    replies); ``direct_depth``: depths up to this one run as a single task (too small to split);
    ``min_task_depth``: a subtree shallower than this is not split further; ``pv_split``: extra
    plies split along the principal variation (its eldest-brother chain is the critical path of
    young-brothers-wait; splitting it deeper shortens that path); ``workers``: the
    worker nodes and their pool sizes (:func:`cluster_workers`): subtrees then go to the worker
    that searched them at the previous depth (its table holds that work), through its own queue;
    None sends every task to ``queue``, for any free worker. ``direct_seconds``: the first
    task goes on past ``direct_depth`` (up to the search's depth) as long as its next iteration
    is foreseen to end within that many seconds: the distributed iterations then start where a
    depth's work is large enough for tasks to be worth their fixed cost (a few ms each).
    ``overlap``: depth ``d + 1`` is searched beside depth ``d``, its tasks sent only into slots
    depth ``d`` has no task for (its eldest brothers' waits, its tail), at a lower priority than
    every task of depth ``d``; each depth's value stays exact (per-child intervals), depths are
    still reported in order, the last one exact; the next depth's entries in the workers' tables
    and the Redis tier only order an earlier depth's nodes (the engine takes a table value only
    at exactly the depth needed): off by default.
    ``overlap_after``: depth ``d + 1`` starts once depth ``d``'s
    principal-variation node at that ply has its eldest child's result (0: the root; the
    principal variation below it, which orders depth ``d + 1``'s, is then searched); None: at
    once. ``speculate``: True everywhere, ``"pv"`` on the principal variation's nodes
    only (their younger brothers start while the eldest runs, in slots nothing else needs).
    ``guess``: where those speculative null windows go: ``"low"`` (the default) the lower of
    the node's values at the two previous depths, ``"previous"`` its value at the previous depth
    of the same parity. A guess above the value the eldest then sets is revoked and searched
    again at it, which the lower guess makes rarer (bench/RESULTS-workers.md: at depth 24 two
    workers then search as many nodes as one).
    ``fresh_tables``: each pool process empties its kept table of the variant at this search's
    first task there. The workers keep their tables between searches (the next move's search
    starts warm); a deeper result a table kept from an earlier search, or the Redis tier, holds
    orders a shallower search of the same position but does not answer it, so every depth has
    the in-process value with or without fresh tables.
    """

    def __init__(
        self,
        runner: TaskRunner | Celery | None,
        *,
        queue: str = "griot.interactive",
        capacity: int = 2,
        split: int = 1,
        direct_depth: int = 8,
        min_task_depth: int = 4,
        speculate: bool | str = "pv",
        use_cache: bool = True,
        outage_grace: float = 30.0,
        workers: dict[str, int] | None = None,
        pv_split: int = 2,
        iteration_windows: bool = True,
        direct_seconds: float | None = None,
        overlap: bool = False,
        overlap_after: int | None = 0,
        guess: str = "low",
        resume: bool = True,
        fresh_tables: bool = False,
    ) -> None:
        if guess not in ("previous", "low"):
            raise ValueError(f"guess must be 'previous' or 'low', got {guess!r}")
        self.guess = guess
        self.resume = resume
        self.fresh_tables = fresh_tables
        self.runner = runner
        self.overlap = overlap
        self.overlap_after = overlap_after
        self._pv_eldest: dict[tuple[int, int], asyncio.Event] = {}
        self.direct_seconds = direct_seconds
        self.iteration_windows = iteration_windows
        self.workers = workers
        self.pv_split = pv_split
        self._iteration = 0
        self._search_id = ""
        self.queue = queue
        self.capacity = capacity
        self.split = split
        self.direct_depth = direct_depth
        self.min_task_depth = min_task_depth
        self.speculate = speculate
        self.use_cache = use_cache
        self.outage_grace = outage_grace
        self.stats = TaskStats()

    # -- public API ----------------------------------------------------------------------------

    async def iterate(
        self,
        position: griot.Position | str,
        depth: int,
        *,
        time_limit: float | None = None,
        history: Sequence[griot.Position | str] = (),
    ) -> AsyncIterator[DepthResult]:
        """Yields one :class:`DepthResult` per completed depth, up to ``depth``; stops early when
        ``time_limit`` seconds pass (the last completed depth stands)."""
        pos = position if isinstance(position, griot.Position) else griot.Position(position)
        hist = [h if isinstance(h, griot.Position) else griot.Position(h) for h in history]
        start = time.time()
        deadline = start + time_limit if time_limit is not None else None
        self.stats = TaskStats()
        # Names this search for the workers: its tasks on one pool process continue one table
        # generation (griot.workers.runner._generation).
        self._search_id = uuid.uuid4().hex
        if isinstance(self.runner, Celery):
            # A runner of this search's own, in this event loop.
            runner: TaskRunner = ClientRunner(
                self.runner, capacity=self.capacity, outage_grace=self.outage_grace
            )
            owned = True
        elif self.runner is not None:
            runner, owned = self.runner, False
        else:
            raise ValueError("ClusterSearch needs a task runner or a Celery app")
        if owned:
            await runner.start()
        resubscribed = runner.tasks.resubscribed
        sched = SubtreeQueue(runner, self.queue, self.capacity, deadline, self.stats, workers=self.workers)
        sched.start()
        root = _Node(pos)
        iterations: dict[int, asyncio.Task[_Found]] = {}
        distributed: set[int] = set()  # depths begun as distributed iterations
        self._pv_eldest = {}

        def begin(d: int) -> None:
            async def run() -> _Found:
                _TAG.set((d, 0, 0))
                if self.overlap_after is not None and d - 1 in distributed:
                    # Depth d's principal variation below that ply is then searched: depth
                    # d + 1's eldest chain is ordered by it.
                    await self._eldest_done(d - 1, self.overlap_after).wait()
                return await self._node(sched, root, d, -INFINITE, INFINITE, [*hist], 0)

            if d not in distributed and d <= depth:
                distributed.add(d)
                iterations[d] = asyncio.get_running_loop().create_task(run())

        try:
            first = min(depth, self.direct_depth)
            if not pos.legal_moves():
                first = depth
            direct = await self._direct(sched, root, hist, first, start, deadline, depth)
            first = max(first, direct.depth) if direct.depth <= depth else first
            yield direct
            for d in range(first + 1, depth + 1):
                if deadline is not None and time.time() >= deadline:
                    return
                self._iteration = d
                begin(d)
                if self.overlap:
                    # The next depth runs beside this one, its jobs after every job of this one
                    # (Scheduler: a later iteration only fills slots this one leaves free).
                    begin(d + 1)
                try:
                    found = await iterations.pop(d)
                except SearchDeadlineExceeded:
                    return
                self.stats.depth_done[d] = time.time()
                if self.overlap_after is not None:  # (that node may have been one task)
                    self._eldest_done(d, self.overlap_after).set()
                yield self._result(root, d, found, start)
        finally:
            for t in iterations.values():
                t.cancel()
            if iterations:
                await asyncio.gather(*iterations.values(), return_exceptions=True)
            await sched.close()
            self.stats.resubscribed += runner.tasks.resubscribed - resubscribed
            if owned:
                await runner.close()

    def search(
        self,
        position: griot.Position | str,
        depth: int,
        *,
        time_limit: float | None = None,
        history: Sequence[griot.Position | str] = (),
        on_depth: Callable[[DepthResult], object] | None = None,
    ) -> DepthResult:
        """Blocking form of :meth:`iterate`: returns the deepest completed depth."""

        async def run() -> DepthResult:
            last = None
            async for r in self.iterate(position, depth, time_limit=time_limit, history=history):
                last = r
                if on_depth is not None:
                    on_depth(r)
            if last is None:
                raise SearchDeadlineExceeded("no depth completed before the deadline")
            return last

        return asyncio.run(run())

    # -- internals -----------------------------------------------------------------------------

    def _tag(self) -> tuple[int, int, int]:
        """This asyncio task's :data:`_TAG`: (its iteration, eldest chain, below a speculative
        search), the current iteration's untagged default outside any."""
        return _TAG.get((self._iteration, 0, 0))

    def _eldest_done(self, depth: int, ply: int) -> asyncio.Event:
        """Set when the principal variation's node at ``ply`` has its eldest child's first
        result at ``depth``."""
        return self._pv_eldest.setdefault((depth, ply), asyncio.Event())

    async def _direct(
        self,
        sched: SubtreeQueue,
        root: _Node,
        hist: list[griot.Position],
        depth: int,
        start: float,
        deadline: float | None,
        max_depth: int | None = None,
    ) -> DepthResult:
        """The first depths in one task (multi-PV, so every root move gets an exact score that
        orders the next iteration): ``depth``, or with ``direct_seconds`` as many up to
        ``max_depth`` as fit in that time."""
        budgeted = self.direct_seconds is not None and max_depth is not None and max_depth > depth
        kwargs = position_args(
            root.position.variant.canonical,
            root.text,
            depth=max_depth if budgeted else depth,
            multipv=0,
            history=[str(h) for h in hist],
            deadline=deadline,
            search_id=self._search_id,
            fresh=True if self.fresh_tables else None,
            min_depth=depth if budgeted else None,
            budget=self.direct_seconds if budgeted else None,
        )

        sent_at = time.time()
        try:
            res = await sched.run(kwargs, (0, 0, 0), name=SEARCH_POSITION, whole=True)
        except SearchDeadlineExceeded:
            raise SearchDeadlineExceeded("the first depth did not complete before the deadline") from None
        self.stats.first = {"sent": sent_at, "notified": time.time()}
        self.stats.first |= {k: res[k] for k in ("started", "finished") if isinstance(res.get(k), float)}
        self.stats.nodes += res["nodes"]
        root.estimates[res["depth"]] = res["value"]
        moves = [MoveValue(m["move"], m["value"], m["bound"]) for m in res["moves"]]
        if root.position.legal_moves():
            children = root.expand()
            index = {m: i for i, (m, _, _) in enumerate(children)}
            root.order = [index[m.move] for m in moves if m.move in index]
            for _, subtree, _ in children:  # that worker's kept table holds them
                subtree.worker = res.get("node")
                # searched there with full windows (multi-PV) to every depth below the task's
                subtree.windows = {d: (-INFINITE, INFINITE) for d in range(1, res["depth"])}
            for mv in moves:  # child estimates from the exact per-move scores
                child = children[index[mv.move]]
                child[1].estimates[res["depth"] - 1] = (
                    child[2] * to_child(mv.value) if child[2] < 0 else to_child(mv.value)
                )
        return DepthResult(
            depth=res["depth"],
            best_move=res["best"],
            value=res["value"],
            score=res["score"],
            pv=res["pv"],
            moves=moves,
            nodes=self.stats.nodes,
            elapsed=time.time() - start,
            tasks=self.stats.sent,
            cache_answers=self.stats.cache_answers,
            redispatched=self.stats.redispatched,
        )

    def _result(self, root: _Node, depth: int, found: _Found, start: float) -> DepthResult:
        assert found.bound == EXACT, found
        moves = []
        for i in root.order or []:
            mv, child, sign = root.children[i]  # type: ignore[index]
            v = child.estimates.get(depth - 1)
            if v is None:
                continue
            pv = from_child(v) * sign if sign < 0 else from_child(v)
            best = found.pv[0] if found.pv else None
            moves.append(MoveValue(mv, pv, EXACT if mv == best else UPPER))
        return DepthResult(
            depth=depth,
            best_move=found.pv[0] if found.pv else None,
            value=found.value,
            score=score_text(found.value),
            pv=found.pv,
            moves=moves,
            nodes=self.stats.nodes,
            elapsed=time.time() - start,
            tasks=self.stats.sent,
            cache_answers=self.stats.cache_answers,
            redispatched=self.stats.redispatched,
        )

    async def _leaf(
        self,
        sched: SubtreeQueue,
        node: _Node,
        depth: int,
        alpha: int,
        beta: int,
        path: list[griot.Position],
        priority: tuple[int, ...],
    ) -> _Found:
        iteration, chain, _ = self._tag()
        again = depth in node.windows  # searched at this depth already (another window)
        kwargs = subtree_args(
            node.position.variant.canonical,
            node.text,
            depth,
            alpha,
            beta,
            history=[str(p) for p in path],
            use_cache=self.use_cache,
            search_id=self._search_id,
            resume=True if self.resume else None,
            fresh=True if self.fresh_tables else None,
        )

        def prepare(kw: dict[str, Any]) -> dict[str, Any]:
            # At sending time: an earlier iteration's task on this node may have ended since.
            if self.iteration_windows:
                kw["windows"] = [[d, a, b] for d, (a, b) in sorted(node.windows.items()) if d < depth]
            return kw

        r = await sched.run(kwargs, (iteration, *priority), prefer=node.worker, node=node, prepare=prepare)
        if r.get("source") == "search":
            node.windows[depth] = (alpha, beta)
            node.worker = r.get("worker")
            self.stats.nodes += r["nodes"]
            self.stats.cpu += r.get("search_cpu", 0.0)
            self.stats.timings.append(
                (
                    r["started"] - r["sent"],
                    r["finished"] - r["started"],
                    r["nodes"],
                    iteration,
                    r["sent"],
                )
            )
            self.stats.trace.append(
                {k: r[k] for k in TRACE_KEYS if isinstance(r.get(k), float)}
                | {
                    "depth": iteration,
                    "chain": chain,
                    "ply": priority[-1],
                    "spec": priority[0],
                    "wide": float(beta - alpha > 1),
                    "again": float(again),
                }
            )
        else:
            self.stats.cache_answers += 1
        return _Found(r["value"], r["bound"], list(r.get("pv") or []))

    async def _node(
        self,
        sched: SubtreeQueue,
        node: _Node,
        depth: int,
        alpha: int,
        beta: int,
        path: list[griot.Position],
        ply: int,
        pv: bool = True,
    ) -> _Found:
        """The value of ``node`` searched to ``depth`` with window ``(alpha, beta)`` (fail-soft,
        node-relative), its top plies here, the rest in tasks. Nodes on the principal variation
        (``pv``: eldest children from the root down) are split ``pv_split`` plies deeper: their
        subtrees are the ones everything else waits for."""
        limit = self.split + (self.pv_split if pv else 0)
        pos = node.position
        if ply > 0 and any(p.zobrist == node.key for p in path):
            # A repetition ends the game as an endless cycle, as in the core.
            return _Found(_outcome_value(pos, pos.endless_outcome()), EXACT, [])
        outcome = pos.outcome
        if outcome is not None and not pos.legal_moves():
            return _Found(_outcome_value(pos, outcome), EXACT, [])
        if ply >= limit or depth - 1 < self.min_task_depth or not pos.legal_moves():
            found = await self._leaf(sched, node, depth, alpha, beta, path, (self._tag()[2], ply))
            node.estimates[depth] = found.value
            return found

        children = node.expand()
        assert node.order is not None
        n = len(children)
        lo = [-INFINITE] * n
        hi = [INFINITE] * n
        pvs: list[list[str]] = [[] for _ in range(n)]
        running: dict[int, asyncio.Task[_Found]] = {}
        windows: dict[int, tuple[int, int]] = {}
        eldest = node.order[0]
        child_path = [*path, pos]
        # (With one slot nothing is idle while the eldest runs: no speculation.)
        spec = (self.speculate is True or (self.speculate == "pv" and pv)) and sched.capacity > 1
        specs: set[int] = set()  # children whose running search is speculative
        dropped: list[asyncio.Task[_Found]] = []
        est = node.estimate(depth, low=self.guess == "low") if spec else None
        attempts = [0] * n
        guess: int | None = None  # the speculative null window's, until the eldest sets the floor

        def launch(i: int, a: int, b: int, speculative: bool) -> None:
            _, child, sign = children[i]
            if a >= WIN - 1 or b <= 1 - WIN:
                # Seen from here a child is worth at most a win (or at least a loss) in one ply, so
                # this window is decided without a search; one ply lower it would be empty.
                windows[i] = (a, b)
                attempts[i] += 1
                running[i] = asyncio.get_running_loop().create_task(_decided(a >= WIN - 1, sign))
                return
            if sign < 0:
                ca, cb = -to_child(b), -to_child(a)
            else:
                ca, cb = to_child(a), to_child(b)
            ca, cb = max(ca, -INFINITE), min(cb, INFINITE)
            windows[i] = (a, b)
            attempts[i] += 1
            below = self._tag()[2]
            prio = (1 if speculative or below else 0, ply)
            if speculative:
                specs.add(i)
                self.stats.speculative += 1
            else:
                specs.discard(i)

            child_pv = pv and i == eldest
            child_limit = self.split + (self.pv_split if child_pv else 0)

            async def go() -> _Found:
                it, chain, _ = self._tag()
                # (A speculative search's subtree is speculative all the way down.)
                _TAG.set((it, ply + 1 if child_pv else chain, prio[0]))
                if ply + 1 >= child_limit or depth - 2 < self.min_task_depth:
                    return await self._leaf_or_terminal(
                        sched, child, depth - 1, ca, cb, child_path, prio, ply + 1
                    )
                return await self._node(sched, child, depth - 1, ca, cb, child_path, ply + 1, child_pv)

            running[i] = asyncio.get_running_loop().create_task(go())

        try:
            while True:
                best_lo = max(lo)
                floor = max(alpha, best_lo)
                if guess is not None and best_lo > -INFINITE:
                    self.stats.guesses.append((self._tag()[0], ply, guess, best_lo))
                    guess = None
                if best_lo >= beta:
                    found = _Found(best_lo, LOWER, pvs[lo.index(best_lo)])
                    break
                unresolved = [i for i in node.order if hi[i] > floor and lo[i] < hi[i]]
                if not unresolved:
                    if best_lo > alpha:
                        found = _Found(best_lo, EXACT, pvs[lo.index(best_lo)])
                    else:
                        found = _Found(max(hi), UPPER, [])
                    break
                started_any = any(lo[i] > -INFINITE or hi[i] < INFINITE for i in range(n))
                for i in [
                    i
                    for i in specs
                    if i in running
                    and floor > -INFINITE
                    and (
                        windows[i][0] > floor or (windows[i][0] != floor and sched.waiting_on(children[i][1]))
                    )
                ]:
                    # A speculative null window above the floor: its likely answer (fails low)
                    # would not settle the child against the floor. Revoked; searched again at
                    # the floor below. One below the floor that has not been sent yet is
                    # replaced at no cost by the search at the floor.
                    specs.discard(i)
                    t = running.pop(i)
                    t.cancel()
                    dropped.append(t)
                    self.stats.dropped += 1
                for i in unresolved:
                    if i in running:
                        continue
                    if i == eldest and not started_any:
                        launch(i, alpha, beta, False)
                    elif best_lo > -INFINITE and lo[i] == best_lo and best_lo > alpha:
                        # The best so far, known only as a bound: its exact value is needed.
                        others = max([alpha] + [lo[j] for j in range(n) if j != i])
                        launch(i, others, beta, False)
                    elif floor > -INFINITE and (started_any or i == eldest):
                        launch(i, floor, floor + 1, False)
                    elif est is not None and spec and not started_any:
                        g = min(max(alpha, est), beta - 1)
                        guess = g
                        launch(i, g, g + 1, True)
                if not running:
                    raise RuntimeError(f"distributed search stalled at {node.text} depth {depth}")
                done, _ = await asyncio.wait(running.values(), return_when=asyncio.FIRST_COMPLETED)
                for i, t in list(running.items()):
                    if t not in done:
                        continue
                    del running[i]
                    specs.discard(i)
                    r = t.result()
                    mv, child, sign = children[i]
                    v = from_child(r.value)
                    b = r.bound
                    if sign < 0:
                        v = -v
                        b = {LOWER: UPPER, UPPER: LOWER}.get(b, b)
                    if b == EXACT:
                        lo[i] = hi[i] = v
                    elif b == LOWER:
                        lo[i] = max(lo[i], v)
                    else:
                        hi[i] = min(hi[i], v)
                    if lo[i] > hi[i]:
                        # Two searches disagree (a deeper cached value in one of them): trust
                        # the latest alone.
                        lo[i], hi[i] = (
                            (v, v) if b == EXACT else ((v, INFINITE) if b == LOWER else (-INFINITE, v))
                        )
                    if b != UPPER:
                        pvs[i] = [mv, *r.pv]
                    if pv and i == eldest and self.overlap and ply == self.overlap_after:
                        self._eldest_done(depth, ply).set()
                    if attempts[i] > 8:
                        raise TaskFailed(f"child {mv} of {node.text} would not settle")
        finally:
            for t in running.values():
                t.cancel()
            if running or dropped:
                await asyncio.gather(*running.values(), *dropped, return_exceptions=True)

        # Next iteration's order: exact and lower-bounded children by value, then the rest by
        # their upper bound (the engine's root ordering).
        rank = {i: k for k, i in enumerate(node.order)}
        node.order = sorted(
            range(n),
            key=lambda i: (
                (0, -lo[i]) if lo[i] > -INFINITE else (1, -hi[i]) if hi[i] < INFINITE else (2, rank[i])
            ),
        )
        for i, (_, child, sign) in enumerate(children):
            if lo[i] > -INFINITE or hi[i] < INFINITE:
                v = lo[i] if lo[i] > -INFINITE else hi[i]
                child.estimates[depth - 1] = -to_child(v) if sign < 0 else to_child(v)
        node.estimates[depth] = found.value
        return found

    async def _leaf_or_terminal(
        self,
        sched: SubtreeQueue,
        node: _Node,
        depth: int,
        alpha: int,
        beta: int,
        path: list[griot.Position],
        priority: tuple[int, ...],
        ply: int,
    ) -> _Found:
        pos = node.position
        if any(p.zobrist == node.key for p in path):
            return _Found(_outcome_value(pos, pos.endless_outcome()), EXACT, [])
        outcome = pos.outcome
        if outcome is not None and not pos.legal_moves():
            return _Found(_outcome_value(pos, outcome), EXACT, [])
        return await self._leaf(sched, node, depth, alpha, beta, path, priority)
