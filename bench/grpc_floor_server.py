"""The floor of a rules-service call: a trivial grpc.aio server answering ApplyMove with a canned response.

It is set up as the rules service is (the same channel arguments, message limits and concurrency
limit, generic handlers only, health checking, ``--workers`` processes on one SO_REUSEPORT port,
uvloop or asyncio) but does no work per call: no Griot, no metrics, no logging. The CPU it spends
per call is what gRPC-Python (and the kernel) cost on this machine; the rules service's CPU per call
minus this floor is all that Griot's code and its choices could ever save.

``--mode raw`` (the default) hands gRPC the request and response as bytes (no protobuf at all);
``--mode proto`` parses each request into ``ApplyMoveRequest`` and serialises a prebuilt
``ApplyMoveResponse``, as a servicer doing nothing would.

The canned answer is abapa's start position with its six legal moves, so the Rust load generator
(bench/rules-load) keeps playing "moves" from it. Run it through the A/B script:

    python bench/rules_server_ab.py --rounds 6 --clients 64 \\
        --config floor="GRIOT_BENCH_SERVER=grpc_floor_server" --config rules=""
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import signal
from dataclasses import replace
from typing import Any, cast

import grpc
from griot.services.common.server import (
    EVENT_LOOPS,
    ServerConfig,
    _GenericHandlersOnly,
    _reserve_port,
    parse_grpc_option,
    run_event_loop,
)
from griot.v1 import rules_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

SERVICE = "griot.v1.RulesService"


def _canned() -> tuple[bytes, bytes]:
    """ApplyMove's and StartPosition's canned responses, serialised."""
    import griot
    from griot.messages import fill_position_info

    pos = griot.Variant("abapa").start()
    moves = [m.text for m in pos.legal_moves()]
    apply = rules_pb2.ApplyMoveResponse(move="c", legal_moves=moves)
    fill_position_info(apply.position, pos)
    start = rules_pb2.StartPositionResponse(legal_moves=moves)
    fill_position_info(start.position, pos)
    return apply.SerializeToString(), start.SerializeToString()


def _handlers(mode: str) -> grpc.GenericRpcHandler:
    apply_bytes, start_bytes = _canned()
    methods: dict[str, grpc.RpcMethodHandler[Any, Any]]
    if mode == "raw":

        async def apply_raw(request: bytes, context: Any) -> bytes:
            return apply_bytes

        async def start_raw(request: bytes, context: Any) -> bytes:
            return start_bytes

        methods = {
            "ApplyMove": grpc.unary_unary_rpc_method_handler(apply_raw),
            "StartPosition": grpc.unary_unary_rpc_method_handler(start_raw),
        }
    else:
        apply_msg = rules_pb2.ApplyMoveResponse.FromString(apply_bytes)
        start_msg = rules_pb2.StartPositionResponse.FromString(start_bytes)

        async def apply_proto(
            request: rules_pb2.ApplyMoveRequest, context: Any
        ) -> rules_pb2.ApplyMoveResponse:
            return apply_msg

        async def start_proto(
            request: rules_pb2.StartPositionRequest, context: Any
        ) -> rules_pb2.StartPositionResponse:
            return start_msg

        methods = {
            "ApplyMove": grpc.unary_unary_rpc_method_handler(
                apply_proto,
                request_deserializer=rules_pb2.ApplyMoveRequest.FromString,
                response_serializer=rules_pb2.ApplyMoveResponse.SerializeToString,
            ),
            "StartPosition": grpc.unary_unary_rpc_method_handler(
                start_proto,
                request_deserializer=rules_pb2.StartPositionRequest.FromString,
                response_serializer=rules_pb2.StartPositionResponse.SerializeToString,
            ),
        }
    return grpc.method_handlers_generic_handler(SERVICE, methods)


async def _serve(config: ServerConfig, mode: str) -> None:
    options: list[tuple[str, Any]] = [
        *config.grpc_options,
        ("grpc.max_receive_message_length", config.max_receive_bytes),
        ("grpc.max_send_message_length", config.max_send_bytes),
        ("grpc.so_reuseport", 1 if config.workers > 1 else 0),
    ]
    server = grpc.aio.server(options=options, maximum_concurrent_rpcs=config.max_concurrent_rpcs)
    server.add_generic_rpc_handlers([_handlers(mode)])
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(
        health_servicer, cast(grpc.aio.Server, _GenericHandlersOnly(server))
    )
    server.add_insecure_port(f"{config.host}:{config.port}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(config.grace_seconds)


def _worker(config: ServerConfig, mode: str) -> None:
    with contextlib.suppress(KeyboardInterrupt):
        run_event_loop(_serve(config, mode), config.event_loop)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=50051)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--event-loop", choices=EVENT_LOOPS, default="auto")
    p.add_argument("--mode", choices=["raw", "proto"], default="raw")
    p.add_argument("--grpc-option", action="append", type=parse_grpc_option, default=[])
    # Accepted for the same command line as the rules service; nothing to do with them here.
    p.add_argument("--metrics-port")
    p.add_argument("--log-level")
    args = p.parse_args()
    config = ServerConfig(
        host=args.host,
        port=args.port,
        workers=args.workers,
        event_loop=args.event_loop,
        grpc_options=tuple(args.grpc_option),
    )
    if config.workers <= 1:
        _worker(config, args.mode)
        return
    reserved = _reserve_port(config.host, config.port)
    config = replace(config, port=reserved.getsockname()[1])
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(config, args.mode)) for _ in range(config.workers)]
    for w in procs:
        w.start()

    def forward(signum: int, _frame: object) -> None:
        for w in procs:
            if w.pid is not None and w.is_alive():
                os.kill(w.pid, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    for w in procs:
        w.join()
    reserved.close()


if __name__ == "__main__":
    main()
