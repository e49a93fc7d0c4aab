"""The capacity model's simulation (bench/capacity_sim.py): its queues against closed forms, its
determinism, the load's deduplication, and the sizing's monotony."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("capacity_sim", ROOT / "bench" / "capacity_sim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["capacity_sim"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_erlang_c_closed_forms(cs: ModuleType) -> None:
    # One server: the probability of waiting is the utilisation.
    assert cs.erlang_c(1, 0.7) == pytest.approx(0.7)
    # Two servers, one erlang: 1/3 (by hand from the Erlang C formula).
    assert cs.erlang_c(2, 1.0) == pytest.approx(1 / 3)
    assert cs.erlang_c(3, 3.0) == 1.0  # saturated: everyone waits
    # M/M/1: W_q = rho / (mu - lambda).
    assert cs.mmc_mean_wait(1, 0.5, 1.0) == pytest.approx(1.0)


@pytest.mark.parametrize(("servers", "rho"), [(1, 0.6), (4, 0.7)])
def test_station_matches_mm_c(cs: ModuleType, servers: int, rho: float) -> None:
    """Poisson arrivals into a Station with exponential service: the mean wait in queue is the
    M/M/c closed form's, within 10 %."""
    sim = cs.Sim(7)
    station = cs.Station(sim, "s", servers)
    rng = random.Random(11)
    service, n = 1.0, 60_000
    lam = rho * servers / service
    waits: list[float] = []

    def arrive(k: int) -> None:
        t0 = sim.now
        s = rng.expovariate(1 / service)
        station.submit(s, lambda: waits.append(sim.now - t0 - s))
        if k + 1 < n:
            sim.at(sim.now + rng.expovariate(lam), lambda: arrive(k + 1))

    sim.at(0.0, lambda: arrive(0))
    sim.run()
    assert len(waits) == n
    measured = sum(waits[n // 10 :]) / (n - n // 10)
    assert measured == pytest.approx(cs.mmc_mean_wait(servers, lam, service), rel=0.10)
    assert station.utilisation(sim.now) == pytest.approx(rho, rel=0.05)


def test_closed_load_is_deterministic_and_deduplicates(cs: ModuleType) -> None:
    cfg = cs.Config(speed=0.5)
    a = cs.closed_load(cfg, 60, 3).summary()
    assert a == cs.closed_load(cfg, 60, 3).summary()
    assert a != cs.closed_load(replace(cfg, seed=2), 60, 3).summary()
    assert a["requests"] == 60 * 4 and a["throughput_per_s"] > 0
    assert a["searches"] + a["cache_hits"] + a["deduplicated"] == a["requests"]
    # Only the start positions: one search per variant, the other games join it.
    starts = cs.closed_load(cfg, 40, 0).summary()
    assert starts["searches"] == 4 and starts["deduplicated"] + starts["cache_hits"] == 36


def test_closed_load_slows_with_fewer_cores(cs: ModuleType) -> None:
    fast = cs.closed_load(cs.Config(worker_cores=8), 200, 2).summary()
    slow = cs.closed_load(cs.Config(worker_cores=1), 200, 2).summary()
    assert slow["throughput_per_s"] < fast["throughput_per_s"]
    assert slow["p99_ms"] > fast["p99_ms"]
    assert slow["utilisation"]["workers"] > fast["utilisation"]["workers"]


def test_open_load_meets_the_sizing(cs: ModuleType) -> None:
    """Sized for 2,000 games at depth 12, the simulated resources stay near their targets and the
    latency stays bounded; with a tenth of the worker cores the workers saturate."""
    d12 = {
        "search_cpu_s": cs.p("worker_cpu_ms_d12") / 1000,
        "search_commands": cs.p("search_cache_commands_d12"),
        "broker_commands": cs.p("broker_commands_d12"),
    }
    sz = cs.size(2000, **d12)
    cfg = cs.Config(
        gateways=sz.gateway_replicas,
        worker_cores=sz.worker_cores,
        shards=sz.cache_shards,
        brokers=sz.brokers,
        hit_rate=cs.p("hit_rate"),
    )
    ok = cs.open_load(cfg, 2000, 20.0).summary()
    assert ok["utilisation"]["workers"] <= cs.p("target_util_workers") + 0.05
    assert ok["utilisation"]["gateway"] <= cs.p("target_util_gateway") + 0.05
    assert ok["throughput_per_s"] == pytest.approx(2000 / cs.p("move_period_s"), rel=0.1)
    assert ok["p99_ms"] < 1000
    short = cs.open_load(replace(cfg, worker_cores=max(1, sz.worker_cores // 10)), 2000, 20.0).summary()
    assert short["utilisation"]["workers"] > 0.95
    assert short["p99_ms"] > 10 * ok["p99_ms"]


def test_sizing_is_monotone(cs: ModuleType) -> None:
    games = [100, 1_000, 10_000, 30_000, 100_000, 300_000, 1_000_000]
    rows = [cs.size(g) for g in games]
    for field in ("evaluations_per_s", "gateway_replicas", "worker_cores", "cache_shards", "brokers"):
        values = [getattr(r, field) for r in rows]
        assert values == sorted(values), field
        assert values[-1] > values[0], field
    # More hits, fewer searches: never more worker cores.
    assert cs.size(100_000, hit_rate=0.5).worker_cores < cs.size(100_000, hit_rate=0.0).worker_cores


def test_keda_thresholds_are_the_models(cs: ModuleType) -> None:
    yaml = pytest.importorskip("yaml")
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "k8s" / "keda.yaml").read_text()))
    by_name = {d["metadata"]["name"]: d for d in docs}
    model = cs.autoscaling()
    lengths = {
        t["metadata"]["listName"]: int(t["metadata"]["listLength"])
        for t in by_name["griot-worker"]["spec"]["triggers"]
    }
    assert lengths == {
        "griot.interactive": model["interactive_list_length"],
        "griot.batch": model["batch_list_length"],
    }
    (cpu,) = by_name["griot-gateway"]["spec"]["triggers"]
    assert cpu["type"] == "cpu" and cpu["metadata"]["value"] == f"{model['gateway_cpu_millicores']}m"
    # The list scaler sees no more tasks than the gateways' windows let out: the workers' maximum
    # stays within what the fewest gateway replicas can ask for.
    gateways = by_name["griot-gateway"]["spec"]["minReplicaCount"]
    workers = by_name["griot-worker"]["spec"]["maxReplicaCount"]
    assert workers <= gateways * model["worker_ceiling_per_gateway"]
    gateway = yaml.safe_load_all((ROOT / "deploy" / "k8s" / "gateway.yaml").read_text())
    env = {
        e["name"]: e.get("value")
        for d in gateway
        if d and d["kind"] == "Deployment"
        for e in d["spec"]["template"]["spec"]["containers"][0].get("env", [])
    }
    assert int(env["GRIOT_GATEWAY_WINDOW"]) == int(cs.p("gateway_window"))


def test_shared_cpu_is_processor_sharing(cs: ModuleType) -> None:
    """The machine's cores go to the runnable jobs in equal shares, at most one core each; other
    users' runnable processes take their shares too."""

    def finishes(cores: float, works: list[float], background: float = 0.0) -> list[float]:
        sim = cs.Sim(1)
        cpu = cs.Cpu(sim, cores, background)
        ends: list[float] = []
        for w in works:
            cpu.run(w, lambda: ends.append(sim.now))
        sim.run()
        return ends

    assert finishes(1, [1.0, 1.0]) == pytest.approx([2.0, 2.0])
    assert finishes(2, [1.0, 1.0, 1.0]) == pytest.approx([1.5, 1.5, 1.5])
    assert finishes(2, [1.0]) == pytest.approx([1.0])  # one thread, one core
    # Two cores, jobs of 1 and 3 s: both at one core until 1 s, then the long one alone.
    assert finishes(2, [1.0, 3.0]) == pytest.approx([1.0, 3.0])
    # One core, jobs of 1 and 2 s: half a core each until 2 s, then the second alone.
    assert finishes(1, [1.0, 2.0]) == pytest.approx([2.0, 3.0])
    assert finishes(1, [1.0], background=1.0) == pytest.approx([2.0])


def test_shared_machine_uses_what_it_is_charged(cs: ModuleType) -> None:
    """On a shared machine the servers' CPU comes out of its cores: never more than all of them,
    and a slower machine (fewer cores) is slower."""
    cfg = cs.Config(machine_cores=2.0, client_cpu_s=0.0005)
    r = cs.closed_load(cfg, 120, 3)
    s = r.summary()
    assert 0 < s["utilisation"]["machine"] <= 1.0
    used = sum(s["cpu_s"].values())
    assert used == pytest.approx(s["utilisation"]["machine"] * 2.0 * r.seconds, rel=0.02)
    assert s["cpu_s"]["client"] == pytest.approx(120 * 4 * 0.0005)
    slow = cs.closed_load(replace(cfg, machine_cores=1.0), 120, 3).summary()
    assert slow["throughput_per_s"] < s["throughput_per_s"]


def test_calibration_charges_each_process_its_measured_cpu(cs: ModuleType) -> None:
    """The costs taken from a measured run add up, over that run's requests and searches, to the
    CPU each process used in it."""
    text = (ROOT / "bench" / "capacity-runs" / "2026-11-29-quiet.jsonl").read_text()
    base = json.loads(text.splitlines()[0])
    c = cs.calibration(base)
    ev, tasks = base["evaluations"], base["gateway_stats"]["tasks_sent"]
    gateway = ev * c["gateway_cached_cpu_s"] + tasks * (c["gateway_cpu_s"] - c["gateway_cached_cpu_s"])
    assert gateway == pytest.approx(base["gateway_cpu_s"])
    assert tasks * c["search_cpu_s"] == pytest.approx(base["workers_cpu_s"])
    cache = ev * c["gateway_commands"] + tasks * c["search_commands"]
    assert cache == pytest.approx(base["cache_commands"])
    assert cache * c["redis_cmd_s"] == pytest.approx(base["cache_cpu_s"])
    assert tasks * c["broker_commands"] * c["broker_cmd_s"] == pytest.approx(base["broker_cpu_s"])
    assert c["client_cpu_s"] == pytest.approx(cs.p("load_client_cpu_ms") / 1000)


def test_gateway_and_client_are_charged_per_evaluation_and_per_task(cs: ModuleType) -> None:
    """The gateway and the load generator are charged the measured cost of an evaluation that does
    not search for every evaluation and the rest of their CPU in the calibration run per search
    task: the calibration adds up to the run's CPU, and a simulated load whose games share their
    positions costs them less than one whose games do not, by the tasks it saves."""
    text = (ROOT / "bench" / "capacity-runs" / "2026-11-29-quiet-2.jsonl").read_text()
    base = json.loads(text.splitlines()[0])
    c = cs.calibration(base)
    ev, tasks = base["evaluations"], base["gateway_stats"]["tasks_sent"]
    each, task = c["gateway_cached_cpu_s"], c["gateway_cpu_s"] - c["gateway_cached_cpu_s"]
    assert each == pytest.approx(cs.p("gateway_cpu_ms_cached") / 1000)
    assert ev * each + tasks * task == pytest.approx(base["gateway_cpu_s"])
    assert c["client_cpu_s"] == pytest.approx(cs.p("load_client_cpu_ms") / 1000)
    assert ev * c["client_cpu_s"] + tasks * c["client_task_cpu_s"] == pytest.approx(base["client_cpu_s"])
    assert task > 5 * each  # a search costs the gateway far more than a request
    cfg = cs.Config(machine_cores=2.0, **c)
    games, plies = 40, 4
    shared = cs.closed_load(cfg, games, plies - 1, sequences=[[("s", i) for i in range(plies)]] * games)
    own = cs.closed_load(
        cfg, games, plies - 1, sequences=[[(g, i) for i in range(plies)] for g in range(games)]
    )
    assert (shared.searches, own.searches) == (plies, games * plies)
    for r in (shared, own):
        assert r.cpu_s["gateway"] == pytest.approx(games * plies * each + r.searches * task)
        client = games * plies * c["client_cpu_s"] + r.searches * c["client_task_cpu_s"]
        assert r.cpu_s["client"] == pytest.approx(client)
