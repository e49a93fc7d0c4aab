"""The server around the servicer: health checking, reflection, metrics, the entry point with its
flags and environment, worker processes on one port, and graceful shutdown."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import griot
import grpc
import pytest
from conftest import ServerHandle, start_in_thread
from griot.client import RulesClient
from griot.services.common.server import ServerConfig, add_arguments, config_from_args, parse_grpc_option
from griot.services.rules import SERVICE_NAME
from griot.v1 import rules_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
ABAPA = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"


def health_status(target: str, service: str = "") -> int:
    with grpc.insecure_channel(target) as ch:
        resp = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        return int(resp.status)


def test_health(rules_server: ServerHandle) -> None:
    assert health_status(rules_server.target) == health_pb2.HealthCheckResponse.SERVING
    assert health_status(rules_server.target, SERVICE_NAME) == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as e:
        health_status(rules_server.target, "griot.v1.NoSuchService")
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def _reflect(
    target: str, request: reflection_pb2.ServerReflectionRequest
) -> reflection_pb2.ServerReflectionResponse:
    with grpc.insecure_channel(target) as ch:
        stub = reflection_pb2_grpc.ServerReflectionStub(ch)
        return next(iter(stub.ServerReflectionInfo(iter([request]), timeout=5)))


def test_reflection_lists_services_and_serves_descriptors(rules_server: ServerHandle) -> None:
    resp = _reflect(rules_server.target, reflection_pb2.ServerReflectionRequest(list_services=""))
    names = {s.name for s in resp.list_services_response.service}
    assert {
        "griot.v1.RulesService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
    } <= names
    files = _reflect(
        rules_server.target,
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="griot.v1.RulesService"),
    )
    from google.protobuf import descriptor_pb2

    protos = [
        descriptor_pb2.FileDescriptorProto.FromString(b)
        for b in files.file_descriptor_response.file_descriptor_proto
    ]
    rules = next(p for p in protos if p.name == "griot/v1/rules.proto")
    methods = {m.name for s in rules.service for m in s.method}
    assert methods == {
        "ListVariants",
        "DescribeVariant",
        "StartPosition",
        "ListLegalMoves",
        "ApplyMove",
        "ValidateMove",
        "ParsePosition",
        "FormatPosition",
    }


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return str(r.read().decode())


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample (labels given must all match)."""
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_metrics_count_requests_errors_and_latency(rules_server: ServerHandle, rules: RulesClient) -> None:
    before = scrape(rules_server.metrics_port)
    ok0 = metric(before, "griot_rpc_requests_total", method="ApplyMove", code="OK")
    bad0 = metric(
        before, "griot_rpc_errors_total", method="ApplyMove", code="INVALID_ARGUMENT", reason="not_own_hole"
    )
    for m in "abc":
        rules.apply_move(ABAPA, m)
    for _ in range(2):
        with pytest.raises(griot.IllegalMoveError):
            rules.apply_move(ABAPA, "A")
    after = scrape(rules_server.metrics_port)
    assert metric(after, "griot_rpc_requests_total", method="ApplyMove", code="OK") == ok0 + 3
    assert metric(after, "griot_rpc_requests_total", method="ApplyMove", code="INVALID_ARGUMENT") >= 2
    assert (
        metric(
            after,
            "griot_rpc_errors_total",
            method="ApplyMove",
            code="INVALID_ARGUMENT",
            reason="not_own_hole",
        )
        == bad0 + 2
    )
    assert metric(after, "griot_rpc_duration_seconds_count", method="ApplyMove") >= 5
    assert 'griot_rpc_duration_seconds_bucket{le="0.001",method="ApplyMove",service="RulesService"}' in after
    assert "griot_rpc_in_flight" in after


def _buckets(text: str, method: str) -> list[tuple[float, float]]:
    """The (upper bound, cumulative count) samples of one method's latency histogram."""
    out = []
    for line in text.splitlines():
        if line.startswith("griot_rpc_duration_seconds_bucket{") and f'method="{method}"' in line:
            le = re.search(r'le="([^"]+)"', line)
            assert le is not None
            out.append((float(le.group(1)), float(line.rsplit(" ", 1)[1])))
    return sorted(out)


def test_tallied_metrics_are_all_in_the_next_scrape(rules_server: ServerHandle, rules: RulesClient) -> None:
    # Successful calls are tallied on the event loop and added in batches: a scrape adds them first.
    before = scrape(rules_server.metrics_port)
    count0 = metric(before, "griot_rpc_duration_seconds_count", method="ListLegalMoves")
    sum0 = metric(before, "griot_rpc_duration_seconds_sum", method="ListLegalMoves")
    ok0 = metric(before, "griot_rpc_requests_total", method="ListLegalMoves", code="OK")
    for _ in range(7):
        assert rules.legal_moves(ABAPA) == ["a", "b", "c", "d", "e", "f"]
    with pytest.raises(griot.NotationError):
        rules.legal_moves("abapa 4,4/4")
    after = scrape(rules_server.metrics_port)
    assert metric(after, "griot_rpc_requests_total", method="ListLegalMoves", code="OK") == ok0 + 7
    # Failed calls are timed too.
    assert metric(after, "griot_rpc_duration_seconds_count", method="ListLegalMoves") == count0 + 8
    assert metric(after, "griot_rpc_duration_seconds_sum", method="ListLegalMoves") > sum0
    buckets = _buckets(after, "ListLegalMoves")
    assert buckets[-1] == (float("inf"), count0 + 8)
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(buckets))  # cumulative
    assert metric(after, "griot_rpc_in_flight", service="RulesService") == 0


def test_unknown_method_is_unimplemented(rules_server: ServerHandle) -> None:
    # Every service's handlers are generic (one pending request for all): a method none of them
    # has falls through all of them.
    with grpc.insecure_channel(rules_server.target) as ch:
        call = ch.unary_unary("/griot.v1.RulesService/NoSuchMethod")
        with pytest.raises(grpc.RpcError) as e:
            call(b"", timeout=5)
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED


# ---------------------------------------------------------------------------------------------
# The entry point as a subprocess


def _spawn(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "griot.services.rules", *args],
        cwd=ROOT,
        env=full_env,
        stderr=subprocess.PIPE,
        text=True,
    )


def _reap(proc: subprocess.Popen[str]) -> None:
    """Kills the server if it still runs, waits for it and closes its log pipe."""
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    if proc.stderr is not None:
        proc.stderr.close()


def _wait_for_log(proc: subprocess.Popen[str], msg: str, timeout: float = 30) -> dict[str, object]:
    return _wait_for_logs(proc, {msg: 1}, timeout)[msg][0]


def _wait_for_logs(
    proc: subprocess.Popen[str], wanted: dict[str, int], timeout: float = 30
) -> dict[str, list[dict[str, object]]]:
    """Reads JSON log lines until each message in ``wanted`` was seen that many times."""
    assert proc.stderr is not None
    seen: dict[str, list[dict[str, object]]] = {m: [] for m in wanted}
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = proc.stderr.readline()
        if not line:
            if proc.poll() is not None:
                raise AssertionError(f"server exited with {proc.returncode}")
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # grpc's own C-core logging
        msg = record.get("msg")
        if msg in seen:
            seen[msg].append(dict(record))
            if all(len(seen[m]) >= n for m, n in wanted.items()):
                return seen
    raise AssertionError(f"missing log lines: wanted {wanted}, saw {seen}")


@pytest.fixture
def subprocess_server() -> Iterator[tuple[subprocess.Popen[str], str, int]]:
    # Port and metrics port from the environment; log format defaults to JSON.
    proc = _spawn("--grace-seconds", "3", env={"GRIOT_RULES_PORT": "0", "GRIOT_RULES_METRICS_PORT": "0"})
    record = _wait_for_log(proc, "serving")
    port = int(str(record["address"]).rsplit(":", 1)[1])
    yield proc, f"127.0.0.1:{port}", int(str(record["metrics_port"]))
    _reap(proc)


def test_entry_point_serves_and_shuts_down_gracefully_on_sigterm(
    subprocess_server: tuple[subprocess.Popen[str], str, int],
) -> None:
    proc, target, metrics_port = subprocess_server
    with RulesClient(target) as c:
        assert c.apply_move(ABAPA, "c").position.turns == 1
    assert "griot_rpc_requests_total" in scrape(metrics_port)
    proc.send_signal(signal.SIGTERM)
    _wait_for_log(proc, "shutting down")
    _wait_for_log(proc, "stopped")
    assert proc.wait(timeout=10) == 0


def test_sigint_stops_too(subprocess_server: tuple[subprocess.Popen[str], str, int]) -> None:
    proc, target, _ = subprocess_server
    assert health_status(target) == health_pb2.HealthCheckResponse.SERVING
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == 0


def test_workers_share_one_port_and_aggregate_metrics() -> None:
    proc = _spawn("--port", "0", "--metrics-port", "0", "--workers", "2")
    try:
        logs = _wait_for_logs(proc, {"supervising workers": 1, "serving": 2})
        supervisor, workers = logs["supervising workers"][0], logs["serving"]
        target = str(supervisor["address"])
        assert {w["address"] for w in workers} == {target}
        assert len({w["pid"] for w in workers}) == 2
        # Separate connections reach both workers (SO_REUSEPORT balances connections).
        for _ in range(8):
            with RulesClient(
                target, channel=grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
            ) as c:
                assert c.parse_position(ABAPA).notation == ABAPA
        # The workers add their tallies to the shared files every FLUSH_SECONDS, on their own.
        deadline = time.monotonic() + 10
        while True:
            text = scrape(int(str(supervisor["metrics_port"])))
            count = metric(text, "griot_rpc_requests_total", method="ParsePosition", code="OK")
            if count == 8 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert count == 8
        assert metric(text, "griot_rpc_duration_seconds_count", method="ParsePosition") == 8
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        _reap(proc)


@pytest.mark.parametrize(("flag", "loop"), [("asyncio", "asyncio"), ("uvloop", "uvloop"), ("auto", "uvloop")])
def test_event_loop_flag_chooses_the_loop(flag: str, loop: str) -> None:
    pytest.importorskip("uvloop")
    proc = _spawn("--port", "0", "--metrics-port", "off", "--event-loop", flag)
    try:
        record = _wait_for_log(proc, "serving")
        assert record["event_loop"] == loop
        with RulesClient(str(record["address"])) as c:
            assert c.apply_move(ABAPA, "c").position.turns == 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        _reap(proc)


def test_rules_service_defaults_to_uvloop_and_the_environment_overrides_it() -> None:
    pytest.importorskip("uvloop")
    for env, loop in (({}, "uvloop"), ({"GRIOT_RULES_EVENT_LOOP": "asyncio"}, "asyncio")):
        proc = _spawn("--port", "0", "--metrics-port", "off", env=env)
        try:
            assert _wait_for_log(proc, "serving")["event_loop"] == loop
        finally:
            _reap(proc)


def test_bad_event_loop_is_refused_by_the_parser() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "griot.services.rules", "--event-loop", "trio"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "--event-loop: invalid choice: 'trio'" in out.stderr


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_cpu_affinity_pins_each_worker_to_its_own_cpu() -> None:
    proc = _spawn("--port", "0", "--metrics-port", "off", "--workers", "2", "--cpu-affinity", "on")
    try:
        logs = _wait_for_logs(proc, {"pinned to a CPU": 2, "serving": 2})
        cpus = {int(str(r["pid"])): int(str(r["cpu"])) for r in logs["pinned to a CPU"]}
        assert len(set(cpus.values())) == 2
        assert set(cpus.values()) <= os.sched_getaffinity(0)
        for pid, cpu in cpus.items():
            threads = [int(t.name) for t in Path(f"/proc/{pid}/task").iterdir()]
            assert len(threads) > 1  # the event loop and gRPC's own threads, all on that CPU
            assert {tid: os.sched_getaffinity(tid) for tid in threads} == {tid: {cpu} for tid in threads}
        assert {int(str(r["pid"])) for r in logs["serving"]} == set(cpus)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        _reap(proc)


def test_help_lists_flags_and_env_variables() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "griot.services.rules", "--help"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for flag in (
        "--port",
        "--metrics-port",
        "--max-receive-bytes",
        "--max-concurrent-rpcs",
        "--workers",
        "--log-format",
    ):
        assert flag in out
    assert re.search(r"GRIOT_RULES_PORT", out)


def test_grpc_options_reach_the_server_and_win_over_the_configured_ones() -> None:
    # An explicit channel argument wins over the one a field sets: 64 bytes, not max_receive_bytes.
    handle = start_in_thread(
        ServerConfig(
            host="127.0.0.1",
            port=0,
            metrics_port=0,
            grpc_options=(("grpc.max_receive_message_length", 64),),
        )
    )
    try:
        with RulesClient(handle.target, timeout=10) as c:
            assert c.apply_move(ABAPA, "c").position.turns == 1  # ~40 bytes: accepted
        with grpc.insecure_channel(handle.target) as ch:
            apply = ch.unary_unary(
                "/griot.v1.RulesService/ApplyMove",
                request_serializer=rules_pb2.ApplyMoveRequest.SerializeToString,
                response_deserializer=rules_pb2.ApplyMoveResponse.FromString,
            )
            with pytest.raises(grpc.RpcError) as err:
                apply(rules_pb2.ApplyMoveRequest(position=ABAPA + " " * 100, move="c"), timeout=10)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        handle.stop()


def test_grpc_options_from_flags_and_environment() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser, "GRIOT_TEST", ServerConfig())
    assert config_from_args(parser.parse_args([])).grpc_options == ()
    args = parser.parse_args(["--grpc-option", "grpc.max_concurrent_streams=8", "--grpc-option", "grpc.x=on"])
    assert config_from_args(args).grpc_options == (("grpc.max_concurrent_streams", 8), ("grpc.x", "on"))
    os.environ["GRIOT_TEST_GRPC_OPTIONS"] = "grpc.a=1, grpc.b=two"
    try:
        parser = argparse.ArgumentParser()
        add_arguments(parser, "GRIOT_TEST", ServerConfig())
        args = parser.parse_args(["--grpc-option", "grpc.c=3"])
        assert config_from_args(args).grpc_options == (("grpc.a", 1), ("grpc.b", "two"), ("grpc.c", 3))
    finally:
        del os.environ["GRIOT_TEST_GRPC_OPTIONS"]
    with pytest.raises(ValueError, match=r"expected grpc\.NAME=VALUE"):
        parse_grpc_option("max_concurrent_streams=8")
