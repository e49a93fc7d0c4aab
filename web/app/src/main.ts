/**
 * The demo board: pick any variant and its options, play by clicking cells (legal moves
 * highlighted), watch each turn's sowing and captures, against the engine or a person; with a
 * gateway running, a live evaluation bar, per-move scores and an analysis graph of the game.
 *
 * The API address is `${location.origin}/api` (the web server serves both), or `?api=URL`.
 * `?variant=` opens a game of a variant string, options included (`abapa(holes=4,max_turns=40)`);
 * `?position=` opens a game from a position in Griot notation (a puzzle, a game to go on with).
 */
import {
  ConnectError,
  createGriotClient,
  type DescribeVariantResponse,
  errorInfo,
  type Evaluation,
  GameResult,
  Player,
  type PositionInfo,
  southValue,
  type VariantFamily,
} from "@griot/client";
import { type BoardState, eventFrames, type Frame, frameDelay, playFrames } from "./animate";
import { type Engine, offlineEngine, probeEngine } from "./engine";
import { graphPoints, graphSvg } from "./graph";
import { type BoardLayout, cellText, edgeSides, type EdgeSide, isPieceGame, labelMeans, layoutBoard } from "./layout";
import { MovePicker } from "./picker";
import {
  defaultValue,
  intChoices,
  type OptionChoice,
  optionLabel,
  parseVariantString,
  variantString,
} from "./variants";
import { advantageText, badgeText, outcomeText, scoreWords, sideName } from "./words";
import "./style.css";

const params = new URLSearchParams(location.search);
const API = params.get("api") ?? `${location.origin}/api`;
/** Milliseconds per animation frame (`?anim=0` turns animation off). */
const FRAME_MS = Number(params.get("anim") ?? 90);
const client = createGriotClient(API);
/** `?position=`: where the first game starts (later games start at the variant's start). */
let startAt: PositionInfo | undefined;

type Mode = "hh" | "he" | "eh" | "ee";

interface Turn {
  move: string;
  before: PositionInfo;
  after: PositionInfo;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, unknown> = {},
  ...kids: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...kids);
  return e;
}

const state = {
  families: [] as VariantFamily[],
  desc: undefined as DescribeVariantResponse | undefined,
  layout: undefined as BoardLayout | undefined,
  pieces: false,
  position: undefined as PositionInfo | undefined,
  legal: [] as string[],
  picker: undefined as MovePicker | undefined,
  turns: [] as Turn[],
  board: { cells: [] } as BoardState,
  busy: false,
  engine: offlineEngine("engine: checking") as Engine,
  evalAbort: undefined as AbortController | undefined,
  gameId: 0,
  animation: new AbortController(),
  /** The players the person chose (or the default), kept while the engine is offline. */
  mode: "he" as Mode,
};

// ---------------------------------------------------------------------------------------------
// Status lines

function status(text: string, kind: "info" | "error" = "info") {
  const s = $("status");
  s.textContent = text;
  s.dataset.kind = kind;
}

function showError(err: unknown) {
  const ce = ConnectError.from(err);
  const info = errorInfo(err);
  status(info ? `${ce.rawMessage} (${info.reason})` : ce.rawMessage || String(err), "error");
}

function showEngine() {
  const e = $("engine");
  e.textContent = state.engine.online ? "engine online" : state.engine.reason;
  e.dataset.online = String(state.engine.online);
  document.body.classList.toggle("engine-offline", !state.engine.online);
  for (const opt of Array.from($<HTMLSelectElement>("mode").options)) {
    opt.disabled = !state.engine.online && opt.value !== "hh";
  }
  // Without an engine only two people can play; the choice comes back with the engine.
  $<HTMLSelectElement>("mode").value = state.engine.online ? state.mode : "hh";
  renderSides();
  renderSettingsSummary();
}

/** The page's state for people and tests: loading, ready, or error (the API cannot be reached). */
function pageState(s: "loading" | "ready" | "error") {
  document.body.dataset.state = s;
  if (s === "ready") document.body.dataset.ready = "true";
}

function showLoadError(err: unknown) {
  const ce = ConnectError.from(err);
  pageState("error");
  $("load-error-api").textContent = API;
  $("load-error-detail").textContent = `The browser says: ${ce.rawMessage || String(err)}.`;
  $("load-error").hidden = false;
}

// ---------------------------------------------------------------------------------------------
// Variant and options

function renderOptions() {
  const family = state.families.find((f) => f.id === $<HTMLSelectElement>("variant").value);
  const box = $("options");
  box.replaceChildren(el("legend", {}, "Options"));
  box.hidden = !family?.options.length;
  if (!family) return;
  $("family-description").textContent = family.description;
  for (const o of family.options) {
    let input: HTMLInputElement | HTMLSelectElement;
    const def = defaultValue(o);
    if (typeof def === "boolean") {
      input = el("input", { type: "checkbox", checked: def });
    } else {
      const choices = intChoices(o);
      if (choices) {
        input = el("select");
        for (const v of choices) input.append(el("option", { value: String(v), selected: v === def }, String(v)));
      } else {
        input = el("input", { type: "number", value: String(def) });
      }
    }
    input.dataset.option = o.name;
    input.id = `option-${o.name}`;
    input.title = o.description;
    const label = el("label", { htmlFor: input.id, title: o.description }, optionLabel(o.name));
    const field = el("div", { className: `field option${input.type === "checkbox" ? " check" : ""}` });
    if (input.type === "checkbox") field.append(input, label);
    else field.append(label, input);
    box.append(field);
  }
}

/** Sets the option inputs to the values a variant string names (`?variant=abapa(holes=4)`). */
function presetOptions(options: ReadonlyMap<string, string>) {
  const inputs = new Map(
    Array.from($("options").querySelectorAll<HTMLInputElement>("[data-option]")).map((i) => [i.dataset.option!, i]),
  );
  for (const [name, value] of options) {
    const input = inputs.get(name);
    if (!input) throw new Error(`${$<HTMLSelectElement>("variant").value} has no option ${name}`);
    if (input.type === "checkbox") {
      if (value !== "true" && value !== "false") throw new Error(`option ${name} is true or false, not ${value}`);
      input.checked = value === "true";
    } else {
      if (!/^-?\d+$/.test(value)) throw new Error(`option ${name} is a whole number, not ${value}`);
      if (input instanceof HTMLSelectElement && !Array.from(input.options).some((o) => o.value === value)) {
        input.append(el("option", { value }, value)); // out of range: the rules service says so
      }
      input.value = value;
    }
  }
}

function chosenVariant(): string {
  const family = state.families.find((f) => f.id === $<HTMLSelectElement>("variant").value);
  if (!family) throw new Error("no variant chosen");
  const chosen = new Map<string, OptionChoice>();
  for (const input of Array.from($("options").querySelectorAll<HTMLInputElement>("[data-option]"))) {
    chosen.set(input.dataset.option!, input.type === "checkbox" ? input.checked : BigInt(input.value || "0"));
  }
  return variantString(family, chosen);
}

// ---------------------------------------------------------------------------------------------
// The board

function boardState(p: PositionInfo): BoardState {
  return { cells: [...p.cells], south: p.southStore, north: p.northStore };
}

function renderBoard(frame?: Frame) {
  const layout = state.layout;
  if (!layout) return;
  const board = $("board");
  const s = frame?.state ?? state.board;
  const clickable = state.busy || !humanToMove() ? new Set<string>() : (state.picker?.clickable() ?? new Set<string>());
  const selected = new Set(state.picker?.selected ?? []);
  const grid = el("div", { className: "grid" });
  grid.style.gridTemplateColumns = `repeat(${layout.cols}, var(--cell))`;
  grid.style.gridTemplateRows = `repeat(${layout.rows}, var(--cell-h))`;
  for (const c of layout.cells) {
    const value = s.cells[c.index] ?? 0;
    const cell = el(
      "button",
      { className: "cell", type: "button", title: c.label },
      el("span", { className: "seeds" }, cellText(value, state.pieces)),
      el("span", { className: "label" }, c.label),
    );
    cell.style.gridRow = String(c.gridRow);
    cell.style.gridColumn = String(c.gridCol);
    cell.dataset.label = c.label;
    cell.dataset.index = String(c.index);
    cell.dataset.value = String(value);
    cell.dataset.owner = c.owner === Player.SOUTH ? "S" : c.owner === Player.NORTH ? "N" : "";
    const mine = !state.position || labelMeans(layout, c, state.position.sideToMove);
    if (mine && clickable.has(c.label)) cell.classList.add("legal");
    if (mine && selected.has(c.label)) cell.classList.add("selected");
    if (frame?.focus.includes(c.index)) cell.classList.add(`focus-${frame.kind}`);
    tagMoveScore(cell);
    cell.addEventListener("click", () => mine && onCellClick(c.label));
    grid.append(cell);
  }
  const parts: HTMLElement[] = [];
  if (layout.stores) {
    // Each player's store on their right as they face the board.
    const store = (side: "south" | "north", seeds: number) =>
      el(
        "div",
        { className: `store ${side}`, title: `${side === "south" ? "South" : "North"}'s store` },
        el("span", { className: "store-name" }, side === "south" ? "South" : "North"),
        el("span", { className: "store-count", id: `store-${side}` }, String(seeds)),
      );
    const [left, right] = layout.flipped
      ? [store("south", s.south ?? 0), store("north", s.north ?? 0)]
      : [store("north", s.north ?? 0), store("south", s.south ?? 0)];
    parts.push(left, grid, right);
  } else {
    parts.push(grid);
  }
  board.replaceChildren(...parts);
  board.style.setProperty("--cols", String(layout.cols));
  board.style.setProperty("--rows", String(layout.rows));
  board.dataset.stores = String(layout.stores);
  renderSides();
  board.dataset.busy = String(state.busy);
  board.dataset.position = state.position?.notation ?? "";
  board.dataset.turns = String(state.turns.length);
  const p = state.position;
  board.dataset.toMove = !p ? "" : p.outcome ? "over" : humanToMove() ? "human" : "engine";
  renderChoices();
}

/**
 * Shows the engine's score for a legal cell on it. Evaluations arrive while the person is choosing:
 * they change the tags in the cells as they are, because a cell replaced between the press and the
 * release of a click loses that click.
 */
function tagMoveScore(cell: HTMLElement) {
  const score = moveScores.get(cell.dataset.label ?? "");
  let tag = cell.querySelector<HTMLElement>(".move-score");
  if (score === undefined || !cell.classList.contains("legal")) {
    tag?.remove();
    return;
  }
  if (!tag) {
    tag = el("span", { className: "move-score" });
    cell.append(tag);
  }
  tag.textContent = score.text;
  tag.title = score.title;
  tag.dataset.value = String(score.value);
}

/** Who plays from the top and the bottom of the board, written beside those edges. */
function renderSides() {
  if (!state.layout) return;
  const { top, bottom } = edgeSides(state.layout);
  const text = (e: EdgeSide) => {
    const where = e.rows === 1 ? "row" : e.rows > 1 ? "rows" : "side";
    const role = mode() === "hh" ? "" : engineSide(e.player) ? " \u00b7 engine" : " \u00b7 you";
    return `${sideName(e.player)}'s ${where}${role}`;
  };
  for (const [id, e] of [["side-top", top], ["side-bottom", bottom]] as const) {
    const p = $(id);
    p.textContent = text(e);
    p.dataset.player = sideName(e.player);
  }
}

function renderChoices() {
  const box = $("choices");
  box.replaceChildren();
  if (!state.picker || state.busy || !humanToMove()) return;
  const buttons = [...pendingChoices, ...state.picker.cellless()];
  for (const m of buttons) {
    box.append(el("button", { type: "button", className: "choice", onclick: () => play(m) }, m));
  }
}

let pendingChoices: string[] = [];
/** Per-move scores shown on the legal cells: the text, in words, and the value for the side to move. */
const moveScores = new Map<string, { text: string; title: string; value: number }>();

function onCellClick(label: string) {
  if (state.busy || !state.picker || !humanToMove()) return;
  const r = state.picker.click(label);
  pendingChoices = [];
  if (r.kind === "move") {
    void play(r.move);
    return;
  }
  if (r.kind === "choose") pendingChoices = r.moves;
  if (r.kind === "invalid") status(`${label}: no legal move from there`, "error");
  renderBoard();
}

// ---------------------------------------------------------------------------------------------
// Turns

function mode(): Mode {
  return $<HTMLSelectElement>("mode").value as Mode;
}

const PLAYERS: Record<Mode, string> = {
  he: "you vs engine",
  eh: "engine vs you",
  hh: "two people",
  ee: "engine vs engine",
};

/** The settings' line while they are folded away: the game, who plays it and at what level. */
function renderSettingsSummary() {
  const m = mode();
  const level = m === "hh" ? "" : `, level ${$<HTMLInputElement>("level").value}`;
  const game = state.desc?.family?.name;
  $("settings-summary").textContent = `${game ? `${game} \u00b7 ` : ""}${PLAYERS[m]}${level}`;
}

function engineSide(p: Player): boolean {
  const m = mode();
  return m === "ee" || (m === "he" && p === Player.NORTH) || (m === "eh" && p === Player.SOUTH);
}

function humanToMove(): boolean {
  return !!state.position && !state.position.outcome && !engineSide(state.position.sideToMove);
}

function describeTurn() {
  const p = state.position;
  if (!p) return;
  const turn = $("turn");
  turn.textContent = p.outcome
    ? outcomeText(p.outcome, p.sideToMove, p.turns, unit())
    : `Turn ${p.turns + 1}: ${sideName(p.sideToMove)} to move`;
  turn.classList.toggle("over", !!p.outcome);
  $("notation").textContent = p.notation;
  const list = $("moves");
  list.replaceChildren(
    ...state.turns.map((t) => el("li", { title: t.after.notation }, `${sideName(t.before.sideToMove)} ${t.move}`)),
  );
}

/** What the game counts: seeds, or pieces in placement games. */
function unit(): string {
  return state.pieces ? "piece" : "seed";
}

function setPosition(p: PositionInfo, legal: string[]) {
  state.position = p;
  state.legal = legal;
  state.board = boardState(p);
  state.picker = new MovePicker(legal, new Set(state.layout?.byLabel.keys() ?? []));
  pendingChoices = [];
  moveScores.clear();
  describeTurn();
  renderBoard();
  void evaluate();
}

async function newGame() {
  const game = ++state.gameId;
  state.evalAbort?.abort();
  const board = $("board");
  board.setAttribute("aria-busy", "true"); // the old board stays, dimmed, until the new one is here
  try {
    const variant = chosenVariant();
    const desc = await client.rules.describeVariant({ variant });
    let start: { position?: PositionInfo; legalMoves: string[] };
    if (startAt) {
      if (startAt.variant !== desc.variant) throw new Error(`${startAt.notation} is not a position of ${desc.variant}`);
      const { moves } = await client.rules.listLegalMoves({ position: startAt.notation });
      start = { position: startAt, legalMoves: moves };
      startAt = undefined;
    } else {
      start = await client.rules.startPosition({ variant });
    }
    if (game !== state.gameId) return;
    state.desc = desc;
    state.layout = layoutBoard(desc.geometry!, $<HTMLInputElement>("flip").checked);
    state.pieces = isPieceGame(desc.geometry!);
    state.turns = [];
    // A move of the previous game still on its way or animating is dropped with it.
    state.animation.abort();
    state.animation = new AbortController();
    state.busy = false;
    $("rules").replaceChildren(...desc.rules.map((r) => el("li", {}, r)));
    $("graph").replaceChildren();
    $("board").dataset.variant = desc.variant;
    renderSettingsSummary();
    status(`${desc.family?.name ?? desc.variant}: ${desc.variant}`);
    setPosition(start.position!, start.legalMoves);
    void engineTurn(game);
  } catch (err) {
    showError(err);
    if (!state.layout) $("board").replaceChildren(el("p", { className: "loading failed" }, "No game to show."));
  } finally {
    if (game === state.gameId) board.setAttribute("aria-busy", "false");
  }
}

async function play(move: string) {
  const before = state.position;
  if (!before || state.busy) return;
  const game = state.gameId;
  state.busy = true;
  state.evalAbort?.abort();
  pendingChoices = [];
  renderBoard();
  try {
    // The positions before this one: with them the rules end the game at a third occurrence.
    const history = { positions: state.turns.map((t) => t.before.notation) };
    const r = await client.rules.applyMove({ position: before.notation, move, history });
    if (game !== state.gameId) return; // a new game started meanwhile: it owns the board now
    const frames = eventFrames(state.board, r.events);
    const delay = frameDelay(frames.length, FRAME_MS, 2500);
    await playFrames(
      frames,
      (f) => {
        renderBoard(f);
        if (f.text) status(f.text);
      },
      delay,
      state.animation.signal,
    );
    if (game !== state.gameId) return;
    state.turns.push({ move: r.move, before, after: r.position! });
    state.busy = false;
    setPosition(r.position!, r.legalMoves);
    if (!frames.some((f) => f.text)) status(`${sideName(before.sideToMove)} played ${r.move}`);
    if (r.position!.outcome) {
      void analyzeGame();
    } else {
      void engineTurn(game);
    }
  } catch (err) {
    state.busy = false;
    state.picker?.reset();
    renderBoard();
    showError(err);
  }
}

async function engineTurn(game: number) {
  const p = state.position;
  if (!p || p.outcome || !engineSide(p.sideToMove) || !state.engine.online) return;
  const level = Number($<HTMLInputElement>("level").value);
  $("thinking").textContent = "engine thinking…";
  try {
    const r = await state.engine.bestMove(p.notation, level, state.turns.map((t) => t.before.notation));
    if (game !== state.gameId || state.position !== p) return;
    if (r) await play(r.move);
    else showEngine();
  } catch (err) {
    showError(err);
  } finally {
    $("thinking").textContent = "";
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation and analysis

/** The evaluation bar: South's share of it (0-100), South's advantage (centi-seeds), who is ahead in words. */
function showAdvantage(share: number, southAdvantage: number, caption: string) {
  $("eval-fill").style.setProperty("--share", `${share.toFixed(1)}%`);
  const bar = $("eval-bar");
  bar.dataset.value = String(southAdvantage);
  bar.setAttribute("aria-valuenow", share.toFixed(0));
  $("eval-value").textContent = caption;
}

function showEvaluation(p: PositionInfo, e: Evaluation) {
  const v = southValue(e.score, p.sideToMove) ?? 0;
  showAdvantage(50 + 50 * Math.tanh(v / 800), v, advantageText(e.score, p.sideToMove));
  $("eval-text").textContent = `depth ${e.depth}: ${scoreWords(e.score, p.sideToMove, unit())}${
    e.bestMove ? `, best ${e.bestMove}` : ""
  }${e.fromCache ? " (cached)" : ""}`;
  const text = $("eval-text");
  text.dataset.position = p.notation;
  text.dataset.depth = String(e.depth);
  text.dataset.final = String(e.final);
  text.dataset.bestMove = e.bestMove;
  moveScores.clear();
  for (const ms of e.moveScores) {
    const cells = state.layout ? ms.move.split(/[-,+:]/).filter((t) => state.layout!.byLabel.has(t)) : [];
    if (cells.length === 1 && !moveScores.has(cells[0])) {
      const south = southValue(ms.score, p.sideToMove) ?? 0;
      moveScores.set(cells[0], {
        text: badgeText(ms.score),
        title: `${ms.move}: ${scoreWords(ms.score, p.sideToMove, unit())}`,
        value: p.sideToMove === Player.NORTH ? -south : south,
      });
    }
  }
  if (!state.busy) $("board").querySelectorAll<HTMLElement>(".cell").forEach(tagMoveScore);
}

async function evaluate() {
  const p = state.position;
  state.evalAbort?.abort();
  if (p?.outcome) {
    // Nothing left to evaluate: no stale evaluation of the previous position.
    const text = $("eval-text");
    text.textContent = "";
    for (const key of ["position", "depth", "final", "bestMove"]) delete text.dataset[key];
    const result = p.outcome.result;
    const winner = result === GameResult.SOUTH_WINS ? "South" : result === GameResult.NORTH_WINS ? "North" : undefined;
    const share = winner === "South" ? 100 : winner === "North" ? 0 : 50;
    showAdvantage(share, 100 * (p.outcome.southScore - p.outcome.northScore), winner ? `${winner} wins` : "draw");
  }
  if (!p || p.outcome || !state.engine.online) return;
  const abort = new AbortController();
  state.evalAbort = abort;
  try {
    await state.engine.evaluate(p.notation, (e) => state.position === p && showEvaluation(p, e), abort.signal);
  } catch (err) {
    if (!abort.signal.aborted) $("eval-text").textContent = `evaluation failed: ${ConnectError.from(err).rawMessage}`;
  }
}

async function analyzeGame() {
  const first = state.turns[0]?.before;
  if (!first || !state.engine.online || !state.desc) return;
  const graph = $("graph");
  graph.replaceChildren(el("p", {}, "analysing the game…"));
  try {
    const turns: Parameters<typeof graphPoints>[0][number][] = [];
    const report = await state.engine.analyzeGame(
      state.desc.variant,
      first.notation,
      state.turns.map((t) => t.move),
      (t, done, total) => {
        turns.push(t);
        graph.replaceChildren(el("p", {}, `analysing the game… ${done}/${total}`));
      },
    );
    const points = graphPoints(report?.turns ?? turns, 1200, unit());
    graph.innerHTML = graphSvg(points, 480, 220, 1200, unit());
    const marked = points.filter((p) => p.mark);
    if (points.some((p) => p.proven)) {
      graph.append(
        el("p", { className: "muted graph-note" }, "Squares: proven results (with best play), drawn at the edge whatever the margin."),
      );
    }
    graph.append(
      el(
        "ul",
        { className: "mistakes" },
        ...(marked.length ? marked.map((p) => el("li", { className: p.mark }, `${p.mark}: ${p.label}`)) : [el("li", {}, "no mistakes found")]),
      ),
    );
  } catch (err) {
    graph.replaceChildren(el("p", {}, `analysis failed: ${ConnectError.from(err).rawMessage}`));
  }
}

// ---------------------------------------------------------------------------------------------
// Start

async function main() {
  $("api").textContent = API;
  $<HTMLButtonElement>("new-game").addEventListener("click", () => void newGame());
  $<HTMLSelectElement>("variant").addEventListener("change", renderOptions);
  $<HTMLSelectElement>("mode").addEventListener("change", () => {
    if (state.engine.online) state.mode = mode();
    renderSettingsSummary();
    renderBoard(); // whose clicks the board takes
    void engineTurn(state.gameId);
  });
  $<HTMLInputElement>("level").addEventListener("change", renderSettingsSummary);
  $<HTMLButtonElement>("retry").addEventListener("click", () => location.reload());
  // Beside the board on a wide screen the settings are open; on a phone they are folded away under
  // their one-line summary, so that the board is on the first screen (style.css: the same width).
  $<HTMLDetailsElement>("settings").open = matchMedia("(min-width: 900px)").matches;
  $<HTMLButtonElement>("analyze").addEventListener("click", () => void analyzeGame());
  $<HTMLInputElement>("flip").addEventListener("change", () => {
    if (state.desc) {
      state.layout = layoutBoard(state.desc.geometry!, $<HTMLInputElement>("flip").checked);
      renderBoard();
    }
  });
  pageState("loading");
  state.engine = await probeEngine(API, client, fetch, () => showEngine());
  showEngine();
  let families: VariantFamily[];
  try {
    ({ families } = await client.rules.listVariants({}));
  } catch (err) {
    showLoadError(err);
    return;
  }
  try {
    state.families = families;
    const select = $<HTMLSelectElement>("variant");
    // Names only, so that the closed menu shows them whole on a phone; the id is in the title.
    select.replaceChildren(...families.map((f) => el("option", { value: f.id, title: f.id }, f.name)));
    if (params.get("position")) startAt = (await client.rules.parsePosition({ position: params.get("position")! })).position;
    const named = startAt?.variant ?? params.get("variant");
    const wanted = named ? parseVariantString(named) : undefined;
    if (wanted && !families.some((f) => f.id === wanted.id)) throw new Error(`no game ${wanted.id}`);
    select.value = wanted?.id ?? (families.some((f) => f.id === "abapa") ? "abapa" : families[0]?.id ?? "");
    renderOptions();
    if (wanted) presetOptions(wanted.options);
    await newGame();
    pageState("ready");
  } catch (err) {
    showError(err);
    if (!state.layout) $("board").replaceChildren(el("p", { className: "loading failed" }, "No game to show."));
    pageState("ready");
  }
}

void main();
