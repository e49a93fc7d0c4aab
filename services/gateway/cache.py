"""The evaluation cache: finished evaluations by position, in the cache Redis, deeper wins.

Key: ``griot:eval:<engine version>:<canonical variant>:<position key hex>``
(:func:`griot.redis_keys.eval_key`): the engine version first, so a new engine never reads an old
engine's results; the exact position key bytes, so no two positions share an entry. Value: one
JSON object (:class:`EvalResult`). Replacement is atomic in Redis (:data:`STORE_SCRIPT`, EVALSHA):
a result replaces the entry only when it is deeper, or as deep and with every move scored where the
entry has not. A position too close to its variant's turn limit is never cached (its key does not
hold the turn count, and the limit changes its value), as in the workers' transposition cache.

Single flight across replicas: ``griot:gwflight:<engine>:<variant>:<key hex>`` holds
``<depth>,<all moves 0/1>,<replica>`` (SET NX PX, refreshed while the search runs) while one replica
searches a position; another replica that needs no more than that waits for the entry instead of
searching it again.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import griot
from griot import redis_keys

TURN_LIMIT_MARGIN = 8
FLIGHT_PREFIX = "griot:gwflight:"

STORE_SCRIPT = """
-- KEYS[1]: entry; ARGV[1]: JSON {"depth": d, "all": 0/1, ...}; ARGV[2]: TTL in ms (0 = none).
-- Deeper wins; at equal depth an entry with every move scored beats one without.
local new = cjson.decode(ARGV[1])
local raw = redis.call('GET', KEYS[1])
if raw then
  local old = cjson.decode(raw)
  if old.depth > new.depth then return 0 end
  if old.depth == new.depth and (old.all >= new.all) then return 0 end
end
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
"""


@dataclass
class EvalResult:
    """A search result to one depth: the raw values of the core (side to move's view)."""

    depth: int
    value: int
    best: str | None
    pv: list[str] = field(default_factory=list)
    #: Root moves as (move, value, bound), best first; every legal move when ``all``.
    moves: list[list[Any]] = field(default_factory=list)
    all: int = 0
    nodes: int = 0
    time: float = 0.0
    from_cache: bool = False

    def encode(self) -> str:
        d = asdict(self)
        d.pop("from_cache")
        return json.dumps(d, separators=(",", ":"))

    @classmethod
    def decode(cls, raw: bytes | str) -> EvalResult:
        d = json.loads(raw)
        return cls(**d, from_cache=True)

    @classmethod
    def from_task(cls, r: dict[str, Any], all_moves: bool) -> EvalResult:
        """From a ``griot.search_position`` task's result."""
        moves = [[m["move"], m["value"], m["bound"]] for m in r.get("moves") or []]
        return cls(
            depth=int(r["depth"]),
            value=int(r["value"]),
            best=r.get("best"),
            pv=list(r.get("pv") or []),
            moves=moves,
            all=1 if all_moves else 0,
            nodes=int(r.get("nodes") or 0),
            time=float(r.get("time") or 0.0),
        )

    def answers(self, depth: int, all_moves: bool) -> bool:
        return self.depth >= depth and (self.all or not all_moves)


def cacheable(pos: griot.Position, depth: int) -> bool:
    """Whether a search of ``pos`` to ``depth`` may be cached (far enough from the turn limit)."""
    max_turns = int(pos.variant.options.get("max_turns", 2000))
    return pos.turns + depth + TURN_LIMIT_MARGIN < max_turns


def entry_key(pos: griot.Position) -> str:
    return redis_keys.eval_key(griot.ENGINE_VERSION, pos.variant.canonical, pos.key)


def flight_key(pos: griot.Position) -> str:
    return f"{FLIGHT_PREFIX}{griot.ENGINE_VERSION}:{pos.variant.canonical}:{pos.key.hex()}"


class EvalCache:
    """Reads and depth-preferred writes of evaluations (a ``redis.asyncio`` client)."""

    def __init__(self, client: Any, ttl_seconds: int) -> None:
        self.client = client
        self.ttl_ms = max(0, ttl_seconds) * 1000
        self._store = client.register_script(STORE_SCRIPT)

    async def get(self, pos: griot.Position) -> EvalResult | None:
        raw = await self.client.get(entry_key(pos))
        return EvalResult.decode(raw) if raw is not None else None

    async def put(self, pos: griot.Position, result: EvalResult) -> bool:
        """Stores ``result`` unless a deeper one is there; True if it was stored."""
        return bool(await self._store(keys=[entry_key(pos)], args=[result.encode(), self.ttl_ms]))

    async def claim(
        self, pos: griot.Position, depth: int, all_moves: bool, replica: str, ttl_ms: int
    ) -> bool:
        value = f"{depth},{int(all_moves)},{replica},{time.time():.3f}"
        return bool(await self.client.set(flight_key(pos), value, nx=True, px=ttl_ms))

    async def flight(self, pos: griot.Position) -> tuple[int, bool] | None:
        """(depth, all moves) of another replica's search of ``pos``, if one runs."""
        raw = await self.client.get(flight_key(pos))
        if raw is None:
            return None
        depth, all_moves, *_ = raw.decode().split(",")
        return int(depth), all_moves == "1"

    async def refresh(self, pos: griot.Position, ttl_ms: int) -> None:
        await self.client.pexpire(flight_key(pos), ttl_ms)

    async def release(self, pos: griot.Position, replica: str) -> None:
        key = flight_key(pos)
        raw = await self.client.get(key)
        if raw is not None and raw.decode().split(",")[2] == replica:
            await self.client.delete(key)
