"""The evaluation cache: finished evaluations by position, in the cache Redis, deeper wins.

Key: ``griot:eval:v2:{<engine version>:<evaluation>:<canonical variant>:<position key hex>}``
(:func:`griot.redis_keys.eval_key`): the value's format (``v2``: with the endgame databases'
results), so a replica of another format never reads it, then the engine version, so a new engine
never reads an old engine's results, and the evaluation the workers search with
(:data:`griot.tasks.args.EVAL`, the learned one with its weights' digest), so a result found
under another evaluation, or other learned weights, is never served;
the exact position key bytes, so no two positions share an entry. Value: one JSON object
(:class:`EvalResult`; unknown fields are ignored when read). Replacement is atomic in Redis
(:data:`STORE_SCRIPT`, EVALSHA): a result replaces the entry only when it is deeper, or as deep and
with every move scored where the entry has not. A position too close to its variant's turn limit
is never cached (its key does not hold the turn count, and the limit changes its value), as in the
workers' transposition cache.

Single flight across replicas: ``griot:gwflight:{<engine>:<evaluation>:<variant>:<key hex>}`` holds
``<depth>,<all moves 0/1>,<replica>,<time>`` (set if absent with a TTL, refreshed while the search
runs) while one replica searches a position; another replica that needs no more than that waits for
the entry instead of searching it again.

Round trips: a request that misses reads the entry and, when it will search, claims the marker
(or learns whose it is) in one script (:data:`LOOKUP_SCRIPT`); the final result is stored and the
marker released in another (:data:`STORE_SCRIPT`); one script a tick refreshes every marker the
replica holds (on a Redis Cluster one per hash slot: a script's keys share a slot). A position's
entry and marker share a hash tag, so the two scripts run on a cluster too.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import griot
from griot import egdb, redis_keys
from griot.services.gateway.batch import Batcher
from griot.tasks.args import EVAL

STORE_SCRIPT = """
-- KEYS[1]: entry; ARGV[1]: JSON {"depth": d, "all": 0/1, ...}; ARGV[2]: TTL in ms (0 = none).
-- Deeper wins; at equal depth an entry with every move scored beats one without.
-- KEYS[2] (optional): an in-flight marker, deleted if ARGV[3] (a replica) holds it.
local new = cjson.decode(ARGV[1])
local raw = redis.call('GET', KEYS[1])
local stored = 1
if raw then
  local old = cjson.decode(raw)
  if old.depth > new.depth or (old.depth == new.depth and old.all >= new.all) then stored = 0 end
end
if stored == 1 then
  local ttl = tonumber(ARGV[2])
  if ttl > 0 then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
  else
    redis.call('SET', KEYS[1], ARGV[1])
  end
end
if KEYS[2] then
  local marker = redis.call('GET', KEYS[2])
  if marker and string.match(marker, '^[^,]*,[^,]*,([^,]*)') == ARGV[3] then
    redis.call('DEL', KEYS[2])
  end
end
return stored
"""

LOOKUP_SCRIPT = """
-- KEYS[1]: entry, KEYS[2]: in-flight marker; ARGV[1]: depth needed, ARGV[2]: every move needed
-- (0/1), ARGV[3]: marker value to set if the entry does not answer and no marker is there ('' =
-- set none), ARGV[4]: its TTL in ms. Returns {entry or nil, the marker there or nil, 1 if claimed}.
-- An every-move request behind a deeper entry without them claims nothing: its caller searches
-- to the entry's depth (the evaluator) and claims for that depth.
local raw = redis.call('GET', KEYS[1])
local behind = false
if raw then
  local e = cjson.decode(raw)
  if e.depth >= tonumber(ARGV[1]) and (e.all == 1 or ARGV[2] == '0') then return {raw, false, 0} end
  behind = ARGV[2] == '1' and e.all == 0 and e.depth > tonumber(ARGV[1])
end
local other = redis.call('GET', KEYS[2])
if other or ARGV[3] == '' or behind then return {raw, other, 0} end
redis.call('SET', KEYS[2], ARGV[3], 'PX', tonumber(ARGV[4]))
return {raw, false, 1}
"""

REFRESH_SCRIPT = """
-- KEYS: in-flight markers; ARGV[1]: their new TTL in ms.
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[1]) end
return #KEYS
"""

RELEASE_SCRIPT = """
-- KEYS[1]: an in-flight marker, deleted if ARGV[1] (a replica) holds it.
local marker = redis.call('GET', KEYS[1])
if marker and string.match(marker, '^[^,]*,[^,]*,([^,]*)') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
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
    #: The endgame databases' result for the position (:func:`griot.egdb.exact`), if they cover it.
    exact: dict[str, Any] | None = None
    #: Each root move's result by the databases, for the mover, where they cover it.
    move_exact: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Its ``griot.v1.Evaluation`` messages once built, by ``final`` (a result fans out to every
    #: subscriber of its flight: built once, copied into each one's response).
    messages: dict[bool, Any] = field(default_factory=dict, repr=False, compare=False)

    def encode(self) -> str:
        d: dict[str, Any] = {
            "depth": self.depth,
            "value": self.value,
            "best": self.best,
            "pv": self.pv,
            "moves": self.moves,
            "all": self.all,
            "nodes": self.nodes,
            "time": self.time,
        }
        if self.exact is not None:
            d["exact"] = self.exact
        if self.move_exact:
            d["move_exact"] = self.move_exact
        return json.dumps(d, separators=(",", ":"))

    @classmethod
    def decode(cls, raw: bytes | str) -> EvalResult:
        d = json.loads(raw)
        known = {k: v for k, v in d.items() if k in _STORED}
        return cls(**known, from_cache=True)

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
            exact=r.get("exact"),
            move_exact={m["move"]: m["exact"] for m in r.get("moves") or [] if m.get("exact") is not None},
        )

    def with_databases(self, pos: griot.Position, db: griot.Egdb | None) -> EvalResult:
        """Fills in the databases' results a search did not carry (a worker without them, the
        distributed search): the position's and each scored move's."""
        if db is None or self.exact is not None:
            return self
        self.exact = egdb.exact(db, pos)
        if self.exact is not None:
            for move, *_ in self.moves:
                child = pos.play(pos.parse_move(move))
                e = egdb.exact(db, child)
                e = e if child.side_to_move == pos.side_to_move else egdb.flip(e)
                if e is not None:
                    self.move_exact[move] = e
        return self

    def answers(self, depth: int, all_moves: bool) -> bool:
        return self.depth >= depth and (bool(self.all) or not all_moves)


_STORED = ("depth", "value", "best", "pv", "moves", "all", "nodes", "time", "exact", "move_exact")


def cacheable(pos: griot.Position, depth: int) -> bool:
    """Whether a search of ``pos`` to ``depth`` may be cached (far enough from the turn limit)."""
    return not pos.near_turn_limit(depth)


def entry_key(pos: griot.Position) -> str:
    return redis_keys.eval_key(griot.ENGINE_VERSION, EVAL, pos.variant.canonical, pos.key)


def flight_key(pos: griot.Position) -> str:
    return redis_keys.flight_key(griot.ENGINE_VERSION, EVAL, pos.variant.canonical, pos.key)


@dataclass
class Lookup:
    """What :meth:`EvalCache.lookup` found: the entry (answering or not), another replica's
    search of the position (depth, every move scored) if one holds the marker, and whether this
    replica now holds it."""

    entry: EvalResult | None
    other: tuple[int, bool] | None
    claimed: bool


def _marker(depth: int, all_moves: bool, replica: str) -> str:
    return f"{depth},{int(all_moves)},{replica},{time.time():.3f}"


def _parse_marker(raw: bytes | str) -> tuple[int, bool]:
    text = raw.decode() if isinstance(raw, bytes) else raw
    depth, all_moves, *_ = text.split(",")
    return int(depth), all_moves == "1"


def _lookup_request(
    pos: griot.Position, depth: int, all_moves: bool, replica: str, ttl_ms: int, claim: bool
) -> tuple[list[str], list[Any]]:
    """The keys and arguments of :data:`LOOKUP_SCRIPT` for :meth:`EvalCache.lookup`."""
    marker = _marker(depth, all_moves, replica) if claim else ""
    return [entry_key(pos), flight_key(pos)], [depth, int(all_moves), marker, ttl_ms]


def _lookup_of(reply: list[Any]) -> Lookup:
    """The :data:`LOOKUP_SCRIPT` reply as a :class:`Lookup`."""
    raw, other, claimed = reply
    return Lookup(
        EvalResult.decode(raw) if raw is not None else None,
        _parse_marker(other) if other is not None else None,
        bool(claimed),
    )


class EvalCache:
    """Reads and depth-preferred writes of evaluations (a :class:`~griot.services.gateway.batch.Batcher`
    of the cache Redis)."""

    def __init__(self, client: Batcher, ttl_seconds: int) -> None:
        self.client = client
        self.ttl_ms = max(0, ttl_seconds) * 1000
        self._store = client.script(STORE_SCRIPT)
        self._lookup = client.script(LOOKUP_SCRIPT)
        self._release = client.script(RELEASE_SCRIPT)
        self._refresh = client.script(REFRESH_SCRIPT)

    async def get(self, pos: griot.Position) -> EvalResult | None:
        raw = await self.client.execute("GET", entry_key(pos))
        return EvalResult.decode(raw) if raw is not None else None

    async def lookup(
        self, pos: griot.Position, depth: int, all_moves: bool, replica: str, ttl_ms: int, claim: bool = True
    ) -> Lookup:
        """The entry; if it does not answer (``depth``, ``all_moves``), the in-flight marker:
        with ``claim``, set for ``replica`` when nobody holds it. One round trip."""
        keys, args = _lookup_request(pos, depth, all_moves, replica, ttl_ms, claim)
        return _lookup_of(await self._lookup(keys, args))

    def lookup_soon(
        self, pos: griot.Position, depth: int, all_moves: bool, replica: str, ttl_ms: int, claim: bool = True
    ) -> asyncio.Future[Lookup]:
        """:meth:`lookup` as a future, its command queued now (no task)."""
        keys, args = _lookup_request(pos, depth, all_moves, replica, ttl_ms, claim)
        return self._lookup.send(keys, args, then=_lookup_of)

    async def watch(self, pos: griot.Position) -> tuple[EvalResult | None, bool]:
        """The entry and whether an in-flight marker is there, in one round trip."""
        raw, marker = await self.client.execute("MGET", entry_key(pos), flight_key(pos))
        return (EvalResult.decode(raw) if raw is not None else None), marker is not None

    async def put(self, pos: griot.Position, result: EvalResult, release: str | None = None) -> bool:
        """Stores ``result`` unless a deeper one is there; True if it was stored. With
        ``release`` (a replica), also deletes the position's in-flight marker if it holds it."""
        if release is None:
            return bool(await self._store(keys=[entry_key(pos)], args=[result.encode(), self.ttl_ms]))
        return bool(
            await self._store(
                keys=[entry_key(pos), flight_key(pos)], args=[result.encode(), self.ttl_ms, release]
            )
        )

    async def claim(
        self, pos: griot.Position, depth: int, all_moves: bool, replica: str, ttl_ms: int
    ) -> bool:
        reply = await self.client.execute(
            "SET", flight_key(pos), _marker(depth, all_moves, replica), "NX", "PX", ttl_ms
        )
        return reply is not None

    async def flight(self, pos: griot.Position) -> tuple[int, bool] | None:
        """(depth, all moves) of another replica's search of ``pos``, if one runs."""
        raw = await self.client.execute("GET", flight_key(pos))
        return _parse_marker(raw) if raw is not None else None

    async def refresh(self, keys: list[str], ttl_ms: int) -> None:
        """Extends the TTL of in-flight markers (:func:`flight_key`), one command (on a cluster,
        one per hash slot)."""
        groups = self.client.by_slot(keys)
        if len(groups) == 1:
            await self._refresh(keys=keys, args=[ttl_ms])
        else:
            await asyncio.gather(*(self._refresh(keys=g, args=[ttl_ms]) for g in groups))

    async def release(self, pos: griot.Position, replica: str) -> None:
        await self._release(keys=[flight_key(pos)], args=[replica])
