"""The lab's client host: the Python SDK as an application calls it, one JSON line per event on
stdout, so that a test or a person sees what a client sees during a fault.

    python -m griot.lab.client --target ipv4:A:50052,B:50052 evaluate abapa --depth 14 --timeout 60
    python -m griot.lab.client --target ... analyze awale a b c d --depth 8 --timeout 300

Lines: ``{"event": "evaluation", "depth", "score", "best_move", "final", "t"}`` per streamed
evaluation, ``{"event": "progress", ...}`` and ``{"event": "report", ...}`` for an analysis,
``{"event": "error", "code", "reason", "retry_after", "t"}`` when the call ends in an error (exit
status 3), ``t`` being seconds since the call began. The target balances round robin over the
replicas it names; ``--retries`` retries an UNAVAILABLE call on the others (a resumed analysis goes
on by its job id).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import grpc

from griot.client import AnalysisClient, ServiceError, search_limits
from griot.lab.layout import CLIENT_API_KEY


def _say(event: str, start: float, **fields: Any) -> None:
    print(json.dumps({"event": event, "t": round(time.monotonic() - start, 3), **fields}), flush=True)


def _score(score: Any) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict

    result: dict[str, Any] = MessageToDict(score)
    return result


def _error(e: ServiceError, start: float) -> None:
    _say(
        "error",
        start,
        code=e.code.name if e.code is not None else None,
        reason=e.reason,
        retry_after=e.retry_after,
        message=str(e),
    )


def evaluate(args: argparse.Namespace, client: AnalysisClient, start: float) -> int:
    import griot

    pos = griot.Variant(args.variant).start()
    for move in args.moves:
        pos = pos.play(move)
    try:
        for msg in client.evaluate(pos, search_limits(max_depth=args.depth), timeout=args.timeout):
            ev = msg.evaluation
            _say(
                "evaluation",
                start,
                depth=ev.depth,
                score=_score(ev.score),
                best_move=ev.best_move,
                final=ev.final,
                from_cache=ev.from_cache,
            )
    except ServiceError as e:
        _error(e, start)
        return 3
    return 0


def analyze(args: argparse.Namespace, client: AnalysisClient, start: float) -> int:
    job_id = ""
    attempts = 0
    while True:
        try:
            stream = client.analyze_game(
                None if job_id else args.variant,
                None if job_id else args.moves,
                resume_job_id=job_id or None,
                limits=search_limits(max_depth=args.depth),
                timeout=args.timeout,
            )
            for msg in stream:
                if msg.job_id and not job_id:
                    job_id = msg.job_id
                    _say("job", start, job_id=job_id)
                if msg.HasField("report"):
                    from google.protobuf.json_format import MessageToDict

                    _say("report", start, job_id=job_id, report=MessageToDict(msg.report))
                    return 0
                _say("progress", start, job_id=job_id, done=msg.progress.positions_done)
            return 0
        except ServiceError as e:
            _error(e, start)
            attempts += 1
            if e.code != grpc.StatusCode.UNAVAILABLE or attempts > args.retries or not job_id:
                return 3
            time.sleep(min(e.retry_after or 1.0, 5.0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m griot.lab.client", description=__doc__)
    parser.add_argument("--target", required=True)
    parser.add_argument("--api-key", default=CLIENT_API_KEY)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("evaluate", "analyze"):
        p = sub.add_parser(name)
        p.add_argument("variant")
        p.add_argument("moves", nargs="*")
        p.add_argument("--depth", type=int, required=True)
        p.add_argument("--timeout", type=float, default=120.0, help="the call's deadline (seconds)")
        p.add_argument("--retries", type=int, default=0, help="UNAVAILABLE answers retried (analyze)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    metadata = [("x-api-key", args.api_key)] if args.api_key else []
    with AnalysisClient(args.target, metadata=metadata) as client:
        if args.command == "evaluate":
            return evaluate(args, client, start)
        return analyze(args, client, start)


if __name__ == "__main__":
    sys.exit(main())
