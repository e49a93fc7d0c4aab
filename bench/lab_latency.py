"""The distributed search across hosts against link latency (griot.lab; needs root and toxiproxy-server).

For each round trip on every link to Redis and the broker, a distributed evaluation through the
gateway as a client calls it (cold: the cache Redis flushed before each run), with two workers and
with one (the other host killed; each run starts its workers again, since a worker keeps its
table between searches), interleaved, against the in-process search
at the same depth in this process. Values are checked against the in-process search.

    python bench/lab_latency.py --depth 18 --pairs 3 --rtt 0 1 2 10

Toxiproxy's latency is whole milliseconds per direction: a round trip of 1 ms is 1 ms one way.
Prints a Markdown table (and the load) for bench/RESULTS-lab.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import griot
from google.protobuf.json_format import MessageToDict
from griot.lab import Lab, LabShape
from griot.scores import score_message

LAB_ENV = {"GRIOT_GATEWAY_DISTRIBUTED_DEPTH": "10"}


def set_round_trip(lab: Lab, rtt: float) -> None:
    assert lab.toxiproxy is not None
    for name in lab.links():
        for stream in ("upstream", "downstream"):
            toxic = f"latency-{stream}"
            if any(t["name"] == toxic for t in lab.toxiproxy.toxics(name)):
                lab.toxiproxy.remove_toxic(name, toxic)
        if rtt <= 0:
            continue
        if rtt >= 2 and rtt % 2 == 0:
            lab.toxiproxy.latency(name, rtt)
        else:
            lab.toxiproxy.add_toxic(name, "latency-downstream", "latency", latency=round(rtt))


def through_gateway(lab: Lab, variant: str, depth: int, expected: dict[str, object], workers: int) -> float:
    # Cold: the workers keep their tables between searches, so each run starts them again.
    lab.redis("cache", lambda r: r.flushall())
    for i in (1, 2):
        lab.kill(f"worker-{i}")
    for i in range(1, workers + 1):
        lab.restart(f"worker-{i}")
    started = time.monotonic()
    lines = lab.client("evaluate", variant, "--depth", str(depth), "--timeout", "3600", timeout=3700)
    took = time.monotonic() - started
    final = lines[-1]
    if final.get("event") != "evaluation" or not final.get("final") or final.get("depth") != depth:
        raise SystemExit(f"no final evaluation: {lines[-3:]}")
    if final["score"] != expected:
        raise SystemExit(f"wrong value: {final['score']} against the in-process {expected}")
    return float(final["t"]) if "t" in final else took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="abapa")
    parser.add_argument("--depth", type=int, default=18)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--rtt", type=float, nargs="+", default=[0, 1, 2, 10])
    parser.add_argument("--split", type=int, default=None, help="the gateway's --distributed-split")
    args = parser.parse_args()
    env = dict(LAB_ENV)
    if args.split is not None:
        env["GRIOT_GATEWAY_DISTRIBUTED_SPLIT"] = str(args.split)
    pos = griot.Variant(args.variant).start()
    started = time.monotonic()
    reference = griot.search(pos, depth=args.depth)
    in_process_once = time.monotonic() - started
    expected = MessageToDict(score_message(reference.score.value))
    rows = []
    with Lab(LabShape(workers=2, gateways=1), env=env) as lab:
        for rtt in args.rtt:
            set_round_trip(lab, rtt)
            two, one, local = [], [], []
            for _ in range(args.pairs):
                two.append(through_gateway(lab, args.variant, args.depth, expected, 2))
                one.append(through_gateway(lab, args.variant, args.depth, expected, 1))
                t = time.monotonic()
                griot.search(pos, depth=args.depth)
                local.append(time.monotonic() - t)
                print(
                    f"  rtt {rtt:g} ms pair {len(two)}: two {two[-1]:.2f} s, one {one[-1]:.2f} s, "
                    f"in-process {local[-1]:.2f} s (two/one {one[-1] / two[-1]:.2f}x, "
                    f"one/in-process {local[-1] / one[-1]:.2f}x) load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
            m2, m1, m0 = (statistics.median(x) for x in (two, one, local))
            rows.append((rtt, m2, m1, m0))
            print(
                f"rtt {rtt} ms: two {m2:.2f} s, one {m1:.2f} s, in-process {m0:.2f} s "
                f"(two/one {m1 / m2:.2f}x, one remote/in-process {m0 / m1:.2f}x) load {os.getloadavg()}",
                flush=True,
            )
    print(f"\n{args.variant} start, depth {args.depth}, {args.pairs} interleaved runs each, medians")
    print(f"(in-process once before the lab: {in_process_once:.2f} s)\n")
    print("| round trip | two workers | one worker | in-process | two vs one | one remote vs in-process |")
    print("|---|---|---|---|---|---|")
    for rtt, m2, m1, m0 in rows:
        print(f"| {rtt:g} ms | {m2:.2f} s | {m1:.2f} s | {m0:.2f} s | {m1 / m2:.2f}x | {m0 / m1:.2f}x |")


if __name__ == "__main__":
    main()
