import { expect, expectNoSeriousA11yViolations, test } from "./fixtures";

/**
 * The catalog with 1,000 more tools: the first page renders (50 rows and "Show more"), a search narrows to exactly
 * the matching tools, and the next page follows the first without a gap. The figures are printed, not asserted
 * (bench/console-catalog.ts measures them properly).
 */
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const prefix = `scale-${stamp}`;
const toolId = (index: number) => `${prefix}.tool-${String(index).padStart(4, "0")}`;
const COUNT = 1000;

test.describe.configure({ timeout: 240_000 });

test.beforeAll(async ({ e2e }) => {
  test.setTimeout(600_000);
  let next = 0;
  const worker = async () => {
    while (next < COUNT) {
      const index = next++;
      const response = await fetch(`${e2e.baseUrl}/v1/tools`, {
        method: "POST",
        headers: { Authorization: `Bearer ${e2e.bootstrapKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          projectId: e2e.defaultProjectId,
          id: toolId(index),
          version: "1.0.0",
          description: `Scale tool ${index}: ${index % 3 === 0 ? "writes a note" : "reads a record"}.`,
          mutating: index % 3 === 0,
          metadata: { tags: [`group-${index % 10}`] },
          effects: [{ kind: index % 3 === 0 ? "writes" : "reads" }],
          input: { type: "object", properties: { record: { type: "string" } } },
          output: { type: "object" },
        }),
      });
      if (response.status !== 201) throw new Error(`registering ${toolId(index)}: ${response.status} ${await response.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
});

test("shows the first page of 1,000 tools and narrows them by search", async ({ page }) => {
  const started = Date.now();
  await page.goto(`/tools?q=${prefix}`);
  const links = page.getByRole("table").getByRole("link", { name: new RegExp(`^${prefix}\\.`) });
  await expect(links.first()).toHaveText(toolId(0));
  const firstRender = Date.now() - started;
  await expect(links).toHaveCount(50);
  await expect(page.getByText("50 tools shown, more below")).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // The next page continues where the first ended.
  await page.getByRole("button", { name: "Show more" }).click();
  await expect(links).toHaveCount(100);
  await expect(links.nth(49)).toHaveText(toolId(49));
  await expect(links.nth(50)).toHaveText(toolId(50));

  // A search: "tool-012" is tools 0120 to 0129 of this set.
  const typed = Date.now();
  await page.getByLabel("Search tools").fill(`${prefix}.tool-012`);
  await expect(links).toHaveText(Array.from({ length: 10 }, (_, index) => toolId(120 + index)));
  const searched = Date.now() - typed;
  await expect(page.getByText("10 tools shown", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Show more" })).toHaveCount(0);

  // Search plus a filter, still on the server: of 0120-0129, the mutating ones are 0120, 0123, 0126, 0129.
  await page.getByLabel("Mutating", { exact: true }).selectOption("true");
  await expect(links).toHaveText([120, 123, 126, 129].map(toolId));

  // Without the search, the catalog still opens on a page of 50.
  await page.goto("/tools");
  await expect(page.getByRole("table").getByRole("link")).toHaveCount(50);
  await expect(page.getByRole("button", { name: "Show more" })).toBeVisible();

  test.info().annotations.push({ type: "timing", description: `first render ${firstRender} ms, search ${searched} ms (with ${COUNT} tools)` });
  console.log(`[catalog-scale] ${COUNT} tools: first render ${firstRender} ms, search results ${searched} ms`);
});
