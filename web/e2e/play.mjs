// End-to-end: the demo board in headless Chromium (Debian's, driven by playwright-core) against a
// running web server. Started by tests/web/test_e2e.py, which starts the real servers first.
//
//   node web/e2e/play.mjs --url http://127.0.0.1:8080 --variant abapa --moves 3 \
//        --engine online|offline --out test-artifacts/e2e
//
// Opens the page, starts a game of the variant, checks the board has one cell per geometry cell,
// plays moves by clicking highlighted cells (and choice buttons where a move needs one), and after
// each move checks that the board shows what the API says the new position holds. With
// `--engine online` it also waits for a live evaluation, lets the engine play a turn and draws the
// game's analysis graph; with
// `--engine offline` it checks the page says so. Screenshots go to --out. Prints a JSON summary;
// exits non-zero on any failure (or any error in the page's console).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const { values: opt } = parseArgs({
  options: {
    url: { type: "string" },
    variant: { type: "string", default: "abapa" },
    moves: { type: "string", default: "3" },
    engine: { type: "string", default: "offline" },
    out: { type: "string", default: "test-artifacts/e2e" },
    chromium: { type: "string", default: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
});
const base = opt.url.replace(/\/+$/, "");
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
const summary = { variant: opt.variant, moves: [], screenshots: [], consoleErrors: [] };
const shot = async (page, name) => {
  const path = join(opt.out, `${opt.variant}-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  summary.screenshots.push(path);
};
let page;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && summary.consoleErrors.push(m.text()));
  page.on("pageerror", (e) => summary.consoleErrors.push(String(e)));
  await page.goto(`${base}/?variant=${encodeURIComponent(opt.variant)}&anim=15`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });

  const desc = await api("DescribeVariant", { variant: opt.variant });
  const cells = await page.locator("#board .cell").count();
  check(cells === desc.geometry.cells.length, `${cells} cells drawn, geometry has ${desc.geometry.cells.length}`);
  check((await page.getAttribute("#board", "data-variant")) === desc.variant, "board shows the variant");
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
  };

  const turnsShown = async () => Number(await page.getAttribute("#board", "data-turns"));
  const waitIdle = () => page.waitForSelector("#board[data-busy=false]", { timeout: 20_000 });

  for (let i = 0; i < Number(opt.moves); i++) {
    const before = await page.getAttribute("#board", "data-position");
    const turns = await turnsShown();
    const legal = (await api("ListLegalMoves", { position: before })).moves;
    if (!legal.length) break;
    // Click highlighted cells (and a choice button where one is offered) until the move is played.
    for (let clicks = 0; (await turnsShown()) === turns; clicks++) {
      check(clicks < 8, "a move within 8 clicks");
      const choice = page.locator("#choices .choice").first();
      const cell = page.locator("#board .cell.legal").first();
      if ((await cell.count()) > 0) {
        await cell.click();
      } else if ((await choice.count()) > 0) {
        await choice.click();
      } else {
        throw new Error("no legal cell highlighted and no move button");
      }
      await page.waitForTimeout(30);
      await waitIdle();
    }
    const after = await page.getAttribute("#board", "data-position");
    check(after && after !== before, "the position changed");
    const last = await page.locator("#moves li").last().textContent();
    summary.moves.push({ before, after, move: last });
    await boardMatches(after);
    await shot(page, `move-${i + 1}`);
  }

  if (opt.engine === "online") {
    check((await page.getAttribute("#engine", "data-online")) === "true", "engine online");
    await page.waitForFunction(() => /depth \d+/.test(document.getElementById("eval-text")?.textContent ?? ""), null, {
      timeout: 20_000,
    });
    summary.evaluation = await page.textContent("#eval-text");
    await shot(page, "evaluation");
    const turns = await turnsShown();
    await page.selectOption("#mode", "ee");
    await page.waitForFunction((t) => Number(document.getElementById("board")?.dataset.turns) >= t + 1, turns, {
      timeout: 20_000,
    });
    await page.selectOption("#mode", "hh");
    await waitIdle();
    summary.enginePlayed = await page.locator("#moves li").last().textContent();
    await boardMatches(await page.getAttribute("#board", "data-position"));
    await shot(page, "engine-move");
    // The game so far, analysed by the gateway (AnalyzeGame's stream): the evaluation graph.
    await page.click("#analyze");
    await page.waitForSelector("#graph svg.graph", { timeout: 20_000 });
    summary.analysedTurns = await page.locator("#graph .mistakes li").count();
    summary.graphPoints = (await page.getAttribute("#graph svg .curve", "d")).split(/[ML]/).filter(Boolean).length;
    check(summary.graphPoints === Number(await page.getAttribute("#board", "data-turns")), "one graph point per turn");
    await shot(page, "analysis");
  } else {
    const text = await page.textContent("#engine");
    check(/offline/.test(text ?? ""), `engine offline shown (got ${text})`);
    check(!(await page.isVisible("#eval-bar")), "no evaluation bar while the engine is offline");
  }
  check(summary.consoleErrors.length === 0, `no console errors: ${summary.consoleErrors.join("; ")}`);
  console.log(JSON.stringify(summary));
} catch (err) {
  if (page) await shot(page, "failure").catch(() => {});
  console.error(String(err?.stack ?? err));
  console.log(JSON.stringify(summary));
  process.exitCode = 1;
} finally {
  await browser.close();
}
