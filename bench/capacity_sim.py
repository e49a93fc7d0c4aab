"""Griot's capacity model and a discrete-event simulation of it.

    python bench/capacity_sim.py sim --games 10000 --seconds 60          # open load, a move per 10 s
    python bench/capacity_sim.py check bench/capacity-runs/2026-11-29-quiet.jsonl --calibrate 100
    python bench/capacity_sim.py size --games 10000,100000,1000000      # the sizing table

The model (docs/CAPACITY.md has it in words): a live game sends one evaluation request per move.
Each request is served by a gateway replica (one event loop: a single server, its CPU per
request), which looks the position up in the evaluation cache (one round trip to the Redis
shard of the position's key). A hit is answered there; a request for a position another request
is already searching joins that search (deduplication); a miss sends one task through the
broker (a single Redis: one server, its time per command) to the worker pool (``cores``
single-process servers, first come first served), whose process computes the search and waits on
its cache round trips (its commands split over a few round trips, each to a random shard) and on
storing its result before it takes the next task; the result comes back through the broker and
the gateway to every request waiting for it.

Every station is a FIFO queue with its own servers, each one thread: its time per request is the
CPU the measured runs give. Where it runs is the model's other half: in a deployment each server
has a core of its own (``speed``: the fraction of it it gets); on one machine (the measured runs:
two cores for two workers, the gateway, two redis-servers and the load generator) the servers
share the machine's cores (``machine_cores``) as the kernel shares them, each runnable one an
equal share of at most one core (processor sharing), beside other users' runnable processes.
Everything is seeded: the same arguments give the same figures. Standard library only.

``PARAMS`` holds every number of the model with the command it comes from.
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import random
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

# ---------------------------------------------------------------------------------------------
# The parameters, each with where its number comes from


@dataclass(frozen=True)
class Param:
    value: float
    source: str


PARAMS: dict[str, Param] = {
    "move_period_s": Param(10.0, "a move every 10 s per live game (the sizing's premise)"),
    "board_time_budget_s": Param(
        5.0,
        "the board's default analysis: maxDepth 0, maxTime 5 s (web/app/src/engine.ts); a time-limited "
        "search runs its whole budget (griot.search(start, time=1.0) took 1.00-1.16 s wall on abapa, "
        "awale, oware): 5 core-seconds per search",
    ),
    "gateway_cpu_ms": Param(
        0.53,
        "gateway CPU per evaluation on a quiet machine, 1,000 live games at depth 14: "
        "`python bench/gateway_load.py live --games 1000 --moves 3 --depth 14 --warm` (RESULTS-gateway.md)",
    ),
    "gateway_cpu_ms_cached": Param(
        0.37,
        "gateway CPU per cached evaluation, the mean of 20 runs (0.29-0.48 ms), the same command's "
        "--warm pass (every update answered from the cache): the check's per-evaluation part of the "
        "gateway's CPU, the rest of a calibration run's gateway CPU charged per search task",
    ),
    "gateway_task_cpu_ms": Param(
        1.1,
        "gateway CPU per search task beyond a cached evaluation's (the task out, its progress reports "
        "and result in, the cache store, the depths fanned out to its subscribers): the 0.534 ms per "
        "evaluation of the same command's cold pass less 0.37 ms for each of its 4,000 evaluations, "
        "over its ~594 tasks ((0.534 - 0.37) x 4,000 / 594); the sizing charges a request 0.37 ms "
        "and a search this",
    ),
    "gateway_cache_commands": Param(
        3.0,
        "gateway's cache commands per request (lookup script, flight marker, store); cache commands "
        "at depth 8, where the search never reaches Redis, are 10.3 per evaluation with the task's "
        "own lookup: `python bench/evaluation_costs.py --depths 8,12,16 --games 100,300 "
        "--workers 1,2 --moves 3`",
    ),
    "search_cache_commands_d12": Param(
        144.0,
        "cache commands per search task at depth 12 besides the gateway's 3 per request: "
        "(28,818 - 3 x 400) / 192 tasks, `python bench/capacity_check.py --games 100`; "
        "evaluation_costs.py's 72 per evaluation counts the deduplicated requests too (52 %)",
    ),
    "search_cache_commands_board": Param(
        296.0,
        "cache commands per search task at depth 16 (the deepest measured row; a 5 s search goes "
        "deeper, but only nodes 8 plies or more from the leaves reach Redis): 142 per evaluation "
        "over the 48 % of requests that search at 100 games, `python bench/evaluation_costs.py "
        "--depths 8,12,16 --games 100,300 --workers 1,2 --moves 3`",
    ),
    "search_round_trips": Param(
        4.0,
        "round trips a search's cache commands are grouped in (per-iteration MGET and EVALSHA "
        "pipelines): an assumption, it moves latency only when a shard queues, not utilisation",
    ),
    "broker_commands_d12": Param(
        22.9, "broker commands per search task at depth 12: 4,405 / 192 tasks, capacity_check.py --games 100"
    ),
    "broker_commands_board": Param(
        39.6,
        "broker commands per search task at depth 16: 19.0 per evaluation over 48 %, evaluation_costs.py",
    ),
    "worker_cpu_ms_d12": Param(
        39.5,
        "worker CPU per search task at depth 12: 7.58 CPU-s over 192 tasks, "
        "`python bench/capacity_check.py --games 100` (RESULTS-capacity.md, load 12-13)",
    ),
    "redis_us_per_command": Param(
        16.6,
        "cache Redis CPU per command in Griot's own mix (MGET, EVALSHA, GET, SET, HINCRBY): "
        "INFO cpu over INFO stats, 0.716 s over 43,084 commands, `python bench/capacity_check.py "
        "--games 200,100,300,1000` (its 200-game run, load 17-18: contention inflates it)",
    ),
    "broker_us_per_command": Param(
        76.6,
        "broker Redis CPU per command (Celery's queue, results, their notifications): 0.537 s over "
        "7,009 commands, the same run",
    ),
    "shard_imbalance": Param(
        1.03,
        "busiest primary over the mean, commands: 1.024-1.029 (`python bench/cluster_balance.py "
        "--positions 3 --search-depth 16 --games 300 --moves 3 --depth 12`)",
    ),
    "search_cv": Param(
        0.8,
        "coefficient of variation of a search's time (lognormal): 0.798 over the 341 distinct "
        "positions of 300 live games at depth 12, in process (mean 17.8 ms CPU), "
        "`python bench/capacity_check.py --games 300 --spread`; a time-limited search is nearly "
        "constant (0.05)",
    ),
    "search_share": Param(
        0.48,
        "the share of a search task's worker CPU that is the search itself (the rest, Celery and the "
        "task's Redis client, does not vary with the position): the 192 distinct positions of 100 "
        "live games searched in process to depth 12, each with a fresh 16 MB table, took 2.32 s of "
        "CPU (load 2.6) against the workers' 4.81 s for the same 192 tasks in the quiet 100-game run; "
        "17.8 ms against 39.5 ms per task (0.45) in the loaded runs",
    ),
    "load_client_cpu_ms": Param(
        0.5,
        "CPU of `bench/gateway_load.py live`'s own process per evaluation (it shares the machine with "
        "the stack in the measured runs): 0.48-0.53 ms over 4,000 evaluations against "
        "`bench/grpc_echo.py` at 2 and 3 messages per update (the echo server 0.33-0.36 ms), "
        "two runs each, load 2.6-3.4: the check's per-evaluation part of the load generator's CPU, the "
        "rest of a calibration run's `client_cpu_s` (the progress messages of a search) per search task",
    ),
    "target_util_workers": Param(0.8, "sizing target: worker cores busy at most 80 %"),
    "target_util_gateway": Param(
        0.6, "sizing target: a gateway replica's CPU at most 60 % (its event loop's lag)"
    ),
    "target_util_redis": Param(
        0.5, "sizing target: a Redis at most 50 % busy (one thread; headroom for bursts)"
    ),
    "wait_interactive_s": Param(
        5.0,
        "autoscaling: the wait a queued interactive search may add, one board search (5 s): a person "
        "waits at most one more search than their own",
    ),
    "wait_batch_s": Param(
        0.5, "autoscaling: the wait a queued batch search (a game's turn at depth 12) may add"
    ),
    "gateway_window": Param(
        32.0,
        "search tasks at the workers per gateway replica (GRIOT_GATEWAY_WINDOW, deploy/k8s/gateway.yaml)",
    ),
    "hit_rate": Param(
        0.1,
        "evaluation cache hits plus deduplicated requests among live games' moves: an assumption "
        "for real traffic (openings repeat, middlegames rarely); the synthetic load's games share "
        "far more (52 % deduplicated at 100 games)",
    ),
}


def p(name: str) -> float:
    return PARAMS[name].value


# ---------------------------------------------------------------------------------------------
# The event engine and its stations


class Sim:
    def __init__(self, seed: int) -> None:
        self.now = 0.0
        self.rng = random.Random(seed)
        self._events: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0

    def at(self, t: float, fn: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._events, (t, self._seq, fn))

    def run(self, until: float = math.inf) -> None:
        while self._events and self._events[0][0] <= until:
            t, _, fn = heapq.heappop(self._events)
            self.now = t
            fn()


class Cpu:
    """A machine's cores shared by its processes (processor sharing, as the kernel's scheduler
    shares them): while ``n`` processes are runnable, each progresses at ``min(1, cores / n)`` of
    a core (one thread uses at most one core). ``background`` processes of other users are
    always runnable and take their share without being simulated."""

    def __init__(self, sim: Sim, cores: float, background: float = 0.0) -> None:
        self.sim, self.cores, self.background = sim, cores, background
        self.jobs: dict[int, list[Any]] = {}  # id -> [CPU seconds left, done]
        self._t = 0.0
        self.used = 0.0  # core-seconds the jobs got
        self._ids = 0
        self._version = 0

    def utilisation(self, seconds: float) -> float:
        """The share of the machine's cores the simulated processes used."""
        self._advance()
        return self.used / (self.cores * seconds) if seconds > 0 else 0.0

    def rate(self) -> float:
        n = len(self.jobs) + self.background
        return min(1.0, self.cores / n) if n > 0 else 1.0

    def run(self, work: float, done: Callable[[], None]) -> None:
        self._advance()
        self._ids += 1
        self.jobs[self._ids] = [work, done]
        self._schedule()

    def _advance(self) -> None:
        step = (self.sim.now - self._t) * self.rate()
        self.used += step * len(self.jobs)
        self._t = self.sim.now
        if step > 0:
            for job in self.jobs.values():
                job[0] -= step

    def _schedule(self) -> None:
        self._version += 1
        if self.jobs:
            left = min(j[0] for j in self.jobs.values())
            v = self._version
            self.sim.at(self.sim.now + max(0.0, left) / self.rate(), lambda: self._fire(v))

    def _fire(self, version: int) -> None:
        if version != self._version:
            return  # the runnable set changed since: a later event stands for this one
        self._advance()
        # A nanosecond of CPU left is rounding: ending there keeps the next event after now.
        ended = [k for k, j in self.jobs.items() if j[0] <= 1e-9]
        dones = [self.jobs.pop(k)[1] for k in ended]
        self._schedule()
        for d in dones:
            d()


class Station:
    """``servers`` identical servers, one FIFO queue; busy time kept for utilisation. A server
    computes on its own core at ``speed``, or on a shared machine's ``cpu``; ``acquire`` holds
    one for a caller that also waits on others (a worker during its Redis round trips)."""

    def __init__(self, sim: Sim, name: str, servers: int, speed: float = 1.0, cpu: Cpu | None = None) -> None:
        self.sim, self.name, self.servers = sim, name, servers
        self.speed, self.cpu = speed, cpu
        self.free = servers
        self.queue: deque[Callable[[], None]] = deque()
        self.busy = 0.0
        self.cpu_s = 0.0  # CPU seconds computed
        self.served = 0
        self._t = 0.0

    def _account(self) -> None:
        self.busy += (self.sim.now - self._t) * (self.servers - self.free)
        self._t = self.sim.now

    def acquire(self, start: Callable[[], None]) -> None:
        if self.free:
            self._account()
            self.free -= 1
            start()
        else:
            self.queue.append(start)

    def release(self) -> None:
        self.served += 1
        if self.queue:
            self.queue.popleft()()
        else:
            self._account()
            self.free += 1

    def compute(self, work: float, done: Callable[[], None]) -> None:
        """``work`` CPU seconds on this station's processor (the caller holds a server)."""
        self.cpu_s += work
        if self.cpu is not None:
            self.cpu.run(work, done)
        else:
            self.sim.at(self.sim.now + work / self.speed, done)

    def submit(self, service: float, done: Callable[[], None]) -> None:
        def finish() -> None:
            self.release()
            done()

        self.acquire(lambda: self.compute(service, finish))

    def reset(self) -> None:
        self._account()
        self.busy = 0.0
        self.cpu_s = 0.0

    def utilisation(self, seconds: float) -> float:
        self._account()
        return self.busy / (self.servers * seconds) if seconds > 0 else 0.0


def lognormal(rng: random.Random, mean: float, cv: float) -> float:
    if cv <= 0:
        return mean
    s2 = math.log(1 + cv * cv)
    return rng.lognormvariate(math.log(mean) - s2 / 2, math.sqrt(s2))


# ---------------------------------------------------------------------------------------------
# The system


@dataclass
class Config:
    gateways: int = 1
    worker_cores: int = 2
    shards: int = 1
    brokers: int = 1
    speed: float = 1.0  # the fraction of a core one server gets (1: dedicated)
    #: A shared machine's cores (0: every server on a core of its own at ``speed``): all the
    #: servers' CPU then comes out of these cores, shared among the runnable ones.
    machine_cores: float = 0.0
    background: float = 0.0  # other runnable processes on that machine
    client_cpu_s: float = 0.0  # the load generator's CPU per answer, when it shares the machine
    #: The load generator's CPU per search task (the depths a search streams to its subscribers).
    client_task_cpu_s: float = 0.0
    #: The gateway's CPU for an evaluation that searches (its request's part and its task's), and
    #: for one that does not (a hit, or a request that joins a search).
    gateway_cpu_s: float = (p("gateway_cpu_ms_cached") + p("gateway_task_cpu_ms")) / 1000
    gateway_cached_cpu_s: float = p("gateway_cpu_ms_cached") / 1000
    search_cpu_s: float = p("worker_cpu_ms_d12") / 1000
    search_cv: float = p("search_cv")
    search_share: float = p("search_share")  # a task's CPU that is the search (spread by search_cv)
    search_commands: float = p("search_cache_commands_d12")
    gateway_commands: float = p("gateway_cache_commands")
    broker_commands: float = p("broker_commands_d12")
    round_trips: int = int(p("search_round_trips"))
    redis_cmd_s: float = p("redis_us_per_command") / 1e6
    broker_cmd_s: float = p("broker_us_per_command") / 1e6
    hit_rate: float = 0.0  # an extra, position-independent hit probability (open load)
    seed: int = 1


@dataclass
class Result:
    requests: int = 0
    searches: int = 0
    hits: int = 0
    joined: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    utilisation: dict[str, float] = field(default_factory=dict)
    cpu_s: dict[str, float] = field(default_factory=dict)

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return math.nan
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(q * len(xs)))]

    def summary(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "searches": self.searches,
            "cache_hits": self.hits,
            "deduplicated": self.joined,
            "seconds": round(self.seconds, 2),
            "throughput_per_s": round(len(self.latencies) / self.seconds, 1) if self.seconds else 0.0,
            "p50_ms": round(1000 * self.percentile(0.5), 1),
            "p99_ms": round(1000 * self.percentile(0.99), 1),
            "utilisation": {k: round(v, 3) for k, v in self.utilisation.items()},
            "cpu_s": {k: round(v, 3) for k, v in self.cpu_s.items()},
        }


class System:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.sim = Sim(cfg.seed)
        self.rng = self.sim.rng
        cpu = Cpu(self.sim, cfg.machine_cores, cfg.background) if cfg.machine_cores > 0 else None
        self.cpu = cpu

        def station(name: str, servers: int = 1) -> Station:
            return Station(self.sim, name, servers, cfg.speed, cpu)

        self.gw = [station(f"gateway{i}") for i in range(cfg.gateways)]
        self.workers = station("workers", cfg.worker_cores)
        self.shards = [station(f"shard{i}") for i in range(cfg.shards)]
        self.brokers = [station(f"broker{i}") for i in range(cfg.brokers)]
        self.client = station("client")
        self.cache: set[Any] = set()
        self.flights: dict[Any, list[Callable[[], None]]] = {}
        self.res = Result()

    def _redis(self, stations: list[Station], commands: float, done: Callable[[], None]) -> None:
        st = stations[self.rng.randrange(len(stations))]
        per = self.cfg.broker_cmd_s if stations is self.brokers else self.cfg.redis_cmd_s
        st.submit(commands * per, done)

    def _redis_chain(
        self, stations: list[Station], commands: float, trips: int, done: Callable[[], None]
    ) -> None:
        if trips <= 0 or commands <= 0:
            done()
            return
        per = commands / trips
        left = [trips]

        def step() -> None:
            left[0] -= 1
            if left[0] == 0:
                done()
            else:
                self._redis(stations, per, step)

        self._redis(stations, per, step)

    def request(self, key: Any, done: Callable[[float], None]) -> None:
        """One evaluation request for position ``key``; ``done(latency)`` when it is answered."""
        c, t0 = self.cfg, self.sim.now
        self.res.requests += 1
        gw = self.gw[self.rng.randrange(len(self.gw))]

        def answered() -> None:
            lat = self.sim.now - t0
            self.res.latencies.append(lat)
            done(lat)

        def looked_up() -> None:
            if key in self.cache or (c.hit_rate > 0 and self.rng.random() < c.hit_rate):
                self.res.hits += 1
                answered()
            elif key in self.flights:
                self.res.joined += 1
                self.flights[key].append(answered)
            else:
                self.flights[key] = [answered]
                self.res.searches += 1
                gw.submit(task_cpu / 2, sent)

        # A search task's own gateway CPU, half for sending it (Celery's message, published from
        # a thread of the gateway), half for its result (notification, cache store, fan-out); the
        # progress reports between come in while the worker searches. One run's total does not
        # say how it splits: halves are the assumption.
        task_cpu = c.gateway_cpu_s - c.gateway_cached_cpu_s

        def sent() -> None:
            self._redis(self.brokers, c.broker_commands / 2, dispatched)

        def dispatched() -> None:
            self.workers.acquire(search)

        def search() -> None:
            fixed = c.search_cpu_s * (1 - c.search_share)
            spread = lognormal(self.rng, c.search_cpu_s * c.search_share, c.search_cv)
            self.workers.compute(fixed + spread, searched)

        def searched() -> None:
            # The worker process waits on its cache round trips and on storing its result: it
            # takes its next task only after them.
            self._redis_chain(self.shards, c.search_commands, c.round_trips, returned)

        def returned() -> None:
            self._redis(self.brokers, c.broker_commands / 2, released)

        def released() -> None:
            self.workers.release()
            result_in()

        def result_in() -> None:
            gw.submit(task_cpu / 2, stored)

        def stored() -> None:
            self.cache.add(key)
            if c.client_task_cpu_s > 0:
                # The load generator reads the depths the search streamed before its result.
                self.client.submit(c.client_task_cpu_s, lambda: None)
            for w in self.flights.pop(key):
                w()

        def parsed() -> None:
            self._redis(self.shards, c.gateway_commands, looked_up)

        gw.submit(c.gateway_cached_cpu_s, parsed)

    def finish(self, seconds: float) -> Result:
        self.res.seconds = seconds
        u = self.res.utilisation
        u["gateway"] = max(g.utilisation(seconds) for g in self.gw)
        u["workers"] = self.workers.utilisation(seconds)
        u["cache_shard"] = max(s.utilisation(seconds) for s in self.shards)
        u["broker"] = max(b.utilisation(seconds) for b in self.brokers)
        if self.cpu is not None:
            u["machine"] = self.cpu.utilisation(seconds)
        groups = {"gateway": self.gw, "workers": [self.workers], "cache": self.shards}
        groups.update(broker=self.brokers, client=[self.client])
        self.res.cpu_s = {k: sum(st.cpu_s for st in v) for k, v in groups.items()}
        return self.res


# ---------------------------------------------------------------------------------------------
# Loads


def closed_load(
    cfg: Config,
    games: int,
    moves: int,
    branching: int = 6,
    variants: int = 4,
    sequences: list[list[Any]] | None = None,
) -> Result:
    """``bench/gateway_load.py live``: every game sends its start, then ``moves`` moves, each as
    soon as the previous one is answered. ``sequences`` gives each game's positions (any keys
    that compare equal when the positions are); without it, game ``i`` plays variant
    ``i % variants`` and draws its moves from a generator seeded with ``i // 3``, one of
    ``branching`` a turn, so games of one variant share their openings by chance."""
    s = System(cfg)
    last = [0.0]
    if sequences is None:
        sequences = []
        for i in range(games):
            rng = random.Random(i // 3)
            path: tuple[int, ...] = ()
            seq: list[Any] = [(i % variants, path)]
            for _ in range(moves):
                path = (*path, rng.randrange(branching))
                seq.append((i % variants, path))
            sequences.append(seq)

    def game(seq: list[Any]) -> None:
        left = iter(seq)

        def answered(_lat: float) -> None:
            last[0] = s.sim.now
            # The load generator reads the answer and sends the next move (its CPU, when it
            # shares the machine, as it does in the measured runs).
            if cfg.client_cpu_s > 0:
                s.client.submit(cfg.client_cpu_s, send)
            else:
                send()

        def send() -> None:
            key = next(left, None)
            if key is not None:
                s.request(key, answered)

        s.request(next(left), answered)

    for seq in sequences[:games]:
        s.sim.at(0.0, lambda seq=seq: game(seq))
    s.sim.run()
    return s.finish(last[0])


def load_sequences(games: int, moves: int) -> list[list[Any]]:
    """The positions ``bench/gateway_load.py live`` sends, game by game (its variants, its seeds,
    its moves drawn from the legal ones): needs griot, only for the check."""
    import griot  # the simulation itself runs without it

    variants = ["abapa", "awale", "bechi", "oware"]
    out = []
    for i in range(games):
        rng = random.Random(i // 3)
        pos = griot.Variant(variants[i % len(variants)]).start()
        seq = [str(pos)]
        for _ in range(moves):
            legal = pos.legal_moves()
            if not legal:
                break
            pos = pos.play(rng.choice(legal))
            seq.append(str(pos))
        out.append(seq)
    return out


def open_load(cfg: Config, games: int, seconds: float, period: float = p("move_period_s")) -> Result:
    """Live games in play: each sends a move every ``period`` seconds on average (exponential
    gaps: a Poisson stream per game), each move a new
    position (no two games share one beyond ``cfg.hit_rate``). Every gap, the first too, is
    exponential, so the arrivals are a Poisson stream from the start. Figures over ``seconds``
    after a warm-up of one period."""
    s = System(cfg)
    warm = period
    n = [0]

    def move(g: int) -> None:
        n[0] += 1
        s.request((g, n[0]), lambda _l: None)
        s.sim.at(s.sim.now + s.rng.expovariate(1 / period), lambda: move(g))

    for g in range(games):
        s.sim.at(s.rng.expovariate(1 / period), lambda g=g: move(g))
    s.sim.run(warm)
    # Count only what arrives after the warm-up.
    s.res.latencies.clear()
    for st in [*s.gw, s.workers, *s.shards, *s.brokers]:
        st.reset()
    s.sim.run(warm + seconds)
    return s.finish(seconds)


# ---------------------------------------------------------------------------------------------
# Queueing closed forms (for the tests and the sizing)


def erlang_c(servers: int, offered: float) -> float:
    """Probability an arrival waits in M/M/c with ``offered`` = lambda/mu erlangs."""
    if offered >= servers:
        return 1.0
    b = 1.0
    for k in range(1, servers + 1):
        b = offered * b / (k + offered * b)  # Erlang B by recursion
    rho = offered / servers
    return b / (1 - rho + rho * b)


def mmc_mean_wait(servers: int, arrival: float, service: float) -> float:
    a = arrival * service
    return erlang_c(servers, a) * service / (servers - a)


# ---------------------------------------------------------------------------------------------
# Sizing


@dataclass(frozen=True)
class Sizing:
    games: int
    evaluations_per_s: float
    searches_per_s: float
    gateway_replicas: int
    worker_cores: int
    cache_shards: int
    broker_commands_per_s: float
    brokers: int
    first_to_saturate: str
    #: Live games at which one instance of each part reaches its target utilisation.
    one_instance_games: dict[str, int]


def size(
    games: int,
    *,
    period: float = p("move_period_s"),
    hit_rate: float = p("hit_rate"),
    search_cpu_s: float = p("board_time_budget_s"),
    search_commands: float = p("search_cache_commands_board"),
    broker_commands: float = p("broker_commands_board"),
) -> Sizing:
    """The servers each part needs at ``games`` live games, each under its target utilisation
    (means; the open-load simulation checks the queues they give). ``first_to_saturate``: of the
    gateway (one event loop), the cache and the broker (one Redis thread each), the one whose
    single instance reaches its target at the fewest games, if that is fewer than ``games``;
    else the workers (their cores are the largest part at every scale, but one search is one
    core's work, so they grow by adding cores and never meet a single-instance wall)."""
    lam = games / period
    searches = lam * (1 - hit_rate)
    cmd = p("redis_us_per_command") / 1e6
    # The gateway: every request its cached part, every search its task's part.
    gw_eval = (p("gateway_cpu_ms_cached") + (1 - hit_rate) * p("gateway_task_cpu_ms")) / 1000
    gw_load = lam * gw_eval
    gateways = max(1, math.ceil(gw_load / p("target_util_gateway")))
    bcmd = p("broker_us_per_command") / 1e6
    # A worker process holds its core through the search and its own Redis round trips (the
    # table's commands, storing the result): it takes its next task only after them.
    hold = search_cpu_s + search_commands * cmd + broker_commands / 2 * bcmd
    cores = max(1, math.ceil(searches * hold / p("target_util_workers")))
    cache_cmds = lam * p("gateway_cache_commands") + searches * search_commands
    shards = max(1, math.ceil(cache_cmds * cmd * p("shard_imbalance") / p("target_util_redis")))
    broker_cmds = searches * broker_commands
    brokers = max(1, math.ceil(broker_cmds * bcmd / p("target_util_redis")))
    # Games at which one instance of each reaches its target.
    one = {
        "gateway": p("target_util_gateway") / gw_eval * period,
        "cache": p("target_util_redis")
        / (cmd * (p("gateway_cache_commands") + (1 - hit_rate) * search_commands))
        * period,
        "broker": p("target_util_redis") / (bcmd * (1 - hit_rate) * broker_commands) * period,
    }
    over = [k for k, g in sorted(one.items(), key=lambda kv: kv[1]) if g < games]
    first = over[0] if over else "workers"
    return Sizing(
        games,
        lam,
        searches,
        gateways,
        cores,
        shards,
        broker_cmds,
        brokers,
        first,
        {k: int(v) for k, v in one.items()},
    )


def autoscaling() -> dict[str, Any]:
    """The KEDA thresholds (deploy/k8s/keda.yaml) from the model.

    - Worker queue length per worker (KEDA's Redis list scaler: replicas = LLEN / listLength):
      a queued task waits for one search per ``listLength`` tasks ahead of it per worker, so
      ``listLength`` = the wait a queue may add over a search's time, at least 1: the board's
      5 s searches give 1; batch game analysis at depth 12 gives 0.5 s over 39.5 ms.
    - Gateway CPU: one event loop per replica, so the target is the model's utilisation target
      of one core (600m), an average value, not a share of the pod's request.
    - The gateway's window bounds what the broker's lists can show: with ``G`` replicas of
      window ``w``, at most ``G * w`` tasks are out, so the list scaler cannot ask for more than
      ``G * w / (1 + listLength)`` workers (``worker_ceiling``).
    """
    interactive = max(1, int(p("wait_interactive_s") / p("board_time_budget_s")))
    batch = max(1, int(p("wait_batch_s") / (p("worker_cpu_ms_d12") / 1000)))
    return {
        "interactive_list_length": interactive,
        "batch_list_length": batch,
        "gateway_cpu_millicores": round(1000 * p("target_util_gateway")),
        "worker_ceiling_per_gateway": int(p("gateway_window") / (1 + interactive)),
    }


# ---------------------------------------------------------------------------------------------
# The check against measured runs


MACHINE_CORES = 2  # the measured runs' machine, when a run does not record its cores
PROBE_PROCS = 2  # capacity_check.py's --probe-procs default: the busy loops of its probe


def split_cpu(cpu_s: float, evaluations: int, tasks: int, per_evaluation: float) -> tuple[float, float]:
    """A process's CPU over a run as a part per evaluation and a part per search task:
    ``per_evaluation`` (measured on its own: an evaluation that does not search) for every
    evaluation, the rest over the tasks. The two parts cannot be told apart from one run's
    total, so one is measured elsewhere; never more per evaluation than the run used."""
    each = min(per_evaluation, cpu_s / max(1, evaluations))
    return each, max(0.0, cpu_s - each * evaluations) / max(1, tasks)


def calibration(base: dict[str, Any]) -> dict[str, Any]:
    """The costs a measured run gives, as ``Config`` fields: each process's CPU in that run is
    what the model charges it (the workers per task, each Redis per command), the search's
    commands without the gateway's 3 per request. The gateway and the load generator are
    charged per evaluation what one that is answered without a search costs them (measured on
    its own: ``gateway_cpu_ms_cached``, ``load_client_cpu_ms``) and the rest of their CPU in
    the run per search task (the task out, its progress and result in, the cache store, the
    depths it streams): a deduplicated or cached request costs them little, a search a lot.
    The load generator's CPU is the run's own when it was recorded, else 0.5 ms per evaluation."""
    st = base["gateway_stats"]
    tasks = max(1, st.get("tasks_sent", 1))
    ev = max(1, base["evaluations"])
    gw_each, gw_task = split_cpu(base["gateway_cpu_s"], ev, tasks, p("gateway_cpu_ms_cached") / 1000)
    client = base.get("client_cpu_s")
    cl_each, cl_task = (
        split_cpu(client, ev, tasks, p("load_client_cpu_ms") / 1000)
        if client is not None
        else (p("load_client_cpu_ms") / 1000, 0.0)
    )
    costs: dict[str, Any] = {
        # A request's arrival is charged the cached part, a search's result the rest.
        "gateway_cpu_s": gw_each + gw_task,
        "gateway_cached_cpu_s": gw_each,
        "search_cpu_s": base["workers_cpu_s"] / tasks,
        "search_commands": max(0.0, (base["cache_commands"] - p("gateway_cache_commands") * ev) / tasks),
        "gateway_commands": p("gateway_cache_commands"),
        "broker_commands": base["broker_commands"] / tasks,
        "client_cpu_s": cl_each,
        "client_task_cpu_s": cl_task,
    }
    if base.get("cache_cpu_s") and base.get("broker_cpu_s"):
        costs["redis_cmd_s"] = base["cache_cpu_s"] / base["cache_commands"]
        costs["broker_cmd_s"] = base["broker_cpu_s"] / base["broker_commands"]
    return costs


def check(
    rows: Iterable[dict[str, Any]],
    calibrate: int | None = None,
    exact: bool = True,
    cores: str = "shared",
    seeds: int = 8,
    probe_pace: bool = False,
) -> list[dict[str, Any]]:
    """Simulates each measured run of ``bench/capacity_check.py``: two workers, one gateway, one
    cache Redis, one broker and the load generator, all on the run's machine. The costs come from
    the calibration run (``calibrate`` games; the first row by default, :func:`calibration`): the
    other runs are predictions. ``exact``: the games play the load's own positions (griot draws
    them); otherwise the branching model.

    ``cores``: ``shared`` (the model): the machine's cores are shared by all those processes, as
    the kernel shares them, beside the other users' runnable processes that the probe before the
    run found (``core_share``: two busy loops each got that share of a core). ``probe_pace``:
    each cost moved by how much faster the probe found the cores than before the calibration
    run, when both runs recorded it (``probe_rate``); off by default, as the probe's speed does
    not follow the stack's costs (the 2026-11-29 second quiet set: the probe found the
    calibration run's cores 1.19-1.23x faster, its workers used 6-9 % more CPU per task, not
    less). ``probe`` and
    ``in-run``: each server on a core of its own at the share a worker got in the calibration run
    (moved by the probe's ratio), or at the share the run's own workers had.

    Each run is simulated ``seeds`` times: throughput and percentiles are their means (the p99 of
    400 latencies is the fourth slowest: one draw of the searches' times moves it by 10 %)."""
    rows = list(rows)
    base = next((r for r in rows if r["games"] == calibrate), rows[0]) if calibrate else rows[0]
    costs = calibration(base)
    # The fraction of a core a worker got in the calibration run, if it was busy throughout.
    share = base["workers_cpu_s"] / base["seconds"] / base["workers"]
    out = []
    for r in rows:
        if cores == "shared":
            n = r.get("cores", MACHINE_CORES)
            # A run whose probe found the cores faster or slower than the calibration run's.
            pace = (
                base["probe_rate"] / r["probe_rate"]
                if probe_pace and "probe_rate" in base and "probe_rate" in r
                else 1.0
            )
            cfg = Config(
                worker_cores=r["workers"],
                machine_cores=n,
                # The probe's loops got n / (others + loops) of a core each.
                background=max(0.0, n / r["core_share"] - r.get("probe_procs", PROBE_PROCS)),
                **{k: v * pace if k.endswith(("_cpu_s", "_cmd_s")) else v for k, v in costs.items()},
            )
        else:
            cfg = Config(
                worker_cores=r["workers"],
                speed=(
                    r["workers_cpu_s"] / r["seconds"] / r["workers"]
                    if cores == "in-run"
                    else share * r["core_share"] / base["core_share"]
                ),
                **{**costs, "client_cpu_s": 0.0, "client_task_cpu_s": 0.0},
            )
        seqs = load_sequences(r["games"], r["moves"]) if exact else None
        runs = [
            closed_load(replace(cfg, seed=k), r["games"], r["moves"], sequences=seqs).summary()
            for k in range(1, seeds + 1)
        ]
        keys = ("throughput_per_s", "p50_ms", "p99_ms")
        sim = {k: round(sum(x[k] for x in runs) / len(runs), 1) for k in keys}
        first = runs[0]
        measured_cpu = {
            "gateway": r["gateway_cpu_s"],
            "workers": r["workers_cpu_s"],
            "cache": r.get("cache_cpu_s"),
            "broker": r.get("broker_cpu_s"),
            "client": r.get("client_cpu_s"),
        }
        out.append(
            {
                "games": r["games"],
                "load": [r["load_before"], r["load_after"]],
                "core_share": r["core_share"],
                "measured": {k: r[k] for k in ("throughput_per_s", "p50_ms", "p99_ms")},
                "measured_dedup": round(st_ratio(r), 3),
                "simulated": sim,
                "simulated_dedup": round(
                    (first["deduplicated"] + first["cache_hits"]) / max(1, first["requests"]), 3
                ),
                "utilisation": first["utilisation"],
                "cpu_s": {"measured": measured_cpu, "simulated": first["cpu_s"]},
                "throughput_error": round(sim["throughput_per_s"] / r["throughput_per_s"] - 1, 3),
                "p99_error": round(sim["p99_ms"] / r["p99_ms"] - 1, 3),
            }
        )
    return out


def st_ratio(r: dict[str, Any]) -> float:
    s = r["gateway_stats"]
    return (s.get("dedup_local", 0) + s.get("dedup_remote", 0) + s.get("cache_hits", 0)) / max(
        1, r["evaluations"]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a_sim = sub.add_parser("sim", help="open load: live games, a move every period")
    a_sim.add_argument("--games", type=int, default=10_000)
    a_sim.add_argument("--seconds", type=float, default=60.0)
    a_sim.add_argument("--gateways", type=int, default=0, help="0: the sizing's")
    a_sim.add_argument("--worker-cores", type=int, default=0)
    a_sim.add_argument("--shards", type=int, default=0)
    a_sim.add_argument("--brokers", type=int, default=0)
    a_sim.add_argument("--board", action="store_true", help="the board's 5 s searches (default: depth 12)")
    a_sim.add_argument("--seed", type=int, default=1)
    a_chk = sub.add_parser("check", help="simulate the runs of bench/capacity_check.py")
    a_chk.add_argument("file")
    a_chk.add_argument("--calibrate", type=int, default=None, help="games of the calibration run")
    a_chk.add_argument("--branching", action="store_true", help="model the games' positions, not griot's")
    a_chk.add_argument(
        "--cores",
        choices=["shared", "probe", "in-run"],
        default="shared",
        help="shared: the machine's cores shared by all its processes; probe / in-run: each server "
        "its own core at the probe's share or at the share the run's workers had",
    )
    a_chk.add_argument("--seeds", type=int, default=8, help="simulations per run, their means")
    a_chk.add_argument(
        "--probe-pace",
        action="store_true",
        help="move each cost by the probe's speed against the calibration run's (not followed by the costs)",
    )
    a_chk.add_argument("--set", type=int, default=None, help="only the rows of this set (a file of several)")
    a_size = sub.add_parser("size", help="the sizing table")
    a_size.add_argument("--games", default="10000,100000,1000000")
    sub.add_parser("params", help="the parameters and their sources")
    sub.add_parser("autoscaling", help="deploy/k8s/keda.yaml's thresholds")
    a = ap.parse_args()
    if a.cmd == "params":
        for k, v in PARAMS.items():
            print(f"{k} = {v.value:g}: {v.source}")
    elif a.cmd == "autoscaling":
        print(json.dumps(autoscaling()))
    elif a.cmd == "size":
        for g in (int(x) for x in a.games.split(",")):
            print(json.dumps(size(g).__dict__))
    elif a.cmd == "check":
        with open(a.file) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        rows = [r for r in rows if a.set is None or r.get("set") == a.set]
        runs = check(
            rows, a.calibrate, exact=not a.branching, cores=a.cores, seeds=a.seeds, probe_pace=a.probe_pace
        )
        for r in runs:
            print(json.dumps(r))
    else:
        if a.board:
            sz = size(a.games)
            base = Config(
                search_cpu_s=p("board_time_budget_s"),
                search_cv=0.05,
                search_share=1.0,
                search_commands=p("search_cache_commands_board"),
                broker_commands=p("broker_commands_board"),
            )
        else:
            sz = size(
                a.games,
                search_cpu_s=p("worker_cpu_ms_d12") / 1000,
                search_commands=p("search_cache_commands_d12"),
                broker_commands=p("broker_commands_d12"),
            )
            base = Config()
        cfg = replace(
            base,
            gateways=a.gateways or sz.gateway_replicas,
            worker_cores=a.worker_cores or sz.worker_cores,
            shards=a.shards or sz.cache_shards,
            brokers=a.brokers or sz.brokers,
            hit_rate=p("hit_rate"),
            seed=a.seed,
        )
        r = open_load(cfg, a.games, a.seconds).summary()
        r["config"] = {k: getattr(cfg, k) for k in ("gateways", "worker_cores", "shards", "brokers")}
        print(json.dumps(r))


if __name__ == "__main__":
    main()
