"""Readable boards for the terminal, drawn from a variant's geometry (any game, any size)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from griot._core import Position


def bechi_state(pos: Position) -> dict[str, str] | None:
    """Béchi's match fields (round, phase, moved, off, carry, and with `first_pass_starts` passed)
    from its notation; None for other games."""
    if pos.variant.id != "bechi":
        return None
    _, _, _, _, _, round_, phase, moved, off, carry, *passed = str(pos).split(" ")
    state = {"round": round_, "phase": phase, "moved": moved, "off": off, "carry": carry}
    if passed:
        state["passed"] = passed[0]
    return state


def board_table(pos: Position, highlight: set[int] | None = None) -> Table:
    """A rich table of the board as South sees it: top row first, labels beside each cell.

    Béchi: a hole out of play shows `x`, a hole already moved this round is marked `*`."""
    geo = pos.variant.geometry
    rows, cols = geo["rows"], geo["cols"]
    values = pos.cells
    bechi = bechi_state(pos)
    grid: list[list[Text]] = [[Text("") for _ in range(cols)] for _ in range(rows)]
    pieces = geo["stores"] is False and geo["sowing"] == ""
    for i, cell in enumerate(geo["cells"]):
        v = values[i] if i < len(values) else 0
        if pieces:
            shown = {0: ".", 1: "S", 2: "N"}.get(v, str(v))
        else:
            shown = str(v)
        if bechi is not None:
            if cell["label"] in bechi["off"]:
                shown = "x"
            elif cell["label"] in bechi["moved"]:
                shown += "*"
        owner = cell["owner"]
        style = "bold cyan" if owner == "S" else "bold magenta" if owner == "N" else "bold"
        if highlight and i in highlight:
            style += " reverse"
        t = Text(shown, style=style)
        t.append(f" {cell['label']}", style="dim")
        grid[rows - 1 - cell["row"]][cell["col"]] = t
    table = Table(show_header=False, show_lines=True, box=None, padding=(0, 1))
    for _ in range(cols):
        table.add_column(justify="center")
    for r in grid:
        table.add_row(*r)
    return table


def describe(pos: Position) -> str:
    """One line under the board: stores, side to move, turn, outcome."""
    parts = []
    stores = pos.stores
    if stores is not None:
        parts.append(f"stores S {stores[0]} - N {stores[1]}")
    bechi = bechi_state(pos)
    if bechi is not None:
        carry_s, carry_n = bechi["carry"].split("-")
        parts.append(f"round {bechi['round']} ({bechi['phase']}) · aside S {carry_s} - N {carry_n}")
        if bechi.get("passed", "-") != "-":
            parts.append(f"{'South' if bechi['passed'] == 'S' else 'North'} passed first")
    if bechi is None:
        # Rule files played in rounds: the refill between rounds and the holes out of play.
        for flag in str(pos).rsplit(" ", 1)[-1].split(","):
            if flag == "refill":
                parts.append("between rounds: refilling")
            elif flag.startswith("off="):
                parts.append(f"out of play: {flag[len('off=') :]}")
    outcome = pos.outcome
    if outcome is None:
        parts.append(f"{'South' if pos.side_to_move == 'S' else 'North'} to move")
    else:
        winner = {"S": "South wins", "N": "North wins", None: "draw"}[outcome.winner]
        parts.append(f"game over ({outcome.reason}): {winner} {outcome.scores[0]}-{outcome.scores[1]}")
    parts.append(f"turn {pos.turns + 1}")
    return " · ".join(parts)
