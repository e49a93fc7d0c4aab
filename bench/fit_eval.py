"""Fits the learned two-row sowing evaluation's weights (crates/griot-core/src/search/learned.rs).

The Texel method: logistic regression of game results on positions' features. The data are
self-play positions written by the ``eval_data`` example (features from the side to move's view,
result 1/0.5/0, or the endgame databases' exact result where they know it). The shipped weights
were fitted on the games of the engine with the weights before them (cache scope
``learned.59f6373e``), with Abapa's endgame databases of levels 0-20 as ``EGDB_DIR`` (``griot
egdb build abapa --seeds 20``)::

    cargo build --release -p griot-core --example eval_data
    ./target/release/examples/eval_data abapa 3000 10 8 11 EGDB_DIR > /tmp/abapa-11.csv
    ./target/release/examples/eval_data abapa 3000 10 8 12 EGDB_DIR > /tmp/abapa-12.csv
    python bench/fit_eval.py /tmp/abapa-11.csv /tmp/abapa-12.csv --rules abapa --holes 6 --seed 1 \\
        > crates/griot-core/rules/eval/abapa.toml

The model is P(win) = sigmoid(w . f), fitted by Newton's method with a small L2 penalty on a
seeded random 90% of the positions; the other 10% report the fit (log loss against the
material-only model). Weights are written in centi-units: the store difference's weight is scaled
to 100 per seed and every other weight in proportion, rounded to integers.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import numpy.typing as npt

#: Must match ``learned::FEATURE_VERSION``, the names and the order of ``learned::features``.
FEATURE_VERSION = 1
MAX_HOLES = 8
EXTRA = ["empty", "vulnerable", "threatened", "kroo", "kroo_reach", "feeding", "captures"]
NAMES = ["store"] + [f"hole{k}" for k in range(1, MAX_HOLES + 1)] + EXTRA + ["tempo"]

Array = npt.NDArray[np.float64]


def fit(x: Array, y: Array, l2: float, iterations: int = 30) -> Array:
    """Logistic regression by Newton's method (columns that are all zero stay zero)."""
    used = np.abs(x).sum(axis=0) > 0
    xu = x[:, used]
    w = np.zeros(xu.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(xu @ w)))
        grad = xu.T @ (p - y) + l2 * w
        hess = (xu * (p * (1 - p))[:, None]).T @ xu + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    full = np.zeros(x.shape[1])
    full[used] = w
    return full


def log_loss(x: Array, y: Array, w: Array) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-(x @ w))), 1e-9, 1 - 1e-9)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", help="CSV files from the eval_data example")
    parser.add_argument("--rules", required=True, help="the rule file id the data were played under")
    parser.add_argument("--holes", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1, help="seed of the held-out split")
    parser.add_argument("--l2", type=float, default=1.0, help="L2 penalty")
    args = parser.parse_args(argv)

    parts = [np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2) for path in args.data]
    for path, part in zip(args.data, parts, strict=True):
        if part.shape[1] != len(NAMES) + 1:
            sys.exit(f"{path}: expected {len(NAMES) + 1} columns (feature version {FEATURE_VERSION})")
    table = np.vstack(parts)
    x, y = table[:, :-1], table[:, -1]
    rng = np.random.default_rng(args.seed)
    test = rng.random(len(y)) < 0.1
    w = fit(x[~test], y[~test], args.l2)
    material = np.zeros_like(w)
    material[0] = fit(x[~test][:, :1], y[~test], args.l2)[0]
    if w[0] <= 0:
        sys.exit("the store difference got a weight <= 0: not enough data")
    centi = np.rint(w / w[0] * 100).astype(int)
    print("# Weights of the learned two-row sowing evaluation (crates/griot-core/src/search/learned.rs)")
    print("# in centi-units per unit of each feature (side to move's count minus the opponent's).")
    print(f"# Fitted by bench/fit_eval.py (seed {args.seed}, L2 {args.l2}) on {len(y)} positions of")
    print("# self-play games (the eval_data example; bench/fit_eval.py's docstring has the commands);")
    print(
        f"# held-out log loss {log_loss(x[test], y[test], w):.4f}, "
        f"material only {log_loss(x[test], y[test], material):.4f}."
    )
    print(f"version = {FEATURE_VERSION}")
    print(f'rules = "{args.rules}"')
    print(f"holes = {args.holes}")
    print()
    print("[weights]")
    for name, value in zip(NAMES, centi, strict=True):
        if value != 0:
            print(f"{name} = {value}")


if __name__ == "__main__":
    main()
