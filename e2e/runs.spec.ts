import type { RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./fixtures";
import { bootstrapCall, dictionaryAgent } from "./run-setup";

/**
 * The runs list (filters, live status, charts) and a run's page: the timeline as a picture (a model lane and a tool
 * lane, bars focusable from the keyboard), the step list, usage, resolved versions, the rendered instructions, and a
 * failure explained in words with its code.
 */
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let ok: { server: RecordingServer; toolId: string; agentId: string };
let capped: { server: RecordingServer; toolId: string; agentId: string };
let okRunId: string;
let failedRunId: string;

test.beforeAll(async ({ e2e }) => {
  ok = await dictionaryAgent(e2e, stamp, { delayMs: 300 });
  capped = await dictionaryAgent(e2e, stamp, { delayMs: 100, maxSteps: 1, suffix: "-capped" });
  const first = await bootstrapCall(e2e, "POST", "/v1/runs", { agent: { id: ok.agentId }, input: { userMessage: "lucid", parameters: { customer: "Ada" } } });
  if (first.status !== 201 || first.body.status !== "completed") throw new Error(`run failed: ${JSON.stringify(first.body)}`);
  okRunId = first.body.id;
  const second = await bootstrapCall(e2e, "POST", "/v1/runs", { agent: { id: capped.agentId }, input: { userMessage: "opaque", parameters: { customer: "Bob" } } });
  if (second.body.status !== "failed") throw new Error(`the capped run did not fail: ${JSON.stringify(second.body)}`);
  failedRunId = second.body.id;
});

test.afterAll(async () => {
  await ok?.server.close();
  await capped?.server.close();
});

test("the runs list filters by status, agent and origin, and charts the project's runs", async ({ page }) => {
  await page.goto("/runs");
  await expect(page.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
  await expect(page.getByTestId("run-charts")).toBeVisible();
  await expect(page.getByTestId("run-charts").locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(page.locator(`tr[data-run-id="${okRunId}"]`)).toBeVisible();
  await expect(page.locator(`tr[data-run-id="${failedRunId}"]`)).toContainText("budget-exceeded");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "runs-list");

  await page.getByLabel("Status").selectOption("failed");
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.locator(`tr[data-run-id="${failedRunId}"]`)).toBeVisible();
  await expect(page.locator(`tr[data-run-id="${okRunId}"]`)).toHaveCount(0);
  await page.getByLabel("Status").selectOption("");
  await expect(page).not.toHaveURL(/status=/);

  await page.getByLabel("Agent", { exact: true }).selectOption(ok.agentId);
  await expect(page.locator("tbody tr")).toHaveCount(1);
  await expect(page.locator(`tr[data-run-id="${okRunId}"]`)).toContainText("a person's API key");

  await page.getByLabel("Started by").selectOption("schedule");
  await expect(page.getByRole("heading", { name: "No run matches these filters" })).toBeVisible();
  await page.getByRole("button", { name: "Clear the filters" }).click();
  await expect(page.locator(`tr[data-run-id="${failedRunId}"]`)).toBeVisible();
});

test("a run's page draws its timeline beside the steps, with usage, versions and instructions", async ({ page }) => {
  await page.goto(`/runs`);
  await page.getByRole("link", { name: `Run ${okRunId}` }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${okRunId}$`));
  const timeline = page.getByTestId("run-timeline");
  await expect(timeline).toBeVisible();
  await expect(timeline.locator('[data-bar-kind="model"]')).toHaveCount(2);
  await expect(timeline.locator('[data-bar-kind="tool"]')).toHaveCount(1);
  await expect(timeline.locator('[data-marker-kind="completed"]')).toHaveCount(1);
  // The tool bar spans the dictionary's 300 ms answer at least, and says so to a screen reader.
  const toolLabel = await timeline.locator('[data-bar-kind="tool"]').getAttribute("aria-label");
  expect(toolLabel).toContain(`${ok.toolId}@1.0.0`);
  const toolMs = Number(/: (\d+) ms/.exec(toolLabel ?? "")?.[1] ?? /: ([\d.]+) s/.exec(toolLabel ?? "")?.[1] ?? 0);
  expect(toolMs).toBeGreaterThanOrEqual(toolLabel?.includes(" ms") ? 300 : 0.3);

  // Keyboard: focus the tool bar, Enter selects its event in the step list.
  await timeline.locator('[data-bar-kind="tool"]').focus();
  await page.keyboard.press("Enter");
  await expect(page.locator('li[data-event-type="tool-call-started"]')).toHaveClass(/border-indigo-400/);

  await expect(page.locator('li[data-event-type="tool-call-completed"]')).toContainText("a word: lucid");
  await expect(page.getByTestId("rendered-instructions")).toHaveText("Help Ada with words.");
  const summary = page.getByRole("complementary", { name: "Run summary" });
  await expect(summary.getByRole("cell", { name: ok.toolId })).toBeVisible();
  await expect(summary.getByRole("cell", { name: "^1.0.0" })).toBeVisible();
  await expect(summary).toContainText("Model calls");
  await expect(summary.getByText("not a real model", { exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "run-timeline");
});

test("a failed run explains its failure in words with the code", async ({ page }) => {
  await page.goto(`/runs/${failedRunId}`);
  const failure = page.getByTestId("run-failure");
  await expect(failure).toContainText("The run hit its budget");
  await expect(failure).toContainText("(budget-exceeded)");
  await expect(page.getByTestId("run-timeline").locator('[data-marker-kind="failed"]')).toHaveCount(1);
  await expect(page.locator('li[data-event-type="run-failed"]')).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "run-failed");
});

test("an unknown run shows the API's error with its request id", async ({ page }) => {
  await page.goto("/runs/00000000-0000-4000-8000-000000000000");
  const alert = page.getByRole("alert").filter({ hasText: "Cannot load this run" });
  await expect(alert).toContainText("Cannot load this run");
  await expect(alert).toContainText("not-found · HTTP 404 · request");
  await expectNoSeriousA11yViolations(page);
});
