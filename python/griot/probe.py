"""Health probes for containers: ``python -m griot.probe grpc HOST:PORT [SERVICE]``,
``python -m griot.probe redis URL`` or ``python -m griot.probe http URL`` (a 200 answer). Exit
status 0 when healthy, 1 otherwise (one line on stderr).

Docker Compose healthchecks use it (the slim image has no grpc_health_probe); Kubernetes uses its
native ``grpc`` and ``httpGet`` probes instead.
"""

from __future__ import annotations

import sys

from griot.launch.processes import http_ok
from griot.launcher import grpc_health, redis_ping


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 2 and args[0] == "grpc":
        status = grpc_health(args[1], args[2] if len(args) > 2 else "", timeout=2.0)
        ok = status == "SERVING"
        detail = status
    elif len(args) == 2 and args[0] == "redis":
        ok = redis_ping(args[1], timeout=2.0)
        detail = "PONG" if ok else "no answer"
    elif len(args) == 2 and args[0] == "http":
        ok = http_ok(args[1], timeout=2.0)
        detail = "200" if ok else "no 200 answer"
    else:
        print("usage: python -m griot.probe grpc HOST:PORT [SERVICE] | redis URL | http URL", file=sys.stderr)
        return 2
    print(f"{args[0]} {args[1]}: {detail}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
