"""Strength measurements of the search: self-play matches (depths, evaluation versions) and
matches against OpenSpiel's MCTS bot on Oware (``abapa``), with 95% error bars.

    python bench/strength.py selfplay --a "depth=6;eval=tuned" --b "depth=6;eval=material" --openings 30
    python bench/strength.py mcts --time 0.1 --games 20

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
    eval: str = "tuned"

    @staticmethod
    def parse(text: str) -> Engine:
        fields = dict(kv.split("=", 1) for kv in text.split(";") if kv)
        return Engine(
            depth=int(fields["depth"]) if "depth" in fields else None,
            time=float(fields["time"]) if "time" in fields else None,
            eval=fields.get("eval", "tuned"),
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


def result_for_south(pos: griot.Position, seen: Counter[griot.Position]) -> float | None:
    outcome = pos.outcome
    if outcome is None and seen[pos] >= 3:
        outcome = pos.endless_outcome()
    if outcome is None:
        return None
    return 1.0 if outcome.winner == "S" else 0.0 if outcome.winner == "N" else 0.5


def play(variant: str, start_moves: list[str], south: Engine, north: Engine) -> float:
    pos = griot.Variant(variant).start()
    history: list[griot.Position] = []
    seen: Counter[griot.Position] = Counter()
    for m in start_moves:
        history.append(pos)
        seen[pos] += 1
        pos = pos.play(m)
    while True:
        seen[pos] += 1
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


def mcts(args: argparse.Namespace) -> None:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts as ms

    game = pyspiel.load_game("oware")
    rng = np.random.RandomState(args.seed)
    evaluator = ms.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)

    # Calibrate MCTS simulations per second so that both sides think for `time` seconds a move.
    probe = ms.MCTSBot(game, uct_c=2.0, max_simulations=200, evaluator=evaluator, random_state=rng)
    st = game.new_initial_state()
    t = time.monotonic()
    for _ in range(5):
        probe.step(st)
    rate = 5 * 200 / (time.monotonic() - t)
    sims = max(10, int(rate * args.time))
    bot = ms.MCTSBot(game, uct_c=2.0, max_simulations=sims, evaluator=evaluator, random_state=rng)
    ours = Engine(time=args.time, eval=args.eval)
    print(f"MCTS: {rate:.0f} simulations/s -> {sims} simulations a move; griot: {args.time} s a move")
    points: list[float] = []
    for g in range(args.games):
        griot_south = g % 2 == 0
        st = game.new_initial_state()
        pos = griot.Variant("abapa").start()
        history: list[griot.Position] = []
        seen: Counter[griot.Position] = Counter()
        while True:
            seen[pos] += 1
            r = result_for_south(pos, seen)
            if r is not None or st.is_terminal():
                if r is None:
                    ret = st.returns()
                    r = 1.0 if ret[0] > ret[1] else 0.0 if ret[0] < ret[1] else 0.5
                break
            south_to_move = pos.side_to_move == "S"
            if south_to_move == griot_south:
                mv = ours.move(pos, history)
                k = ord(mv) - (ord("a") if south_to_move else ord("A"))
            else:
                k = bot.step(st)
                mv = chr((ord("a") if south_to_move else ord("A")) + k)
            st.apply_action(k)
            history.append(pos)
            pos = pos.play(mv)
        points.append(r if griot_south else 1.0 - r)
        print(f"game {g + 1}: griot {'S' if griot_south else 'N'} scores {points[-1]}", flush=True)
    print(f"griot (time {args.time} s) vs MCTS ({sims} sims): griot scores {summary(points)}")


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
    m.add_argument("--time", type=float, default=0.1)
    m.add_argument("--games", type=int, default=10)
    m.add_argument("--eval", default="tuned")
    m.add_argument("--seed", type=int, default=1)
    m.set_defaults(func=mcts)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
