"""The gateway's batched Redis commands (:mod:`griot.services.gateway.batch`, on ``redis.asyncio``) and
the callers' result subscription (:class:`griot.tasks.client.ResultNotifier`) against real
redis-servers: replies matched to their callers, errors, scripts after a restart, lost connections,
and the URL forms redis-py reads (Unix socket, password, database)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from griot.services.gateway.batch import Batcher, connect
from griot.tasks.client import RESULT_PREFIX, ResultNotifier
from workers_stack import RedisServer, free_port


async def _bounded(what: Callable[[], Awaitable[Any]], timeout: float = 30.0) -> Any:
    return await asyncio.wait_for(what(), timeout)


@pytest.fixture(scope="module")
def server() -> Any:
    s = RedisServer(free_port())
    s.start()
    try:
        yield s
    finally:
        s.stop()


def test_batched_commands_get_their_own_replies(server: RedisServer) -> None:
    """Hundreds of commands queued in one turn of the loop each get their own reply, in order; an
    error reply fails its caller only; delayed commands ride with the next command sent."""

    async def run() -> tuple[list[Any], list[Any], Any, list[Any], list[Any]]:
        client = connect(server.url, socket_timeout=None)
        b = Batcher(client)
        try:
            await b.execute("DEL", "griot:test:batch:n", "griot:test:batch:l")
            counts = await _bounded(
                lambda: asyncio.gather(*(b.execute("INCR", "griot:test:batch:n") for _ in range(300)))
            )
            await b.execute("SET", "griot:test:batch:s", "v")
            wrong = b.send("LPUSH", "griot:test:batch:s", "x")
            fine = b.send("GET", "griot:test:batch:s")
            errors = await asyncio.gather(wrong, fine, return_exceptions=True)
            with pytest.raises(redis.ResponseError):
                await b.execute_many([("INCR", "griot:test:batch:n"), ("HSET", "griot:test:batch:s", "a", 1)])
            mixed = await b.execute_many([("INCR", "griot:test:batch:n"), ("GET", "griot:test:batch:none")])
            delayed = [b.send("RPUSH", "griot:test:batch:l", i, delay=60.0) for i in range(3)]
            await asyncio.sleep(0.05)
            waited = [f.done() for f in delayed]
            got = await _bounded(
                lambda: asyncio.gather(*delayed, b.execute("LRANGE", "griot:test:batch:l", 0, -1))
            )
            return counts, errors, mixed, waited, got
        finally:
            await b.aclose()
            await client.aclose()

    counts, errors, mixed, waited, got = asyncio.run(run())
    assert counts == list(range(1, 301))
    assert isinstance(errors[0], redis.ResponseError) and "WRONGTYPE" in str(errors[0])
    assert errors[1] == b"v"
    assert mixed == [302, None]
    assert waited == [False, False, False]  # the delay had not run out...
    assert got == [1, 2, 3, [b"0", b"1", b"2"]]  # ...they went with the read


def test_scripts_and_commands_work_again_after_a_restart(server: RedisServer) -> None:
    """A server restarted (every connection cut, every script forgotten): the next command
    connects again and the next script call answers NOSCRIPT, then runs through redis-py's
    ``Script``; a killed connection is replaced the same way."""
    source = "return redis.call('INCRBY', KEYS[1], ARGV[1])"

    async def run() -> list[Any]:
        client = connect(server.url, socket_timeout=None)
        b = Batcher(client)
        script = b.script(source)
        admin = redis.Redis.from_url(server.url)
        try:
            out = [await script(keys=["griot:test:batch:script"], args=[5])]
            assert admin.script_exists(script.script.sha) == [True]
            server.stop()
            server.start(new_port_if_taken=False)
            out.append(await _bounded(lambda: script(keys=["griot:test:batch:script"], args=[2])))
            out.append(await b.execute("PING"))
            for c in admin.client_list():
                if c.get("cmd") != "client|list":
                    admin.client_kill_filter(_id=c["id"])
            out.append(await _bounded(lambda: b.execute("GET", "griot:test:batch:script")))
            return out
        finally:
            admin.close()
            await b.aclose()
            await client.aclose()

    assert asyncio.run(run()) == [5, 2, b"PONG", b"2"]


def test_batcher_and_notifier_over_a_unix_socket_with_a_password() -> None:
    """The URL forms redis-py reads: a Unix socket, a password, a database. The batched commands
    land in the URL's database; the result notifier hears a watched task's result channel and not
    another task's."""
    with tempfile.TemporaryDirectory(prefix="griot-redis-") as tmp:
        sock = str(Path(tmp) / "redis.sock")
        server = RedisServer(free_port(), extra=["--unixsocket", sock, "--unixsocketperm", "700"])
        server.start()
        try:
            with redis.Redis(unix_socket_path=sock) as first:
                first.config_set("requirepass", "s3cret")
            admin = redis.Redis(unix_socket_path=sock, password="s3cret")
            url = f"unix://{sock}?db=2&password=s3cret"

            async def run() -> tuple[Any, list[tuple[str, bytes]]]:
                client = connect(url)
                b = Batcher(client)
                await b.execute("SET", "griot:test:unix", "v")
                got = await b.execute("GET", "griot:test:unix")
                await b.aclose()
                await client.aclose()

                results: list[tuple[str, bytes]] = []
                notifier = ResultNotifier(url, lambda t, p: results.append((t, p)))
                notifier.start()
                assert await notifier.wait_connected(10)
                notifier.watch(["task-1"])
                await notifier.subscribed()
                for _ in range(500):
                    if admin.pubsub_numsub(RESULT_PREFIX + "task-1")[0][1] == 1:
                        break
                    await asyncio.sleep(0.01)
                admin.publish(RESULT_PREFIX + "task-2", b"not watched")
                admin.publish(RESULT_PREFIX + "task-1", b'{"status": "SUCCESS"}')
                for _ in range(500):
                    if results:
                        break
                    await asyncio.sleep(0.01)
                await notifier.close()
                return got, results

            got, results = asyncio.run(asyncio.wait_for(run(), 30))
            assert got == b"v"
            with redis.Redis(unix_socket_path=sock, password="s3cret", db=2) as db2:
                assert db2.get("griot:test:unix") == b"v"
            assert admin.get("griot:test:unix") is None
            assert results == [("task-1", b'{"status": "SUCCESS"}')]
            admin.close()
        finally:
            server.stop()


async def _batcher_and_notifier(url: str, publisher: redis.Redis) -> tuple[Any, list[tuple[str, bytes]]]:
    """A command through the batcher, and a watched result channel heard by the notifier."""
    client = connect(url)
    b = Batcher(client)
    try:
        await b.execute("SET", "griot:test:url", "v")
        got = await b.execute("GET", "griot:test:url")
    finally:
        await b.aclose()
        await client.aclose()
    results: list[tuple[str, bytes]] = []
    notifier = ResultNotifier(url, lambda t, p: results.append((t, p)))
    notifier.start()
    try:
        assert await notifier.wait_connected(10)
        notifier.watch(["task-1"])
        await notifier.subscribed()
        for _ in range(500):
            if publisher.pubsub_numsub(RESULT_PREFIX + "task-1")[0][1] == 1:
                break
            await asyncio.sleep(0.01)
        publisher.publish(RESULT_PREFIX + "task-1", b'{"status": "SUCCESS"}')
        for _ in range(500):
            if results:
                break
            await asyncio.sleep(0.01)
    finally:
        await notifier.close()
    return got, results


def test_an_acl_user_with_only_griot_keys() -> None:
    """A Redis ACL user (``redis://user:password@...``) allowed Griot's keys and the result
    channels only: the batcher and the notifier work, and a key outside is refused."""
    server = RedisServer(free_port())
    server.start()
    try:
        admin = redis.Redis.from_url(server.url)
        admin.acl_setuser(
            "griot",
            enabled=True,
            passwords=["+s3cret"],
            keys=["griot:*", RESULT_PREFIX + "*"],
            channels=[RESULT_PREFIX + "*"],
            commands=["+@all"],
        )
        url = f"redis://griot:s3cret@127.0.0.1:{server.port}/0"
        got, results = asyncio.run(asyncio.wait_for(_batcher_and_notifier(url, admin), 30))
        assert got == b"v"
        assert results == [("task-1", b'{"status": "SUCCESS"}')]

        async def outside() -> None:
            client = connect(url)
            try:
                await Batcher(client).execute("SET", "other:key", "v")
            finally:
                await client.aclose()

        with pytest.raises(redis.exceptions.NoPermissionError):
            asyncio.run(asyncio.wait_for(outside(), 30))
        with pytest.raises(redis.exceptions.AuthenticationError):
            asyncio.run(asyncio.wait_for(_batcher_and_notifier(url.replace("s3cret", "wrong"), admin), 30))
        admin.close()
    finally:
        server.stop()


def _tls_files(where: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 made by openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test certificates")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=where, check=True, capture_output=True, timeout=60)

    new = ("req", "-newkey", "rsa:2048", "-nodes", "-days", "2")
    run(*new, "-x509", "-subj", "/CN=griot-test-ca", "-keyout", "ca.key", "-out", "ca.crt")
    run(*new, "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr")
    (where / "ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "ext",
    )
    return where / "ca.crt", where / "server.crt", where / "server.key"


def test_redis_over_tls() -> None:
    """A redis-server that speaks TLS only (``rediss://``, the CA given in the URL as redis-py
    reads it): the batcher and the notifier work through it."""
    with tempfile.TemporaryDirectory(prefix="griot-tls-") as tmp:
        ca, cert, key = _tls_files(Path(tmp))
        port = free_port()
        proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                "0",
                "--tls-port",
                str(port),
                "--tls-cert-file",
                str(cert),
                "--tls-key-file",
                str(key),
                "--tls-ca-cert-file",
                str(ca),
                "--tls-auth-clients",
                "no",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            url = f"rediss://127.0.0.1:{port}/0?ssl_ca_certs={ca}"
            admin = redis.Redis.from_url(url)
            deadline = time.monotonic() + 30
            while True:
                try:
                    admin.ping()
                    break
                except redis.ConnectionError:
                    assert proc.poll() is None and time.monotonic() < deadline, (
                        "redis-server with TLS did not start"
                    )
                    time.sleep(0.05)
            with pytest.raises(redis.ConnectionError), redis.Redis(port=port, socket_timeout=2) as plain:
                plain.ping()  # plain text is not served
            got, results = asyncio.run(asyncio.wait_for(_batcher_and_notifier(url, admin), 30))
            assert got == b"v"
            assert results == [("task-1", b'{"status": "SUCCESS"}')]
            admin.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
