"""The Leb Bbut Ahbochen and Béchi perft tables cover every board size and option.

The tables themselves run in tests/test_perft.py and crates/griot-core/tests/perft.rs with every
other table; tests/perft/make_leb_bechi.py regenerates them (checking the reference agrees).
"""

from __future__ import annotations

from pathlib import Path

PERFT = Path(__file__).parent / "perft"


def _variants(name: str) -> set[str]:
    lines = (PERFT / name).read_text(encoding="utf-8").splitlines()
    return {line.split(" ")[0] for line in lines if line.strip() and not line.startswith("#")}


def test_every_leb_board_size_has_a_table() -> None:
    leb = "leb-bbut-ahbochen"
    assert _variants("leb-bbut-ahbochen.txt") == {
        f"{leb}(holes=2)",
        f"{leb}(holes=4)",
        leb,
        f"{leb}(holes=8)",
        f"{leb}(holes=10)",
    }


def test_every_bechi_board_and_option_has_a_table() -> None:
    assert _variants("bechi.txt") == {
        "bechi",
        "bechi(holes=3)",
        "bechi(empty_breaks_chain=false)",
        "bechi(empty_breaks_chain=false,holes=3)",
        "bechi(empty_holes_in_play=true)",
        "bechi(empty_holes_in_play=true,holes=3)",
    }
