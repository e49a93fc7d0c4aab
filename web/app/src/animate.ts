/**
 * A turn's animation from ApplyMove's events: each event becomes one or more frames (the board as it
 * stands after that step, and the cells to highlight). Sowing drops one seed a frame; captures
 * empty the hole into the capturer's store; placements and steps move pieces. The frames are pure
 * data; {@link playFrames} shows them one after the other.
 */
import { Player, type TurnEvent, TurnEventKind } from "@griot/client";

export interface BoardState {
  cells: number[];
  /** Stores, for games that have them. */
  south?: number;
  north?: number;
}

export type FrameKind = "lift" | "sow" | "capture" | "forfeit" | "pass" | "place" | "step" | "fill" | "note";

export interface Frame {
  kind: FrameKind;
  state: BoardState;
  /** Cells to highlight in this frame. */
  focus: number[];
  /** Words for the status line, if the step deserves some. */
  text?: string;
}

const NAMES: Record<number, string> = { [Player.SOUTH]: "South", [Player.NORTH]: "North" };

function clone(s: BoardState): BoardState {
  return { cells: [...s.cells], south: s.south, north: s.north };
}

/** The frames of one turn, starting from the board before it. */
export function eventFrames(start: BoardState, events: readonly TurnEvent[]): Frame[] {
  const frames: Frame[] = [];
  let s = clone(start);
  const push = (kind: FrameKind, focus: number[], text?: string) => {
    frames.push({ kind, state: s, focus, text });
    s = clone(s);
  };
  const inRange = (c: number | undefined): c is number => c !== undefined && c >= 0 && c < s.cells.length;
  for (const e of events) {
    switch (e.kind) {
      case TurnEventKind.LAP: {
        if (inRange(e.cell)) {
          s.cells[e.cell] = Math.max(0, s.cells[e.cell] - e.seeds);
          push("lift", [e.cell]);
        }
        for (const c of e.cells) {
          if (!inRange(c)) continue;
          s.cells[c] += 1;
          push("sow", [c]);
        }
        break;
      }
      case TurnEventKind.CAPTURE: {
        // A piece (Sabou'iyya) leaves its cell empty; seeds are taken from the hole.
        if (inRange(e.cell)) s.cells[e.cell] = e.detail === "piece" ? 0 : Math.max(0, s.cells[e.cell] - e.seeds);
        if (e.player === Player.SOUTH && s.south !== undefined) s.south += e.seeds;
        if (e.player === Player.NORTH && s.north !== undefined) s.north += e.seeds;
        const what = e.detail === "piece" ? "a piece" : `${e.seeds} seed${e.seeds === 1 ? "" : "s"}`;
        push("capture", inRange(e.cell) ? [e.cell] : [], `${NAMES[e.player] ?? "?"} captures ${what}`);
        break;
      }
      case TurnEventKind.CAPTURE_FORFEITED:
        push("forfeit", e.cells.filter(inRange), "grand slam: nothing is captured");
        break;
      case TurnEventKind.PASS:
        push("pass", [], `${NAMES[e.player] ?? "?"} cannot move and passes`);
        break;
      case TurnEventKind.PLACE:
        if (inRange(e.cell)) s.cells[e.cell] = e.player === Player.NORTH ? 2 : 1;
        push("place", inRange(e.cell) ? [e.cell] : []);
        break;
      case TurnEventKind.STEP: {
        const to = e.cells[0];
        if (inRange(e.cell) && inRange(to)) {
          s.cells[to] = s.cells[e.cell];
          s.cells[e.cell] = 0;
          push("step", [e.cell, to]);
        }
        break;
      }
      case TurnEventKind.FILL:
        if (inRange(e.cell)) s.cells[e.cell] += e.seeds;
        push("fill", inRange(e.cell) ? [e.cell] : []);
        break;
      case TurnEventKind.CUT:
        push("note", [], `endless sowing cut after ${e.seeds} laps`);
        break;
      default:
        push("note", e.cell !== undefined && inRange(e.cell) ? [e.cell] : [], e.detail || undefined);
    }
  }
  return frames;
}

/** Delay per frame: `base` ms, shortened so that a whole turn takes at most `maxTotal` ms. */
export function frameDelay(frames: number, base: number, maxTotal: number): number {
  if (frames === 0) return 0;
  return Math.min(base, Math.floor(maxTotal / frames));
}

/** Shows the frames one after the other; stops early (without throwing) when `signal` aborts. */
export async function playFrames(
  frames: readonly Frame[],
  show: (frame: Frame, i: number) => void,
  delayMs: number,
  signal?: AbortSignal,
): Promise<number> {
  let shown = 0;
  for (const [i, frame] of frames.entries()) {
    if (signal?.aborted) break;
    show(frame, i);
    shown++;
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
  }
  return shown;
}
