"""A stand-in for the analysis gateway until it lands: the reference AnalysisService servicer of
tests/services/test_analysis_contract.py (greedy one-turn search over the native core), as a
ServiceSpec the web server can mount in process (``reference_gateway:service_spec``) and as a real
gRPC server (``python tests/web/reference_gateway.py PORT``) the web server forwards to."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "services"))
sys.path.insert(0, str(HERE.parents[1]))

import grpc  # noqa: E402
from griot.v1 import analysis_pb2_grpc  # noqa: E402
from test_analysis_contract import ReferenceAnalysis  # noqa: E402

from services.common.rpc import RpcMetrics  # noqa: E402
from services.common.server import ServiceSpec  # noqa: E402

SERVICE_NAME = "griot.v1.AnalysisService"


def add_servicers(server: grpc.aio.Server, _metrics: RpcMetrics) -> None:
    analysis_pb2_grpc.add_AnalysisServiceServicer_to_server(ReferenceAnalysis(), server)


def service_spec() -> ServiceSpec:
    return ServiceSpec(name="reference-analysis", service_names=[SERVICE_NAME], add_servicers=add_servicers)


async def _serve(port: int) -> None:
    server = grpc.aio.server()
    add_servicers(server, None)  # type: ignore[arg-type]
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"serving 127.0.0.1:{bound}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(_serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
