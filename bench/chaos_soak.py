"""A chaos soak across lab hosts (griot.lab.soak; needs root and toxiproxy-server): live games, web
games, whole-game analyses and a probe run while a seeded schedule cuts hosts and links, slows every
link, and kills a worker, a gateway replica, the cache or the broker and starts it again.

    python bench/chaos_soak.py                       # the full run: 1,000 live games, 20 analyses, 10 min
    python bench/chaos_soak.py --live 40 --analyses 4 --duration 240 --seed 7

Prints each fault as it happens, then a Markdown summary (with the load) for bench/RESULTS-lab.md
and, with --json, every figure. Exits 1 if a target is missed: a lost job, a wrong value, a
client-visible error other than UNAVAILABLE, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED, or a heal
not followed by an answered request within 30 s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from griot.lab import Lab, LabShape
from griot.lab.soak import KINDS, SoakConfig, SoakResult, run

LAB_ENV = {"GRIOT_GATEWAY_DISTRIBUTED_DEPTH": "10", "GRIOT_GATEWAY_DISTRIBUTED_DIRECT_SECONDS": "0"}


def summary(result: SoakResult, load: tuple[str, str]) -> str:
    c = result.config
    lines = [
        f"seed {c.seed}, {c.duration:.0f} s of load ({result.wall:.0f} s with the clients' settling), "
        f"{c.live_games} live sessions and {c.web_games} web games at once ({c.moves} moves a game, "
        f"depth {c.live_depth}, {c.pause} s between moves), {c.analyses} analyses at once (depth "
        f"{c.analysis_depth}), a probe every {c.probe_every} s (depth {c.probe_depth}); kills: "
        f"{', '.join(c.kill)}; load before "
        f"{load[0]}, after {load[1]}",
        "",
        "| fault | target | at (s) | healed (s) | back after the heal (s) |",
        "|---|---|---|---|---|",
    ]
    for f in result.faults:
        back = "never" if f.recovery is None else f"{f.recovery:.1f}"
        lines.append(f"| {f.kind} | {f.target} | {f.start:.1f} | {f.heal:.1f} | {back} |")
    recoveries = [f.recovery for f in result.faults if f.recovery is not None]
    lines += [
        "",
        f"- live updates answered in full: {result.live_updates} (SDK), {result.web_updates} (web); "
        f"games finished {result.games_done}",
        f"- analyses: {result.analyses_started} started, {result.analyses_done} reported, "
        f"{len(result.lost_jobs)} lost",
        f"- probes: {result.probes} sent, {result.probes_answered} answered in full",
        f"- client-visible errors: {dict(result.errors) or 'none'} ({dict(result.errors_by_client)})",
        f"- values checked against the in-process search: {result.checked}, wrong: {len(result.wrong)}",
        f"- back after each heal: at most {max(recoveries, default=0):.1f} s "
        f"(median {sorted(recoveries)[len(recoveries) // 2] if recoveries else 0:.1f} s)",
        f"- targets: {'met' if not result.problems() else 'MISSED: ' + '; '.join(result.problems())}",
    ]
    return "\n".join(lines)


def main() -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--duration", type=float, default=600.0)
    parser.add_argument("--live", type=int, default=1000, help="live sessions at once")
    parser.add_argument("--web", type=int, default=10, help="games through the web server at once")
    parser.add_argument("--analyses", type=int, default=20, help="analyses at once")
    parser.add_argument("--depth", type=int, default=8, help="the live games' and analyses' depth")
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--pause", type=float, default=1.0, help="seconds between a live game's moves")
    parser.add_argument("--gap", type=float, nargs=2, default=(5.0, 20.0), help="seconds between faults")
    parser.add_argument("--length", type=float, nargs=2, default=(3.0, 20.0), help="seconds a fault lasts")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument(
        "--kill", nargs="+", choices=("worker", "gateway", "cache", "broker"), default=list(SoakConfig.kill)
    )
    parser.add_argument("--prefix", default="griotlab-soak-", help="the lab's namespace prefix")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args()
    config = SoakConfig(
        seed=args.seed,
        duration=args.duration,
        live_games=args.live,
        web_games=args.web,
        analyses=args.analyses,
        moves=args.moves,
        live_depth=args.depth,
        analysis_depth=args.depth,
        pause=args.pause,
        kinds=tuple(args.kinds),
        kill=tuple(args.kill),
        gap=(args.gap[0], args.gap[1]),
        length=(args.length[0], args.length[1]),
    )
    with Lab(LabShape(workers=args.workers, gateways=2), prefix=args.prefix, env=LAB_ENV) as lab:
        before = " ".join(f"{x:.2f}" for x in os.getloadavg())
        result = run(lab, config, log=lambda msg: print(msg, flush=True))
        after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(summary(result, (before, after)))
    if args.json:
        args.json.write_text(json.dumps(result.to_json(), indent=1, default=str))
    return 1 if result.problems() else 0


if __name__ == "__main__":
    sys.exit(main())
