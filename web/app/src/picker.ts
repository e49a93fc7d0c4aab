/**
 * Playing by clicking cells, for any game: a legal move names cells in order (`c`, `c2-c3-c4`,
 * `c2,d4`, `o1:cw/keep+i2:cw`, see `moveCells`); each click narrows the legal moves to those whose
 * cells start with the cells clicked so far. A move is played when one remains; where several moves
 * name the same cells (`c:cw` / `c:ccw`), the player chooses among them. Moves that name no cell
 * (`pass`, `fill:abd`, `hajeb`) are offered as buttons.
 */
import { moveCells } from "@griot/client";

export type PickResult =
  | { kind: "move"; move: string }
  | { kind: "choose"; moves: string[] }
  | { kind: "more" }
  | { kind: "invalid" };

export class MovePicker {
  private readonly paths: { move: string; cells: string[] }[];
  private prefix: string[] = [];

  constructor(legalMoves: readonly string[], labels: ReadonlySet<string>) {
    this.paths = legalMoves.map((move) => ({ move, cells: moveCells(move, labels) }));
  }

  /** The cells clicked so far. */
  get selected(): readonly string[] {
    return this.prefix;
  }

  private candidates(prefix: readonly string[]) {
    return this.paths.filter((p) => p.cells.length >= prefix.length && prefix.every((c, i) => p.cells[i] === c));
  }

  /** Labels that can be clicked next (legal-move highlights). */
  clickable(): Set<string> {
    const next = new Set<string>();
    for (const p of this.candidates(this.prefix)) {
      if (p.cells.length > this.prefix.length) next.add(p.cells[this.prefix.length]);
    }
    return next;
  }

  /** Moves naming no cell at all: offered as buttons. */
  cellless(): string[] {
    return this.paths.filter((p) => p.cells.length === 0).map((p) => p.move);
  }

  click(label: string): PickResult {
    const prefix = [...this.prefix, label];
    const cands = this.candidates(prefix);
    if (cands.length === 0) {
      this.prefix = [];
      return { kind: "invalid" };
    }
    const exact = cands.filter((p) => p.cells.length === prefix.length);
    if (cands.length === 1 && exact.length === 1) {
      this.prefix = [];
      return { kind: "move", move: exact[0].move };
    }
    this.prefix = prefix;
    if (exact.length === cands.length) return { kind: "choose", moves: exact.map((p) => p.move) };
    if (exact.length > 0) return { kind: "choose", moves: exact.map((p) => p.move) };
    return { kind: "more" };
  }

  reset(): void {
    this.prefix = [];
  }
}
