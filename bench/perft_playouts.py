"""Move-generation speed: perft and random playouts, with OpenSpiel's `oware` as the peer.

    python3 bench/perft_playouts.py [--depth 9] [--playouts 20000]

Perft makes every leaf (no bulk counting) and runs on one core with the GIL released. The peer is
OpenSpiel's oware (the same rules as abapa) driven through pyspiel in the same script: its state
machine is C++, but each node is a Python call, so the ratio includes that overhead.
"""

from __future__ import annotations

import argparse
import time

import griot


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def openspiel_perft(state, depth: int) -> int:  # type: ignore[no-untyped-def]
    if depth == 0:
        return 1
    total = 0
    for action in state.legal_actions():
        child = state.child(action)
        total += 1 if depth == 1 else openspiel_perft(child, depth - 1)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=9)
    ap.add_argument("--peer-depth", type=int, default=6)
    ap.add_argument("--playouts", type=int, default=20000)
    args = ap.parse_args()

    start = griot.Variant("abapa").start()
    leaves, secs = timed(lambda: start.perft(args.depth))
    rate = leaves / secs / 1e6
    print(f"griot perft abapa depth {args.depth}: {leaves} leaves in {secs:.2f} s = {rate:.1f} M moves/s")
    try:
        import pyspiel
    except ImportError:
        print("OpenSpiel not installed: no peer figure (pip install open-spiel)")
    else:
        game = pyspiel.load_game("oware")
        d = args.peer_depth
        peer, psecs = timed(lambda: openspiel_perft(game.new_initial_state(), d))
        ours, osecs = timed(lambda: start.perft(d))
        assert peer == ours, (peer, ours)
        print(
            f"openspiel perft oware depth {d}: {peer} leaves in {psecs:.2f} s = "
            f"{peer / psecs / 1e6:.3f} M moves/s; "
            f"griot same depth {ours / osecs / 1e6:.1f} M moves/s = {psecs / osecs:.0f}x"
        )
    print(f"random playouts ({args.playouts} games each, one core):")
    print(f"{'variant':28} {'games/s':>10} {'turns/s':>12} {'turns/game':>10}")
    for info in griot.variants():
        pos = info.variant().start()
        turns, secs = timed(lambda pos=pos: pos.random_playouts(args.playouts, 1))
        print(f"{info.id:28} {args.playouts / secs:10.0f} {turns / secs:12.0f} {turns / args.playouts:10.1f}")


if __name__ == "__main__":
    main()
