// End-to-end: the demo board in headless Chromium (Debian's, driven by playwright-core) against a
// running web server. Started by tests/web/test_e2e.py, which starts the real stack first (redis,
// a Celery worker, the rules service, the gateway, griot.services.web), the way `griot up` does.
//
//   node web/e2e/play.mjs --url http://127.0.0.1:8080 --variant 'abapa(max_turns=10)' \
//        --engine online --mode he --level 3 --pick worst --finish --out test-artifacts/e2e
//
// Opens the page on the variant (options included), or on --position (a position in Griot
// notation, `?position=`) with --name naming its screenshots, checks the board has one cell per geometry
// cell, and plays South's moves by clicking highlighted cells (and choice buttons where a move needs
// one); the cells come from the API's legal moves, so no move string is written here. After every
// turn (the player's and the engine's) the board must show what the API says the position holds.
//
// --engine online: the page must say the engine is online; before each of South's moves it waits
// for the gateway's evaluation of that position (Evaluate's stream, the final message) and checks
// its best move is legal. --mode he: South (clicks) against the engine at --level, which answers
// each move. --pick worst: click the legal cell the evaluation scores worst (a mistake on purpose).
// --finish: play until the game is over (use a small max_turns); the page then analyses the game
// (AnalyzeGame's stream) and draws the graph, whose points and marks are checked and returned;
// without --finish, "Analyse game" is clicked after the moves. --engine offline: the page must
// say the engine is offline and hide its parts.
//
// Screenshots go to --out. Prints a JSON summary on the last line; exits non-zero on any failure
// (or any error in the page's console).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { atFailure } from "./failure.mjs";

const { values: opt } = parseArgs({
  options: {
    url: { type: "string" },
    variant: { type: "string", default: "abapa" },
    position: { type: "string" },
    name: { type: "string" },
    moves: { type: "string", default: "3" },
    engine: { type: "string", default: "offline" },
    mode: { type: "string", default: "hh" },
    level: { type: "string", default: "3" },
    pick: { type: "string", default: "first" },
    finish: { type: "boolean", default: false },
    out: { type: "string", default: "test-artifacts/e2e" },
    chromium: { type: "string", default: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
});
if (!opt.url) throw new Error("--url is required");
if (!["online", "offline"].includes(opt.engine)) throw new Error(`--engine online|offline, not ${opt.engine}`);
if (!["hh", "he"].includes(opt.mode)) throw new Error(`--mode hh|he, not ${opt.mode}`);
if (!["first", "worst"].includes(opt.pick)) throw new Error(`--pick first|worst, not ${opt.pick}`);
const online = opt.engine === "online";
if (!online && (opt.mode !== "hh" || opt.pick !== "first")) throw new Error("offline: --mode hh --pick first only");
const base = opt.url.replace(/\/+$/, "");
const TIMEOUT = 60_000;
mkdirSync(opt.out, { recursive: true });

async function api(method, body) {
  const r = await fetch(`${base}/api/griot.v1.RulesService/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method}: ${r.status} ${await r.text()}`);
  return r.json();
}

function check(cond, message) {
  if (!cond) throw new Error(`check failed: ${message}`);
}

const browser = await chromium.launch({
  executablePath: opt.chromium,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const summary = {
  variant: opt.variant,
  moves: [],
  evaluations: [],
  screenshots: [],
  consoleErrors: [],
};
const prefix = (opt.name ?? opt.variant).replace(/[^a-z0-9-]+/gi, "_").replace(/_+$/, "");
const shot = async (page, name) => {
  const path = join(opt.out, `${prefix}-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  summary.screenshots.push(path);
};
let page;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && summary.consoleErrors.push(m.text()));
  page.on("pageerror", (e) => summary.consoleErrors.push(String(e)));
  const given = opt.position ? (await api("ParsePosition", { position: opt.position })).position : undefined;
  const open = given ? `position=${encodeURIComponent(opt.position)}` : `variant=${encodeURIComponent(opt.variant)}`;
  await page.goto(`${base}/?${open}&anim=15`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });

  const desc = await api("DescribeVariant", { variant: given?.variant ?? opt.variant });
  summary.canonical = desc.variant;
  check((await page.getAttribute("#board", "data-variant")) === desc.variant, `board shows ${desc.variant}`);
  const cells = await page.locator("#board .cell").count();
  check(cells === desc.geometry.cells.length, `${cells} cells drawn, geometry has ${desc.geometry.cells.length}`);
  const start = given?.notation ?? (await api("StartPosition", { variant: opt.variant })).position.notation;
  check((await page.getAttribute("#board", "data-position")) === start, `the game starts at ${start}`);
  summary.start = start;

  if (online) {
    check((await page.getAttribute("#engine", "data-online")) === "true", "engine online");
    await page.fill("#level", opt.level);
    await page.selectOption("#mode", opt.mode);
  } else {
    const text = await page.textContent("#engine");
    check(/offline/.test(text ?? ""), `engine offline shown (got ${text})`);
    check(!(await page.isVisible("#eval-bar")), "no evaluation bar while the engine is offline");
  }
  await shot(page, "start");

  const boardMatches = async (notation) => {
    const info = (await api("ParsePosition", { position: notation })).position;
    const shown = await page.$$eval("#board .cell", (els) =>
      els.map((e) => [Number(e.dataset.index), Number(e.dataset.value)]).sort((a, b) => a[0] - b[0]).map((x) => x[1]),
    );
    const expected = info.cells ?? [];
    check(JSON.stringify(shown) === JSON.stringify(expected.concat(Array(shown.length - expected.length).fill(0))),
      `board ${JSON.stringify(shown)} is the position's cells ${JSON.stringify(expected)}`);
    if (desc.geometry.stores) {
      check((await page.textContent("#store-south")) === String(info.southStore ?? 0), "South's store");
      check((await page.textContent("#store-north")) === String(info.northStore ?? 0), "North's store");
    }
    return info;
  };
  const board = (name) => page.getAttribute("#board", `data-${name}`);
  const turnsShown = async () => Number(await board("turns"));
  const waitIdle = () => page.waitForSelector("#board[data-busy=false]", { timeout: TIMEOUT });
  // The board is idle and it is South's click (or the game is over): the engine has answered.
  const waitHumanOrOver = () =>
    page.waitForSelector('#board[data-busy=false]:is([data-to-move="human"], [data-to-move="over"])', {
      timeout: TIMEOUT,
    });
  // The gateway's final evaluation of a position, as the page shows it.
  const waitEvaluation = async (notation) => {
    await page.waitForFunction(
      (n) => {
        const t = document.getElementById("eval-text");
        return t?.dataset.position === n && t.dataset.final === "true";
      },
      notation,
      { timeout: TIMEOUT },
    );
    return page.$eval("#eval-text", (t) => ({
      position: t.dataset.position,
      depth: Number(t.dataset.depth),
      bestMove: t.dataset.bestMove,
      text: t.textContent,
    }));
  };

  let humanMoves = 0;
  for (;;) {
    await waitHumanOrOver();
    const before = await board("position");
    const info = await boardMatches(before);
    if ((await board("to-move")) === "over" || info.outcome) break;
    if (!opt.finish && humanMoves >= Number(opt.moves)) break;
    const turns = await turnsShown();
    const legal = (await api("ListLegalMoves", { position: before })).moves;
    check(legal.length > 0, `legal moves while the game goes on (${before})`);

    let target = page.locator("#board .cell.legal").first();
    if (online) {
      const ev = await waitEvaluation(before);
      check(!ev.bestMove || legal.includes(ev.bestMove), `best move ${ev.bestMove} is legal in ${before}`);
      summary.evaluations.push(ev);
      if (humanMoves === 0) await shot(page, "evaluation");
      if (opt.pick === "worst") {
        const scored = await page.$$eval("#board .cell.legal", (els) =>
          els
            .map((e) => ({ label: e.dataset.label, value: Number(e.querySelector(".move-score")?.dataset.value) }))
            .filter((x) => Number.isFinite(x.value)),
        );
        if (scored.length) {
          const worst = scored.reduce((a, b) => (b.value < a.value ? b : a));
          target = page.locator(`#board .cell.legal[data-label="${worst.label}"]`);
        }
      }
    }
    // Click highlighted cells (and a choice button where one is offered) until the move is played.
    for (let clicks = 0; (await turnsShown()) === turns; clicks++) {
      // A whole turn may name many cells (Ikibuguzo's relays); the bound only stops a stuck loop.
      check(clicks < 64, "a move within 64 clicks");
      const choice = page.locator("#choices .choice").first();
      if (clicks === 0 && (await target.count()) > 0) {
        await target.click();
      } else if ((await page.locator("#board .cell.legal").count()) > 0) {
        await page.locator("#board .cell.legal").first().click();
      } else if ((await choice.count()) > 0) {
        await choice.click();
      } else {
        throw new Error("no legal cell highlighted and no move button");
      }
      await page.waitForTimeout(30);
      await waitIdle();
    }
    humanMoves++;
    const played = await page.locator("#moves li").nth(turns).textContent();
    summary.moves.push({ before, move: played });
    await shot(page, `move-${humanMoves}`);
  }

  // Every turn of the game, as the page lists them (South's clicks and the engine's answers).
  summary.turns = await page.$$eval("#moves li", (els) => els.map((e) => ({ move: e.textContent, after: e.title })));
  summary.finalPosition = await board("position");
  summary.turnText = await page.textContent("#turn");
  if (opt.finish) check((await board("to-move")) === "over", `the game is over (${summary.turnText})`);

  if (online) {
    // The game analysed by the gateway (AnalyzeGame's stream): automatic when the game ended.
    if (!opt.finish) await page.click("#analyze");
    await page.waitForSelector("#graph svg.graph", { timeout: TIMEOUT });
    const points = (await page.getAttribute("#graph svg .curve", "d")).split(/[ML]/).filter(Boolean).length;
    const circles = await page.$$eval("#graph svg circle.mark", (els) => els.map((e) => e.getAttribute("class")));
    const marks = await page.$$eval("#graph .mistakes li", (els) =>
      els.filter((e) => e.className).map((e) => ({ mark: e.className, label: e.textContent })),
    );
    check(points === summary.turns.length, `one graph point per turn (${points} points, ${summary.turns.length} turns)`);
    check(circles.length === marks.length, `${circles.length} marks on the graph, ${marks.length} listed`);
    summary.graph = { points, marks };
    await shot(page, "analysis");
  }
  check(summary.consoleErrors.length === 0, `no console errors: ${summary.consoleErrors.join("; ")}`);
  console.log(JSON.stringify(summary));
} catch (err) {
  if (page) await shot(page, "failure").catch(() => {});
  console.error(String(err?.stack ?? err));
  summary.atFailure = await atFailure(page);
  console.log(JSON.stringify(summary));
  process.exitCode = 1;
} finally {
  await browser.close();
}
