"""The web server's ASGI application: the Connect API, the demo app's static files, health and
metrics, behind configurable CORS.

    /griot.v1.RulesService/ApplyMove        Connect (JSON or Protobuf) and gRPC-Web, every RPC
    /api/griot.v1.RulesService/ApplyMove    the same under /api (what the demo app calls)
    /api/services                           JSON: which services are mounted, and how
    /api/, /griot.v1.RulesService/ (GET)    JSON: the methods under that path and how to call one
    /healthz                                JSON: ok
    /metrics                                Prometheus (the servicers' griot_rpc_* metrics)
    /                                       the built demo board (griot/board), if any
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from griot.services.common.rpc import RpcMetrics
from griot.services.common.server import ServiceSpec
from griot.services.web.config import WebSettings
from griot.services.web.connect import ConnectApp, Limits, Upstream, local_endpoints, upstream_endpoints
from prometheus_client import CollectorRegistry, make_asgi_app
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles

log = logging.getLogger("griot.web")

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]

#: The services the web server knows how to serve in process: full name -> ServiceSpec factory
#: ("module:function"). The analysis gateway joins here when it lands (``griot.services.gateway``).
KNOWN_SERVICES: dict[str, str] = {
    "griot.v1.RulesService": "griot.services.rules:service_spec",
    "griot.v1.AnalysisService": "griot.services.gateway:service_spec",
}

#: Request headers a browser may send cross-origin (Connect, gRPC-Web, Griot's API key).
CORS_ALLOW_HEADERS = [
    "Content-Type",
    "Connect-Protocol-Version",
    "Connect-Timeout-Ms",
    "Connect-Accept-Encoding",
    "Connect-Content-Encoding",
    "Grpc-Timeout",
    "X-Grpc-Web",
    "X-User-Agent",
    "X-Api-Key",
    "Authorization",
]
#: Response headers a cross-origin browser may read (gRPC-Web statuses live there).
CORS_EXPOSE_HEADERS = ["Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin", "Content-Encoding"]


@dataclass(frozen=True)
class WebConfig:
    """What the web server serves. Each service is ``local`` (its servicer in this process, from
    :data:`KNOWN_SERVICES`), ``module:function`` (a ServiceSpec factory, served in this process),
    ``HOST:PORT`` of a gRPC server to forward to, or ``off``."""

    # The defaults are the settings' (:class:`~griot.services.web.config.WebSettings`).
    host: str = WebSettings.host
    port: int = WebSettings.port
    services: dict[str, str] = field(
        default_factory=lambda: {
            "griot.v1.RulesService": WebSettings.rules,
            "griot.v1.AnalysisService": WebSettings.analysis,
        }
    )
    #: Folder of the built demo app; None serves no files.
    static_dir: Path | None = None
    #: Origins allowed cross-origin (``*`` for any); empty: same-origin only.
    cors_origins: tuple[str, ...] = ()
    max_receive_bytes: int = WebSettings.max_receive_bytes
    max_send_bytes: int = WebSettings.max_send_bytes
    max_concurrent_rpcs: int | None = WebSettings.max_concurrent_rpcs
    log_level: str = WebSettings.log_level
    log_format: str = WebSettings.log_format
    grace_seconds: float = WebSettings.grace_seconds


def _is_address(how: str) -> bool:
    """``HOST:PORT`` (a gRPC server) rather than ``module:function`` (a ServiceSpec factory)."""
    return how.rpartition(":")[2].isdigit()


def load_spec(factory: str) -> ServiceSpec:
    """A ServiceSpec from ``module:function``."""
    module, _, fn = factory.partition(":")
    spec: ServiceSpec = getattr(importlib.import_module(module), fn)()
    return spec


def _json(status: int, body: Any) -> ASGIApp:
    payload = json.dumps(body).encode()

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"cache-control", b"no-store")],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    return app


def _api_index(paths: list[str], mounted: dict[str, str]) -> dict[str, Any]:
    """What a GET of the API's root or of a service's path shows: its methods (POST them) and a
    call to try."""
    return {
        "api": "Connect (JSON or Protobuf) and gRPC-Web: POST to a method's path, here or under /api",
        "services": mounted,
        "methods": sorted(paths),
        "example": "curl -H 'Content-Type: application/json' -d '{\"variant\": \"abapa\"}' "
        "http://HOST:PORT/api/griot.v1.RulesService/StartPosition",
    }


class WebApp:
    """Routes requests: the Connect API (at the root and under ``/api``), info, metrics, files."""

    def __init__(self, config: WebConfig, registry: CollectorRegistry | None = None) -> None:
        self.config = config
        self.registry = registry if registry is not None else CollectorRegistry()
        metrics = RpcMetrics(self.registry)
        self.limits = Limits(config.max_receive_bytes, config.max_send_bytes, config.max_concurrent_rpcs)
        self.upstreams: list[Upstream] = []
        self.mounted: dict[str, str] = {}
        endpoints: dict[str, Any] = {}
        local_specs: dict[str, ServiceSpec] = {}
        for name, how in config.services.items():
            if how == "off":
                continue
            if how == "local" or not _is_address(how):
                factory = KNOWN_SERVICES.get(name) if how == "local" else how
                if factory is None:
                    raise ValueError(f"{name} cannot be served in process; give HOST:PORT of a server")
                spec = load_spec(factory)
                if spec.name not in local_specs:
                    local_specs[spec.name] = spec
                    endpoints.update(local_endpoints(spec, metrics, self.limits))
                self.mounted[name] = "local" if how == "local" else f"local:{how}"
            else:
                up = Upstream(how, config.max_receive_bytes, config.max_send_bytes)
                self.upstreams.append(up)
                endpoints.update(upstream_endpoints([name], up, self.limits))
                self.mounted[name] = f"grpc://{how}"
        self.connect = ConnectApp(endpoints, config.max_receive_bytes)
        self.prefixes = tuple(f"/{name}/" for name in self.mounted)
        self.metrics_app = make_asgi_app(self.registry)
        self.static = (
            StaticFiles(directory=str(config.static_dir), html=True)
            if config.static_dir is not None and config.static_dir.is_dir()
            else None
        )
        self.services_info = _json(200, {"services": self.mounted})
        # A plain GET of the API's root or of a service's path (what a banner links to) answers
        # with the methods there and a call to copy, rather than a bare 404.
        self.indexes = {
            prefix: _json(200, _api_index([p for p in endpoints if p.startswith(prefix)], self.mounted))
            for prefix in self.prefixes
        }
        self.indexes["/"] = _json(200, _api_index(list(endpoints), self.mounted))
        self.health = _json(200, {"status": "ok"})
        self.not_found = _json(404, {"code": "not_found", "message": "no such path"})

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        rpc_path = path
        if path.startswith("/api/"):
            rpc_path = path[4:]
            scope = {**scope, "root_path": scope.get("root_path", "") + "/api"}
        # "/" itself is the board; "/api" and "/api/" the API's root.
        index = None if path == "/" else self.indexes.get("/" if path == "/api" else rpc_path)
        if index is not None and scope.get("method") in ("GET", "HEAD"):
            await index(scope, receive, send)
        elif rpc_path.startswith("/griot.") or rpc_path.startswith("/grpc."):
            await self.connect(scope, receive, send)
        elif rpc_path == "/services":
            await self.services_info(scope, receive, send)
        elif path == "/healthz":
            await self.health(scope, receive, send)
        elif path == "/metrics":
            await self.metrics_app(scope, receive, send)
        elif self.static is not None and not path.startswith("/api/"):
            try:
                await self.static(scope, receive, send)
            except HTTPException:
                await self.not_found(scope, receive, send)
        else:
            await self.not_found(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for up in self.upstreams:
                    await up.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


def create_app(config: WebConfig, registry: CollectorRegistry | None = None) -> Any:
    """The ASGI application for a configuration (CORS applied when origins are configured)."""
    app: Any = WebApp(config, registry)
    if config.cors_origins:
        app = CORSMiddleware(
            app,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=CORS_ALLOW_HEADERS,
            expose_headers=CORS_EXPOSE_HEADERS,
            max_age=7200,
        )
    return app
