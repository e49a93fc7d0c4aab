/** The evaluation graph of an analysed game: South's advantage after each turn, mistakes marked. */
import { MoveClassification, Player, southValue, type TurnAnalysis } from "@griot/client";

export interface GraphPoint {
  turn: number;
  /** South's advantage in centi-units, clamped to ±`clamp`. */
  value: number;
  mark?: "inaccuracy" | "mistake" | "blunder";
  label: string;
}

const MARKS: Partial<Record<MoveClassification, GraphPoint["mark"]>> = {
  [MoveClassification.INACCURACY]: "inaccuracy",
  [MoveClassification.MISTAKE]: "mistake",
  [MoveClassification.BLUNDER]: "blunder",
};

export function graphPoints(turns: readonly TurnAnalysis[], clamp = 1200): GraphPoint[] {
  return turns.map((t) => {
    const v = (southValue(t.southScore, Player.SOUTH) ?? 0) || 0; // no -0
    const who = t.player === Player.NORTH ? "North" : "South";
    return {
      turn: t.turn,
      value: Math.max(-clamp, Math.min(clamp, v)),
      mark: MARKS[t.classification],
      label: `${t.turn + 1}. ${who} ${t.playedMove} (best ${t.bestMove}, lost ${(t.loss / 100).toFixed(2)})`,
    };
  });
}

/** An SVG of the points: width x height, zero in the middle, South's advantage upwards. */
export function graphSvg(points: readonly GraphPoint[], width = 480, height = 140, clamp = 1200): string {
  const n = Math.max(points.length, 2);
  const x = (i: number) => ((i + 0.5) * width) / n;
  const y = (v: number) => height / 2 - (v / clamp) * (height / 2 - 6);
  const line = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
  const marks = points
    .map((p, i) =>
      p.mark
        ? `<circle class="mark ${p.mark}" cx="${x(i).toFixed(1)}" cy="${y(p.value).toFixed(1)}" r="4"><title>${p.mark}: ${p.label}</title></circle>`
        : "",
    )
    .join("");
  return (
    `<svg class="graph" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="evaluation graph">` +
    `<line class="axis" x1="0" x2="${width}" y1="${height / 2}" y2="${height / 2}"/>` +
    `<path class="curve" d="${line}"/>${marks}</svg>`
  );
}
