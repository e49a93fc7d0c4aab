"""Griot's capacity model and a discrete-event simulation of it.

    python bench/capacity_sim.py sim --games 10000 --seconds 60          # open load, a move per 10 s
    python bench/capacity_sim.py check /tmp/capacity_check.jsonl        # against measured runs
    python bench/capacity_sim.py size --games 10000,100000,1000000      # the sizing table

The model (docs/CAPACITY.md has it in words): a live game sends one evaluation request per move.
Each request is served by a gateway replica (one event loop: a single server, its CPU per
request), which looks the position up in the evaluation cache (one round trip to the Redis
shard of the position's key). A hit is answered there; a request for a position another request
is already searching joins that search (deduplication); a miss sends one task through the
broker (a single Redis: one server, its time per command) to the worker pool (``cores``
servers, first come first served, service time the search's CPU), whose search talks to the
cache shards (its commands split over a few round trips, each to a random shard), and its result
comes back through the broker and the gateway to every request waiting for it.

Every station is a FIFO queue with its own servers; a server's time is the CPU the measured runs
give per request, divided by the fraction of a core it gets (``speed``: 1 on a dedicated core,
the probed share on a shared machine). Everything is seeded: the same arguments give the same
figures. Standard library only.

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
        "gateway CPU per cached evaluation, the middle of 0.26-0.48 ms, the same command's --warm pass",
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


class Station:
    """``servers`` identical servers, one FIFO queue; busy time kept for utilisation."""

    def __init__(self, sim: Sim, name: str, servers: int) -> None:
        self.sim, self.name, self.servers = sim, name, servers
        self.free = servers
        self.queue: deque[tuple[float, Callable[[], None]]] = deque()
        self.busy = 0.0
        self.served = 0

    def submit(self, service: float, done: Callable[[], None]) -> None:
        if self.free:
            self._start(service, done)
        else:
            self.queue.append((service, done))

    def _start(self, service: float, done: Callable[[], None]) -> None:
        self.free -= 1
        self.busy += service

        def finish() -> None:
            self.served += 1
            self.free += 1
            if self.queue:
                s, d = self.queue.popleft()
                self._start(s, d)
            done()

        self.sim.at(self.sim.now + service, finish)

    def utilisation(self, seconds: float) -> float:
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
    gateway_cpu_s: float = p("gateway_cpu_ms") / 1000
    gateway_cached_cpu_s: float = p("gateway_cpu_ms_cached") / 1000
    search_cpu_s: float = p("worker_cpu_ms_d12") / 1000
    search_cv: float = p("search_cv")
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
        }


class System:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.sim = Sim(cfg.seed)
        self.rng = self.sim.rng
        sp = cfg.speed
        self.gw = [Station(self.sim, f"gateway{i}", 1) for i in range(cfg.gateways)]
        self.workers = Station(self.sim, "workers", cfg.worker_cores)
        self.shards = [Station(self.sim, f"shard{i}", 1) for i in range(cfg.shards)]
        self.brokers = [Station(self.sim, f"broker{i}", 1) for i in range(cfg.brokers)]
        self.cache: set[Any] = set()
        self.flights: dict[Any, list[Callable[[], None]]] = {}
        self.res = Result()
        self._sp = sp

    def _redis(self, stations: list[Station], commands: float, done: Callable[[], None]) -> None:
        st = stations[self.rng.randrange(len(stations))]
        per = self.cfg.broker_cmd_s if stations is self.brokers else self.cfg.redis_cmd_s
        st.submit(commands * per / self._sp, done)

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
                self._redis(self.brokers, c.broker_commands / 2, dispatched)

        def dispatched() -> None:
            self.workers.submit(lognormal(self.rng, c.search_cpu_s, c.search_cv) / self._sp, searched)

        def searched() -> None:
            self._redis_chain(self.shards, c.search_commands, c.round_trips, returned)

        def returned() -> None:
            self._redis(self.brokers, c.broker_commands / 2, result_in)

        def result_in() -> None:
            gw.submit((c.gateway_cpu_s - c.gateway_cached_cpu_s) / self._sp, stored)

        def stored() -> None:
            self.cache.add(key)
            for w in self.flights.pop(key):
                w()

        def parsed() -> None:
            self._redis(self.shards, c.gateway_commands, looked_up)

        gw.submit(c.gateway_cached_cpu_s / self._sp, parsed)

    def finish(self, seconds: float) -> Result:
        self.res.seconds = seconds
        u = self.res.utilisation
        u["gateway"] = max(g.utilisation(seconds) for g in self.gw)
        u["workers"] = self.workers.utilisation(seconds)
        u["cache_shard"] = max(s.utilisation(seconds) for s in self.shards)
        u["broker"] = max(b.utilisation(seconds) for b in self.brokers)
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
        st.busy = 0.0
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
    gw_load = lam * p("gateway_cpu_ms") / 1000
    gateways = max(1, math.ceil(gw_load / p("target_util_gateway")))
    cores = max(1, math.ceil(searches * search_cpu_s / p("target_util_workers")))
    cache_cmds = lam * p("gateway_cache_commands") + searches * search_commands
    shards = max(1, math.ceil(cache_cmds * cmd * p("shard_imbalance") / p("target_util_redis")))
    bcmd = p("broker_us_per_command") / 1e6
    broker_cmds = searches * broker_commands
    brokers = max(1, math.ceil(broker_cmds * bcmd / p("target_util_redis")))
    # Games at which one instance of each reaches its target.
    one = {
        "gateway": p("target_util_gateway") / (p("gateway_cpu_ms") / 1000) * period,
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


def check(
    rows: Iterable[dict[str, Any]], calibrate: int | None = None, exact: bool = True, in_run: bool = False
) -> list[dict[str, Any]]:
    """Simulates each measured run of ``bench/capacity_check.py``: two worker cores, one gateway,
    one cache Redis and one broker, every server running at the probed core share. The search's
    CPU per task, the gateway's CPU per request and the commands come from the calibration run
    (``calibrate`` games; the first row by default): the other runs are predictions. ``exact``:
    the games play the load's own positions (griot draws them); otherwise the branching model.
    ``in_run``: each run's servers get the core share its workers had (their CPU over the wall
    time: the cores the machine gave during that run) instead of the probe's before it."""
    rows = list(rows)
    base = next((r for r in rows if r["games"] == calibrate), rows[0]) if calibrate else rows[0]
    st = base["gateway_stats"]
    tasks = max(1, st.get("tasks_sent", 1))
    ev = max(1, base["evaluations"])
    # The fraction of a core a worker got in the calibration run (busy throughout: a closed loop
    # with more games than workers), moved to each run's load by the probe's ratio.
    share = base["workers_cpu_s"] / base["seconds"] / base["workers"]
    out = []
    for r in rows:
        cfg = Config(
            worker_cores=r["workers"],
            speed=(
                r["workers_cpu_s"] / r["seconds"] / r["workers"]
                if in_run
                else share * r["core_share"] / base["core_share"]
            ),
            gateway_cpu_s=base["gateway_cpu_s"] / ev,
            gateway_cached_cpu_s=base["gateway_cpu_s"] / ev / 2,
            search_cpu_s=base["workers_cpu_s"] / tasks,
            search_commands=max(0.0, base["cache_commands"] / tasks - 3),
            gateway_commands=3,
            broker_commands=base["broker_commands"] / tasks,
        )
        seqs = load_sequences(r["games"], r["moves"]) if exact else None
        sim = closed_load(cfg, r["games"], r["moves"], sequences=seqs).summary()
        out.append(
            {
                "games": r["games"],
                "load": [r["load_before"], r["load_after"]],
                "core_share": r["core_share"],
                "measured": {k: r[k] for k in ("throughput_per_s", "p50_ms", "p99_ms")},
                "measured_dedup": round(st_ratio(r), 3),
                "simulated": {k: sim[k] for k in ("throughput_per_s", "p50_ms", "p99_ms")},
                "simulated_dedup": round(
                    (sim["deduplicated"] + sim["cache_hits"]) / max(1, sim["requests"]), 3
                ),
                "utilisation": sim["utilisation"],
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
    a_chk.add_argument("--in-run-share", action="store_true", help="the core share the run's workers had")
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
        for r in check(rows, a.calibrate, exact=not a.branching, in_run=a.in_run_share):
            print(json.dumps(r))
    else:
        if a.board:
            sz = size(a.games)
            base = Config(
                search_cpu_s=p("board_time_budget_s"),
                search_cv=0.05,
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
