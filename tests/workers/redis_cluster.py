"""A real Redis Cluster on loopback for the tests: six ``redis-server --cluster-enabled yes`` (three
primaries, three replicas) in a temporary directory, joined by ``redis-cli --cluster create``. It
can lose a primary (its replica takes over) and move slots between primaries (``redis-cli
--cluster reshard``). Every wait has a deadline."""

from __future__ import annotations

import contextlib
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from griot.launcher import with_parent_death

if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
    pytest.skip("redis-server and redis-cli are not installed", allow_module_level=True)

#: Milliseconds before a silent primary is failed over: short, so a test waits seconds.
NODE_TIMEOUT_MS = 1000


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(count: int) -> list[int]:
    """``count`` loopback ports whose cluster bus ports (+10000) are free too, all below the usual
    ephemeral range (32768), so no outgoing connection takes one before its server binds it."""
    rng = random.SystemRandom()
    ports: list[int] = []
    for _ in range(2000):
        p = rng.randrange(10000, 22700)
        if p not in ports and _bindable(p) and _bindable(p + 10000):
            ports.append(p)
            if len(ports) == count:
                return ports
    raise RuntimeError("no free loopback ports for a Redis Cluster")


@dataclass
class Node:
    node_id: str
    port: int
    primary: bool
    #: The primary's id when this is a replica.
    of: str | None
    slots: int


@dataclass
class RedisClusterServers:
    """Six nodes: :meth:`start` runs and joins them, :meth:`stop` ends them and removes the files."""

    base: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="griot-cluster-")))
    ports: list[int] = field(default_factory=list)
    procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The URL of one live node (the clients learn the others from it)."""
        return f"redis://127.0.0.1:{self.live_ports()[0]}/0"

    def live_ports(self) -> list[int]:
        return [p for p in self.ports if self.procs[p].poll() is None]

    def start(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        self.ports = cluster_ports(6)
        for port in self.ports:
            d = self.base / str(port)
            d.mkdir()
            with open(d / "server.log", "wb") as log:
                self.procs[port] = subprocess.Popen(
                    with_parent_death(
                        [
                            "redis-server",
                            "--port",
                            str(port),
                            "--bind",
                            "127.0.0.1",
                            "--dir",
                            str(d),
                            "--save",
                            "",
                            "--appendonly",
                            "no",
                            "--protected-mode",
                            "no",
                            "--cluster-enabled",
                            "yes",
                            "--cluster-config-file",
                            "nodes.conf",
                            "--cluster-node-timeout",
                            str(NODE_TIMEOUT_MS),
                            "--maxmemory",
                            "64mb",
                            "--maxmemory-policy",
                            "allkeys-lru",
                        ]
                    ),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        for port in self.ports:
            self._wait_ping(port, deadline)
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas",
                "1",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=max(5.0, deadline - time.monotonic()),
        )
        self.wait_ok(deadline - time.monotonic())

    def _wait_ping(self, port: int, deadline: float) -> None:
        with redis.Redis(port=port, socket_timeout=1) as client:
            while True:
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    if self.procs[port].poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(
                            f"cluster node {port} did not start; logs in {self.base}"
                        ) from None
                    time.sleep(0.05)

    def nodes(self, port: int | None = None) -> list[Node]:
        """The cluster's nodes as ``port`` (a live node) sees them (failed ones left out), from
        ``CLUSTER NODES`` as redis-py parses it."""
        with redis.Redis(port=port or self.live_ports()[0], socket_timeout=2) as client:
            table = client.cluster("NODES")
        out = []
        for address, n in table.items():
            flags = n["flags"].split(",")
            if "fail" in flags or "noaddr" in flags:
                continue
            slots = sum(int(r[-1]) - int(r[0]) + 1 for r in n["slots"])
            of = None if n["master_id"] == "-" else n["master_id"]
            out.append(Node(n["node_id"], int(address.rsplit(":", 1)[1]), "master" in flags, of, slots))
        return out

    def primaries(self) -> list[Node]:
        return sorted((n for n in self.nodes() if n.primary and n.slots), key=lambda n: n.port)

    def wait_ok(self, timeout: float = 30.0, primaries: int = 3) -> None:
        """Until every live node says ``cluster_state:ok``, the slots are all served and
        ``primaries`` primaries serve them."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self._ok(primaries):
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Redis Cluster is not ok after {timeout} s; logs in {self.base}")
            time.sleep(0.1)

    def _ok(self, primaries: int) -> bool:
        for port in self.live_ports():
            with redis.Redis(port=port, socket_timeout=1) as client:
                fields = client.cluster("INFO")
            if fields.get("cluster_state") != "ok" or fields.get("cluster_slots_ok") != "16384":
                return False
        return len(self.primaries()) == primaries and sum(n.slots for n in self.primaries()) == 16384

    def kill(self, port: int) -> None:
        """SIGKILL one node (no goodbye to the others: they must notice it is gone)."""
        proc = self.procs[port]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    @contextlib.contextmanager
    def unreachable(self, node: Node) -> Iterator[None]:
        """``node`` stopped (SIGSTOP: its sockets accept, nothing answers) with no failover: its
        replicas may not take over and the others serve their slots meanwhile
        (``cluster-replica-no-failover``, ``cluster-require-full-coverage no``). Resumed after,
        until the cluster is ok again."""
        live = [p for p in self.live_ports() if p != node.port]

        def configure(no_failover: str, full_coverage: str) -> None:
            for port in live:
                with redis.Redis(port=port, socket_timeout=2) as client:
                    client.config_set("cluster-replica-no-failover", no_failover)
                    client.config_set("cluster-require-full-coverage", full_coverage)

        configure("yes", "no")
        self.procs[node.port].send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            self.procs[node.port].send_signal(signal.SIGCONT)
            configure("no", "yes")
            self.wait_ok()

    def wait_failover(self, dead: Node, timeout: float = 30.0) -> Node:
        """The replica of the ``dead`` primary, once it has taken over its slots and the
        cluster is ok again."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self._ok(primaries=3):
                    for n in self.primaries():
                        if n.port != dead.port and n.slots == dead.slots:
                            return n
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"no failover of {dead.port} in {timeout} s; logs in {self.base}")
            time.sleep(0.1)

    def reshard(self, source: Node, target: Node, slots: int, timeout: float = 60.0) -> None:
        """Moves ``slots`` slots, with their keys, from ``source`` to ``target``."""
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "reshard",
                f"127.0.0.1:{target.port}",
                "--cluster-from",
                source.node_id,
                "--cluster-to",
                target.node_id,
                "--cluster-slots",
                str(slots),
                "--cluster-yes",
                "--cluster-pipeline",
                "100",
            ],
            check=True,
            capture_output=True,
            timeout=timeout,
        )

    def flushall(self) -> None:
        for n in self.primaries():
            with redis.Redis(port=n.port, socket_timeout=2) as client:
                client.flushall()

    def flush_scripts(self) -> None:
        """Every primary forgets its Lua scripts (as a restarted or newly promoted node has)."""
        for n in self.primaries():
            with redis.Redis(port=n.port, socket_timeout=2) as client:
                client.script_flush()

    # The test stacks call these on their cache server.
    def flushdb(self) -> None:
        self.flushall()

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        shutil.rmtree(self.base, ignore_errors=True)


def running_cluster() -> Iterator[RedisClusterServers]:
    """A started cluster, stopped after: the body of the tests' module-scoped ``cluster`` fixtures."""
    c = RedisClusterServers()
    try:
        c.start()
        yield c
    finally:
        c.stop()
