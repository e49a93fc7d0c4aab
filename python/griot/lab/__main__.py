"""``griot lab`` (or ``python -m griot.lab``): Griot across hosts on this machine, to try a fault.

    griot lab up [--workers 2] [--gateways 2] [--broker redis|rabbitmq]   (foreground; Ctrl-C ends it)
    griot lab fault cut worker-1          the host's interface down
    griot lab fault heal worker-1
    griot lab fault kill worker-1         every process on the host SIGKILLed
    griot lab fault cut-link worker-1 cache    the link carries nothing (heal-link to undo)
    griot lab fault latency 2             2 ms round trip on every link to Redis and the broker
    griot lab client evaluate abapa --depth 14      the SDK, on the client host
    griot lab client live abapa --games 4 --depth 8  games in live sessions
    griot lab client web abapa --games 2 --depth 8   games through the web server's browser API
    griot lab down                        removes every lab namespace and process (also a stale lab)

Needs root (network namespaces), iproute2 and toxiproxy-server (``make deploy-tools``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from griot.lab import layout
from griot.lab.lab import Lab, client_env, link_name
from griot.lab.netns import DEFAULT_PREFIX, Host, Network, sweep
from griot.lab.toxiproxy import API_PORT, Toxiproxy


def state_file() -> Path:
    return Path(os.environ.get("GRIOT_LAB_STATE", "/run/griot-lab.json"))


def _up(args: argparse.Namespace) -> int:
    shape = layout.LabShape(workers=args.workers, gateways=args.gateways, broker=args.broker)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with Lab(shape) as lab:
        state = {
            "prefix": lab.net.prefix,
            "hosts": {n: h.address for n, h in lab.hosts.items()},
            "links": lab.links(),
            "target": lab.gateway_target(),
            "web": lab.web_url(),
            "data_dir": str(lab.data_dir),
        }
        state_file().write_text(json.dumps(state, indent=1))
        for name, host in lab.hosts.items():
            print(f"{name:12} {host.address:15} {host.namespace}")
        print(f"links (Toxiproxy at {lab.address('proxy')}:{API_PORT}): {', '.join(lab.links())}")
        print(f"logs: {lab.data_dir}/<host>/")
        print("up; try `griot lab fault ...` and `griot lab client ...` in another shell; Ctrl-C ends")
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass
        finally:
            state_file().unlink(missing_ok=True)
    return 0


def _attached() -> tuple[Network, dict[str, Any]]:
    try:
        state: dict[str, Any] = json.loads(state_file().read_text())
    except FileNotFoundError:
        raise SystemExit("no lab is up (griot lab up)") from None
    net = Network(state["prefix"])
    for i, (name, address) in enumerate(state["hosts"].items()):
        net.hosts[name] = Host(name, state["prefix"] + name, address, f"p{i}")
    return net, state


def _fault(args: argparse.Namespace) -> int:
    net, state = _attached()
    proxy = Toxiproxy(f"http://{state['hosts']['proxy']}:{API_PORT}", runner=lambda fn: net.call("proxy", fn))
    if args.kind == "cut":
        net.cut(args.host)
    elif args.kind == "heal":
        net.heal(args.host)
    elif args.kind == "kill":
        net.kill(args.host)
    elif args.kind in ("cut-link", "heal-link"):
        name = link_name(args.host, args.service)
        (proxy.blackhole if args.kind == "cut-link" else proxy.unblackhole)(name)
    elif args.kind == "latency":
        for name in state["links"]:
            proxy.latency(name, args.ms)
    elif args.kind == "reset":
        proxy.reset()
        for host in state["hosts"]:
            net.heal(host)
    return 0


def _client(args: argparse.Namespace) -> int:
    net, state = _attached()
    argv = [sys.executable, "-m", "griot.lab.client", "--target", state["target"]]
    argv += ["--web", state.get("web", ""), *args.rest]
    return subprocess.call(["ip", "netns", "exec", net.hosts["client"].namespace, *argv], env=client_env())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="griot lab", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="lay out the lab and run it until Ctrl-C")
    up.add_argument("--workers", type=int, default=2)
    up.add_argument("--gateways", type=int, default=2)
    up.add_argument("--broker", choices=("redis", "rabbitmq"), default="redis")
    sub.add_parser("down", help="remove every lab namespace and process")
    fault = sub.add_parser("fault", help="inject or heal a fault in the running lab")
    fault.add_argument("kind", choices=("cut", "heal", "kill", "cut-link", "heal-link", "latency", "reset"))
    fault.add_argument("host", nargs="?", default="")
    fault.add_argument("service", nargs="?", choices=("cache", "broker"), default="cache")
    fault.add_argument("--ms", type=float, default=0.0, help="round trip for `latency`")
    client = sub.add_parser("client", help="the SDK on the client host (python -m griot.lab.client)")
    client.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command == "fault" and args.kind == "latency" and args.host:
        args.ms = float(args.host)
    if args.command == "up":
        return _up(args)
    if args.command == "down":
        removed = sweep(DEFAULT_PREFIX)
        state_file().unlink(missing_ok=True)
        print(f"removed {len(removed)} namespaces")
        return 0
    if args.command == "fault":
        return _fault(args)
    return _client(args)


if __name__ == "__main__":
    sys.exit(main())
