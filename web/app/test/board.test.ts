import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import {
  BoardGeometrySchema,
  GameOutcomeSchema,
  GameResult,
  MoveClassification,
  Player,
  ScoreSchema,
  ScoreSource,
  TurnAnalysisSchema,
  TurnEventKind,
  TurnEventSchema,
  VariantFamilySchema,
} from "@griot/client";
import { eventFrames, frameDelay, playFrames } from "../src/animate";
import { graphPoints, graphSvg, turnTicks } from "../src/graph";
import { cellText, edgeSides, isPieceGame, labelMeans, layoutBoard } from "../src/layout";
import { MovePicker } from "../src/picker";
import { intChoices, optionLabel, parseVariantString, variantString } from "../src/variants";
import { advantageText, amount, badgeText, lossWords, outcomeText, scoreWords } from "../src/words";

/** Geometry as the rules service describes a two-row board of `n` holes (cells 0..n-1 South's). */
function twoRow(n: number) {
  const cells = [];
  for (let i = 0; i < n; i++) cells.push({ index: i, row: 0, col: i, owner: Player.SOUTH, label: "abcdefgh"[i] });
  for (let i = 0; i < n; i++) cells.push({ index: n + i, row: 1, col: n - 1 - i, owner: Player.NORTH, label: "ABCDEFGH"[i] });
  return create(BoardGeometrySchema, { rows: 2, cols: n, cells, stores: true, sowingDirection: "counter-clockwise" });
}

/** Ikibuguzo's 4x8 geometry, as its game module lays it out. */
function fourRow() {
  const cells = [];
  let index = 0;
  for (const player of [Player.SOUTH, Player.NORTH]) {
    for (let hole = 0; hole < 16; hole++) {
      const outer = hole < 8;
      const [row, col] =
        player === Player.SOUTH ? (outer ? [0, hole] : [1, 15 - hole]) : outer ? [3, 7 - hole] : [2, hole - 8];
      const label = outer ? `o${hole + 1}` : `i${16 - hole}`;
      cells.push({ index: index++, row, col, owner: player, label });
    }
  }
  return create(BoardGeometrySchema, { rows: 4, cols: 8, cells, stores: false, sowingDirection: "anticlockwise" });
}

/** Sabou'iyya's 5x5 geometry: no owners, files a..e, ranks 1..5. */
function grid5() {
  const cells = [];
  for (let c = 0; c < 25; c++) cells.push({ index: c, row: Math.floor(c / 5), col: c % 5, label: `${"abcde"[c % 5]}${Math.floor(c / 5) + 1}` });
  return create(BoardGeometrySchema, { rows: 5, cols: 5, cells, stores: false, sowingDirection: "" });
}

describe("layoutBoard", () => {
  it("puts South at the bottom and North's row right to left", () => {
    const l = layoutBoard(twoRow(6));
    expect(l.cells).toHaveLength(12);
    const a = l.cells[l.byLabel.get("a")!];
    const A = l.cells[l.byLabel.get("A")!];
    expect([a.gridRow, a.gridCol]).toEqual([2, 1]);
    expect([A.gridRow, A.gridCol]).toEqual([1, 6]); // North's A faces South's f
    expect(l.stores).toBe(true);
  });

  it("flips for North's view", () => {
    const l = layoutBoard(twoRow(6), true);
    const a = l.cells[l.byLabel.get("a")!];
    expect([a.gridRow, a.gridCol]).toEqual([1, 6]);
  });

  it("lays out four rows and a 5x5 grid, one grid place per cell", () => {
    for (const [geo, rows, cols] of [[fourRow(), 4, 8], [grid5(), 5, 5]] as const) {
      const l = layoutBoard(geo);
      expect([l.rows, l.cols]).toEqual([rows, cols]);
      const places = new Set(l.cells.map((c) => `${c.gridRow},${c.gridCol}`));
      expect(places.size).toBe(rows * cols);
      for (const c of l.cells) {
        expect(c.gridRow).toBeGreaterThanOrEqual(1);
        expect(c.gridRow).toBeLessThanOrEqual(rows);
        expect(c.gridCol).toBeGreaterThanOrEqual(1);
        expect(c.gridCol).toBeLessThanOrEqual(cols);
      }
    }
    const ik = layoutBoard(fourRow());
    expect(ik.cells[0]).toMatchObject({ label: "o1", gridRow: 4, gridCol: 1 }); // South's outer row at the bottom
    expect(ik.cells[16]).toMatchObject({ label: "o1", gridRow: 1, gridCol: 8 }); // North's o1, facing South's o8
    expect(ik.cells[15]).toMatchObject({ label: "i1", gridRow: 3, gridCol: 1 });
    // Both players' holes are o1..o8, i1..i8: a label means the mover's own hole.
    expect(ik.shared.has("o1")).toBe(true);
    expect(labelMeans(ik, ik.cells[0], Player.SOUTH)).toBe(true);
    expect(labelMeans(ik, ik.cells[16], Player.SOUTH)).toBe(false);
    expect(labelMeans(ik, ik.cells[16], Player.NORTH)).toBe(true);
    const sab = layoutBoard(grid5());
    expect(sab.cells[sab.byLabel.get("a1")!]).toMatchObject({ gridRow: 5, gridCol: 1 });
    expect(sab.cells[sab.byLabel.get("e5")!]).toMatchObject({ gridRow: 1, gridCol: 5 });
  });

  it("names the side of the board at each edge, rows and all", () => {
    expect(edgeSides(layoutBoard(twoRow(6)))).toEqual({
      top: { player: Player.NORTH, rows: 1 },
      bottom: { player: Player.SOUTH, rows: 1 },
    });
    expect(edgeSides(layoutBoard(twoRow(6), true))).toEqual({
      top: { player: Player.SOUTH, rows: 1 },
      bottom: { player: Player.NORTH, rows: 1 },
    });
    expect(edgeSides(layoutBoard(fourRow()))).toEqual({
      top: { player: Player.NORTH, rows: 2 },
      bottom: { player: Player.SOUTH, rows: 2 },
    });
    // Nobody owns Sabou'iyya's cells: North sits across the board from South.
    expect(edgeSides(layoutBoard(grid5()))).toEqual({
      top: { player: Player.NORTH, rows: 0 },
      bottom: { player: Player.SOUTH, rows: 0 },
    });
    expect(edgeSides(layoutBoard(grid5(), true)).top.player).toBe(Player.SOUTH);
  });

  it("tells pieces from seeds", () => {
    expect(isPieceGame(grid5())).toBe(true);
    expect(isPieceGame(twoRow(6))).toBe(false);
    expect(cellText(2, true)).toBe("○");
    expect(cellText(0, true)).toBe("");
    expect(cellText(7, false)).toBe("7");
  });
});

describe("eventFrames", () => {
  const ev = (init: Parameters<typeof create<typeof TurnEventSchema>>[1]) => create(TurnEventSchema, init);

  it("sows seed by seed, then captures into the store (docs/API.md's ApplyMove example)", () => {
    // abapa 0,0,0,0,0,1/1,4,4,4,4,4 0-0 S 10 -, move f
    const start = { cells: [0, 0, 0, 0, 0, 1, 1, 4, 4, 4, 4, 4], south: 0, north: 0 };
    const frames = eventFrames(start, [
      ev({ kind: TurnEventKind.LAP, cell: 5, cells: [6], seeds: 1 }),
      ev({ kind: TurnEventKind.CAPTURE, player: Player.SOUTH, cell: 6, seeds: 2, detail: "final" }),
    ]);
    expect(frames.map((f) => f.kind)).toEqual(["lift", "sow", "capture"]);
    expect(frames[0].state.cells[5]).toBe(0);
    expect(frames[1].state.cells[6]).toBe(2);
    expect(frames[1].focus).toEqual([6]);
    const end = frames[2].state;
    expect(end.cells).toEqual([0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4]); // the position after: 0,...,0/0,4,...
    expect([end.south, end.north]).toEqual([2, 0]);
    expect(frames[2].text).toBe("South captures 2 seeds");
    expect(start.cells[5]).toBe(1); // the start state is not mutated
  });

  it("sows a lap of many seeds one frame per seed, skipping the origin", () => {
    const start = { cells: [12, 0, 0, 0], south: 0, north: 0 };
    const frames = eventFrames(start, [ev({ kind: TurnEventKind.LAP, cell: 0, cells: [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3], seeds: 12 })]);
    expect(frames).toHaveLength(13);
    expect(frames.at(-1)!.state.cells).toEqual([0, 4, 4, 4]);
  });

  it("places, steps and captures pieces (Sabou'iyya)", () => {
    const start = { cells: Array(25).fill(0) };
    const frames = eventFrames(start, [
      ev({ kind: TurnEventKind.PLACE, player: Player.SOUTH, cell: 7 }),
      ev({ kind: TurnEventKind.PLACE, player: Player.NORTH, cell: 12 }),
      ev({ kind: TurnEventKind.STEP, player: Player.SOUTH, cell: 7, cells: [2] }),
      ev({ kind: TurnEventKind.CAPTURE, player: Player.SOUTH, cell: 12, seeds: 1, detail: "piece" }),
    ]);
    const end = frames.at(-1)!.state.cells;
    expect([end[2], end[7], end[12]]).toEqual([1, 0, 0]);
    expect(frames.at(-1)!.text).toBe("South captures a piece");
    expect(frames.at(-1)!.state.south).toBeUndefined(); // no stores: nothing to count into
  });

  it("describes passes, forfeits, fills, cuts and unknown events", () => {
    const frames = eventFrames({ cells: [0, 0, 0, 0], south: 0, north: 0 }, [
      ev({ kind: TurnEventKind.PASS, player: Player.NORTH }),
      ev({ kind: TurnEventKind.CAPTURE_FORFEITED, player: Player.SOUTH, cells: [2, 3] }),
      ev({ kind: TurnEventKind.FILL, player: Player.SOUTH, cell: 1, seeds: 6 }),
      ev({ kind: TurnEventKind.CUT, seeds: 1000 }),
      ev({ kind: TurnEventKind.UNSPECIFIED, detail: "new_kind" }),
      ev({ kind: TurnEventKind.LAP, cell: 99, cells: [98] }), // out of range: ignored
    ]);
    expect(frames.map((f) => f.kind)).toEqual(["pass", "forfeit", "fill", "note", "note"]);
    expect(frames[0].text).toBe("North cannot move and passes");
    expect(frames[1].focus).toEqual([2, 3]);
    expect(frames[2].state.cells[1]).toBe(6);
    expect(frames[4].text).toBe("new_kind");
  });
});

describe("playFrames", () => {
  it("shows every frame in order and stops when aborted", async () => {
    const frames = eventFrames({ cells: [3, 0, 0, 0] }, [create(TurnEventSchema, { kind: TurnEventKind.LAP, cell: 0, cells: [1, 2, 3], seeds: 3 })]);
    const seen: number[] = [];
    expect(await playFrames(frames, (_f, i) => seen.push(i), 0)).toBe(4);
    expect(seen).toEqual([0, 1, 2, 3]);
    const abort = new AbortController();
    const shown = await playFrames(frames, (_f, i) => i === 1 && abort.abort(), 1, abort.signal);
    expect(shown).toBe(2);
  });

  it("keeps a turn's animation short", () => {
    expect(frameDelay(10, 90, 2500)).toBe(90);
    expect(frameDelay(1000, 90, 2500)).toBe(2);
    expect(frameDelay(0, 90, 2500)).toBe(0);
  });
});

describe("MovePicker", () => {
  it("plays a sowing move with one click", () => {
    const p = new MovePicker(["a", "b", "c"], new Set(["a", "b", "c", "A", "B", "C"]));
    expect([...p.clickable()].sort()).toEqual(["a", "b", "c"]);
    expect(p.click("b")).toEqual({ kind: "move", move: "b" });
    expect(p.click("A")).toEqual({ kind: "invalid" });
  });

  it("asks for the direction when a hole offers two", () => {
    const p = new MovePicker(["a", "c:cw", "c:ccw"], new Set(["a", "b", "c"]));
    expect(p.click("c")).toEqual({ kind: "choose", moves: ["c:cw", "c:ccw"] });
    expect(p.selected).toEqual(["c"]);
  });

  it("builds placements and capture chains click by click", () => {
    const labels = new Set(["c2", "c3", "c4", "d4", "a1"]);
    const p = new MovePicker(["c2,d4", "c2,c3", "a1,c3", "c2-c3-c4"], labels);
    expect([...p.clickable()].sort()).toEqual(["a1", "c2"]);
    expect(p.click("c2")).toEqual({ kind: "more" });
    expect([...p.clickable()].sort()).toEqual(["c3", "d4"]);
    expect(p.click("c3")).toEqual({ kind: "choose", moves: ["c2,c3"] }); // or go on to c4
    expect(p.click("c4")).toEqual({ kind: "move", move: "c2-c3-c4" });
  });

  it("offers moves that name no cell as buttons", () => {
    const p = new MovePicker(["pass", "fill:abd", "a"], new Set(["a", "b", "d"]));
    expect(p.cellless()).toEqual(["pass", "fill:abd"]);
  });
});

describe("variants and graph", () => {
  const family = create(VariantFamilySchema, {
    id: "abapa",
    options: [
      { name: "holes", defaultValue: { value: { case: "intValue", value: 6n } }, allowed: { case: "range", value: { min: 1n, max: 18n } } },
      { name: "seeds", defaultValue: { value: { case: "intValue", value: 4n } }, allowed: { case: "range", value: { min: 1n, max: 1000n } } },
      { name: "hajeb", defaultValue: { value: { case: "boolValue", value: true } } },
    ],
  });

  it("writes canonical variant strings", () => {
    expect(variantString(family, new Map([["holes", 6n]]))).toBe("abapa");
    expect(variantString(family, new Map<string, bigint | boolean>([["seeds", 3n], ["holes", 4n], ["hajeb", true]]))).toBe("abapa(holes=4,seeds=3)");
    expect(variantString(family, new Map([["hajeb", false]]))).toBe("abapa(hajeb=false)");
    expect(intChoices(family.options[0])).toHaveLength(18);
    expect(intChoices(family.options[1])).toBeUndefined();
  });

  it("labels options in words", () => {
    expect(optionLabel("max_turns")).toBe("Max turns");
    expect(optionLabel("holes")).toBe("Holes");
    expect(optionLabel("end_holes_win")).toBe("End holes win");
  });

  it("reads variant strings back", () => {
    expect(parseVariantString("abapa")).toEqual({ id: "abapa", options: new Map() });
    const { id, options } = parseVariantString("leb-bbut-ahbochen(holes=8, max_turns=10)");
    expect(id).toBe("leb-bbut-ahbochen");
    expect([...options]).toEqual([["holes", "8"], ["max_turns", "10"]]);
    const canonical = variantString(family, new Map<string, bigint | boolean>([["seeds", 3n], ["holes", 4n]]));
    expect([...parseVariantString(canonical).options]).toEqual([["holes", "4"], ["seeds", "3"]]);
    expect(() => parseVariantString("abapa(holes)")).toThrow(/holes.*not key=value/);
    expect(() => parseVariantString("abapa(holes=4")).toThrow(/not a variant string/);
    expect(() => parseVariantString("")).toThrow(/not a variant string/);
  });

  it("draws South's advantage per turn with the mistakes marked", () => {
    const turns = [0, 1, 2].map((turn) =>
      create(TurnAnalysisSchema, {
        turn,
        player: turn % 2 ? Player.NORTH : Player.SOUTH,
        playedMove: "c",
        bestMove: "d",
        loss: turn === 2 ? 300 : 0,
        classification: turn === 2 ? MoveClassification.BLUNDER : MoveClassification.BEST,
        southScore: create(ScoreSchema, { value: turn === 1 ? { case: "winsIn", value: 2 } : { case: "centi", value: -100 * turn } }),
      }),
    );
    const points = graphPoints(turns);
    expect(points.map((p) => p.value)).toEqual([0, 1200, -200]); // proven results clamped
    expect(points[2].mark).toBe("blunder");
    expect(points[2].label).toBe("3. South c (best d, lost 3 seeds)");
    expect(points.map((p) => p.proven)).toEqual([undefined, "South wins with best play", undefined]);
    const svg = graphSvg(points);
    expect(svg).toContain('class="mark blunder"');
    expect(svg.match(/<circle/g)).toHaveLength(1);
    // The proven win: a square at the top edge, its result in words.
    expect(svg.match(/<rect class="proven"[^>]*><title>([^<]*)</)![1]).toBe("after turn 2: South wins with best play");
  });

  it("draws axes with ticks and labels: the turn, South's score in seeds", () => {
    const turns = Array.from({ length: 12 }, (_, turn) =>
      create(TurnAnalysisSchema, {
        turn,
        player: turn % 2 ? Player.NORTH : Player.SOUTH,
        playedMove: "a",
        bestMove: "a",
        southScore: create(ScoreSchema, { value: { case: "centi", value: 50 * turn } }),
      }),
    );
    const svg = graphSvg(graphPoints(turns));
    // Text of the SVG elements of a class (the SVG is a string: no DOM in these tests).
    const texts = (cls: string, source = svg) =>
      [...source.matchAll(new RegExp(`<text class="[^"]*\\b${cls}\\b[^"]*"[^>]*>([^<]*)</text>`, "g"))].map((m) => m[1]);
    expect(svg).toMatch(/<line class="axis x-axis"/);
    expect(svg).toMatch(/<line class="axis y-axis"/);
    expect(texts("x-title")).toEqual(["Turn"]);
    expect(texts("y-title")).toEqual(["South\u2019s score (seeds)"]);
    expect(texts("x-tick")).toEqual(["2", "4", "6", "8", "10", "12"]);
    expect(texts("y-tick")).toEqual(["\u221212", "\u22126", "0", "+6", "+12"]);
    // The curve's points sit above their ticks: turn 4's point at turn 4's tick.
    const xs = (svg.match(/class="curve" d="([^"]*)"/)![1]).split(/[ML]/).filter(Boolean).map((p) => p.split(",")[0]);
    const tick4 = svg.match(/<text class="tick x-tick" x="([^"]*)"[^>]*>4</)![1];
    expect(xs).toHaveLength(12);
    expect(xs[3]).toBe(tick4);
    // A placement game counts pieces.
    expect(texts("y-title", graphSvg([], 480, 220, 1200, "piece"))).toEqual(["South\u2019s score (pieces)"]);
  });

  it("ticks round turn numbers", () => {
    expect(turnTicks(1)).toEqual([1]);
    expect(turnTicks(8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(turnTicks(30)).toEqual([5, 10, 15, 20, 25, 30]);
    expect(turnTicks(10)).toEqual([2, 4, 6, 8, 10]);
    expect(turnTicks(200)).toEqual([50, 100, 150, 200]);
    expect(turnTicks(80)).toEqual([10, 20, 30, 40, 50, 60, 70, 80]);
    expect(turnTicks(0)).toEqual([]);
  });
});

describe("results in words", () => {
  const outcome = (result: GameResult, southScore: number, northScore: number, reason: string) =>
    create(GameOutcomeSchema, { result, southScore, northScore, reason });

  it("sums up a finished game: who won, by how much and why it ended", () => {
    expect(outcomeText(outcome(GameResult.SOUTH_WINS, 26, 22, "stuck"), Player.NORTH, 57)).toBe(
      "South wins 26-22 (by 4 seeds): North cannot move",
    );
    expect(outcomeText(outcome(GameResult.NORTH_WINS, 23, 25, "turn_limit"), Player.SOUTH, 10)).toBe(
      "North wins 23-25 (by 2 seeds): the limit of 10 turns was reached",
    );
    expect(outcomeText(outcome(GameResult.DRAW, 24, 24, "turn_limit"), Player.SOUTH, 30)).toBe(
      "Draw 24-24: the limit of 30 turns was reached",
    );
    expect(outcomeText(outcome(GameResult.SOUTH_WINS, 3, 2, "blocked"), Player.NORTH, 9, "piece")).toBe(
      "South wins 3-2 (by 1 piece): North is blocked",
    );
    expect(outcomeText(outcome(GameResult.NORTH_WINS, 0, 64, "end_holes"), Player.SOUTH, 40)).toBe(
      "North wins 0-64 (by 64 seeds): North captured both of South's inner end holes in one turn",
    );
    expect(outcomeText(outcome(GameResult.SOUTH_WINS, 40, 8, "match_lost"), Player.NORTH, 300)).toBe(
      "South wins 40-8 (by 32 seeds): North could not fill a hole for another round",
    );
    expect(outcomeText(outcome(GameResult.NORTH_WINS, 21, 27, "repetition"), Player.SOUTH, 64)).toBe(
      "North wins 21-27 (by 6 seeds): the same position came up for the third time",
    );
    // Every reason the API names reads as words, and a new one loses its underscores.
    for (const reason of [
      "stuck", "neither_can_move", "board_empty", "few_seeds", "store_threshold", "all_singletons",
      "endless_cycle", "repetition", "turn_limit", "captured_all", "blocked", "end_holes", "match_lost",
      "some_new_reason",
    ]) {
      const text = outcomeText(outcome(GameResult.SOUTH_WINS, 30, 18, reason), Player.NORTH, 80);
      expect(text).not.toContain("_");
      expect(text).toMatch(/^South wins 30-18 \(by 12 seeds\): [a-zA-Z]/);
    }
  });

  it("writes amounts and scores in words", () => {
    expect(amount(1)).toBe("1 seed");
    expect(amount(1.5)).toBe("1.5 seeds");
    expect(amount(0.25, "piece")).toBe("0.25 pieces");
    const score = (value: Parameters<typeof create<typeof ScoreSchema>>[1]) => create(ScoreSchema, value);
    expect(scoreWords(score({ value: { case: "winsIn", value: 3 } }), Player.SOUTH)).toBe("South wins with best play");
    expect(scoreWords(score({ value: { case: "losesIn", value: 2 } }), Player.SOUTH)).toBe("North wins with best play");
    expect(scoreWords(score({ value: { case: "draw", value: true } }), Player.NORTH)).toBe("a draw with best play");
    // The endgame databases' final margin, from the mover's side.
    const exact = { source: ScoreSource.DATABASE, finalMargin: -4 };
    expect(scoreWords(score({ value: { case: "losesIn", value: 1 }, ...exact }), Player.SOUTH)).toBe(
      "North wins by 4 seeds with best play",
    );
    expect(scoreWords(score({ value: { case: "winsIn", value: 1 }, source: ScoreSource.DATABASE, finalMargin: 1 }), Player.NORTH)).toBe(
      "North wins by 1 seed with best play",
    );
    expect(scoreWords(score({ value: { case: "centi", value: -150 } }), Player.NORTH)).toBe("South ahead by 1.5 seeds");
    expect(scoreWords(score({ value: { case: "centi", value: 0 } }), Player.NORTH)).toBe("level");
  });

  it("fits a move's score into its hole: four characters at most", () => {
    const score = (value: Parameters<typeof create<typeof ScoreSchema>>[1]) => create(ScoreSchema, value);
    const centi = (value: number) => score({ value: { case: "centi", value } });
    expect(badgeText(centi(124))).toBe("+1.2");
    expect(badgeText(centi(-42))).toBe("\u22120.4");
    expect(badgeText(centi(996))).toBe("+10");
    expect(badgeText(centi(-1600))).toBe("\u221216");
    expect(badgeText(centi(4))).toBe("0");
    expect(badgeText(score({ value: { case: "winsIn", value: 7 } }))).toBe("win");
    expect(badgeText(score({ value: { case: "losesIn", value: 3 } }))).toBe("loss");
    expect(badgeText(score({ value: { case: "draw", value: true } }))).toBe("draw");
    for (const v of [-4800, -999, -100, -5, 0, 5, 95, 100, 999, 4800]) expect(badgeText(centi(v)).length).toBeLessThanOrEqual(4);
  });

  it("says whose advantage the evaluation bar shows", () => {
    const score = (value: Parameters<typeof create<typeof ScoreSchema>>[1]) => create(ScoreSchema, value);
    expect(advantageText(score({ value: { case: "centi", value: 124 } }), Player.SOUTH)).toBe("South +1.2");
    expect(advantageText(score({ value: { case: "centi", value: 124 } }), Player.NORTH)).toBe("North +1.2");
    expect(advantageText(score({ value: { case: "centi", value: -50 } }), Player.SOUTH)).toBe("North +0.5");
    expect(advantageText(score({ value: { case: "centi", value: -1500 } }), Player.NORTH)).toBe("South +15");
    expect(advantageText(score({ value: { case: "centi", value: 0 } }), Player.NORTH)).toBe("level");
    expect(advantageText(score({ value: { case: "winsIn", value: 2 } }), Player.NORTH)).toBe("North wins");
    expect(advantageText(score({ value: { case: "losesIn", value: 2 } }), Player.NORTH)).toBe("South wins");
    expect(advantageText(score({ value: { case: "draw", value: true } }), Player.SOUTH)).toBe("draw");
  });

  it("shows what a move lost against a proven result in words, never the loss as a number", () => {
    // The API counts a proven result as the family's largest margin: a loss of 4800 centi-units.
    const t = create(TurnAnalysisSchema, {
      turn: 40,
      player: Player.SOUTH,
      playedMove: "c",
      bestMove: "e",
      bestScore: create(ScoreSchema, { value: { case: "winsIn", value: 2 } }),
      playedScore: create(ScoreSchema, { value: { case: "losesIn", value: 3 } }),
      loss: 4800,
      classification: MoveClassification.BLUNDER,
      southScore: create(ScoreSchema, { value: { case: "losesIn", value: 3 } }),
    });
    expect(lossWords(t)).toBe("after which South wins with best play; after c North wins with best play");
    const [point] = graphPoints([t]);
    expect(point.label).toBe("41. South c (best e, after which South wins with best play; after c North wins with best play)");
    expect(point.label).not.toMatch(/48|\d\.\d\d/);
    // The best move played in a won position: the result, once.
    const best = create(TurnAnalysisSchema, { ...t, playedMove: "e", playedScore: t.bestScore, loss: 0 });
    expect(lossWords(best)).toBe("South wins with best play");
    // A heuristic loss in seeds, in the game's unit.
    const heuristic = create(TurnAnalysisSchema, {
      ...t,
      player: Player.NORTH,
      bestScore: create(ScoreSchema, { value: { case: "centi", value: 250 } }),
      playedScore: create(ScoreSchema, { value: { case: "centi", value: 100 } }),
      loss: 150,
    });
    expect(lossWords(heuristic, "piece")).toBe("lost 1.5 pieces");
  });
});
