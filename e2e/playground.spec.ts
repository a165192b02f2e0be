import type { RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./fixtures";
import { dictionaryAgent } from "./run-setup";

/**
 * The playground, driven as a person does: an agent version preselected from its page's link, its parameter form,
 * a message, the run's events streaming in live (the tool call with its arguments before its result), the answer
 * marked as not from a real model, the conversation continued, and a slow run cancelled.
 */
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let fast: { server: RecordingServer; toolId: string; agentId: string };
let slow: { server: RecordingServer; toolId: string; agentId: string };

test.beforeAll(async ({ e2e }) => {
  fast = await dictionaryAgent(e2e, stamp, { delayMs: 1500 });
  slow = await dictionaryAgent(e2e, stamp, { delayMs: 30_000, suffix: "-slow" });
});

test.afterAll(async () => {
  await fast?.server.close();
  await slow?.server.close();
});

test("run an agent in the playground: its events stream live and the dev-echo answer is marked", async ({ page, api }) => {
  await page.goto(`/agents/${fast.agentId}`);
  await page.getByRole("link", { name: "Open in playground" }).click();
  await expect(page).toHaveURL(new RegExp(`/playground\\?agent=${fast.agentId.replace(/\./g, "\\.")}&version=1\\.0\\.0`));
  await expect(page.getByRole("heading", { name: "Playground", level: 1 })).toBeVisible();
  await expect(page.getByLabel("Agent", { exact: true })).toHaveValue(fast.agentId);
  await expect(page.getByLabel("Version")).toHaveValue("1.0.0");

  await page.getByLabel(/customer/i).fill("Ada");
  await page.getByLabel("Message").fill("serendipity");
  await page.getByRole("button", { name: "Send" }).click();

  const events = page.getByTestId("run-events");
  // The tool call is shown, with its arguments, while the dictionary is still answering (it takes 1.5 s).
  const started = events.locator('[data-event-type="tool-call-started"]');
  await expect(started).toBeVisible();
  await expect(started).toContainText("serendipity");
  await expect(events.locator('[data-event-type="run-completed"]')).toHaveCount(0);
  await expect(events.getByText("live", { exact: true })).toBeVisible();
  await expect(events.locator('[data-event-type="model-called"]').first()).toContainText("tokens");

  await expect(events.locator('[data-event-type="tool-call-completed"]')).toContainText("a word: serendipity");
  await expect(events.locator('[data-event-type="run-completed"]')).toBeVisible();
  const answer = page.locator('[data-role="assistant"]').last();
  await expect(answer).toContainText("a word: serendipity");
  await expect(answer.getByTestId("dev-echo-mark")).toHaveText("not from a real model (dev-echo)");
  expect(fast.server.requests.filter((request) => request.url.startsWith("/lookup"))).toHaveLength(1);

  // The run recorded the parameter, the conversation and that a person in the console started it.
  const conversationId = new URL(page.url()).searchParams.get("conversation");
  expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
  const runs = await api.get<{ data: { input: { parameters: Record<string, unknown> }; conversationId: string; origin: { kind: string } }[] }>(`/v1/runs?agentId=${fast.agentId}`);
  expect(runs.body.data).toHaveLength(1);
  expect(runs.body.data[0]).toMatchObject({ input: { parameters: { customer: "Ada" } }, conversationId, origin: { kind: "session" } });

  // Continue the conversation.
  await page.getByLabel("Message").fill("petrichor");
  await page.getByLabel("Message").press("Control+Enter");
  await expect(page.locator('[data-role="assistant"]').last()).toContainText("a word: petrichor", { timeout: 15_000 });
  const messages = await api.get<{ data: { role: string; content: string }[] }>(`/v1/conversations/${conversationId}/messages`);
  expect(messages.body.data.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);

  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "playground");
});

test("a running run is cancelled from the playground", async ({ page, api }) => {
  await page.goto(`/playground?agent=${slow.agentId}&version=1.0.0`);
  await expect(page.getByLabel("Version")).toHaveValue("1.0.0");
  await page.getByLabel(/customer/i).fill("Bob");
  await page.getByLabel("Message").fill("ineffable");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("run-events").locator('[data-event-type="tool-call-started"]')).toBeVisible();
  await page.getByRole("button", { name: "Cancel run" }).click();
  await expect(page.getByText("The run was cancelled.")).toBeVisible();
  await expect(page.getByTestId("run-events").locator('[data-event-type="run-cancelled"]')).toBeVisible();
  const runs = await api.get<{ data: { status: string }[] }>(`/v1/runs?agentId=${slow.agentId}`);
  expect(runs.body.data.map((run) => run.status)).toEqual(["cancelled"]);
});

test("the playground without an agent says what to do next", async ({ page }) => {
  await page.goto("/playground");
  await expect(page.getByRole("heading", { name: "Choose an agent" })).toBeVisible();
  await expect(page.getByLabel("Message")).toBeDisabled();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "playground-empty");
});
