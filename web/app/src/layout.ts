/**
 * Board layout from the API's geometry alone (DescribeVariant's `geometry`): every game, two-row,
 * four-row Ikibuguzo or the 5x5 Sabou'iyya, is rows x cols of cells with a row (0 = South's
 * outermost), a column (from South's left), an owner and a label. New rule files need nothing here.
 */
import { type BoardGeometry, Player } from "@griot/client";

export interface CellView {
  index: number;
  label: string;
  owner: Player;
  /** CSS grid row, 1 = top of the screen. */
  gridRow: number;
  /** CSS grid column, 1 = left of the screen. */
  gridCol: number;
}

export interface BoardLayout {
  rows: number;
  cols: number;
  cells: CellView[];
  /** Whether stores are drawn beside the board (North's on the left, South's on the right). */
  stores: boolean;
  /** Cell index of each label (of South's cell where both players' cells share labels). */
  byLabel: Map<string, number>;
  /** Labels more than one cell has (Ikibuguzo: each player's holes are o1..o8, i1..i8). */
  shared: Set<string>;
  /** Whether North's side is drawn at the bottom. */
  flipped: boolean;
}

/** Lays the cells out as South sees the board (South at the bottom), or North if `flipped`. */
export function layoutBoard(geometry: BoardGeometry, flipped = false): BoardLayout {
  const { rows, cols } = geometry;
  const cells = geometry.cells.map((c, i): CellView => {
    const index = c.index || i;
    return {
      index,
      label: c.label,
      owner: c.owner,
      gridRow: flipped ? c.row + 1 : rows - c.row,
      gridCol: flipped ? cols - c.col : c.col + 1,
    };
  });
  const byLabel = new Map<string, number>();
  const shared = new Set<string>();
  for (const c of cells) {
    if (byLabel.has(c.label)) shared.add(c.label);
    else byLabel.set(c.label, c.index);
  }
  return { rows, cols, cells, stores: geometry.stores, byLabel, shared, flipped };
}

export interface EdgeSide {
  player: Player;
  /** How many screen rows next to that edge hold only this player's cells (0 on a shared grid). */
  rows: number;
}

/**
 * Whose side of the board each screen edge is, to label it: the owner of the cells in the top
 * (bottom) row, or on boards whose cells nobody owns (Sabou'iyya), North at the top as South sees it.
 */
export function edgeSides(layout: BoardLayout): { top: EdgeSide; bottom: EdgeSide } {
  const owners = new Map<number, Set<Player>>();
  for (const c of layout.cells) {
    if (!owners.has(c.gridRow)) owners.set(c.gridRow, new Set());
    owners.get(c.gridRow)!.add(c.owner);
  }
  const only = (row: number): Player | undefined => {
    const set = owners.get(row);
    const [p] = set ?? [];
    return set?.size === 1 && p !== Player.UNSPECIFIED ? p : undefined;
  };
  const side = (edgeRow: number, step: number, fallback: Player): EdgeSide => {
    const player = only(edgeRow);
    if (player === undefined) return { player: fallback, rows: 0 };
    let rows = 0;
    for (let r = edgeRow; r >= 1 && r <= layout.rows && only(r) === player; r += step) rows++;
    return { player, rows };
  };
  const [topFallback, bottomFallback] = layout.flipped ? [Player.SOUTH, Player.NORTH] : [Player.NORTH, Player.SOUTH];
  return { top: side(1, 1, topFallback), bottom: side(layout.rows, -1, bottomFallback) };
}

/**
 * Whether a move's label means this cell for the player to move: labels are unique on most boards;
 * where both players' cells share labels, a player's moves name their own cells.
 */
export function labelMeans(layout: BoardLayout, cell: CellView, sideToMove: Player): boolean {
  return !layout.shared.has(cell.label) || cell.owner === sideToMove;
}

/** What a cell shows: seeds as a number, or a piece (placement games: 1 = South's, 2 = North's). */
export function cellText(value: number, pieces: boolean): string {
  if (pieces) return value === 1 ? "●" : value === 2 ? "○" : "";
  return String(value);
}

/** Whether the variant is a placement game (cells hold pieces, not seeds): no sowing direction. */
export function isPieceGame(geometry: BoardGeometry): boolean {
  return geometry.sowingDirection === "";
}
