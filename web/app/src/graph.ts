/** The evaluation graph of an analysed game: South's advantage after each turn, mistakes marked. */
import { MoveClassification, Player, southValue, type TurnAnalysis } from "@griot/client";
import { lossWords, scoreWords, sideName } from "./words";

export interface GraphPoint {
  turn: number;
  /** South's advantage in centi-units, clamped to ±`clamp` (proven results sit at the edge). */
  value: number;
  mark?: "inaccuracy" | "mistake" | "blunder";
  label: string;
  /** A proven result after the turn, in words (`North wins with best play`): drawn as a square. */
  proven?: string;
}

const MARKS: Partial<Record<MoveClassification, GraphPoint["mark"]>> = {
  [MoveClassification.INACCURACY]: "inaccuracy",
  [MoveClassification.MISTAKE]: "mistake",
  [MoveClassification.BLUNDER]: "blunder",
};

export function graphPoints(turns: readonly TurnAnalysis[], clamp = 1200, unit = "seed"): GraphPoint[] {
  return turns.map((t) => {
    const v = (southValue(t.southScore, Player.SOUTH) ?? 0) || 0; // no -0
    const who = sideName(t.player === Player.NORTH ? Player.NORTH : Player.SOUTH);
    const c = t.southScore?.value.case;
    const proven = c === "winsIn" || c === "losesIn" || c === "draw" ? scoreWords(t.southScore, Player.SOUTH) : undefined;
    return {
      ...(proven ? { proven } : {}),
      turn: t.turn,
      value: Math.max(-clamp, Math.min(clamp, v)),
      mark: MARKS[t.classification],
      label: `${t.turn + 1}. ${who} ${t.playedMove} (best ${t.bestMove}, ${lossWords(t, unit)})`,
    };
  });
}

/** Turn numbers to tick, up to `n`: at most `most` multiples of a round step (1, 2, 5, 10, 20, ...). */
export function turnTicks(n: number, most = 8): number[] {
  let step = 1;
  for (let scale = 1; n / step > most; scale *= 10) {
    step = [1, 2, 5].map((m) => m * scale).find((s) => n / s <= most) ?? 10 * scale;
  }
  const ticks = [];
  for (let k = step; k <= n; k += step) ticks.push(k);
  return ticks;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * An SVG of the points: the turn along the bottom, South's score in seeds (or pieces) up the side,
 * zero in the middle, South's advantage upwards; ticks and labels on both axes. It scales to its
 * container's width (the viewBox is `width` x `height`).
 */
export function graphSvg(
  points: readonly GraphPoint[],
  width = 480,
  height = 220,
  clamp = 1200,
  unit = "seed",
): string {
  const m = { left: 54, right: 12, top: 12, bottom: 42 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const n = Math.max(points.length, 1);
  const x = (turnNo: number) => m.left + ((turnNo - 0.5) * plotW) / n;
  const y = (v: number) => m.top + plotH / 2 - (v / clamp) * (plotH / 2);
  const f = (v: number) => v.toFixed(1);
  const line = points.map((p, i) => `${i ? "L" : "M"}${f(x(i + 1))},${f(y(p.value))}`).join(" ");
  const marks = points
    .map((p, i) =>
      p.mark
        ? `<circle class="mark ${p.mark}" cx="${f(x(i + 1))}" cy="${f(y(p.value))}" r="4.5"><title>${esc(`${p.mark}: ${p.label}`)}</title></circle>`
        : "",
    )
    .join("");
  // Proven results sit at the edge (or on zero for a draw), whatever the margin: a square says so.
  const proven = points
    .map((p, i) =>
      p.proven && !p.mark
        ? `<rect class="proven" x="${f(x(i + 1) - 3.5)}" y="${f(y(p.value) - 3.5)}" width="7" height="7"><title>${esc(`after turn ${i + 1}: ${p.proven}`)}</title></rect>`
        : "",
    )
    .join("");
  const seeds = clamp / 100;
  const yTicks = [-seeds, -seeds / 2, 0, seeds / 2, seeds];
  const yAxis = yTicks
    .map((s) => {
      const yy = f(y(s * 100));
      const text = s > 0 ? `+${s}` : s < 0 ? `\u2212${-s}` : "0";
      return (
        `<line class="${s === 0 ? "zero" : "gridline"}" x1="${m.left}" x2="${width - m.right}" y1="${yy}" y2="${yy}"/>` +
        `<text class="tick y-tick" x="${m.left - 6}" y="${yy}" text-anchor="end" dominant-baseline="middle">${text}</text>`
      );
    })
    .join("");
  const xAxis = turnTicks(points.length)
    .map((k) => {
      const xx = f(x(k));
      const base = height - m.bottom;
      return (
        `<line class="tick-mark" x1="${xx}" x2="${xx}" y1="${base}" y2="${base + 4}"/>` +
        `<text class="tick x-tick" x="${xx}" y="${base + 16}" text-anchor="middle">${k}</text>`
      );
    })
    .join("");
  const yTitle = `South\u2019s score (${unit}s)`;
  return (
    `<svg class="graph" viewBox="0 0 ${width} ${height}" role="img" aria-label="evaluation graph: ${esc(yTitle)} after each turn">` +
    `<rect class="plot" x="${m.left}" y="${m.top}" width="${plotW}" height="${plotH}"/>` +
    yAxis +
    `<line class="axis x-axis" x1="${m.left}" x2="${width - m.right}" y1="${height - m.bottom}" y2="${height - m.bottom}"/>` +
    `<line class="axis y-axis" x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${height - m.bottom}"/>` +
    xAxis +
    `<text class="axis-title x-title" x="${m.left + plotW / 2}" y="${height - 6}" text-anchor="middle">Turn</text>` +
    `<text class="axis-title y-title" transform="translate(12 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">${esc(yTitle)}</text>` +
    `<path class="curve" d="${line}"/>${proven}${marks}</svg>`
  );
}
