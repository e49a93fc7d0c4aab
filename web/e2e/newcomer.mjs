// End-to-end: the demo board as a newcomer meets it, in headless Chromium (Debian's, driven by
// playwright-core) at one window width. Started by tests/web/test_e2e.py against the real stack.
//
//   node web/e2e/newcomer.mjs --url http://127.0.0.1:8080 --width 390 \
//        --unreachable http://127.0.0.1:9/api --out test-artifacts/e2e
//
// 1. With `?api=` naming an address nobody answers, the page must say it cannot reach the API,
//    name that address and offer to try again.
// 2. The plain page (`/`): while the variants are on their way (the real ListVariants call is held
//    back until the loading state has been checked, then sent on to the server) it shows a loading
//    state; then a board whose rows and stores are labelled South and North, on the first screen
//    (on a phone the settings are folded away above it, and opened here), labelled option controls
//    that do not touch each other, and "you (South) vs engine" as the players; "New game" dims the
//    board until the new one arrives (DescribeVariant held back the same way); North's view puts
//    South's row and store at the top and on the left (on a phone, the stores above and below).
// 3. A game of --variant (a short turn limit) with the default players: South's moves are clicked,
//    the engine answers as North, and the finished game is summed up in words, with the analysis
//    graph's axes labelled and the mistakes listed in words.
// Every family's board at this width is measured by layout.mjs. At every step the page must not be wider than the window. Screenshots go to --out, named
// `newcomer-<width>-<step>.png`. Prints a JSON summary on the last line; exits non-zero on failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { atFailure } from "./failure.mjs";

const { values: opt } = parseArgs({
  options: {
    url: { type: "string" },
    width: { type: "string", default: "1280" },
    unreachable: { type: "string" },
    variant: { type: "string", default: "abapa(max_turns=6)" },
    out: { type: "string", default: "test-artifacts/e2e" },
    chromium: { type: "string", default: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
});
if (!opt.url) throw new Error("--url is required");
if (!opt.unreachable) throw new Error("--unreachable is required");
const base = opt.url.replace(/\/+$/, "");
const width = Number(opt.width);
const height = width < 600 ? 844 : 900;
const TIMEOUT = 60_000;
mkdirSync(opt.out, { recursive: true });

function check(cond, message) {
  if (!cond) throw new Error(`check failed: ${message}`);
}

const browser = await chromium.launch({
  executablePath: opt.chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const summary = { width, screenshots: [], consoleErrors: [] };
const shot = async (page, name) => {
  const path = join(opt.out, `newcomer-${width}-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  summary.screenshots.push(path);
};

/**
 * The page is no wider than the window: nothing sticks out sideways. A board too wide for any
 * phone (abapa with 12 holes a side) scrolls inside its own frame, which must fit.
 */
async function noOverflow(page, where) {
  const { scroll, inner, widest } = await page.evaluate(() => {
    let widest = { right: 0, what: "" };
    for (const e of document.querySelectorAll("body *")) {
      if (e.parentElement?.closest(".board-wrap")) continue;
      const r = e.getBoundingClientRect();
      if (r.width && r.right > widest.right) widest = { right: Math.round(r.right), what: `${e.tagName}#${e.id}.${e.className}` };
    }
    return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, widest };
  });
  const board = await page.locator("#board").boundingBox();
  summary.boardFits ??= {};
  summary.boardFits[where] = !!board && board.x >= 0 && board.x + board.width <= inner;
  check(scroll <= inner, `${where}: the page is ${scroll} px wide in a ${inner} px window (widest: ${JSON.stringify(widest)})`);
  check(widest.right <= inner, `${where}: ${widest.what} reaches ${widest.right} px in a ${inner} px window`);
}

let page;
try {
  const context = await browser.newContext({ viewport: { width, height } });

  // 1. The API cannot be reached.
  page = await context.newPage();
  await page.goto(`${base}/?api=${encodeURIComponent(opt.unreachable)}`);
  await page.waitForSelector("body[data-state=error]", { timeout: 20_000 });
  const errorText = (await page.textContent("#load-error")).replace(/\s+/g, " ").trim();
  check(await page.isVisible("#load-error"), "the error is shown");
  check(errorText.includes("Cannot reach the Griot API") && errorText.includes(opt.unreachable), `error names the API: ${errorText}`);
  check(await page.isVisible("#retry"), "a button to try again");
  check(!(await page.isVisible("#loading")), "no loading state once it failed");
  summary.errorText = errorText;
  await noOverflow(page, "unreachable");
  await shot(page, "unreachable");
  await page.close();

  // 2. Loading, then the board as it opens.
  page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && summary.consoleErrors.push(m.text()));
  page.on("pageerror", (e) => summary.consoleErrors.push(String(e)));
  let release;
  const held = new Promise((r) => (release = r));
  await page.route("**/griot.v1.RulesService/ListVariants", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${base}/`);
  await page.waitForSelector("#loading", { state: "visible", timeout: 20_000 });
  check((await page.getAttribute("body", "data-state")) === "loading", "the page says it is loading");
  check(/Loading/.test(await page.textContent("#board")), "the board's place says it is loading");
  await shot(page, "loading");
  release();
  await page.waitForSelector("body[data-state=ready]", { timeout: 20_000 });
  await page.unroute("**/griot.v1.RulesService/ListVariants");
  check(!(await page.isVisible("#loading")), "the loading state is gone");
  check((await page.getAttribute("#engine", "data-online")) === "true", "engine online");

  summary.mode = await page.$eval("#mode", (s) => s.value);
  summary.modes = await page.$$eval("#mode option", (os) => os.map((o) => ({ value: o.value, text: o.textContent })));
  check(summary.mode === "he", `the person plays South against the engine by default, not ${summary.mode}`);
  check(summary.modes.some((m) => m.value === "hh" && m.text === "two people"), "two people is still a choice");

  const side = (id) => page.$eval(id, (e) => ({ text: e.textContent, player: e.dataset.player, visible: e.offsetHeight > 0 }));
  summary.sides = { top: await side("#side-top"), bottom: await side("#side-bottom") };
  check(summary.sides.top.visible && summary.sides.bottom.visible, "both sides labelled");
  check(summary.sides.top.text === "North's row \u00b7 engine", `top: ${summary.sides.top.text}`);
  check(summary.sides.bottom.text === "South's row \u00b7 you", `bottom: ${summary.sides.bottom.text}`);
  summary.stores = await page.$$eval("#board .store", (els) =>
    els.map((e) => ({ name: e.querySelector(".store-name")?.textContent, count: e.querySelector(".store-count")?.id })),
  );
  check(JSON.stringify(summary.stores) === JSON.stringify([
    { name: "North", count: "store-north" },
    { name: "South", count: "store-south" },
  ]), `stores labelled: ${JSON.stringify(summary.stores)}`);
  // The labels sit at the right edges: North's above the board, South's below it.
  const box = async (sel) => page.locator(sel).boundingBox();
  const [top, board, bottom] = [await box("#side-top"), await box("#board"), await box("#side-bottom")];
  check(top.y + top.height <= board.y + 1 && bottom.y >= board.y + board.height - 1, "North above the board, South below");
  summary.settingsFolded = !(await page.$eval("#settings", (d) => d.open));
  summary.boardOnFirstScreen = bottom.y + bottom.height <= height;
  check(summary.boardOnFirstScreen, `the board and its labels end at ${bottom.y + bottom.height} px, past the first screen (${height} px)`);
  // The settings, folded away on a phone, open with one click on their summary.
  if (summary.settingsFolded) await page.click("#settings > summary");
  check(await page.isVisible("#new-game"), "the settings are open");

  // A new game: the board says it is busy until the new one arrives.
  let releaseNew;
  const heldNew = new Promise((r) => (releaseNew = r));
  await page.route("**/griot.v1.RulesService/DescribeVariant", async (route) => {
    await heldNew;
    await route.continue();
  });
  await page.click("#new-game");
  await page.waitForSelector('#board[aria-busy="true"]', { timeout: 10_000 });
  summary.newGameOpacity = await page.$eval("#board", (b) => getComputedStyle(b).opacity);
  check(Number(summary.newGameOpacity) < 1, `the board is dimmed while the new game loads (${summary.newGameOpacity})`);
  releaseNew();
  await page.waitForSelector('#board[aria-busy="false"]', { timeout: 20_000 });
  await page.unroute("**/griot.v1.RulesService/DescribeVariant");

  // North's view turns the board round: South's row and store to the top and left.
  await page.check("#flip");
  summary.flipped = {
    top: await page.textContent("#side-top"),
    bottom: await page.textContent("#side-bottom"),
    stores: await page.$$eval("#board .store .store-name", (els) => els.map((e) => e.textContent)),
  };
  check(summary.flipped.top === "South's row \u00b7 you" && summary.flipped.bottom === "North's row \u00b7 engine",
    `flipped sides: ${JSON.stringify(summary.flipped)}`);
  check(JSON.stringify(summary.flipped.stores) === '["South","North"]', `flipped stores: ${summary.flipped.stores}`);
  await page.uncheck("#flip");

  // Every option has a label in words, and no two controls touch.
  summary.options = await page.$$eval("#options [data-option]", (els) =>
    els.map((e) => ({ option: e.dataset.option, label: document.querySelector(`label[for="${e.id}"]`)?.textContent ?? "" })),
  );
  check(summary.options.length >= 2, `options shown: ${JSON.stringify(summary.options)}`);
  for (const o of summary.options) check(o.label && !o.label.includes("_") && o.label !== o.option, `option ${o.option} labelled ${o.label}`);
  const fields = await page.$$eval(".controls .field", (els) =>
    els.filter((e) => e.offsetHeight > 0).map((e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: e.textContent.trim().slice(0, 20) };
    }),
  );
  let closest = Infinity;
  for (const [i, a] of fields.entries()) {
    for (const b of fields.slice(i + 1)) {
      const sameLine = a.top < b.bottom && b.top < a.bottom;
      if (!sameLine) continue;
      const gap = Math.max(b.left - a.right, a.left - b.right);
      closest = Math.min(closest, gap);
      check(gap >= 8, `controls "${a.text}" and "${b.text}" are ${gap.toFixed(1)} px apart`);
    }
  }
  summary.closestControls = closest;
  await noOverflow(page, "start");
  await shot(page, "start");

  // 3. A short game against the engine with the default players, to its end.
  // The first evaluation is held until a cell is pressed, and shown before the release: the click
  // still plays the move.
  let releaseEval;
  const heldEval = new Promise((r) => (releaseEval = r));
  await page.route("**/griot.v1.AnalysisService/Evaluate", async (route) => {
    await heldEval;
    await route.continue();
  });
  await page.goto(`${base}/?variant=${encodeURIComponent(opt.variant)}&anim=15`);
  await page.waitForSelector("body[data-state=ready]", { timeout: 20_000 });
  check((await page.$eval("#mode", (s) => s.value)) === "he", "still against the engine");
  await page.waitForSelector('#board[data-busy=false][data-to-move="human"]', { timeout: TIMEOUT });
  const firstPosition = await page.getAttribute("#board", "data-position");
  const cell = page.locator("#board .cell.legal").first();
  await cell.scrollIntoViewIfNeeded();
  const at = await cell.boundingBox();
  await page.mouse.move(at.x + at.width / 2, at.y + at.height / 2);
  await page.mouse.down();
  releaseEval();
  await page.waitForFunction(
    (p) => document.getElementById("eval-text")?.dataset.position === p,
    firstPosition,
    { timeout: TIMEOUT },
  );
  // Each of Abapa's moves is one cell: the evaluation scores every legal cell.
  const tags = await page.$$eval("#board .cell.legal", (els) => els.map((e) => e.querySelector(".move-score")?.textContent ?? ""));
  check(tags.length > 0 && tags.every((t) => t !== ""), `every legal cell scored: ${JSON.stringify(tags)}`);
  await page.mouse.up();
  await page.unroute("**/griot.v1.AnalysisService/Evaluate");
  await page.waitForFunction(() => Number(document.getElementById("board").dataset.turns) > 0, null, { timeout: TIMEOUT });
  summary.heldClick = { position: firstPosition, tags, played: await page.$eval("#moves li", (e) => e.textContent) };
  const deadline = Date.now() + 4 * TIMEOUT;
  for (;;) {
    check(Date.now() < deadline, "the game ends in time");
    await page.waitForSelector('#board[data-busy=false]:is([data-to-move="human"], [data-to-move="over"])', { timeout: TIMEOUT });
    if ((await page.getAttribute("#board", "data-to-move")) === "over") break;
    const turns = Number(await page.getAttribute("#board", "data-turns"));
    await page.locator("#board .cell.legal").first().click();
    await page.waitForFunction((n) => Number(document.getElementById("board").dataset.turns) > n, turns, { timeout: TIMEOUT });
  }
  summary.turns = await page.$$eval("#moves li", (els) => els.map((e) => ({ move: e.textContent, after: e.title })));
  summary.finalPosition = await page.getAttribute("#board", "data-position");
  summary.turnText = await page.textContent("#turn");
  summary.evalCaption = await page.textContent("#eval-value");

  await page.waitForSelector("#graph svg.graph", { timeout: TIMEOUT });
  summary.graph = await page.$eval("#graph", (g) => ({
    xTitle: g.querySelector(".x-title")?.textContent,
    yTitle: g.querySelector(".y-title")?.textContent,
    xTicks: [...g.querySelectorAll(".x-tick")].map((t) => t.textContent),
    yTicks: [...g.querySelectorAll(".y-tick")].map((t) => t.textContent),
    points: (g.querySelector(".curve")?.getAttribute("d") ?? "").split(/[ML]/).filter(Boolean).length,
    list: [...g.querySelectorAll(".mistakes li")].map((li) => li.textContent),
    width: g.querySelector("svg").getBoundingClientRect().width,
    proven: g.querySelectorAll("svg rect.proven").length,
    provenTitles: [...g.querySelectorAll("svg rect.proven title")].map((t) => t.textContent),
    note: g.querySelector(".graph-note")?.textContent ?? null,
  }));
  await page.locator("#graph").scrollIntoViewIfNeeded();
  await noOverflow(page, "finished");
  await shot(page, "finished");

  check(summary.consoleErrors.length === 0, `no console errors: ${summary.consoleErrors.join("; ")}`);
  console.log(JSON.stringify(summary));
} catch (err) {
  if (page && !page.isClosed()) await shot(page, "failure").catch(() => {});
  console.error(String(err?.stack ?? err));
  summary.atFailure = await atFailure(page);
  console.log(JSON.stringify(summary));
  process.exitCode = 1;
} finally {
  await browser.close();
}
