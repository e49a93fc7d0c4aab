"""The lab's client host: the Python SDK as an application calls it, one JSON line per event on
stdout, so that a test or a person sees what a client sees during a fault.

    python -m griot.lab.client --target ipv4:A:50052,B:50052 evaluate abapa --depth 14 --timeout 60
    python -m griot.lab.client --target ... analyze awale a b c d --depth 8 --timeout 300
    python -m griot.lab.client --target ... live abapa --games 4 --moves 6 --depth 8
    python -m griot.lab.client --web http://A:8080 web abapa --games 2 --moves 6 --depth 8

Lines: ``{"event": "evaluation", "depth", "score", "best_move", "final", "t"}`` per streamed
evaluation, ``{"event": "progress", ...}`` and ``{"event": "report", ...}`` for an analysis,
``{"event": "error", "code", "reason", "retry_after", "t"}`` when the call ends in an error (exit
status 3), ``t`` being seconds since the call began. The target balances round robin over the
replicas it names; ``--retries`` retries an UNAVAILABLE call on the others (a resumed analysis goes
on by its job id).

``live`` plays games in live sessions (the SDK's ``LiveSession``), one move after another's final
evaluation; ``web`` plays them as the demo board does, an ``Evaluate`` of each position through the
web server's browser API (Connect, JSON). Their evaluation lines add ``via`` (``sdk`` or ``web``),
``game``, ``update_id`` and ``moves`` (the game's moves so far); a live session cut by an
UNAVAILABLE is opened again with its ``session_id`` (``{"event": "resumed"}``), a web request
answered UNAVAILABLE is sent again; ``{"event": "done", "game"}`` when a game has all its moves.
``analyses`` runs whole-game analyses, each followed through errors by its job id; ``probe`` asks
for an evaluation of a new position every ``--pause`` seconds. With ``--for SECONDS``, each of the
``--games`` slots plays (or analyses) game after game for that long.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import struct
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from griot.client import AnalysisClient, AsyncAnalysisClient, ServiceError, search_limits
from griot.lab.layout import CLIENT_API_KEY
from griot.v1 import analysis_pb2

#: Status codes a game's client retries (the gateway's way of saying "try again").
RETRIED = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"})


def _say(event: str, start: float, **fields: Any) -> None:
    """One line: ``t`` seconds since the client began, ``at`` the machine's clock (to line events
    up with another process's, such as a fault's)."""
    line = {"event": event, "t": round(time.monotonic() - start, 3), "at": round(time.time(), 3), **fields}
    print(json.dumps(line), flush=True)


def _score(score: Any) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict

    result: dict[str, Any] = MessageToDict(score)
    return result


def _error(e: ServiceError, start: float, **fields: Any) -> None:
    _say(
        "error",
        start,
        code=e.code.name if e.code is not None else None,
        reason=e.reason,
        retry_after=e.retry_after,
        message=str(e),
        **fields,
    )


def evaluate(args: argparse.Namespace, client: AnalysisClient, start: float) -> int:
    import griot

    pos = griot.Variant(args.variant).start()
    for move in args.moves:
        pos = pos.play(move)
    try:
        for msg in client.evaluate(pos, search_limits(max_depth=args.depth), timeout=args.timeout):
            ev = msg.evaluation
            _say(
                "evaluation",
                start,
                depth=ev.depth,
                score=_score(ev.score),
                best_move=ev.best_move,
                final=ev.final,
                from_cache=ev.from_cache,
            )
    except ServiceError as e:
        _error(e, start)
        return 3
    return 0


def analyze(args: argparse.Namespace, client: AnalysisClient, start: float) -> int:
    job_id = ""
    attempts = 0
    while True:
        try:
            stream = client.analyze_game(
                None if job_id else args.variant,
                None if job_id else args.moves,
                resume_job_id=job_id or None,
                limits=search_limits(max_depth=args.depth),
                timeout=args.timeout,
            )
            for msg in stream:
                if msg.job_id and not job_id:
                    job_id = msg.job_id
                    _say("job", start, job_id=job_id)
                if msg.HasField("report"):
                    from google.protobuf.json_format import MessageToDict

                    _say("report", start, job_id=job_id, report=MessageToDict(msg.report))
                    return 0
                _say("progress", start, job_id=job_id, done=msg.progress.positions_done)
            return 0
        except ServiceError as e:
            _error(e, start)
            attempts += 1
            if e.code != grpc.StatusCode.UNAVAILABLE or attempts > args.retries or not job_id:
                return 3
            time.sleep(min(e.retry_after or 1.0, 5.0))


def game_moves(variant: str, game: int, turns: int) -> list[str]:
    """Game ``game``'s moves, the same in every run: each a legal move drawn by a generator seeded
    with the game's number, so that games differ (a game ends early if its position does)."""
    import random

    import griot

    rng = random.Random(f"{variant}:{game}")
    pos, moves = griot.Variant(variant).start(), []
    for _ in range(turns):
        legal = [m.text for m in pos.legal_moves()]
        if not legal:
            break
        moves.append(rng.choice(legal))
        pos = pos.play(moves[-1])
    return moves


class _Updates:
    """The requests of one open live stream, as the game sends them."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[analysis_pb2.LiveSessionRequest | None] = asyncio.Queue()

    def send(self, req: analysis_pb2.LiveSessionRequest) -> None:
        self.queue.put_nowait(req)

    def close(self) -> None:
        self.queue.put_nowait(None)

    async def __aiter__(self) -> AsyncIterator[analysis_pb2.LiveSessionRequest]:
        while (req := await self.queue.get()) is not None:
            yield req


async def _live_game(args: argparse.Namespace, client: AsyncAnalysisClient, game: int, start: float) -> bool:
    """One game in a live session; True once every update had its final evaluation."""
    import griot

    moves = game_moves(args.variant, game, args.moves)
    limits = search_limits(max_depth=args.depth)
    session_id = ""
    attempts = 0
    updates: _Updates | None = None
    stream: AsyncIterator[analysis_pb2.LiveSessionResponse] | None = None
    pos = griot.Variant(args.variant).start()
    try:
        for k in range(len(moves) + 1):
            if k:
                pos = pos.play(moves[k - 1])
                await asyncio.sleep(args.pause)
            update_id = k + 1
            sent = False
            while True:
                try:
                    if stream is None:
                        updates = _Updates()
                        if session_id:
                            # Reattach: the session's saved position is evaluated; the update
                            # follows (the gateway drops it if the session already had it).
                            updates.send(analysis_pb2.LiveSessionRequest(session_id=session_id))
                            _say("resumed", start, via="sdk", game=game, session_id=session_id)
                        updates.send(
                            analysis_pb2.LiveSessionRequest(
                                session_id=session_id, update_id=update_id, position=str(pos), limits=limits
                            )
                        )
                        sent = True
                        stream = client.live_session(updates, timeout=args.timeout)
                    elif not sent:
                        assert updates is not None
                        updates.send(
                            analysis_pb2.LiveSessionRequest(
                                session_id=session_id, update_id=update_id, move=moves[k - 1]
                            )
                        )
                        sent = True
                    async for msg in stream:
                        session_id = msg.session_id or session_id
                        if msg.update_id != update_id:
                            continue
                        if msg.HasField("outcome"):
                            _say("outcome", start, via="sdk", game=game, update_id=update_id, moves=moves[:k])
                            break
                        if not msg.HasField("evaluation"):
                            continue
                        ev = msg.evaluation
                        _say(
                            "evaluation",
                            start,
                            via="sdk",
                            game=game,
                            update_id=update_id,
                            moves=moves[:k],
                            depth=ev.depth,
                            score=_score(ev.score),
                            final=ev.final,
                        )
                        if ev.final:
                            break
                    else:
                        raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the live stream ended early")
                    break
                except ServiceError as e:
                    _error(e, start, via="sdk", game=game, update_id=update_id)
                    stream = None
                    if updates is not None:
                        updates.close()
                    attempts += 1
                    code = e.code.name if e.code is not None else ""
                    if code == "NOT_FOUND" and e.reason == "unknown_session":
                        session_id = ""  # never saved: the game starts a session anew
                    elif code not in RETRIED or attempts > args.retries:
                        return False
                    await asyncio.sleep(min(e.retry_after or 0.5, 5.0))
        _say("done", start, via="sdk", game=game)
        return True
    finally:
        if updates is not None:
            updates.close()


async def _slots(args: argparse.Namespace, start: float, play: Callable[[int], Awaitable[bool]]) -> int:
    """``--games`` slots at once, each playing game after game (numbered ``slot + k * games``) until
    ``--for`` seconds have passed (one game each without it); 0 if every game went to its end."""

    async def slot(i: int) -> bool:
        ok, k = True, 0
        while True:
            ok = await play(i + k * args.games) and ok
            k += 1
            if not args.for_seconds or time.monotonic() - start >= args.for_seconds:
                return ok

    done = await asyncio.gather(*(slot(i) for i in range(args.games)))
    return 0 if all(done) else 3


async def _live(args: argparse.Namespace, start: float) -> int:
    async with AsyncAnalysisClient(args.target, metadata=_metadata(args)) as client:
        return await _slots(args, start, lambda g: _live_game(args, client, g, start))


def _metadata(args: argparse.Namespace) -> list[tuple[str, str]]:
    return [("x-api-key", args.api_key)] if args.api_key else []


async def _analysis(args: argparse.Namespace, client: AsyncAnalysisClient, game: int, start: float) -> bool:
    """One whole-game analysis, followed by its job id through retried errors; True once its
    report came (``{"event": "gave_up"}`` when the retries ran out)."""
    from google.protobuf.json_format import MessageToDict

    moves = game_moves(args.variant, game, args.moves)
    limits = search_limits(max_depth=args.depth)
    job_id = ""
    attempts = 0
    while True:
        try:
            stream = client.analyze_game(
                None if job_id else args.variant,
                None if job_id else moves,
                resume_job_id=job_id or None,
                limits=limits,
                timeout=args.timeout,
            )
            async for msg in stream:
                if msg.job_id and not job_id:
                    job_id = msg.job_id
                    _say("job", start, via="analysis", game=game, job_id=job_id)
                if msg.HasField("report"):
                    report = MessageToDict(msg.report)
                    fields = {"game": game, "job_id": job_id, "moves": moves, "report": report}
                    _say("report", start, via="analysis", **fields)
                    return True
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the analysis stream ended early")
        except ServiceError as e:
            _error(e, start, via="analysis", game=game, job_id=job_id)
            attempts += 1
            code = e.code.name if e.code is not None else ""
            if code not in RETRIED or attempts > args.retries:
                _say("gave_up", start, via="analysis", game=game, job_id=job_id)
                return False
            await asyncio.sleep(min(e.retry_after or 1.0, 5.0))


async def _analyses(args: argparse.Namespace, start: float) -> int:
    async with AsyncAnalysisClient(args.target, metadata=_metadata(args)) as client:
        return await _slots(args, start, lambda g: _analysis(args, client, g, start))


async def _probe(args: argparse.Namespace, start: float) -> int:
    """An ``Evaluate`` of a new position every ``--pause`` seconds until ``--for`` has passed:
    ``{"event": "probe", "sent", "moves", "depth", "score"}`` when it was answered in full, an
    error line (with ``sent``) when not; ``sent`` is when it was sent (the machine's clock)."""
    import griot

    async with AsyncAnalysisClient(args.target, metadata=_metadata(args)) as client:
        k = 0
        while time.monotonic() - start < args.for_seconds:
            k += 1
            moves = game_moves(args.variant, 100_000 + k, args.moves)
            pos = griot.Variant(args.variant).start()
            for m in moves:
                pos = pos.play(m)
            sent = round(time.time(), 3)
            try:
                final = None
                stream = client.evaluate(pos, search_limits(max_depth=args.depth), timeout=args.timeout)
                async for msg in stream:
                    if msg.evaluation.final:
                        final = msg.evaluation
                if final is None:
                    raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the stream ended without a final depth")
                _say("probe", start, sent=sent, moves=moves, depth=final.depth, score=_score(final.score))
            except ServiceError as e:
                _error(e, start, via="probe", sent=sent)
            await asyncio.sleep(args.pause)
    return 0


def _envelopes(data: bytes) -> list[tuple[int, bytes]]:
    out = []
    while len(data) >= 5:
        flags, n = struct.unpack(">BI", data[:5])
        out.append((flags, data[5 : 5 + n]))
        data = data[5 + n :]
    return out


async def _web_game(args: argparse.Namespace, http: Any, game: int, start: float) -> bool:
    """One game as the demo board plays it: an ``Evaluate`` of each position through the web
    server (Connect server streaming, JSON); True once every position had its final evaluation."""
    import httpx

    import griot

    moves = game_moves(args.variant, game, args.moves)
    url = f"{args.web}/griot.v1.AnalysisService/Evaluate"
    headers = {"Content-Type": "application/connect+json", "x-api-key": args.api_key}
    attempts = 0
    pos = griot.Variant(args.variant).start()
    for k in range(len(moves) + 1):
        if k:
            pos = pos.play(moves[k - 1])
            await asyncio.sleep(args.pause)
        body = json.dumps({"position": str(pos), "limits": {"maxDepth": args.depth}}).encode()
        while True:
            code, reason, retry_after = "", "", 0.0
            final = False
            try:
                r = await http.post(
                    url,
                    content=struct.pack(">BI", 0, len(body)) + body,
                    headers={**headers, "Connect-Timeout-Ms": str(int(args.timeout * 1000))},
                    timeout=args.timeout + 5,
                )
                if r.status_code != 200:
                    code = f"HTTP_{r.status_code}"
                for flags, payload in _envelopes(r.content):
                    msg = json.loads(payload or b"{}")
                    if flags & 0x02:
                        if "error" in msg:
                            code = str(msg["error"].get("code", "unknown")).upper()
                            reason = str(msg["error"].get("message", ""))
                        continue
                    ev = msg.get("evaluation", {})
                    final = bool(ev.get("final", False))
                    _say(
                        "evaluation",
                        start,
                        via="web",
                        game=game,
                        update_id=k + 1,
                        moves=moves[:k],
                        depth=ev.get("depth", 0),
                        score=ev.get("score", {}),
                        final=final,
                    )
            except httpx.HTTPError as e:
                code, reason = "HTTP_ERROR", f"{type(e).__name__}: {e}"
            if final and not code:
                break
            code = code or "NO_FINAL"
            _say("error", start, via="web", game=game, update_id=k + 1, code=code, reason=reason)
            attempts += 1
            if code not in RETRIED or attempts > args.retries:
                return False
            await asyncio.sleep(max(retry_after, 0.5))
    _say("done", start, via="web", game=game)
    return True


async def _web(args: argparse.Namespace, start: float) -> int:
    import httpx

    if not args.web:
        raise SystemExit("web: give the web server's URL (--web http://HOST:8080)")
    async with httpx.AsyncClient() as http:
        return await _slots(args, start, lambda g: _web_game(args, http, g, start))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m griot.lab.client", description=__doc__)
    parser.add_argument("--target", default="", help="the gateway replicas (a gRPC target)")
    parser.add_argument("--web", default="", help="the web server's base URL (web)")
    parser.add_argument("--api-key", default=CLIENT_API_KEY)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("evaluate", "analyze"):
        p = sub.add_parser(name)
        p.add_argument("variant")
        p.add_argument("moves", nargs="*")
        p.add_argument("--depth", type=int, required=True)
        p.add_argument("--timeout", type=float, default=120.0, help="the call's deadline (seconds)")
        p.add_argument("--retries", type=int, default=0, help="UNAVAILABLE answers retried (analyze)")
    for name in ("live", "web", "analyses", "probe"):
        p = sub.add_parser(name)
        p.add_argument("variant")
        p.add_argument("--games", type=int, default=1, help="games played (or analysed) at once")
        p.add_argument("--for", dest="for_seconds", type=float, default=0.0, help="go on for this long")
        p.add_argument("--moves", type=int, default=6, help="moves of each game")
        p.add_argument("--depth", type=int, required=True)
        p.add_argument(
            "--pause", type=float, default=0.0, help="seconds between a final evaluation and the next move"
        )
        p.add_argument("--timeout", type=float, default=120.0, help="each stream's or request's deadline")
        p.add_argument("--retries", type=int, default=5, help="retried errors a game may meet")
    args = parser.parse_args(argv)
    start = time.monotonic()
    if args.command == "live":
        return asyncio.run(_live(args, start))
    if args.command == "web":
        return asyncio.run(_web(args, start))
    if args.command == "analyses":
        return asyncio.run(_analyses(args, start))
    if args.command == "probe":
        return asyncio.run(_probe(args, start))
    metadata = [("x-api-key", args.api_key)] if args.api_key else []
    with AnalysisClient(args.target, metadata=metadata) as client:
        if args.command == "evaluate":
            return evaluate(args, client, start)
        return analyze(args, client, start)


if __name__ == "__main__":
    sys.exit(main())
