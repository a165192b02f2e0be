import type { Page } from "@playwright/test";
import type { RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./fixtures";
import { dictionaryAgent } from "./run-setup";

/**
 * Words as they come: the scripted model writes its answer in pieces (`chunkSize` characters, `chunkDelayMs` apart),
 * and the console shows them as they arrive — in the playground's message being written (then the journal's answer),
 * a tool call's arguments as they form (then the real call), an answer stopped mid-way by "Cancel run" (its text
 * kept, marked as stopped), and the run's page with the model call in flight.
 */
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let writer: { server: RecordingServer; toolId: string; agentId: string };

/** 84 characters: 21 pieces of 4. */
const SENTENCE = "The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sunlight.";
const LONG = `${SENTENCE} ${SENTENCE} ${SENTENCE}`;

const script = (...steps: Record<string, unknown>[]) => JSON.stringify({ script: steps });

test.beforeAll(async ({ e2e }) => {
  writer = await dictionaryAgent(e2e, stamp, { delayMs: 200, suffix: "-writer", preferredProvider: "scripted" });
});

test.afterAll(async () => {
  await writer?.server.close();
});

async function openWriter(page: Page) {
  await page.goto(`/playground?agent=${writer.agentId}&version=1.0.0`);
  await expect(page.getByLabel("Version")).toHaveValue("1.0.0");
  await page.getByLabel(/customer/i).fill("Ada");
}

async function send(page: Page, message: string) {
  await page.getByLabel("Message").fill(message);
  await page.getByRole("button", { name: "Send" }).click();
}

/** The text of a live answer so far (without the caret). */
async function liveText(page: Page, scope = page.getByTestId("live-answer")) {
  return ((await scope.getByTestId("live-text").textContent()) ?? "").trimEnd();
}

test("the playground shows the answer as it is written, then the journal's answer", async ({ page }) => {
  await openWriter(page);
  await send(page, script({ text: SENTENCE, chunkSize: 4, chunkDelayMs: 150 }));

  const live = page.getByTestId("live-answer");
  await expect(live).toHaveAttribute("data-state", "writing");
  await expect(live.getByTestId("writing-mark")).toHaveText("writing…");
  await expect.poll(() => liveText(page).then((text) => text.length)).toBeGreaterThanOrEqual(8);
  // Some of the answer, not all of it, while the run is still going.
  const partial = await liveText(page);
  expect(SENTENCE.startsWith(partial)).toBe(true);
  expect(partial.length).toBeLessThan(SENTENCE.length);
  await expect(page.getByTestId("run-events").getByTestId("live-model-call-summary")).toContainText("Model call 1 is being written");
  await expect(page.getByTestId("answer-announcement")).toHaveText("The agent is writing…");
  await screenshot(page, "live-words-writing");
  await expectNoSeriousA11yViolations(page);

  // Then all of it: the journal's answer replaces the message being written.
  const answer = page.locator('[data-role="assistant"]').last();
  await expect(answer).toContainText(SENTENCE, { timeout: 15_000 });
  await expect(live).toHaveCount(0);
  await expect(page.getByTestId("run-events").locator('[data-event-type="run-completed"]')).toBeVisible();
  await expect(answer.getByTestId("dev-echo-mark")).toBeVisible();
  await expect(page.getByTestId("answer-announcement")).toHaveText(`The agent answered: ${SENTENCE}`);
});

test("a tool call's arguments show as they form, then the real call takes their place", async ({ page }) => {
  const word = "a rather long phrase to look up in the dictionary";
  await openWriter(page);
  await send(page, script({ toolCalls: [{ name: writer.toolId, arguments: { word } }], chunkSize: 4, chunkDelayMs: 150 }, { text: "Found it.", chunkSize: 4, chunkDelayMs: 50 }));

  const forming = page.getByTestId("live-answer").getByTestId("forming-tool-call");
  await expect(forming).toBeVisible();
  await expect(forming).toContainText(writer.toolId);
  const argumentsSoFar = async () => ((await forming.locator("pre").textContent()) ?? "").trim();
  await expect.poll(async () => (await argumentsSoFar()).length).toBeGreaterThanOrEqual(8);
  const partial = await argumentsSoFar();
  expect(partial.startsWith("{")).toBe(true);
  expect(partial).not.toContain(word);
  await screenshot(page, "live-words-tool-call");

  // The model's call lands in the journal: the real call's card replaces the arguments being written.
  const card = page.locator(`[data-testid=tool-call-card][data-tool-id="${writer.toolId}"]`);
  await expect(card).toBeVisible({ timeout: 15_000 });
  await expect(card).toContainText(word);
  await expect(page.getByTestId("forming-tool-call")).toHaveCount(0);
  await expect(card).toHaveAttribute("data-status", "returned");
  await expect(page.locator('[data-role="assistant"]').last()).toContainText("Found it.");
  await expectNoSeriousA11yViolations(page);
});

test("Cancel run stops an answer mid-way: the text so far stays, marked as stopped", async ({ page, api }) => {
  await openWriter(page);
  await send(page, script({ text: LONG, chunkSize: 4, chunkDelayMs: 200 }));
  const live = page.getByTestId("live-answer");
  await expect.poll(() => liveText(page).then((text) => text.length)).toBeGreaterThanOrEqual(12);
  await page.getByRole("button", { name: "Cancel run" }).click();

  await expect(page.getByText("The run was cancelled.")).toBeVisible();
  await expect(live).toHaveAttribute("data-state", "stopped");
  await expect(live.getByTestId("stopped-mark")).toHaveText("stopped");
  await expect(live.getByTestId("writing-mark")).toHaveCount(0);
  const kept = await liveText(page);
  expect(kept.length).toBeGreaterThanOrEqual(12);
  expect(kept.length).toBeLessThan(LONG.length);
  expect(LONG.startsWith(kept)).toBe(true);
  // Nothing more is appended after the end.
  await page.waitForTimeout(800);
  expect(await liveText(page)).toBe(kept);
  const runId = await page.locator("[data-run-id]").last().getAttribute("data-run-id");
  expect((await api.get<{ status: string }>(`/v1/runs/${runId}`)).body.status).toBe("cancelled");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "live-words-stopped");
});

test("a run's page shows the model call in flight with its text, until the journal's model call replaces it", async ({ page, api }) => {
  const started = await api.post<{ id: string; status: string }>("/v1/runs", {
    agent: { id: writer.agentId, version: "1.0.0" },
    input: { userMessage: script({ text: SENTENCE, chunkSize: 4, chunkDelayMs: 200 }), parameters: { customer: "Ada" } },
    options: { wait: false },
  });
  expect(started.status).toBe(202);
  await page.goto(`/runs/${started.body.id}`);

  const row = page.getByTestId("live-model-call");
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute("data-state", "writing");
  await expect(row).toContainText("Model call 1 is being written");
  await expect.poll(() => liveText(page, row).then((text) => text.length)).toBeGreaterThanOrEqual(8);
  const partial = await liveText(page, row);
  expect(SENTENCE.startsWith(partial)).toBe(true);
  expect(partial.length).toBeLessThan(SENTENCE.length);
  await expect(page.getByTestId("run-timeline").locator('[data-bar-kind="model"][data-writing="true"]')).toHaveCount(1);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "run-live-words");

  await expect(page.locator('li[data-event-type="model-called"]')).toContainText(SENTENCE, { timeout: 15_000 });
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId("run-timeline").locator('[data-writing="true"]')).toHaveCount(0);
  await expect(page.locator('li[data-event-type="run-completed"]')).toBeVisible();
});
