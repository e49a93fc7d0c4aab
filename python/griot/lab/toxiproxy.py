"""Toxiproxy on the lab's links: the server's binary, and a small client of its documented HTTP API
(https://github.com/Shopify/toxiproxy#http-api): proxies, and toxics on them (latency, bandwidth,
timeout: a link that carries nothing).

The kernel's ``netem`` is not needed: every link to Redis and the broker goes through a proxy, and
a fault is a toxic on it. The API is reached from inside the proxy host's namespace
(:func:`griot.lab.netns.call_in`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The version ``make deploy-tools`` installs (from the Go module proxy).
VERSION = "v2.5.0"
MODULE = "github.com/Shopify/toxiproxy/v2/cmd/server"
API_PORT = 8474


def server_binary() -> str | None:
    """``toxiproxy-server`` on PATH or in Go's bin directory (``make deploy-tools`` puts it there)."""
    found = shutil.which("toxiproxy-server")
    if found:
        return found
    gopath = os.environ.get("GOPATH") or str(Path.home() / "go")
    candidate = Path(gopath) / "bin" / "toxiproxy-server"
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    if shutil.which("go"):
        out = subprocess.run(["go", "env", "GOPATH"], capture_output=True, text=True, timeout=30, check=False)
        candidate = Path(out.stdout.strip() or gopath) / "bin" / "toxiproxy-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


class ToxiproxyError(RuntimeError):
    """The Toxiproxy API refused a call (the message carries its answer)."""


@dataclass(frozen=True)
class Link:
    """One proxied link: ``name`` (``worker-1->cache``), where clients connect (``listen``) and the
    server it forwards to (``upstream``)."""

    name: str
    listen: str
    upstream: str

    @property
    def listen_port(self) -> int:
        return int(self.listen.rsplit(":", 1)[1])


Runner = Callable[[Callable[[], Any]], Any]


class Toxiproxy:
    """Client of one Toxiproxy server's API at ``api`` (``http://host:8474``). ``runner`` runs each
    call where the API is reachable (in the proxy host's namespace); by default, here."""

    def __init__(self, api: str, runner: Runner | None = None, timeout: float = 5.0) -> None:
        self.api = api.rstrip("/")
        self.runner: Runner = runner or (lambda fn: fn())
        self.timeout = timeout

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.api + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )

        def call() -> Any:
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    raw = resp.read()
            except urllib.error.HTTPError as e:
                raise ToxiproxyError(
                    f"{method} {path}: {e.code} {e.read().decode(errors='replace')}"
                ) from None
            return json.loads(raw) if raw.strip() else None

        return self.runner(call)

    def version(self) -> str:
        req = urllib.request.Request(self.api + "/version")

        def call() -> str:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                text: str = resp.read().decode().strip()
            return text

        result: str = self.runner(call)
        return result

    def create(self, link: Link) -> None:
        self._request(
            "POST", "/proxies", {"name": link.name, "listen": link.listen, "upstream": link.upstream}
        )

    def proxies(self) -> dict[str, Any]:
        result: dict[str, Any] = self._request("GET", "/proxies")
        return result

    def set_enabled(self, name: str, enabled: bool) -> None:
        """A disabled proxy closes its connections and refuses new ones (a link that resets)."""
        self._request("POST", f"/proxies/{name}", {"enabled": enabled})

    def add_toxic(
        self, proxy: str, toxic: str, kind: str, stream: str = "downstream", **attributes: int
    ) -> None:
        self._request(
            "POST",
            f"/proxies/{proxy}/toxics",
            {"name": toxic, "type": kind, "stream": stream, "toxicity": 1.0, "attributes": attributes},
        )

    def remove_toxic(self, proxy: str, toxic: str) -> None:
        self._request("DELETE", f"/proxies/{proxy}/toxics/{toxic}")

    def toxics(self, proxy: str) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._request("GET", f"/proxies/{proxy}/toxics")
        return result

    def reset(self) -> None:
        """Every proxy enabled, every toxic gone."""
        self._request("POST", "/reset")

    # --- the lab's faults, in these terms -------------------------------------------------------

    def latency(self, proxy: str, round_trip_ms: float, jitter_ms: float = 0.0) -> None:
        """Half the round trip each way (replacing any latency set before)."""
        for stream in ("upstream", "downstream"):
            name = f"latency-{stream}"
            if any(t["name"] == name for t in self.toxics(proxy)):
                self.remove_toxic(proxy, name)
            if round_trip_ms > 0:
                self.add_toxic(
                    proxy,
                    name,
                    "latency",
                    stream=stream,
                    latency=round(round_trip_ms / 2),
                    jitter=round(jitter_ms / 2),
                )

    def blackhole(self, proxy: str) -> None:
        """The link carries nothing either way and closes nothing: a partition, as seen from both
        ends (Toxiproxy's ``timeout`` toxic with no timeout)."""
        for stream in ("upstream", "downstream"):
            self.add_toxic(proxy, f"cut-{stream}", "timeout", stream=stream, timeout=0)

    def unblackhole(self, proxy: str) -> None:
        for stream in ("upstream", "downstream"):
            self.remove_toxic(proxy, f"cut-{stream}")

    def bandwidth(self, proxy: str, kilobytes_per_second: int) -> None:
        for stream in ("upstream", "downstream"):
            self.add_toxic(
                proxy, f"bandwidth-{stream}", "bandwidth", stream=stream, rate=kilobytes_per_second
            )
