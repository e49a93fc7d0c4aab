"""Strength measurements of the search: self-play matches (depths, evaluation versions; any
variant, `--variant bechi`) and matches against OpenSpiel's C++ MCTS bot on Oware (``abapa``) at
equal CPU time per move, with 95% error bars.

    python bench/strength.py selfplay --a "depth=6;eval=tuned" --b "depth=6;eval=material" --openings 30
    python bench/strength.py mcts --time 0.2 --games 20

`crates/griot-core/examples/selfplay.rs` plays the same self-play matches in Rust (for an
evaluation not yet in the installed package).

Every opening (random moves from the start, seeded) is played twice with colours swapped. Score is
the first player's points (win 1, draw 0.5) over games played; the error bar is 1.96 standard
errors of the per-game points. Endless cycles: a position's third occurrence ends the game by
the variant's endless-cycle rule, as in the rules.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import Counter
from dataclasses import dataclass

import griot


@dataclass(frozen=True)
class Engine:
    depth: int | None = None
    time: float | None = None
    eval: str = griot.DEFAULT_EVAL

    @staticmethod
    def parse(text: str) -> Engine:
        fields = dict(kv.split("=", 1) for kv in text.split(";") if kv)
        return Engine(
            depth=int(fields["depth"]) if "depth" in fields else None,
            time=float(fields["time"]) if "time" in fields else None,
            eval=fields.get("eval", griot.DEFAULT_EVAL),
        )

    def move(self, pos: griot.Position, history: list[griot.Position]) -> str:
        r = griot.search(pos, depth=self.depth, time=self.time, eval=self.eval, history=history[-40:])
        assert r.best_move is not None
        return str(r.best_move)


def opening(variant: str, plies: int, rng: random.Random) -> list[str]:
    while True:
        pos = griot.Variant(variant).start()
        moves = []
        for _ in range(plies):
            legal = pos.legal_moves()
            if not legal:
                break
            m = rng.choice(legal)
            moves.append(str(m))
            pos = pos.play(m)
        if not pos.is_over:
            return moves


def result_for_south(pos: griot.Position, seen: Counter[bytes]) -> float | None:
    outcome = pos.outcome
    if outcome is None and seen[pos.key] >= 3:
        outcome = pos.endless_outcome()
    if outcome is None:
        return None
    return 1.0 if outcome.winner == "S" else 0.0 if outcome.winner == "N" else 0.5


def play(variant: str, start_moves: list[str], south: Engine, north: Engine) -> float:
    pos = griot.Variant(variant).start()
    history: list[griot.Position] = []
    seen: Counter[bytes] = Counter()
    for m in start_moves:
        history.append(pos)
        seen[pos.key] += 1
        pos = pos.play(m)
    while True:
        seen[pos.key] += 1
        r = result_for_south(pos, seen)
        if r is not None:
            return r
        engine = south if pos.side_to_move == "S" else north
        mv = engine.move(pos, history)
        history.append(pos)
        pos = pos.play(mv)


def summary(points: list[float]) -> str:
    n = len(points)
    mean = sum(points) / n
    var = sum((p - mean) ** 2 for p in points) / max(n - 1, 1)
    err = 1.96 * math.sqrt(var / n)
    elo = "" if mean in (0.0, 1.0) else f", Elo {-400 * math.log10(1 / mean - 1):+.0f}"
    wdl = f"W {points.count(1.0)} D {points.count(0.5)} L {points.count(0.0)}"
    return f"{mean:.3f} ± {err:.3f} over {n} games ({wdl}{elo})"


def selfplay(args: argparse.Namespace) -> None:
    a, b = Engine.parse(args.a), Engine.parse(args.b)
    rng = random.Random(args.seed)
    points: list[float] = []
    t = time.monotonic()
    for _ in range(args.openings):
        start = opening(args.variant, args.plies, rng)
        points.append(play(args.variant, start, a, b))
        points.append(1.0 - play(args.variant, start, b, a))
    print(f"{args.variant}: A={a} vs B={b}: A scores {summary(points)} [{time.monotonic() - t:.0f} s]")


def adapt(budget: int, used: float, want: float, least: int) -> int:
    """The next move's budget (nodes or simulations) for `want` CPU seconds, after this one used
    `used`: scaled by at most 2x either way; unchanged after a move that ended far short of its
    budget (a proven result: the next one need not take as little)."""
    if used < want / 4:
        return budget
    return max(least, int(budget * min(2.0, max(0.5, want / used))))


def mcts(args: argparse.Namespace) -> None:
    """Griot against OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``, random rollouts) at equal CPU time
    per move. Each side's budget is a count (Griot's nodes, MCTS's simulations) adapted after each
    of its moves so that the move's CPU time (the calling thread's, so other processes on a busy
    machine bias neither side) tends to ``--time`` seconds (MCTS: times ``--factor``)."""
    import pyspiel

    game = pyspiel.load_game("oware")
    # Starting point: simulations in the budget on the start position.
    evaluator = pyspiel.RandomRolloutEvaluator(1, args.seed)
    probe = pyspiel.MCTSBot(game, evaluator, args.uct_c, 1000, 256, True, args.seed, False)
    t = time.thread_time()
    probe.step(game.new_initial_state())
    rate = 1000 / max(time.thread_time() - t, 1e-6)
    sims = max(10, int(rate * args.time * args.factor))
    t = time.thread_time()
    probe_nodes = griot.search(griot.Variant("abapa").start(), depth=12, eval=args.eval).nodes
    nodes = max(1000, int(probe_nodes / max(time.thread_time() - t, 1e-6) * args.time))
    budget = f"griot {args.time}, MCTS {args.time * args.factor}"
    print(f"CPU s a move: {budget}; start: {sims:,} simulations, {nodes:,} nodes")
    points: list[float] = []
    griot_cpu: list[float] = []
    mcts_cpu: list[float] = []
    mcts_sims: list[int] = []
    depths: list[int] = []
    started = time.monotonic()
    sims0, nodes0 = sims, nodes
    for g in range(args.games):
        griot_south = g % 2 == 0
        sims, nodes = sims0, nodes0
        bot = pyspiel.MCTSBot(game, evaluator, args.uct_c, sims, 256, True, args.seed + g, False)
        st = game.new_initial_state()
        pos = griot.Variant("abapa").start()
        history: list[griot.Position] = []
        seen: Counter[bytes] = Counter()
        # Random opening moves (both sides), the same for the game pair with colours swapped.
        rng = random.Random(args.seed * 1000 + g // 2)
        for _ in range(args.plies):
            k = rng.choice(st.legal_actions())
            mv = chr((ord("a") if pos.side_to_move == "S" else ord("A")) + k)
            st.apply_action(k)
            history.append(pos)
            seen[pos.key] += 1
            pos = pos.play(mv)
        while True:
            seen[pos.key] += 1
            r = result_for_south(pos, seen)
            if r is not None or st.is_terminal():
                if r is None:  # OpenSpiel ends at a board's first repetition: its returns decide
                    ret = st.returns()
                    r = 1.0 if ret[0] > ret[1] else 0.0 if ret[0] < ret[1] else 0.5
                break
            south_to_move = pos.side_to_move == "S"
            if south_to_move == griot_south:
                t = time.thread_time()
                res = griot.search(pos, nodes=nodes, eval=args.eval, history=history[-40:])
                used = time.thread_time() - t
                griot_cpu.append(used)
                depths.append(res.depth)
                if args.verbose:
                    print(f"  griot {nodes:,} nodes depth {res.depth}: {used:.3f} s")
                nodes = adapt(nodes, used, args.time, 1000)
                assert res.best_move is not None
                mv = str(res.best_move)
                k = ord(mv) - (ord("a") if south_to_move else ord("A"))
            else:
                t = time.thread_time()
                k = bot.step(st)
                used = time.thread_time() - t
                mcts_cpu.append(used)
                mcts_sims.append(sims)
                want = args.factor * args.time
                if args.verbose:
                    print(f"  MCTS {sims:,} simulations: {used:.3f} s")
                sims = adapt(sims, used, want, 10)
                bot = pyspiel.MCTSBot(game, evaluator, args.uct_c, sims, 256, True, args.seed + g, False)
                mv = chr((ord("a") if south_to_move else ord("A")) + k)
            st.apply_action(k)
            history.append(pos)
            pos = pos.play(mv)
        points.append(r if griot_south else 1.0 - r)
        print(
            f"game {g + 1}: griot {'S' if griot_south else 'N'} scores {points[-1]} "
            f"[{len(history)} plies, MCTS {sims:,} sims]",
            flush=True,
        )
    n = len(points)
    all_won = points.count(1.0) == n and n >= 10
    lower = f"; all won: 95% lower bound {1 - 3 / n:.3f} (rule of three)" if all_won else ""
    print(
        f"griot (mean CPU {sum(griot_cpu) / len(griot_cpu):.3f} s, mean depth "
        f"{sum(depths) / len(depths):.1f}) vs MCTS C++ (uct_c {args.uct_c}, mean CPU "
        f"{sum(mcts_cpu) / len(mcts_cpu):.3f} s, mean {sum(mcts_sims) / len(mcts_sims):,.0f} simulations "
        f"a move): griot scores {summary(points)}{lower} [{time.monotonic() - started:.0f} s]"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(required=True)
    s = sub.add_parser("selfplay")
    s.add_argument("--variant", default="abapa")
    s.add_argument("--a", required=True, help="e.g. 'depth=6;eval=tuned'")
    s.add_argument("--b", required=True)
    s.add_argument("--openings", type=int, default=20)
    s.add_argument("--plies", type=int, default=4)
    s.add_argument("--seed", type=int, default=1)
    s.set_defaults(func=selfplay)
    m = sub.add_parser("mcts")
    m.add_argument("--time", type=float, default=0.1, help="Griot's time per move (s)")
    m.add_argument("--games", type=int, default=10, help="games (even: each opening with both colours)")
    m.add_argument("--plies", type=int, default=2, help="random opening moves")
    m.add_argument("--factor", type=float, default=1.0, help="MCTS's CPU per move over Griot's")
    m.add_argument("--uct-c", type=float, default=2.0)
    m.add_argument("--verbose", action="store_true", help="each move's budget and CPU time")
    m.add_argument("--eval", default=griot.DEFAULT_EVAL)
    m.add_argument("--seed", type=int, default=1)
    m.set_defaults(func=mcts)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
