"""Load for measuring the gateway's event-loop lag, from a process of its own: ``games`` live sessions, each
setting a start position then playing ``moves`` random moves (one every ``pause`` seconds, the
next once the previous update has its final evaluation), and one deep evaluation (distributed at
that gateway). Prints one JSON line: the sessions finished, the deep evaluation's depth."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections.abc import AsyncIterator

import griot
from griot.client import AsyncAnalysisClient, search_limits
from griot.v1 import analysis_pb2


async def game(client: AsyncAnalysisClient, seed: int, moves: int, pause: float, depth: int) -> int:
    rng = random.Random(seed)
    pos = griot.Variant("abapa").start()
    session: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    final: dict[int, asyncio.Event] = {k: asyncio.Event() for k in range(1, moves + 2)}

    async def updates() -> AsyncIterator[analysis_pb2.LiveSessionRequest]:
        nonlocal pos
        yield analysis_pb2.LiveSessionRequest(
            update_id=1, position=str(pos), limits=search_limits(max_depth=depth)
        )
        sid = await session
        for k in range(2, moves + 2):
            await final[k - 1].wait()
            await asyncio.sleep(pause)
            legal = pos.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
            pos = pos.play(move)
            yield analysis_pb2.LiveSessionRequest(session_id=sid, update_id=k, move=move.text)
        await final[moves + 1].wait()

    updated = 0
    async for r in client.live_session(updates(), timeout=240):
        if not session.done():
            session.set_result(r.session_id)
        if r.HasField("outcome") and r.update_id in final:
            for k in range(r.update_id, moves + 2):
                final[k].set()
        if r.evaluation.final and r.update_id in final:
            final[r.update_id].set()
            updated = max(updated, int(r.update_id))
        if final[moves + 1].is_set():
            break
    return updated


async def main(args: argparse.Namespace) -> None:
    async with AsyncAnalysisClient(args.target, metadata=[("x-client-id", "load")]) as client:
        deep_pos = griot.Variant("awale").start().play("c")

        async def deep() -> int:
            last = 0
            async for m in client.evaluate(deep_pos, search_limits(max_depth=args.deep), timeout=240):
                last = m.evaluation.depth
            return last

        deep_task = asyncio.create_task(deep())
        done = await asyncio.gather(
            *(game(client, 1000 + i, args.moves, args.pause, args.depth) for i in range(args.games))
        )
        depth = await deep_task
    print(json.dumps({"games": sum(1 for d in done if d > 0), "deep": depth}), flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("target")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--moves", type=int, default=4)
    ap.add_argument("--pause", type=float, default=0.2)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--deep", type=int, default=14)
    asyncio.run(main(ap.parse_args()))
