"""Hosts as Linux network namespaces on one isolated bridge (needs root and ``ip`` from iproute2).

The bridge lives in a namespace of its own (the *switch*), so the machine's own namespace is never
on it: every host reaches the others and nothing else. Each host gets one veth interface (``eth0``)
with one address in the lab's subnet and loopback; no host has a default route, nothing is
forwarded or translated, so no packet can leave the bridge. The subnet must lie in 198.18.0.0/15,
the block set aside for network benchmarks (RFC 2544).

Every namespace the lab makes is named with its prefix; :meth:`Network.sweep` removes every
namespace with that prefix and kills every process inside them (found by namespace, never by name),
so that set-up after an interrupted run starts clean and tear-down leaves nothing behind.
"""

from __future__ import annotations

import ctypes
import ipaddress
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

T = TypeVar("T")

#: Every lab namespace's name starts with this.
DEFAULT_PREFIX = "griotlab-"
#: The only block lab addresses may come from.
BENCHMARK_BLOCK = ipaddress.IPv4Network("198.18.0.0/15")
DEFAULT_SUBNET = "198.18.0.0/24"
NETNS_DIR = Path("/run/netns")
_CLONE_NEWNET = 0x40000000


class LabError(RuntimeError):
    """The lab could not be laid out or driven (the message says which step and why)."""


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30, check=False)
    if check and result.returncode != 0:
        raise LabError(f"ip {' '.join(args)}: {result.stderr.strip()}")
    return result


def lab_namespaces(prefix: str = DEFAULT_PREFIX) -> list[str]:
    """The namespaces now present whose names start with ``prefix``."""
    out = _ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.split() and line.startswith(prefix)]


def namespace_pids(namespace: str) -> list[int]:
    """Every process running in ``namespace`` (``ip netns pids``)."""
    out = _ip("netns", "pids", namespace, check=False).stdout
    return [int(p) for p in out.split() if p.isdigit()]


def _kill_all(namespace: str, deadline: float) -> None:
    """SIGKILLs every process in ``namespace`` until none is left or ``deadline`` passes."""
    while True:
        pids = namespace_pids(namespace)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > deadline:
            raise LabError(f"processes {pids} in {namespace} survive SIGKILL")
        time.sleep(0.05)


def sweep(prefix: str = DEFAULT_PREFIX, timeout: float = 20.0) -> list[str]:
    """Kills every process in every namespace named ``prefix*`` and deletes the namespaces (their
    interfaces go with them). Returns the names removed; idempotent."""
    if not prefix or "/" in prefix:
        raise LabError(f"refusing to sweep namespaces with prefix {prefix!r}")
    removed = []
    deadline = time.monotonic() + timeout
    for ns in lab_namespaces(prefix):
        _kill_all(ns, deadline)
        _ip("netns", "delete", ns, check=False)
        removed.append(ns)
    left = lab_namespaces(prefix)
    if left:
        raise LabError(f"namespaces left after the sweep: {left}")
    return removed


def call_in(namespace: str, fn: Callable[[], T], timeout: float = 30.0) -> T:
    """Runs ``fn`` in a new thread that has joined ``namespace``'s network (``setns`` moves only the
    calling thread): sockets ``fn`` opens live there. For short control calls (Redis, HTTP);
    libraries that open sockets on their own threads (gRPC) belong in a process on the host."""
    libc = ctypes.CDLL(None, use_errno=True)
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            fd = os.open(NETNS_DIR / namespace, os.O_RDONLY)
            try:
                if libc.setns(fd, _CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"setns {namespace}: {os.strerror(err)}")
            finally:
                os.close(fd)
            box["value"] = fn()
        except BaseException as e:
            box["error"] = e

    thread = threading.Thread(target=run, name=f"netns-{namespace}", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"call in {namespace} did not end within {timeout} s")
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


@dataclass(frozen=True)
class Host:
    """One lab host: a namespace, its address and the interface it reaches the bridge by."""

    name: str
    namespace: str
    address: str
    #: The switch side of its veth pair (inside the switch namespace).
    port: str


class Network:
    """The lab's switch and hosts. ``up`` lays them out (sweeping a previous lab first), ``down``
    removes everything; both are idempotent."""

    def __init__(self, prefix: str = DEFAULT_PREFIX, subnet: str = DEFAULT_SUBNET) -> None:
        try:
            net = ipaddress.IPv4Network(subnet)
        except ValueError:
            raise LabError(f"not an IPv4 subnet: {subnet}") from None
        if not net.subnet_of(BENCHMARK_BLOCK):
            raise LabError(f"the lab's subnet must lie in {BENCHMARK_BLOCK}, not {subnet}")
        if len(prefix) > 20:
            raise LabError("a short prefix, please: namespace names carry it")
        self.prefix = prefix
        self.subnet = net
        self.switch = prefix + "switch"
        self.hosts: dict[str, Host] = {}

    def address_of(self, index: int) -> str:
        """The address of host number ``index`` (counted from 10, below are kept free)."""
        return str(self.subnet.network_address + 10 + index)

    def up(self, names: Sequence[str]) -> dict[str, Host]:
        sweep(self.prefix)
        _ip("netns", "add", self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        _ip("-n", self.switch, "link", "set", "lo", "up")
        for i, name in enumerate(names):
            self.add_host(name, i)
        return self.hosts

    def add_host(self, name: str, index: int) -> Host:
        ns = self.prefix + name
        port = f"p{index}"
        address = self.address_of(index)
        _ip("netns", "add", ns)
        # Both ends are made inside their namespaces: the machine's namespace never holds either.
        _ip("-n", self.switch, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
        _ip("-n", self.switch, "link", "set", port, "master", "br0")
        _ip("-n", self.switch, "link", "set", port, "up")
        _ip("-n", ns, "addr", "add", f"{address}/{self.subnet.prefixlen}", "dev", "eth0")
        _ip("-n", ns, "link", "set", "eth0", "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        routes = _ip("-n", ns, "route", "show", "default").stdout.strip()
        if routes:
            raise LabError(f"{ns} has a default route: {routes}")
        host = Host(name, ns, address, port)
        self.hosts[name] = host
        return host

    def down(self) -> list[str]:
        self.hosts.clear()
        return sweep(self.prefix)

    # --- faults ---------------------------------------------------------------------------------

    def cut(self, name: str) -> None:
        """Partitions the host: its interface goes down (packets to and from it are dropped, its
        open connections hang, as behind a failed switch port)."""
        _ip("-n", self.hosts[name].namespace, "link", "set", "eth0", "down")

    def heal(self, name: str) -> None:
        host = self.hosts[name]
        _ip("-n", host.namespace, "link", "set", "eth0", "up")
        # The address's route comes back with the link; check, since a host without it is still cut.
        _ip("-n", host.namespace, "route", "get", str(self.subnet.network_address + 1))

    def kill(self, name: str) -> None:
        """The host dies: every process on it is SIGKILLed (its namespace stays, empty)."""
        _kill_all(self.hosts[name].namespace, time.monotonic() + 10)

    # --- processes ------------------------------------------------------------------------------

    def spawn(
        self,
        name: str,
        argv: Sequence[str],
        env: Mapping[str, str],
        log: IO[bytes] | int | None = None,
        cwd: str | Path | None = None,
    ) -> subprocess.Popen[bytes]:
        """Starts ``argv`` on host ``name`` (``ip netns exec`` execs into it: same pid), in its own
        process group."""
        return subprocess.Popen(
            ["ip", "netns", "exec", self.hosts[name].namespace, *argv],
            env=dict(env),
            stdout=log,
            stderr=subprocess.STDOUT if log is not None else None,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            start_new_session=True,
        )

    def run(
        self, name: str, argv: Sequence[str], env: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        """Runs ``argv`` on host ``name`` to its end (killed at ``timeout``)."""
        return subprocess.run(
            ["ip", "netns", "exec", self.hosts[name].namespace, *argv],
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def call(self, name: str, fn: Callable[[], T], timeout: float = 30.0) -> T:
        return call_in(self.hosts[name].namespace, fn, timeout)
