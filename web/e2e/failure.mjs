// What the board said when a browser script failed: its status line, the board's state and the
// evaluation shown, for the summary the test prints.

/** The page's state for a failure report, or why it could not be read. */
export async function atFailure(page) {
  if (!page || page.isClosed()) return null;
  return page
    .evaluate(() => {
      const data = (id) => ({ ...(document.getElementById(id)?.dataset ?? {}) });
      const text = (id) => document.getElementById(id)?.textContent ?? null;
      return {
        status: text("status"),
        board: data("board"),
        turn: text("turn"),
        evaluation: { text: text("eval-text"), ...data("eval-text") },
      };
    })
    .catch((e) => String(e));
}
