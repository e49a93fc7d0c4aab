// The board's geometry at a phone's and a desktop's width, in headless Chromium (Debian's, driven by
// playwright-core): one browser, one page per width, each variant opened as it starts and measured
// once the engine's first evaluation has scored its moves. Started by tests/web/test_e2e.py against
// the real stack, which asserts on what this prints.
//
//   node web/e2e/layout.mjs --url http://127.0.0.1:8080 --widths 390,1280 \
//        --variants abapa,ikibuguzo,sabouiyya --out test-artifacts/e2e
//
// Per width and variant it reports the window, how wide the document is, the board's box, whether
// the settings are open, every hole's box with the boxes and font sizes of its count, letter and
// score badge, the stores' font sizes, the evaluation bar's labels and caption, and whether the game
// menu shows the game's name whole. Screenshots of the first screen: `layout-<width>-<variant>.png`
// in --out. Prints a JSON summary on the last line; exits non-zero when a page does not get there.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { atFailure } from "./failure.mjs";

const { values: opt } = parseArgs({
  options: {
    url: { type: "string" },
    widths: { type: "string", default: "390,1280" },
    variants: { type: "string", default: "abapa" },
    out: { type: "string", default: "test-artifacts/e2e" },
    chromium: { type: "string", default: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
});
if (!opt.url) throw new Error("--url is required");
const base = opt.url.replace(/\/+$/, "");
const TIMEOUT = 30_000;
mkdirSync(opt.out, { recursive: true });

/** What the page shows, measured in the page: boxes are [x, y, width, height] in CSS pixels. */
function measure() {
  const box = (e) => {
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height].map((v) => Math.round(v * 10) / 10);
  };
  const font = (e) => (e ? parseFloat(getComputedStyle(e).fontSize) : null);
  const visible = (e) => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const cells = [...document.querySelectorAll("#board .cell")].map((c) => {
    const part = (sel) => {
      const e = c.querySelector(sel);
      return e && visible(e) ? { box: box(e), font: font(e), text: e.textContent } : null;
    };
    return { label: c.dataset.label, box: box(c), seeds: part(".seeds"), letter: part(".label"), badge: part(".move-score") };
  });
  // The game menu shows every game's name whole: a menu is as wide as its longest name unless the
  // page squeezes it, so it must be as wide as when nothing limits its width (settings unfolded).
  const settings = document.getElementById("settings");
  const wasOpen = settings.open;
  settings.open = true;
  const select = document.getElementById("variant");
  const squeezed = select.getBoundingClientRect().width;
  select.style.maxWidth = "none";
  const free = select.getBoundingClientRect().width;
  select.style.maxWidth = "";
  settings.open = wasOpen;
  const menu = { width: squeezed, needs: free };
  const sides = [...document.querySelectorAll(".eval .eval-side")].map((e) => ({ text: e.textContent, box: box(e), visible: visible(e) }));
  return {
    window: [window.innerWidth, window.innerHeight],
    scrollWidth: document.documentElement.scrollWidth,
    board: box(document.getElementById("board")),
    frame: box(document.querySelector(".board-wrap")),
    settingsOpen: document.getElementById("settings").open,
    settingsSummary: document.getElementById("settings-summary").textContent,
    cells,
    stores: [...document.querySelectorAll("#board .store")].map((s) => ({
      box: box(s),
      nameFont: font(s.querySelector(".store-name")),
      countFont: font(s.querySelector(".store-count")),
    })),
    sideLabels: ["side-top", "side-bottom"].map((id) => ({ text: document.getElementById(id).textContent, font: font(document.getElementById(id)) })),
    eval: {
      bar: box(document.getElementById("eval-bar")),
      sides,
      value: document.getElementById("eval-value").textContent,
      valueVisible: visible(document.getElementById("eval-value")),
    },
    menu,
  };
}

const browser = await chromium.launch({
  executablePath: opt.chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const summary = { pages: [], consoleErrors: [] };
let page;
try {
  for (const width of opt.widths.split(",").map(Number)) {
    const context = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 900 } });
    page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && summary.consoleErrors.push(m.text()));
    page.on("pageerror", (e) => summary.consoleErrors.push(String(e)));
    for (const variant of opt.variants.split(",").filter(Boolean)) {
      await page.goto(`${base}/?variant=${encodeURIComponent(variant)}&anim=0`);
      await page.waitForSelector("body[data-state=ready]", { timeout: TIMEOUT });
      await page.waitForSelector('#board[data-busy=false][data-to-move="human"]', { timeout: TIMEOUT });
      // The engine's first evaluation of this position: every legal hole's badge is in place (deeper
      // ones change the badges' text, at most four characters, not where they are).
      await page.waitForFunction(
        () => document.getElementById("eval-text").dataset.position === document.getElementById("board").dataset.position,
        null,
        { timeout: TIMEOUT },
      );
      const name = variant.replace(/[^a-z0-9-]+/gi, "_").replace(/_+$/, "");
      const shot = join(opt.out, `layout-${width}-${name}.png`);
      await page.screenshot({ path: shot });
      summary.pages.push({ width, variant, shot, ...(await page.evaluate(measure)) });
    }
    await context.close();
  }
  console.log(JSON.stringify(summary));
} catch (err) {
  if (page && !page.isClosed()) await page.screenshot({ path: join(opt.out, "layout-failure.png") }).catch(() => {});
  console.error(String(err?.stack ?? err));
  summary.atFailure = await atFailure(page);
  console.log(JSON.stringify(summary));
  process.exitCode = 1;
} finally {
  await browser.close();
}
