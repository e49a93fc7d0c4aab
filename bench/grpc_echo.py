"""gRPC-Python's own floor for the gateway's live streams: a ``LiveSession`` server that does
nothing but answer each update with ``--replies`` messages (the last a final evaluation, as the
gateway's), on a ``grpc.aio`` server and the same event loop as the gateway (uvloop when installed).

    python bench/grpc_echo.py --port 50099 [--replies 2]

Driven by ``python bench/gateway_load.py echo`` with the same streams and updates as ``live``: its
CPU per evaluation is what gRPC-Python and the event loop cost per update and its messages on this
machine, with no session, cache, Redis or search work at all.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
from collections.abc import AsyncIterator
from typing import Any

import grpc
from griot.v1 import analysis_pb2, analysis_pb2_grpc


def _evaluation(final: bool) -> analysis_pb2.Evaluation:
    """An evaluation of the size the gateway sends at depth 14 (a best move and a short PV)."""
    e = analysis_pb2.Evaluation(
        depth=14, best_move="c", pv=["c", "D", "a", "F", "b", "E"], nodes=123456, nps=2_000_000, final=final
    )
    e.score.centi = 37
    e.elapsed.FromNanoseconds(61_000_000)
    return e


class Echo(analysis_pb2_grpc.AnalysisServiceServicer):
    def __init__(self, replies: int) -> None:
        self.replies = max(1, replies)
        self.final = _evaluation(True)
        self.depth = _evaluation(False)

    async def LiveSession(
        self, requests: AsyncIterator[analysis_pb2.LiveSessionRequest], context: Any
    ) -> AsyncIterator[analysis_pb2.LiveSessionResponse]:
        update_id = 0
        async for req in requests:
            update_id = req.update_id or update_id + 1
            for i in range(self.replies):
                m = analysis_pb2.LiveSessionResponse(
                    session_id="s", update_id=update_id, position=req.position
                )
                if i == self.replies - 1:
                    m.evaluation.CopyFrom(self.final)
                elif i > 0:
                    m.evaluation.CopyFrom(self.depth)
                yield m


async def serve(port: int, replies: int) -> None:
    server = grpc.aio.server()
    analysis_pb2_grpc.add_AnalysisServiceServicer_to_server(Echo(replies), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--replies", type=int, default=2, help="messages per update (the last final)")
    a = ap.parse_args()
    gc.freeze()
    gc.set_threshold(50_000, 20, 10)  # as the gateway
    try:
        import uvloop
    except ImportError:
        asyncio.run(serve(a.port, a.replies))
    else:
        uvloop.run(serve(a.port, a.replies))


if __name__ == "__main__":
    main()
