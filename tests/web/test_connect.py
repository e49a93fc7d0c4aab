"""The Connect and gRPC-Web endpoints as a browser or curl sees them: plain JSON POSTs, binary
Protobuf, enveloped streams, error codes with their ErrorInfo, limits, CORS, the /api prefix,
served in process and forwarded to real gRPC servers."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from griot.services.web.connect import Limits
from griot.status import CONNECT_CODES, connect_code
from griot.v1 import analysis_pb2, rules_pb2
from webstack import *  # noqa: F403  (the fixtures)
from webstack import MAX_RECEIVE_BYTES, WebServer

START = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
RULES = "/griot.v1.RulesService"
ANALYSIS = "/griot.v1.AnalysisService"


@pytest.fixture(params=["local", "proxy"])
def web(request: pytest.FixtureRequest) -> WebServer:
    server: WebServer = request.getfixturevalue(f"web_{request.param}")
    return server


def post(web: WebServer, path: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(
        web.url + path, json=body, headers={"Content-Type": "application/json", **headers}, timeout=10
    )


def error_info(body: dict[str, Any]) -> error_details_pb2.ErrorInfo:
    (detail,) = [d for d in body["details"] if d["type"] == "google.rpc.ErrorInfo"]
    value = detail["value"]
    info = error_details_pb2.ErrorInfo()
    info.ParseFromString(base64.b64decode(value + "=" * (-len(value) % 4)))
    return info


def envelope(payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def envelopes(data: bytes) -> list[tuple[int, bytes]]:
    out = []
    while data:
        flags, n = struct.unpack(">BI", data[:5])
        out.append((flags, data[5 : 5 + n]))
        data = data[5 + n :]
    return out


# ---------------------------------------------------------------------------------------------
# Unary calls as plain JSON POSTs


def test_start_position_json(web: WebServer) -> None:
    r = post(web, f"{RULES}/StartPosition", {"variant": "abapa"})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert body["position"]["notation"] == START
    assert body["position"]["sideToMove"] == "PLAYER_SOUTH"
    assert body["legalMoves"] == ["a", "b", "c", "d", "e", "f"]
    # What each cell holds, by geometry cell index, and the stores: the board without the notation.
    assert body["position"]["cells"] == [4] * 12
    assert (body["position"]["southStore"], body["position"]["northStore"]) == (0, 0)


def test_apply_move_events_json(web: WebServer) -> None:
    r = post(
        web, f"/api{RULES}/ApplyMove", {"position": "abapa 0,0,0,0,0,1/1,4,4,4,4,4 0-0 S 10 -", "move": "f"}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["position"]["notation"] == "abapa 0,0,0,0,0,0/0,4,4,4,4,4 2-0 N 11 -"
    assert body["events"] == [
        {"kind": "TURN_EVENT_KIND_LAP", "cell": 5, "cells": [6], "seeds": 1},
        {
            "kind": "TURN_EVENT_KIND_CAPTURE",
            "player": "PLAYER_SOUTH",
            "cell": 6,
            "seeds": 2,
            "detail": "final",
        },
    ]
    assert body["legalMoves"] == ["C", "D", "E", "F"]


def test_describe_variant_geometry(web: WebServer) -> None:
    body = post(web, f"{RULES}/DescribeVariant", {"variant": "abapa(holes=4)"}).json()
    geo = body["geometry"]
    assert (geo["rows"], geo["cols"], len(geo["cells"])) == (2, 4, 8)
    assert geo["cells"][0] == {"owner": "PLAYER_SOUTH", "label": "a"}
    assert body["startPosition"] == "abapa(holes=4) 4,4,4,4/4,4,4,4 0-0 S 0 -"


def test_list_variants_has_every_family(web: WebServer) -> None:
    import griot

    body = post(web, f"{RULES}/ListVariants", {}).json()
    assert [f["id"] for f in body["families"]] == sorted(v.id for v in griot.variants())


def test_binary_protobuf(web: WebServer) -> None:
    req = rules_pb2.ApplyMoveRequest(position=START, move="c")
    r = httpx.post(
        f"{web.url}{RULES}/ApplyMove",
        content=req.SerializeToString(),
        headers={"Content-Type": "application/proto"},
        timeout=10,
    )
    assert r.status_code == 200
    resp = rules_pb2.ApplyMoveResponse.FromString(r.content)
    assert resp.position.notation == "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -"


# ---------------------------------------------------------------------------------------------
# Errors: the gRPC status's Connect code and the very same ErrorInfo


@pytest.mark.parametrize(
    ("path", "body", "http", "code", "reason", "meta"),
    [
        (
            f"{RULES}/ApplyMove",
            {"position": START, "move": "A"},
            400,
            "invalid_argument",
            "not_own_hole",
            {"error": "illegal_move", "move": "A"},
        ),
        (
            f"{RULES}/StartPosition",
            {"variant": "nope"},
            404,
            "not_found",
            "unknown_variant",
            {"error": "unknown_variant"},
        ),
        (
            f"{RULES}/StartPosition",
            {"variant": "abapa(holes=99)"},
            400,
            "invalid_argument",
            "bad_option",
            {"error": "variant", "option": "holes"},
        ),
        (
            f"{RULES}/ListLegalMoves",
            {"position": "abapa nonsense"},
            400,
            "invalid_argument",
            "bad_notation",
            {"error": "notation"},
        ),
        (
            f"{ANALYSIS}/BestMove",
            {"position": "abapa nonsense"},
            400,
            "invalid_argument",
            "bad_notation",
            {"error": "notation"},
        ),
    ],
)
def test_error_codes_and_error_info(
    web: WebServer, path: str, body: dict[str, Any], http: int, code: str, reason: str, meta: dict[str, str]
) -> None:
    r = post(web, path, body)
    assert r.status_code == http, r.text
    err = r.json()
    assert err["code"] == code
    info = error_info(err)
    assert (info.domain, info.reason) == ("griot.v1", reason)
    assert dict(info.metadata) == meta
    # For people reading curl output: the same detail decoded.
    (debug,) = [d["debug"] for d in err["details"]]
    assert debug == {"reason": reason, "domain": "griot.v1", "metadata": meta}


def test_connect_codes_cover_every_grpc_status() -> None:
    assert len(CONNECT_CODES) == 16
    assert connect_code(grpc.StatusCode.CANCELLED) == "canceled"
    assert connect_code(grpc.StatusCode.RESOURCE_EXHAUSTED) == "resource_exhausted"


def test_oversized_request_is_resource_exhausted(web: WebServer) -> None:
    r = post(web, f"{RULES}/ListLegalMoves", {"position": "x" * (MAX_RECEIVE_BYTES + 10)})
    assert r.json()["code"] == "resource_exhausted"


def test_oversized_response_is_resource_exhausted() -> None:
    limits = Limits(max_send_bytes=10)
    from connectrpc.errors import ConnectError

    with pytest.raises(ConnectError) as e:
        limits.check_send(rules_pb2.ListLegalMovesResponse(moves=["abcdef"] * 3))
    assert e.value.code.value == "resource_exhausted"


def test_concurrency_limit() -> None:
    from connectrpc.errors import ConnectError

    limits = Limits(max_concurrent_rpcs=1)
    limits.enter()
    with pytest.raises(ConnectError) as e:
        limits.enter()
    assert e.value.code.value == "resource_exhausted"
    limits.leave()
    limits.enter()


def test_unknown_method_is_404(web: WebServer) -> None:
    assert post(web, f"{RULES}/Nope", {}).status_code == 404


def test_unmounted_service_is_404(web_factory: Any) -> None:
    web = web_factory(services={"griot.v1.RulesService": "local", "griot.v1.AnalysisService": "off"})
    assert post(web, f"{ANALYSIS}/BestMove", {"position": START}).status_code == 404
    assert httpx.get(f"{web.url}/api/services").json() == {"services": {"griot.v1.RulesService": "local"}}


def test_upstream_down_is_unavailable(web_factory: Any) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    web = web_factory(services={"griot.v1.RulesService": f"127.0.0.1:{port}"})
    r = post(web, f"{RULES}/StartPosition", {"variant": "abapa"})
    assert r.json()["code"] == "unavailable"


# ---------------------------------------------------------------------------------------------
# Streams: Connect server streaming and gRPC-Web


def test_connect_server_stream_json(web: WebServer) -> None:
    req = json.dumps({"position": START, "limits": {"maxDepth": 3}, "includeMoveScores": True}).encode()
    r = httpx.post(
        f"{web.url}{ANALYSIS}/Evaluate",
        content=envelope(req),
        headers={"Content-Type": "application/connect+json"},
        timeout=10,
    )
    assert r.status_code == 200
    frames = envelopes(r.content)
    msgs = [json.loads(p) for f, p in frames if f == 0]
    # The gateway's contract (docs/API.md): one message per completed depth, deeper and deeper, the
    # last one final and at least as deep as asked (a deeper cached result may answer at once).
    depths = [m["evaluation"]["depth"] for m in msgs]
    assert depths and depths == sorted(set(depths)) and depths[-1] >= 3
    assert [m["evaluation"].get("final", False) for m in msgs] == [False] * (len(msgs) - 1) + [True]
    assert {m["position"] for m in msgs} == {START}
    assert len(msgs[-1]["evaluation"]["moveScores"]) == 6
    end = [json.loads(p) for f, p in frames if f == 2]
    assert end == [{}] or "error" not in end[0]


def test_connect_server_stream_error_in_end_message(web: WebServer) -> None:
    req = json.dumps({"position": "abapa nonsense"}).encode()
    r = httpx.post(
        f"{web.url}{ANALYSIS}/Evaluate",
        content=envelope(req),
        headers={"Content-Type": "application/connect+json"},
        timeout=10,
    )
    (end,) = [json.loads(p) for f, p in envelopes(r.content) if f == 2]
    assert end["error"]["code"] == "invalid_argument"
    assert error_info(end["error"]).reason == "bad_notation"


def _grpc_web(web: WebServer, path: str, msg: Any) -> tuple[list[bytes], dict[str, str]]:
    r = httpx.post(
        web.url + path,
        content=envelope(msg.SerializeToString()),
        headers={"Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1"},
        timeout=10,
    )
    assert r.status_code == 200
    data, trailers = [], {k: v for k, v in r.headers.items() if k.startswith("grpc-")}
    for flags, payload in envelopes(r.content):
        if flags & 0x80:
            for line in payload.decode().split("\r\n"):
                if line:
                    k, _, v = line.partition(":")
                    trailers[k.strip().lower()] = v.strip()
        else:
            data.append(payload)
    return data, trailers


def test_grpc_web_unary_and_stream(web: WebServer) -> None:
    data, trailers = _grpc_web(web, f"{RULES}/StartPosition", rules_pb2.StartPositionRequest(variant="awale"))
    assert trailers["grpc-status"] == "0"
    assert rules_pb2.StartPositionResponse.FromString(data[0]).position.variant == "awale"

    data, trailers = _grpc_web(
        web, f"{ANALYSIS}/Evaluate", analysis_pb2.EvaluateRequest(position=START, limits={"max_depth": 2})
    )
    assert trailers["grpc-status"] == "0"
    evaluations = [analysis_pb2.EvaluateResponse.FromString(d).evaluation for d in data]
    assert evaluations[-1].final and evaluations[-1].depth >= 2
    assert evaluations[-1].best_move in {"a", "b", "c", "d", "e", "f"}


def test_grpc_web_error_has_status_details(web: WebServer) -> None:
    from google.rpc import status_pb2

    _, trailers = _grpc_web(web, f"{RULES}/ApplyMove", rules_pb2.ApplyMoveRequest(position=START, move="A"))
    assert trailers["grpc-status"] == str(grpc.StatusCode.INVALID_ARGUMENT.value[0])
    raw = trailers["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    assert info.reason == "not_own_hole"


# ---------------------------------------------------------------------------------------------
# CORS, info, metrics


def test_cors_preflight_allowed_origin(web_local: WebServer) -> None:
    r = httpx.options(
        f"{web_local.url}/api{RULES}/ApplyMove",
        headers={
            "Origin": "http://allowed.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,connect-protocol-version,x-api-key",
        },
    )
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "http://allowed.example"
    r = post(web_local, f"{RULES}/StartPosition", {"variant": "abapa"}, Origin="http://allowed.example")
    assert "grpc-status-details-bin" in r.headers["access-control-expose-headers"].lower()


def test_cors_other_origin_refused(web_local: WebServer, web_proxy: WebServer) -> None:
    r = httpx.options(
        f"{web_local.url}{RULES}/ApplyMove",
        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert r.status_code == 400
    assert "access-control-allow-origin" not in r.headers
    # No origins configured: same-origin only, no CORS headers at all.
    r = post(web_proxy, f"{RULES}/StartPosition", {"variant": "abapa"}, Origin="http://evil.example")
    assert "access-control-allow-origin" not in r.headers


def test_services_health_and_metrics(web_local: WebServer, web_proxy: WebServer, analysis_grpc: str) -> None:
    assert httpx.get(f"{web_local.url}/api/services").json()["services"] == {
        "griot.v1.RulesService": "local",
        "griot.v1.AnalysisService": f"grpc://{analysis_grpc}",
    }
    assert (
        httpx.get(f"{web_proxy.url}/api/services")
        .json()["services"]["griot.v1.RulesService"]
        .startswith("grpc://127.0.0.1:")
    )
    assert httpx.get(f"{web_local.url}/healthz").json() == {"status": "ok"}
    post(web_local, f"{RULES}/ValidateMove", {"position": START, "move": "c"})
    metrics = httpx.get(f"{web_local.url}/metrics").text
    assert 'griot_rpc_requests_total{code="OK",method="ValidateMove",service="RulesService"}' in metrics
    assert httpx.get(f"{web_local.url}/nope").status_code == 404


def test_service_from_a_factory(web_factory: Any) -> None:
    """A `module:function` naming a ServiceSpec factory serves that servicer in process."""
    web = web_factory(
        services={
            "griot.v1.RulesService": "griot.services.rules:service_spec",
            "griot.v1.AnalysisService": "off",
        }
    )
    assert httpx.get(f"{web.url}/api/services").json()["services"] == {
        "griot.v1.RulesService": "local:griot.services.rules:service_spec"
    }
    r = post(web, f"{RULES}/ApplyMove", {"position": START, "move": "c"})
    assert r.json()["position"]["notation"] == "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -"


def test_flags_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from griot.services.web.__main__ import parse_args

    monkeypatch.setenv("GRIOT_WEB_ANALYSIS", "127.0.0.1:50052")
    monkeypatch.setenv("GRIOT_WEB_MAX_CONCURRENT_RPCS", "off")
    origins = "http://a.example, http://b.example"
    c = parse_args(["--port", "9000", "--cors-origins", origins, "--static", "off"])
    assert c.port == 9000
    assert c.services == {"griot.v1.RulesService": "local", "griot.v1.AnalysisService": "127.0.0.1:50052"}
    assert c.cors_origins == ("http://a.example", "http://b.example")
    assert c.static_dir is None
    assert c.max_concurrent_rpcs is None
    assert parse_args([]).max_receive_bytes == 65536


def test_the_browser_api_links_answer_a_plain_get(web: WebServer) -> None:
    # The link `griot up` prints for the browser API, the API's root and a service's path answer a
    # GET with the methods there and a call to try; the board keeps "/".
    from griot.launch.components import iter_specs

    links = [url for spec in iter_specs() for name, url in spec.endpoints if "browser API" in name]
    assert links, "griot up prints a browser API link"
    host, port = web.url.removeprefix("http://").split(":")
    paths = [link.format(host=host, web_port=port).removeprefix(web.url) for link in links]
    for path in [*paths, "/api", "/api/", f"/api{RULES}/", f"{RULES}/"]:
        r = httpx.get(f"{web.url}{path}")
        assert r.status_code == 200, (path, r.text)
        body = r.json()
        assert f"{RULES}/StartPosition" in body["methods"] and "curl" in body["example"], body
    assert httpx.post(f"{web.url}{RULES}/", json={}).status_code == 404  # a POST is still a call
