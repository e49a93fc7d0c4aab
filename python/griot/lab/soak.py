"""A chaos soak on the lab: live games (the SDK's live sessions and the web server's browser API),
whole-game analyses and a probe run on the client host while a seeded schedule cuts hosts and
links, slows every link, and kills hosts (a worker, a gateway replica, the cache or the broker) and
starts them again. One fault at a time: each is healed before the next.

What it reports (:class:`SoakResult`): the faults with their times, the client-visible errors by
status code, lost jobs (an analysis that had its job id and never got its report), wrong values (a
sample of final values against the in-process search at the same depth, and of analysis reports
against the report computed in process), and each heal's recovery time: from the heal (for a killed
host, from its restart) to the answer of the first probe sent after it.

``bench/chaos_soak.py`` runs it at the bench's scale; ``tests/lab/test_soak.py`` runs a short one.
"""

from __future__ import annotations

import json
import random
import subprocess
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from griot.lab.lab import Lab

#: The only status codes a client may see during the soak: "try again", "too late", "too much".
ALLOWED_CODES = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"})

KINDS = ("cut-host", "cut-link", "slow", "kill")


@dataclass(frozen=True)
class SoakConfig:
    """The soak's load, schedule and checks."""

    seed: int = 1
    #: Seconds the load runs; faults start and heal within it.
    duration: float = 600.0
    #: Live sessions at once (each plays game after game), and games through the web server.
    live_games: int = 1000
    web_games: int = 10
    #: Analyses at once (each slot analyses game after game).
    analyses: int = 20
    variant: str = "abapa"
    moves: int = 8
    live_depth: int = 8
    analysis_depth: int = 8
    #: Seconds between a live game's final evaluation and its next move.
    pause: float = 1.0
    probe_depth: int = 6
    probe_every: float = 0.5
    #: Seconds from one heal to the next fault, and how long a fault lasts (uniform in each range).
    gap: tuple[float, float] = (5.0, 20.0)
    length: tuple[float, float] = (3.0, 20.0)
    kinds: tuple[str, ...] = KINDS
    #: What a ``kill`` may hit: ``worker``, ``gateway`` (one host of each), ``cache``, ``broker``.
    kill: tuple[str, ...] = ("worker", "gateway", "cache", "broker")
    #: Final values checked against the in-process search (live, web and probe values), and analysis
    #: reports checked against the report computed in process.
    sample: int = 60
    #: Seconds after the load's end the clients get to finish what they started.
    settle: float = 120.0
    #: The recovery target: service back within this many seconds of each heal.
    recovery_bound: float = 30.0


@dataclass
class Fault:
    kind: str
    target: str
    #: Seconds from the soak's start.
    start: float
    heal: float = 0.0
    #: Seconds from the heal to the first answered probe sent after it (None: none was).
    recovery: float | None = None


@dataclass
class SoakResult:
    config: SoakConfig
    faults: list[Fault] = field(default_factory=list)
    #: Client-visible errors by status code, and by who saw them (``sdk:UNAVAILABLE``).
    errors: Counter[str] = field(default_factory=Counter)
    errors_by_client: Counter[str] = field(default_factory=Counter)
    error_samples: list[dict[str, Any]] = field(default_factory=list)
    live_updates: int = 0
    web_updates: int = 0
    games_done: int = 0
    games_given_up: int = 0
    analyses_started: int = 0
    analyses_done: int = 0
    lost_jobs: list[str] = field(default_factory=list)
    #: What the analyses' client printed about each lost job.
    lost_job_lines: list[dict[str, Any]] = field(default_factory=list)
    #: The hosts' log lines that name a lost job (``host/role: line``), the first few per job.
    lost_job_logs: list[str] = field(default_factory=list)
    #: Each lost job as the cache Redis holds it after the soak (state, turns stored, lease).
    lost_job_states: dict[str, Any] = field(default_factory=dict)
    probes: int = 0
    probes_answered: int = 0
    checked: int = 0
    wrong: list[dict[str, Any]] = field(default_factory=list)
    wall: float = 0.0

    def problems(self) -> list[str]:
        """What misses the targets (empty: every target met)."""
        out = []
        if self.lost_jobs:
            out.append(f"lost jobs: {self.lost_jobs}")
        if self.wrong:
            out.append(f"wrong values: {self.wrong[:3]}")
        bad = {c: n for c, n in self.errors.items() if c not in ALLOWED_CODES}
        if bad:
            out.append(f"errors outside {sorted(ALLOWED_CODES)}: {bad}; e.g. {self.error_samples[:3]}")
        slow = [f for f in self.faults if f.recovery is None or f.recovery > self.config.recovery_bound]
        if slow:
            out.append(f"not back within {self.config.recovery_bound} s of the heal: {slow}")
        if self.analyses_done == 0 or self.live_updates == 0:
            out.append("no analysis or no live update completed")
        return out

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["errors"] = dict(self.errors)
        data["errors_by_client"] = dict(self.errors_by_client)
        return data


class _Lines:
    """A client process's JSON lines, read as they come."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[dict[str, Any]] = []
        self.stderr = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.lines.append(json.loads(line))

    def finish(self, deadline: float) -> None:
        """Waits for the client's end until ``deadline`` (monotonic), then ends it."""
        try:
            self.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._reader.join(10)
        if self.proc.stderr is not None:
            self.stderr = self.proc.stderr.read()[-3000:]
            self.proc.stderr.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def schedule(config: SoakConfig, lab: Lab) -> list[Fault]:
    """The faults, from the seed alone: start times, kinds and targets (heals at ``start +
    length``). The last heals with enough of the load left to see the service back."""
    rng = random.Random(config.seed)
    workers = sorted(h for h in lab.hosts if h.startswith("worker-"))
    gateways = sorted(h for h in lab.hosts if h.startswith("gateway-"))
    links = sorted(lab.links())
    faults: list[Fault] = []
    t = rng.uniform(*config.gap) / 2
    end = config.duration - min(config.recovery_bound, config.duration / 4)
    while True:
        length = rng.uniform(*config.length)
        if t + length > end:
            return faults
        kind = rng.choice(config.kinds)
        if kind == "cut-host":
            target = rng.choice(workers + gateways)
        elif kind == "cut-link":
            target = rng.choice(links)
        elif kind == "slow":
            target = "every link"
        else:
            hosts = {"worker": workers, "gateway": gateways, "cache": ["cache"], "broker": ["broker"]}
            target = rng.choice([h for role in config.kill for h in hosts[role]])
        faults.append(Fault(kind, target, round(t, 3), round(t + length, 3)))
        t += length + rng.uniform(*config.gap)


def inject(lab: Lab, fault: Fault) -> None:
    assert lab.toxiproxy is not None
    if fault.kind == "cut-host":
        lab.cut(fault.target)
    elif fault.kind == "cut-link":
        host, service = fault.target.split("->")
        lab.cut_link(host, service)
    elif fault.kind == "slow":
        for name in lab.links():
            # 100 ms of round trip, spikes to 200 ms, 64 KB/s.
            lab.toxiproxy.latency(name, 100, jitter_ms=100)
            lab.toxiproxy.bandwidth(name, 64)
    elif fault.kind == "kill":
        lab.kill(fault.target)
    else:
        raise ValueError(f"no fault {fault.kind!r}")


def heal(lab: Lab, fault: Fault) -> None:
    assert lab.toxiproxy is not None
    if fault.kind == "cut-host":
        lab.heal(fault.target)
    elif fault.kind == "cut-link":
        host, service = fault.target.split("->")
        lab.heal_link(host, service)
    elif fault.kind == "slow":
        lab.toxiproxy.reset()
    elif fault.kind == "kill":
        lab.restart(fault.target)


def _wait_until(t0: float, at: float) -> None:
    left = t0 + at - time.time()
    if left > 0:
        time.sleep(left)


def run(lab: Lab, config: SoakConfig, log: Any = None) -> SoakResult:
    """Runs the soak on a lab that is up (every host healed and running), and leaves it healed."""
    say = log or (lambda _msg: None)
    faults = schedule(config, lab)
    d = str(config.duration)
    common = ["--for", d, "--moves", str(config.moves)]
    clients: dict[str, _Lines] = {}
    t0 = time.time()
    started = time.monotonic()
    plan = {
        "sdk": [
            "live", config.variant, "--games", str(config.live_games), *common, "--depth",
            str(config.live_depth), "--pause", str(config.pause), "--timeout", "60", "--retries", "50",
        ],
        "web": [
            "web", config.variant, "--games", str(config.web_games), *common, "--depth",
            str(config.live_depth), "--pause", str(config.pause), "--timeout", "30", "--retries", "50",
        ],
        "analysis": [
            "analyses", config.variant, "--games", str(config.analyses), *common, "--depth",
            str(config.analysis_depth), "--timeout", "120", "--retries", "200",
        ],
        "probe": [
            "probe", config.variant, "--for", d, "--moves", "6", "--depth", str(config.probe_depth),
            "--pause", str(config.probe_every), "--timeout", "5",
        ],
    }  # fmt: skip
    for name, argv in plan.items():
        if name == "web" and not config.web_games:
            continue
        clients[name] = _Lines(lab.client_background(*argv))
    try:
        for fault in faults:
            _wait_until(t0, fault.start)
            fault.start = round(time.time() - t0, 3)
            say(f"{fault.start:7.1f} s  {fault.kind} {fault.target}")
            inject(lab, fault)
            _wait_until(t0, fault.heal)
            # A killed host's heal is its start again, counted from when it begins (the time it
            # takes to come up is part of the recovery).
            fault.heal = round(time.time() - t0, 3)
            heal(lab, fault)
            say(f"{fault.heal:7.1f} s  healed ({time.time() - t0 - fault.heal:.1f} s to heal)")
    finally:
        # Whatever happened, the lab is left whole.
        assert lab.toxiproxy is not None
        lab.toxiproxy.reset()
        for host in lab.hosts:
            lab.heal(host)
    deadline = started + config.duration + config.settle
    for c in clients.values():
        c.finish(deadline)
    result = SoakResult(config, faults, wall=round(time.monotonic() - started, 1))
    _tally(result, clients, t0)
    result.lost_job_logs = _logged_about(lab, result.lost_jobs)
    result.lost_job_states = _stored(lab, result.lost_jobs)
    _check_values(result, clients, config)
    return result


def _tally(result: SoakResult, clients: dict[str, _Lines], t0: float) -> None:
    for name, c in clients.items():
        for line in c.lines:
            event = line["event"]
            if event == "error":
                code = str(line.get("code") or "UNKNOWN")
                result.errors[code] += 1
                result.errors_by_client[f"{name}:{code}"] += 1
                if code not in ALLOWED_CODES and len(result.error_samples) < 20:
                    result.error_samples.append(line)
            elif event == "evaluation" and line.get("final"):
                if name == "sdk":
                    result.live_updates += 1
                else:
                    result.web_updates += 1
            elif event == "done":
                result.games_done += 1
            elif event == "job":
                result.analyses_started += 1
            elif event == "report":
                result.analyses_done += 1
            elif event == "probe":
                result.probes += 1
                result.probes_answered += 1
        if name == "analysis":
            jobs = {line["job_id"] for line in c.lines if line["event"] == "job"}
            reported = {line["job_id"] for line in c.lines if line["event"] == "report"}
            result.lost_jobs = sorted(jobs - reported)
            result.lost_job_lines = [
                line
                for line in c.lines
                if line.get("job_id") in jobs - reported and line["event"] != "progress"
            ]
            result.games_given_up += sum(1 for line in c.lines if line["event"] == "gave_up")
    probes = clients["probe"].lines
    result.probes += sum(1 for line in probes if line["event"] == "error")
    answered = sorted((line["sent"] - t0, line["at"] - t0) for line in probes if line["event"] == "probe")
    for fault in result.faults:
        after = [at for sent, at in answered if sent >= fault.heal]
        fault.recovery = round(after[0] - fault.heal, 2) if after else None


def _logged_about(lab: Lab, job_ids: list[str], per_job: int = 20) -> list[str]:
    """What the hosts' logs say of each job (a lost job's trail: who ran it, paused it, lost it)."""
    if not job_ids:
        return []
    found: dict[str, list[str]] = {job_id: [] for job_id in job_ids}
    for path in sorted(lab.data_dir.glob("*/*.log")):  # each log read once, whatever the jobs
        for line in path.read_text(errors="replace").splitlines():
            for job_id, lines in found.items():
                if job_id in line and len(lines) < per_job:
                    lines.append(f"{path.parent.name}/{path.stem}: {line[:300]}")
    return [line for lines in found.values() for line in lines]


def _stored(lab: Lab, job_ids: list[str]) -> dict[str, Any]:
    """What the cache Redis holds of each job: its fields but the turns' bytes, how many turns are
    stored, the replica holding its lease, and whether it is still in the active set."""
    from griot.redis_keys import ACTIVE_JOBS, JOB_PREFIX

    def read(r: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for job_id in job_ids:
            key = JOB_PREFIX + job_id
            data = r.hgetall(key)
            out[job_id] = {
                **{
                    k.decode(): v.decode(errors="replace")[:200]
                    for k, v in data.items()
                    if not k.startswith((b"turn:", b"report"))
                },
                "turns": sum(1 for k in data if k.startswith(b"turn:")),
                "report": b"report" in data,
                "lease": (r.get(key + ":lease") or b"").decode(),
                "active": r.zscore(ACTIVE_JOBS, job_id) is not None,
            }
        return out

    try:
        return dict(lab.redis("cache", read)) if job_ids else {}
    except Exception as e:  # the soak's report stands without it
        return {"unreadable": repr(e)}


def _check_values(result: SoakResult, clients: dict[str, _Lines], config: SoakConfig) -> None:
    """A sample of final values (live, web and probe) against the in-process search at the same
    depth, and a sample of analysis reports against the report computed in process."""
    from google.protobuf.json_format import MessageToDict

    import griot
    from griot.cli_analysis import local_report
    from griot.record import GameRecord
    from griot.scores import score_message

    finals = [
        line
        for name in ("sdk", "web", "probe")
        if name in clients
        for line in clients[name].lines
        if (line["event"] == "evaluation" and line.get("final")) or line["event"] == "probe"
    ]
    rng = random.Random(config.seed)
    sample = rng.sample(finals, min(config.sample, len(finals)))
    variant = griot.Variant(config.variant)
    expected: dict[tuple[tuple[str, ...], int], Any] = {}
    for line in sample:
        key = (tuple(line["moves"]), int(line["depth"]))
        if key not in expected:
            pos = variant.start()
            for m in key[0]:
                pos = pos.play(m)
            expected[key] = MessageToDict(score_message(griot.search(pos, depth=key[1]).score.value))
        result.checked += 1
        if line["score"] != expected[key]:
            result.wrong.append({**line, "expected": expected[key]})
    reports = [line for line in clients["analysis"].lines if line["event"] == "report"]
    for line in rng.sample(reports, min(config.sample, len(reports))):
        record = GameRecord.from_positions(variant.start(), line["moves"])
        want = MessageToDict(local_report(record, config.analysis_depth, lambda _turn: None))
        result.checked += 1
        if line["report"] != want:
            result.wrong.append({"job_id": line["job_id"], "moves": line["moves"], "report": "differs"})
