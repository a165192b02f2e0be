/**
 * What the inbox bench installs in the page before any of its scripts run (`page.addInitScript`), and reads back:
 * - a MutationObserver that records `Date.now()` the first time an approval row (`[data-testid=approval-row]` with
 *   its `data-approval-id`) is in the DOM, and the first time it is gone again;
 * - a capturing click listener on window (it runs before React's own handlers) that records `Date.now()` when an
 *   "Approve" button inside an approval's `article[data-approval-id]` is clicked.
 * The figures land in `window.__inboxBench`; the clock is the machine's, the same one the bench process reads.
 */
import type { Page } from "playwright-core";

export type InboxMarks = { seen: Record<string, number>; gone: Record<string, number>; clicks: Record<string, number> };

declare global {
  interface Window {
    __inboxBench?: InboxMarks;
  }
}

/**
 * The init script, as source text: it runs in the page, and a function passed from here would carry the helpers the
 * TypeScript loader wraps named functions in (`__name`), which the page does not have.
 */
const INSTRUMENT = `(() => {
  const marks = { seen: {}, gone: {}, clicks: {} };
  window.__inboxBench = marks;
  const scan = () => {
    const now = Date.now();
    const present = new Set();
    for (const row of document.querySelectorAll("[data-testid=approval-row][data-approval-id]")) {
      const id = row.getAttribute("data-approval-id");
      present.add(id);
      if (!(id in marks.seen)) marks.seen[id] = now;
    }
    for (const id of Object.keys(marks.seen)) if (!present.has(id) && !(id in marks.gone)) marks.gone[id] = now;
  };
  new MutationObserver(scan).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-approval-id"] });
  window.addEventListener("click", (event) => {
    const now = Date.now();
    const button = event.target instanceof Element ? event.target.closest("button") : null;
    if (!button || button.textContent.trim() !== "Approve") return;
    const id = button.closest("article[data-approval-id]")?.getAttribute("data-approval-id");
    if (id && !(id in marks.clicks)) marks.clicks[id] = now;
  }, true);
})();`;

export async function instrumentInbox(page: Page): Promise<void> {
  await page.addInitScript({ content: INSTRUMENT });
}

/** The page's `Date.now()` when `id` was first / last seen, or when its Approve was clicked; waits up to `timeoutMs`. */
export async function waitForMark(page: Page, kind: keyof InboxMarks, id: string, timeoutMs: number): Promise<number> {
  try {
    const handle = await page.waitForFunction(`window.__inboxBench?.${kind}[${JSON.stringify(id)}]`, undefined, { polling: 20, timeout: timeoutMs });
    return (await handle.jsonValue()) as number;
  } catch (error) {
    const what = kind === "seen" ? "appear in" : kind === "gone" ? "leave" : "record a click in";
    throw new Error(`approval ${id} did not ${what} the inbox within ${timeoutMs} ms (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`);
  }
}
