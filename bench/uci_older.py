"""A minimal Oware-protocol engine over any Griot build's public Python API.

``griot match`` plays an older Griot (a checkout with its own environment, built before ``griot
uci`` existed) through the engine protocol, as it plays any external engine:

    A=/path/to/older/checkout
    griot match 'griot;time=0.1' "uci:$A/.venv/bin/python bench/uci_older.py;time=0.1;name=older" \\
        --games 400 --plies 4 --seed 1

It uses only what every Griot build has: ``griot.Variant``, ``Position.play``, ``griot.search``
with ``time=``, ``depth=``, ``history=``, ``table=`` and ``eval=``. It speaks the part of the
dialect that ``griot match`` sends (``uci``, ``isready``, ``ucinewgame``, ``position startpos
[moves ...]``, ``go [depth N] [movetime MS]``, ``quit``); a time is given to the search's own
limit (``--timing search``, how that build's ``griot.search(time=)`` spends it) or stopped from
a timer at the deadline (``--timing deadline``).
"""

from __future__ import annotations

import argparse
import sys
import threading

import griot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="abapa")
    parser.add_argument("--eval", default="tuned", help="the build's evaluation name")
    parser.add_argument("--hash", type=int, default=64, help="transposition table MB")
    parser.add_argument("--timing", choices=("search", "deadline"), default="search")
    args = parser.parse_args()

    start = griot.Variant(args.variant).start()
    table = griot.SearchTable(args.hash)
    positions = [start]

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command, rest = words[0], words[1:]
        if command == "uci":
            say("id name Griot (older build)")
            say("uciok")
        elif command == "isready":
            say("readyok")
        elif command == "ucinewgame":
            table.clear()
        elif command == "position":
            if rest[:1] != ["startpos"]:
                say("info string error: only startpos is understood")
                continue
            letters = "".join(rest[2:]) if rest[1:2] == ["moves"] else ""
            positions = [start]
            for letter in letters:
                positions.append(positions[-1].play(letter.swapcase()))
        elif command == "go":
            limits = dict(zip(rest[::2], rest[1::2], strict=False))
            depth = int(limits["depth"]) if "depth" in limits else None
            seconds = int(limits["movetime"]) / 1000 if "movetime" in limits else None
            stop = griot.SearchStop()
            timer = None
            if seconds is not None and args.timing == "deadline":
                timer = threading.Timer(seconds, stop.set)
                timer.start()
            try:
                result = griot.search(
                    positions[-1],
                    depth=depth,
                    time=seconds if args.timing == "search" else None,
                    stop=stop,
                    eval=args.eval,
                    history=positions[:-1],
                    table=table,
                )
            finally:
                if timer is not None:
                    timer.cancel()
            move = result.best_move if result.best_move is not None else positions[-1].legal_moves()[0]
            say(f"bestmove {str(move).swapcase()}")
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
