"""The gateway through the real stack: every RPC for several games, the cache, single flight,
cancellation, restarts, quotas, authentication and malformed input. Every call carries a deadline."""

from __future__ import annotations

import random
import signal
import threading
import time

import griot
import grpc
import pytest
import redis
from gateway_stack import Gateway, Stack, worker_task_counts
from griot.client import AnalysisClient, ServiceError, search_limits
from griot.services.gateway.live import RENEW_SHARE
from griot.v1 import analysis_pb2

GAMES = ["abapa", "bechi", "sabouiyya", "leb-bbut-ahbochen(holes=4)", "awale"]
GAMES = [g for g in GAMES if griot.Variant(g).id in {v.id for v in griot.variants()}]


def midgame(variant: str, plies: int, seed: int) -> griot.Position:
    rng = random.Random(seed)
    pos = griot.Variant(variant).start()
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            break
        nxt = pos.play(rng.choice(moves))
        if not nxt.legal_moves():
            break
        pos = nxt
    return pos


def game(variant: str, plies: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pos = griot.Variant(variant).start()
    moves = []
    for _ in range(plies):
        legal = pos.legal_moves()
        if not legal:
            break
        m = rng.choice(legal)
        nxt = pos.play(m)
        moves.append(m.text)
        pos = nxt
        if not pos.legal_moves():
            break
    return moves


def flush_cache(stack: Stack) -> None:
    stack.cache.flushdb()


# ---------------------------------------------------------------------------------------------
# Every RPC for several games


@pytest.mark.parametrize("variant", GAMES)
def test_evaluate_matches_the_engine_and_is_cached(gateway: Gateway, variant: str) -> None:
    pos = midgame(variant, 6, seed=len(variant))
    with AnalysisClient(gateway.target) as client:
        msgs = list(client.evaluate(pos, search_limits(max_depth=5), include_move_scores=True, timeout=60))
        assert msgs and msgs[-1].evaluation.final and not msgs[-1].evaluation.from_cache
        e = msgs[-1].evaluation
        ref = griot.search(pos, depth=5)
        assert e.depth == 5
        assert msgs[-1].position == str(pos)
        assert e.best_move in {m.text for m in pos.legal_moves()}
        if ref.score.centi is not None:
            assert e.score.centi == ref.score.centi
        assert {m.move for m in e.move_scores} == {m.text for m in pos.legal_moves()}
        again = list(client.evaluate(pos, search_limits(max_depth=4), timeout=10))
        assert len(again) == 1 and again[0].evaluation.from_cache and again[0].evaluation.final
        assert again[0].evaluation.depth == 5


@pytest.mark.parametrize("variant", GAMES)
def test_best_move_at_levels(gateway: Gateway, variant: str) -> None:
    pos = midgame(variant, 4, seed=7)
    legal = {m.text for m in pos.legal_moves()}
    with AnalysisClient(gateway.target) as client:
        for level in (1, 5, 9):
            start = time.monotonic()
            r = client.best_move(pos, level=level, seed=42, timeout=8)
            assert r.move in legal
            assert time.monotonic() - start < 8
        a = client.best_move(pos, level=2, seed=5, timeout=8)
        b = client.best_move(pos, level=2, seed=5, timeout=8)
        assert a.move == b.move  # a seed makes a level's choice reproducible


def test_a_level_plays_the_same_move_in_process_and_through_the_gateway(gateway: Gateway) -> None:
    # The same position, level and seed (0, the default, included) give the same move either way:
    # both pick by the core's rule from the same root values. Each level gets a position no other
    # search here visited first: a search that finds deeper results of earlier ones in the shared
    # cache may value the moves otherwise (levels 9 and 10 are capped by time, so by depth too).
    cases = [(5, griot.Variant("abapa").start())]  # the README's example
    cases += [(level, midgame("abapa", 5 + level, seed=100 + level)) for level in (1, 3, 5, 8)]
    picks = set()
    with AnalysisClient(gateway.target) as client:
        for level, pos in cases:
            for seed in (0, 1, 12345):
                local = griot.best_move(pos, level, seed=seed)
                remote = client.best_move(pos, level=level, seed=seed, timeout=30)
                assert local is not None and remote.move == local.text, (str(pos), level, seed)
                picks.add((level, str(pos), remote.move))
    assert len(picks) > len(cases), picks  # the seeds did choose among near-best moves


@pytest.mark.parametrize("variant", GAMES[:3])
def test_analyze_game_report_and_cache(gateway: Gateway, variant: str) -> None:
    moves = game(variant, 8, seed=3)
    with AnalysisClient(gateway.target) as client:
        start = time.monotonic()
        msgs = list(client.analyze_game(variant, moves, limits=search_limits(max_depth=4), timeout=120))
        first = time.monotonic() - start
        job_ids = {m.job_id for m in msgs}
        assert len(job_ids) == 1
        progress = [m.progress for m in msgs if m.HasField("progress")]
        assert progress[-1].positions_done == len(moves) == progress[-1].positions_total
        report = msgs[-1].report
        assert msgs[-1].HasField("report")
        assert len(report.turns) == len(moves)
        assert [t.played_move for t in report.turns] == [
            griot.Position(t.position).parse_move(m).text for t, m in zip(report.turns, moves, strict=True)
        ]
        assert report.thresholds.inaccuracy > 0 and report.thresholds.blunder > report.thresholds.mistake
        assert sum(p.moves for p in report.players) == len(moves)
        for t in report.turns:
            if t.played_move == t.best_move:
                assert t.loss == 0
        tasks_before = gateway.metric("griot_gateway_tasks_total", event="sent")
        start = time.monotonic()
        again = list(client.analyze_game(variant, moves, limits=search_limits(max_depth=4), timeout=60))
        second = time.monotonic() - start
        assert again[-1].report.turns == report.turns
        assert gateway.metric("griot_gateway_tasks_total", event="sent") == tasks_before  # all cached
        assert second < max(1.5, first)


# An Ikibuguzo position where North's turn i2:cw captures and then offers choices: the turns
# i2:cw/ccw, i2:cw/keep+o1:cw/... are completions of the same first step.
IKIBUGUZO_CHOICES = "ikibuguzo 0,0,1,0,1,1,5,0,2,5,1,4,0,4,5,0/2,0,2,0,2,0,2,1,4,3,5,4,5,0,2,3 N 9 0 -"


def test_every_turn_scored_and_a_played_completion_analysed(gateway: Gateway) -> None:
    """A move is a whole turn: the per-move scores name every legal turn (not one per first step),
    and a game that plays a completion other than the best gets that turn's own score and loss."""
    pos = griot.Position(IKIBUGUZO_CHOICES)
    legal = {m.text for m in pos.legal_moves()}
    ref = griot.search(pos, depth=4, multipv=0)
    by_move = {m.move: m.score for m in ref.moves}
    assert set(by_move) == legal
    played = min((m for m in legal if m.startswith("i2:cw/") and m != ref.best_move.text), key=str)
    with AnalysisClient(gateway.target) as client:
        msgs = list(client.evaluate(pos, search_limits(max_depth=4), include_move_scores=True, timeout=60))
        e = msgs[-1].evaluation
        assert {m.move for m in e.move_scores} == legal
        report = list(
            client.analyze_game(
                "ikibuguzo", [played], start_position=str(pos), limits=search_limits(max_depth=4), timeout=120
            )
        )[-1].report
    (turn,) = report.turns
    assert turn.played_move == played and turn.best_move == ref.best_move.text
    want = by_move[played]
    if want.centi is not None:
        assert turn.played_score.centi == want.centi
        best = ref.score.centi
        assert best is not None and turn.loss == best - want.centi > 0


def test_analyze_game_from_a_record(gateway: Gateway) -> None:
    from griot import record

    start = griot.Variant("abapa").start()
    moves = game("abapa", 6, seed=11)
    text = record.dumps(record.GameRecord.from_positions(start, moves, South="a", North="b"))
    with AnalysisClient(gateway.target) as client:
        msgs = list(client.analyze_game(record=text, limits=search_limits(max_depth=4), timeout=60))
    assert len(msgs[-1].report.turns) == len(moves)


@pytest.mark.parametrize("variant", GAMES[:3])
def test_live_session_and_reconnect(gateway: Gateway, variant: str) -> None:
    with redis.Redis.from_url(gateway.stack.cache.url) as cache:
        _live_session_and_reconnect(gateway, variant, cache)


def _live_session_and_reconnect(gateway: Gateway, variant: str, cache: redis.Redis) -> None:
    moves = game(variant, 3, seed=9)
    start = griot.Variant(variant).start()
    limits = search_limits(max_depth=4)
    expires_before = cache.info("commandstats").get("cmdstat_expire", {}).get("calls", 0)
    with AnalysisClient(gateway.target) as client:
        updates = [analysis_pb2.LiveSessionRequest(update_id=1, position=str(start), limits=limits)]
        updates += [analysis_pb2.LiveSessionRequest(update_id=i + 2, move=m) for i, m in enumerate(moves)]
        sent = threading.Event()
        box: list[analysis_pb2.LiveSessionRequest] = []

        def requests():  # one update after each final evaluation, then close
            for u in updates:
                yield u
                sent.wait(30)
                sent.clear()

        finals = {}
        session_id = ""
        for msg in client.live_session(requests(), timeout=60):
            session_id = msg.session_id
            if msg.HasField("evaluation") and msg.evaluation.final:
                finals[msg.update_id] = msg
                sent.set()
            if msg.HasField("outcome"):
                sent.set()
            if len(finals) == len(updates):
                break
        assert set(finals) == set(range(1, len(updates) + 1))
        pos = start
        for m in moves:
            pos = pos.play(m)
        assert finals[len(updates)].position == str(pos)
        # Saves after the first write only what changed: the hash still holds every field.
        key = f"griot:session:{session_id}"
        saved = cache.hgetall(key)
        assert saved[b"position"].decode() == str(pos)
        assert int(saved[b"update_id"]) == len(updates)
        assert saved[b"limits"] == limits.SerializeToString() and saved[b"all_moves"] == b"0"
        assert b"owner" in saved
        # The updates of one game in quick succession renewed the hash's expiry once (the first
        # save): it expires the session TTL after that, less at most RENEW_SHARE of it.
        expires = cache.info("commandstats")["cmdstat_expire"]["calls"] - expires_before
        assert expires == 1, expires
        assert 3600 * (1 - RENEW_SHARE) - 60 < cache.ttl(key) <= 3600
        # A new stream resumes the session by its id: the current position again (from the cache).
        box.append(analysis_pb2.LiveSessionRequest(session_id=session_id))
        got = []
        for msg in client.live_session(iter(box), timeout=20):
            got.append(msg)
            if msg.HasField("evaluation") and msg.evaluation.final:
                break
        assert got[0].session_id == session_id and got[0].position == str(pos)
        assert got[-1].evaluation.from_cache and got[-1].evaluation.depth == 4  # the saved limits


def test_live_acknowledgement_carries_what_is_ready(gateway: Gateway, stack: Stack) -> None:
    """An update's first message carries a cached evaluation (one message for the update); an
    update that needs a search gets its acknowledgement, then its depths, the last one final."""
    flush_cache(stack)
    cached = midgame("abapa", 4, seed=21)
    searched = midgame("abapa", 8, seed=22)
    with AnalysisClient(gateway.target) as client:
        list(client.evaluate(cached, search_limits(max_depth=6), timeout=60))
        second = threading.Event()

        def requests():
            yield analysis_pb2.LiveSessionRequest(
                update_id=1, position=str(cached), limits=search_limits(max_depth=6)
            )
            second.wait(30)
            yield analysis_pb2.LiveSessionRequest(
                update_id=2, position=str(searched), limits=search_limits(max_depth=17)
            )

        seen: list[analysis_pb2.LiveSessionResponse] = []
        for msg in client.live_session(requests(), timeout=120):
            seen.append(msg)
            if msg.evaluation.final:
                if msg.update_id == 2:
                    break
                second.set()
    first = [m for m in seen if m.update_id == 1]
    assert len(first) == 1 and first[0].session_id and first[0].position == str(cached)
    assert first[0].evaluation.final and first[0].evaluation.from_cache and first[0].evaluation.depth == 6
    later = [m for m in seen if m.update_id == 2]
    assert all(m.session_id == first[0].session_id and m.position == str(searched) for m in later)
    assert later[-1].evaluation.final and later[-1].evaluation.depth == 17
    assert not any(m.evaluation.final for m in later[:-1])
    depths = [m.evaluation.depth for m in later if m.HasField("evaluation")]
    assert len(depths) >= 2 and depths == sorted(set(depths))  # the depths still stream


# ---------------------------------------------------------------------------------------------
# Aggregation: single flight, cache replacement, cancellation


def test_two_clients_one_search(gateway: Gateway, stack: Stack) -> None:
    flush_cache(stack)
    pos = midgame("awale", 10, seed=21)
    before = worker_task_counts(stack)
    sent = gateway.metric("griot_gateway_tasks_total", event="sent")
    results: list[list[analysis_pb2.EvaluateResponse]] = []

    def ask() -> None:
        with AnalysisClient(gateway.target) as c:
            results.append(list(c.evaluate(pos, search_limits(max_depth=11), timeout=60)))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(70)
    assert len(results) == 3
    values = {(r[-1].evaluation.depth, r[-1].evaluation.score.centi) for r in results}
    assert len(values) == 1
    after = worker_task_counts(stack)
    assert gateway.metric("griot_gateway_tasks_total", event="sent") - sent == 1
    assert after - before == 1  # three clients, one search at the workers
    assert gateway.metric("griot_gateway_dedup_total", kind="local") >= 1


def test_two_replicas_one_search(gateway: Gateway, stack: Stack) -> None:
    flush_cache(stack)
    other = Gateway(stack, ["--window", "4"]).start()
    try:
        pos = midgame("abapa", 12, seed=5)
        before = worker_task_counts(stack)
        results = []

        cache = redis.Redis.from_url(stack.cache.url)

        def first_flight_started() -> None:
            # The second replica asks once the first's flight marker is in Redis (a fixed delay
            # raced the search: a fast enough search had ended, so the second read the cache).
            limit = time.time() + 30
            while not any(cache.scan_iter("griot:gwflight:*")) and time.time() < limit:
                time.sleep(0.002)

        def ask(target: str, wait: bool) -> None:
            if wait:
                first_flight_started()
            with AnalysisClient(target) as c:
                results.append(list(c.evaluate(pos, search_limits(max_depth=16), timeout=60))[-1])

        threads = [
            threading.Thread(target=ask, args=(gateway.target, False)),
            threading.Thread(target=ask, args=(other.target, True)),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(70)
        assert len(results) == 2 and results[0].evaluation.score == results[1].evaluation.score
        assert worker_task_counts(stack) - before == 1
        assert other.metric("griot_gateway_dedup_total", kind="remote") == 1
    finally:
        other.stop()


def test_deeper_result_replaces_shallower(gateway: Gateway, stack: Stack) -> None:
    flush_cache(stack)
    pos = midgame("abapa", 8, seed=2)
    r = redis.Redis.from_url(stack.cache.url)
    from griot.services.gateway.cache import EvalResult, entry_key

    key = entry_key(pos)
    with AnalysisClient(gateway.target) as client:
        list(client.evaluate(pos, search_limits(max_depth=4), timeout=30))
        assert EvalResult.decode(r.get(key)).depth == 4
        list(client.evaluate(pos, search_limits(max_depth=8), timeout=30))
        assert EvalResult.decode(r.get(key)).depth == 8
        shallow = list(client.evaluate(pos, search_limits(max_depth=6), timeout=30))
        assert shallow[-1].evaluation.from_cache and shallow[-1].evaluation.depth == 8
    # The Lua replacement: a shallower result never overwrites a deeper one, atomically in Redis.
    script = r.register_script(__import__("griot.services.gateway.cache", fromlist=["x"]).STORE_SCRIPT)
    assert script(keys=[key], args=[EvalResult(depth=3, value=1, best="a").encode(), 0]) == 0
    assert EvalResult.decode(r.get(key)).depth == 8
    assert script(keys=[key], args=[EvalResult(depth=9, value=1, best="a").encode(), 0]) == 1
    assert EvalResult.decode(r.get(key)).depth == 9


def test_a_single_task_search_streams_its_depths(gateway: Gateway, stack: Stack) -> None:
    """Below the distributed depth one task searches; its completed depths still stream."""
    flush_cache(stack)
    pos = midgame("abapa", 6, seed=11)
    legal = {m.text for m in pos.legal_moves()}
    with AnalysisClient(gateway.target) as client:
        msgs = list(client.evaluate(pos, search_limits(max_depth=17), include_move_scores=True, timeout=120))
    depths = [m.evaluation.depth for m in msgs]
    assert msgs[-1].evaluation.final and depths[-1] == 17
    assert len(msgs) >= 2 and not any(m.evaluation.final for m in msgs[:-1]), depths
    assert depths == sorted(set(depths))  # at most one message a depth, deepening
    for m in msgs[:-1]:
        e = m.evaluation
        assert not e.from_cache and e.best_move in legal and e.pv[0] == e.best_move
        assert {s.move for s in e.move_scores} == legal
    broker = redis.Redis.from_url(stack.broker.url)
    for _ in range(100):  # read, then deleted in the gateway's next batch of deletes
        progress = list(broker.scan_iter("griot:progress:*"))
        if not progress:
            break
        time.sleep(0.05)
    assert progress == []


def test_max_nodes_limits_the_search(gateway: Gateway, stack: Stack) -> None:
    flush_cache(stack)
    pos = midgame("abapa", 10, seed=13)
    with AnalysisClient(gateway.target) as client:
        limited = list(client.evaluate(pos, search_limits(max_depth=20, max_nodes=3000), timeout=60))
        deep = list(client.evaluate(pos, search_limits(max_depth=12), timeout=60))
    e = limited[-1].evaluation
    assert e.final and 0 < e.nodes <= 3000
    assert 1 <= e.depth < 12 and e.best_move in {m.text for m in pos.legal_moves()}
    assert deep[-1].evaluation.depth == 12 and deep[-1].evaluation.nodes > 3000
    with AnalysisClient(gateway.target) as client:
        code, _, _ = _code(
            lambda: list(client.evaluate(pos, search_limits(max_depth=6, max_nodes=10**13), timeout=10))
        )
    assert code == grpc.StatusCode.INVALID_ARGUMENT


def test_superseded_live_position_is_cancelled(gateway: Gateway, stack: Stack) -> None:
    flush_cache(stack)
    slow = griot.Variant("abapa").start()
    fast = midgame("bechi", 4, seed=1)
    broker = redis.Redis.from_url(stack.broker.url)
    cancel_keys = len(list(broker.scan_iter("griot:cancel:*")))
    cancelled = gateway.metric("griot_gateway_tasks_total", event="cancelled")
    sent = gateway.metric("griot_gateway_tasks_total", event="sent")
    second = threading.Event()

    def requests():
        yield analysis_pb2.LiveSessionRequest(
            update_id=1, position=str(slow), limits=search_limits(max_depth=24)
        )
        second.wait(30)
        # The distributed search's subtree tasks are out at the workers (not only waiting at the
        # dispatcher, where a superseded search is dropped without a task to cancel).
        deadline = time.monotonic() + 20
        while gateway.metric("griot_gateway_tasks_total", event="sent") < sent + 3:
            assert time.monotonic() < deadline, "the deep search sent no subtree tasks"
            time.sleep(0.05)
        yield analysis_pb2.LiveSessionRequest(
            update_id=2, position=str(fast), limits=search_limits(max_depth=4)
        )
        time.sleep(30)

    seen = []
    with AnalysisClient(gateway.target) as client:
        # The stream's deadline is far shorter than the depth-24 search: it must not have to finish.
        for msg in client.live_session(requests(), timeout=40):
            seen.append((msg.update_id, msg.HasField("evaluation"), msg.evaluation.final))
            if msg.update_id == 1 and msg.HasField("evaluation") and not msg.evaluation.final:
                second.set()  # a depth came back: the deep search is running at the workers now
            if msg.update_id == 2 and msg.evaluation.final:
                break
    first = next(i for i, (u, _, _) in enumerate(seen) if u == 2)
    assert all(u == 2 for u, _, _ in seen[first:])  # nothing about the superseded position follows
    # The superseded search's tasks (a distributed search's running subtrees) were cancelled.
    assert gateway.metric("griot_gateway_tasks_total", event="cancelled") >= cancelled + 1
    deadline = time.monotonic() + 10  # the workers' stop keys are written after the metric counts
    while len(list(broker.scan_iter("griot:cancel:*"))) <= cancel_keys and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(list(broker.scan_iter("griot:cancel:*"))) > cancel_keys


# ---------------------------------------------------------------------------------------------
# Restarts


def test_restart_in_the_middle_of_a_game_analysis(stack: Stack) -> None:
    flush_cache(stack)
    g = Gateway(stack, ["--window", "2"]).start()
    moves = game("awale", 24, seed=17)
    limits = search_limits(max_depth=9)
    try:
        with AnalysisClient(g.target) as client:
            stream = client.analyze_game("awale", moves, limits=limits, timeout=60)
            job_id = ""
            done_before = 0
            for msg in stream:
                job_id = msg.job_id
                done_before = msg.progress.positions_done
                if done_before >= 3:
                    break
        assert 3 <= done_before < len(moves)
        g.stop(signal.SIGKILL)  # no goodbye: the lease expires, the job stays in Redis
        g.start()
        with AnalysisClient(g.target) as client:
            msgs = list(client.analyze_game(resume_job_id=job_id, limits=limits, timeout=120))
        assert {m.job_id for m in msgs} == {job_id}
        report = msgs[-1].report
        assert len(report.turns) == len(moves)
        assert [t.turn for t in report.turns] == list(range(len(moves)))
    finally:
        g.stop()


# ---------------------------------------------------------------------------------------------
# Quotas and authentication


@pytest.fixture(scope="module")
def secured(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Gateway:
    keys = tmp_path_factory.mktemp("keys") / "api-keys"
    keys.write_text(
        "# test keys\n"
        "good-key alice\n"
        "small-key bob max_depth=6 max_time=2 max_game_moves=4 max_streams=1 rate_per_minute=3\n"
    )
    g = Gateway(stack, ["--api-keys-file", str(keys), "--window", "1", "--max-pending", "2"]).start()
    yield g
    g.stop()


def _code(fn) -> tuple[grpc.StatusCode, str, float | None]:  # type: ignore[no-untyped-def]
    try:
        fn()
    except ServiceError as e:
        return e.code, e.reason, e.retry_after
    except griot.GriotError as e:  # the client raises the core's exception again
        from griot.status import status_for

        status = status_for(e)
        return status.code, status.reason, None
    raise AssertionError("no error")


def test_api_keys(secured: Gateway) -> None:
    pos = str(griot.Variant("abapa").start())
    with AnalysisClient(secured.target) as anon:
        assert _code(lambda: anon.best_move(pos, 1, timeout=5))[:2] == (
            grpc.StatusCode.UNAUTHENTICATED,
            "missing_api_key",
        )
        assert _code(lambda: list(anon.evaluate(pos, timeout=5)))[0] == grpc.StatusCode.UNAUTHENTICATED
    with AnalysisClient(secured.target, metadata=[("x-api-key", "nope")]) as bad:
        assert _code(lambda: bad.best_move(pos, 1, timeout=5))[:2] == (
            grpc.StatusCode.UNAUTHENTICATED,
            "bad_api_key",
        )
        assert (
            _code(lambda: list(bad.live_session(iter([]), timeout=5)))[0] == grpc.StatusCode.UNAUTHENTICATED
        )
    with AnalysisClient(secured.target, metadata=[("x-api-key", "good-key")]) as good:
        assert good.best_move(pos, 1, timeout=10).move
    from griot.launcher import grpc_health

    assert grpc_health(secured.target, "griot.v1.AnalysisService") == "SERVING"  # health needs no key


def test_per_key_limits_and_rate(secured: Gateway) -> None:
    pos = str(griot.Variant("abapa").start())
    with AnalysisClient(secured.target, metadata=[("x-api-key", "small-key")]) as bob:
        code = _code(lambda: list(bob.evaluate(pos, search_limits(max_depth=7), timeout=5)))
        assert code[:2] == (grpc.StatusCode.PERMISSION_DENIED, "limit")
        code = _code(lambda: list(bob.evaluate(pos, search_limits(max_time=3.0), timeout=5)))
        assert code[:2] == (grpc.StatusCode.PERMISSION_DENIED, "limit")
        code = _code(lambda: list(bob.analyze_game("abapa", ["a", "A", "b", "B", "c"], timeout=5)))
        assert code[:2] == (grpc.StatusCode.PERMISSION_DENIED, "limit")
        # three requests a minute: the fourth is refused with a retry hint
        code = _code(lambda: bob.best_move(pos, 1, timeout=5))
        assert code[0] == grpc.StatusCode.RESOURCE_EXHAUSTED and code[1] == "quota"
        assert code[2] is not None and code[2] > 0


def test_overloaded_answers_resource_exhausted_with_retry(secured: Gateway, stack: Stack) -> None:
    flush_cache(stack)
    positions = [midgame("awale", 20 + i, seed=100 + i) for i in range(8)]
    codes: list[tuple[grpc.StatusCode, str, float | None] | str] = []

    def ask(p: griot.Position) -> None:
        with AnalysisClient(secured.target, metadata=[("x-api-key", "good-key")]) as c:
            try:
                list(c.evaluate(p, search_limits(max_depth=10), timeout=30))
                codes.append("ok")
            except ServiceError as e:
                codes.append((e.code, e.reason, e.retry_after))

    threads = [threading.Thread(target=ask, args=(p,)) for p in positions]
    for t in threads:
        t.start()
    for t in threads:
        t.join(40)
    refused = [c for c in codes if c != "ok"]
    assert refused, codes
    for code, reason, retry in refused:  # type: ignore[misc]
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason == "overloaded" and retry >= 1
    assert "ok" in codes


# ---------------------------------------------------------------------------------------------
# Malformed input


START = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
OVER = "abapa 0,0,0,0,0,0/0,0,0,0,0,0 24-24 S 40 -"

MALFORMED = [
    ("evaluate: empty position", lambda c: list(c.evaluate("", timeout=5)), grpc.StatusCode.INVALID_ARGUMENT),
    (
        "evaluate: bad notation",
        lambda c: list(c.evaluate("abapa 4,4,4", timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "evaluate: unknown variant",
        lambda c: list(c.evaluate("nosuch 1,2/3,4 0-0 S 0 -", timeout=5)),
        grpc.StatusCode.NOT_FOUND,
    ),
    (
        "evaluate: negative time",
        lambda c: list(c.evaluate(START, analysis_pb2.SearchLimits(max_time={"seconds": -1}), timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "evaluate: depth beyond the limit",
        lambda c: list(c.evaluate(START, search_limits(max_depth=500), timeout=5)),
        grpc.StatusCode.PERMISSION_DENIED,
    ),
    (
        "evaluate: unknown priority",
        lambda c: list(c.evaluate(START, priority=9, timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "best move: level 0",
        lambda c: c._call(c.stub.BestMove, analysis_pb2.BestMoveRequest(position=START), 5),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "best move: level 11",
        lambda c: c._call(c.stub.BestMove, analysis_pb2.BestMoveRequest(position=START, level=11), 5),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    ("best move: game over", lambda c: c.best_move(OVER, 5, timeout=5), grpc.StatusCode.INVALID_ARGUMENT),
    (
        "analyze: nothing",
        lambda c: list(c._stream(c.stub.AnalyzeGame(analysis_pb2.AnalyzeGameRequest(), timeout=5))),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "analyze: illegal move",
        lambda c: list(c.analyze_game("abapa", ["c", "c"], timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "analyze: unparsable move",
        lambda c: list(c.analyze_game("abapa", ["zz9"], timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "analyze: unknown variant",
        lambda c: list(c.analyze_game("nosuch", ["a"], timeout=5)),
        grpc.StatusCode.NOT_FOUND,
    ),
    (
        "analyze: start of another variant",
        lambda c: list(c.analyze_game("awale", ["a"], start_position=START, timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "analyze: bad record",
        lambda c: list(c.analyze_game(record='[Variant "abapa"]\n\n1. q', timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "analyze: unknown job",
        lambda c: list(c.analyze_game(resume_job_id="0123abcd", timeout=5)),
        grpc.StatusCode.NOT_FOUND,
    ),
    (
        "analyze: bad job id",
        lambda c: list(c.analyze_game(resume_job_id="../x", timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "live: empty first message",
        lambda c: list(c.live_session(iter([analysis_pb2.LiveSessionRequest()]), timeout=5)),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "live: unknown session",
        lambda c: list(
            c.live_session(iter([analysis_pb2.LiveSessionRequest(session_id="feedbeef")]), timeout=5)
        ),
        grpc.StatusCode.NOT_FOUND,
    ),
    (
        "live: move before a position",
        lambda c: list(
            c.live_session(iter([analysis_pb2.LiveSessionRequest(update_id=1, move="c")]), timeout=5)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
    (
        "live: illegal move",
        lambda c: list(
            c.live_session(
                iter(
                    [
                        analysis_pb2.LiveSessionRequest(
                            update_id=1, position=START, limits=search_limits(max_depth=2)
                        ),
                        analysis_pb2.LiveSessionRequest(update_id=2, move="A"),
                    ]
                ),
                timeout=10,
            )
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    ),
]


@pytest.mark.parametrize("name,call,code", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_input(gateway: Gateway, name: str, call, code: grpc.StatusCode) -> None:  # type: ignore[no-untyped-def]
    with AnalysisClient(gateway.target) as client:
        assert _code(lambda: call(client))[0] == code, name


def test_game_over_position_evaluates_without_search(gateway: Gateway) -> None:
    with AnalysisClient(gateway.target) as client:
        msgs = list(client.evaluate(OVER, timeout=5))
    assert len(msgs) == 1 and msgs[0].evaluation.final and msgs[0].evaluation.depth == 0


def test_analysis_behind_a_deeper_best_move_entry_is_cached_the_second_time(gateway: Gateway) -> None:
    # A deep Evaluate caches awale's start scoring the best move only; a shallower whole-game
    # analysis needs every move scored. Its search goes to the entry's depth so that its result
    # replaces the entry (deeper wins, and at equal depth every move scored wins); the same analysis
    # again is then answered from the cache without a single task.
    start = griot.Variant("awale").start()
    moves = game("awale", 4, seed=9)
    with AnalysisClient(gateway.target) as client:
        list(client.evaluate(start, search_limits(max_depth=7), timeout=60))
        first = list(client.analyze_game("awale", moves, limits=search_limits(max_depth=3), timeout=120))
        assert first[-1].HasField("report")
        sent = gateway.metric("griot_gateway_tasks_total", event="sent")
        again = list(client.analyze_game("awale", moves, limits=search_limits(max_depth=3), timeout=60))
        assert again[-1].report.turns == first[-1].report.turns
        assert gateway.metric("griot_gateway_tasks_total", event="sent") == sent
