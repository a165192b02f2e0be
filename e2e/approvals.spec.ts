import type { Browser, BrowserContext, Page } from "@playwright/test";
import { startRecordingServer, sendJson, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import fs from "node:fs";
import http from "node:http";
import type { Socket } from "node:net";
import path from "node:path";
import { SCREENSHOT_DIR, expect, expectNoSeriousA11yViolations, screenshot, signInState, test } from "./fixtures";
import { bootstrapCall } from "./run-setup";
import type { E2eState } from "./state";

/**
 * The approval inbox, seen by a second member in their own browser context: a mutating HTTP tool's call waits there,
 * appears without reload through the stream, is edited then approved (the recording server gets the edited arguments
 * once), rejected with a reason, approved on its own page at 375 px, and approved-and-remembered so the next run
 * passes without asking; the navigation's badge counts pending approvals live; browser notifications are opt-in; a
 * conditional grant passes only calls inside its condition; a session approval shows the conversation so far; the
 * history lists the newest decision first; and the inbox's stream resumes after a drop.
 */
test.describe.configure({ mode: "serial" });

const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const toolId = `e2e.pay-${stamp}`;
const agentId = `e2e.payer-${stamp}`;
const phoneAgentId = `e2e.payer-phone-${stamp}`;
const transferToolId = `e2e.transfer-${stamp}`;
const transferAgentId = `e2e.transferer-${stamp}`;
const chatAgentId = `e2e.chatter-${stamp}`;
let server: RecordingServer;
let reviewer: BrowserContext;
let inbox: Page;

async function registerAgent(e2e: E2eState, id: string, tools = [toolId], extra: Record<string, unknown> = {}) {
  const agent = await bootstrapCall(e2e, "POST", "/v1/agents", {
    projectId: e2e.defaultProjectId,
    id,
    version: "1.0.0",
    name: "Payer",
    description: "Pays words.",
    instructions: "Pay what is asked.",
    parameters: [],
    capabilities: [{ kind: "llm-inference" }],
    tools: tools.map((each) => ({ id: each, version: "^1.0.0" })),
    retrieval: [],
    guardrails: [],
    ...extra,
  });
  if (agent.status !== 201) throw new Error(`agent registration failed: ${JSON.stringify(agent.body)}`);
}

async function startRun(e2e: E2eState, agent: string, message: string, conversationId?: string) {
  const run = await bootstrapCall(e2e, "POST", "/v1/runs", { agent: { id: agent }, input: { userMessage: message, ...(conversationId ? { conversationId } : {}) } });
  if (run.status !== 201 && run.status !== 202) throw new Error(`run failed: ${JSON.stringify(run.body)}`);
  return run.body as { id: string; status: string };
}

async function runStatus(e2e: E2eState, runId: string) {
  return (await bootstrapCall(e2e, "GET", `/v1/runs/${runId}`)).body.status as string;
}

async function pendingOf(e2e: E2eState, runId: string) {
  const list = await bootstrapCall(e2e, "GET", `/v1/approvals?runId=${runId}&status=pending`);
  return list.body.data[0] as { id: string };
}

const bodies = () => server.requests.filter((request) => request.url === "/pay").map((request) => JSON.parse(request.body) as { word?: string });
const transfers = () => server.requests.filter((request) => request.url === "/transfer").map((request) => JSON.parse(request.body) as { amount?: number });

test.beforeAll(async ({ e2e, browser }: { e2e: E2eState; browser: Browser }) => {
  server = await startRecordingServer((request, response) => {
    const body = request.body ? (JSON.parse(request.body) as { word?: string }) : {};
    sendJson(response, 200, { paid: body.word ?? "?" });
  });
  const tool = await bootstrapCall(e2e, "POST", "/v1/tools", {
    projectId: e2e.defaultProjectId,
    id: toolId,
    version: "1.0.0",
    description: "Pays for a word.",
    mutating: true,
    effects: [{ kind: "external-side-effect", resource: "external:payments" }],
    input: { type: "object", required: ["word"], additionalProperties: false, properties: { word: { type: "string", title: "Word", description: "What to pay for" } } },
    output: { type: "object" },
    network: { kind: "allowlist", hosts: [server.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${server.origin}/pay`, requestBody: { kind: "json-input" } },
  });
  if (tool.status !== 201) throw new Error(`tool registration failed: ${JSON.stringify(tool.body)}`);
  await registerAgent(e2e, agentId);
  await registerAgent(e2e, phoneAgentId);
  const transfer = await bootstrapCall(e2e, "POST", "/v1/tools", {
    projectId: e2e.defaultProjectId,
    id: transferToolId,
    version: "1.0.0",
    description: "Transfers an amount.",
    mutating: true,
    input: { type: "object", required: ["amount"], additionalProperties: false, properties: { amount: { type: "number", title: "Amount" }, currency: { enum: ["EUR", "USD"] } } },
    output: { type: "object" },
    network: { kind: "allowlist", hosts: [server.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${server.origin}/transfer`, requestBody: { kind: "json-input" } },
  });
  if (transfer.status !== 201) throw new Error(`tool registration failed: ${JSON.stringify(transfer.body)}`);
  await registerAgent(e2e, transferAgentId, [transferToolId]);
  await registerAgent(e2e, chatAgentId, [], { conversationPolicy: { hitlAfterTurns: 1 } });
  const email = `reviewer-${stamp}@example.test`;
  const password = "a long reviewer password";
  const member = await bootstrapCall(e2e, "POST", "/v1/members", { email, name: "Rita Reviewer", role: "member", password });
  if (member.status !== 201) throw new Error(`member creation failed: ${JSON.stringify(member.body)}`);
  reviewer = await browser.newContext({ storageState: await signInState(e2e, email, password), baseURL: e2e.baseUrl });
  inbox = await reviewer.newPage();
});

test.afterAll(async () => {
  await reviewer?.close();
  await server?.close();
});

test("a new call appears without reload; edited then approved, the tool gets the edited arguments once", async ({ e2e }) => {
  await inbox.goto("/approvals");
  await expect(inbox.getByRole("heading", { name: /^Approvals/, level: 1 })).toBeVisible();
  await expect(inbox.getByTestId("live-indicator")).toHaveAttribute("data-live", "true");

  const run = await startRun(e2e, agentId, "apple");
  expect(run.status).toBe("suspended");
  const approval = await pendingOf(e2e, run.id);
  const row = inbox.locator(`[data-testid=approval-row][data-approval-id="${approval.id}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText(toolId);
  await expect(inbox.getByTestId("approval-count")).toHaveText("1");
  await expect(inbox).toHaveTitle(/^\(1\) Approvals/);
  await row.click();
  const detail = inbox.locator(`article[data-approval-id="${approval.id}"]`);
  await expect(detail).toContainText(`${toolId} @ 1.0.0`);
  await expect(detail).toContainText("external-side-effect: external:payments");
  await expect(detail.getByTestId("arguments-table")).toContainText("apple");
  await expect(detail).toContainText(/Expires\s*\d+h \d+m left/);
  await expectNoSeriousA11yViolations(inbox);

  await inbox.locator("body").press("e");
  const dialog = inbox.getByRole("dialog", { name: "Edit the arguments, then approve" });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel(/Word/).fill("banana");
  await dialog.getByRole("button", { name: "Review changes" }).click();
  const diff = dialog.getByTestId("arguments-diff");
  await expect(diff).toContainText('- "word": "apple"');
  await expect(diff).toContainText('+ "word": "banana"');
  await screenshot(inbox, "approvals-inbox");
  await dialog.getByRole("button", { name: "Approve with these arguments" }).click();
  await expect(row).toHaveCount(0);

  await expect.poll(() => runStatus(e2e, run.id), { timeout: 20_000 }).toBe("completed");
  expect(bodies()).toEqual([{ word: "banana" }]);
  const decided = (await bootstrapCall(e2e, "GET", `/v1/approvals/${approval.id}`)).body;
  expect(decided).toMatchObject({ status: "approved", arguments: { word: "apple" }, editedArguments: { word: "banana" } });
});

test("reject with a reason: the tool is not called and the rationale is kept", async ({ e2e }) => {
  const run = await startRun(e2e, agentId, "cherry");
  const approval = await pendingOf(e2e, run.id);
  const row = inbox.locator(`[data-testid=approval-row][data-approval-id="${approval.id}"]`);
  await expect(row).toBeVisible();
  await row.click();
  await inbox.locator("body").press("r");
  const dialog = inbox.getByRole("dialog", { name: "Reject this call" });
  await expect(dialog.getByRole("button", { name: "Reject" })).toBeDisabled();
  await dialog.getByLabel("Reason (required)").fill("not this one");
  await dialog.getByRole("button", { name: "Reject" }).click();
  await expect(row).toHaveCount(0);
  await expect.poll(() => runStatus(e2e, run.id), { timeout: 20_000 }).toBe("completed");
  expect((await bootstrapCall(e2e, "GET", `/v1/approvals/${approval.id}`)).body).toMatchObject({ status: "rejected", rationale: "not this one" });
  expect(bodies()).toEqual([{ word: "banana" }]);
});

test("a decision made elsewhere removes the item; the shortcut list opens with ?", async ({ e2e }) => {
  const run = await startRun(e2e, agentId, "date");
  const approval = await pendingOf(e2e, run.id);
  const row = inbox.locator(`[data-testid=approval-row][data-approval-id="${approval.id}"]`);
  await expect(row).toBeVisible();
  await inbox.locator("body").press("?");
  await expect(inbox.getByRole("dialog", { name: "Keyboard shortcuts" })).toContainText("Edit its arguments, then approve");
  await inbox.keyboard.press("Escape");
  expect((await bootstrapCall(e2e, "POST", `/v1/approvals/${approval.id}/complete`, { decision: "reject", rationale: "decided by the API" })).status).toBe(200);
  await expect(row).toHaveCount(0);
});

test("one approval's own page works at 375 px and approves", async ({ e2e }) => {
  const run = await startRun(e2e, phoneAgentId, "fig");
  const approval = await pendingOf(e2e, run.id);
  const phone = await reviewer.newPage();
  try {
    await phone.setViewportSize({ width: 375, height: 800 });
    await phone.goto(`/approvals/${approval.id}`);
    const detail = phone.locator(`article[data-approval-id="${approval.id}"]`);
    await expect(detail).toContainText(`${toolId} @ 1.0.0`);
    await expect(detail.getByTestId("arguments-table")).toContainText("fig");
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await expectNoSeriousA11yViolations(phone);
    // At 375 px (the fixture's screenshot helper would resize to the laptop viewport).
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await phone.screenshot({ path: path.join(SCREENSHOT_DIR, "approval-page-375.png"), fullPage: true });
    await detail.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(detail).toContainText("approved");
    await expect.poll(() => runStatus(e2e, run.id), { timeout: 20_000 }).toBe("completed");
    expect(bodies().at(-1)).toEqual({ word: "fig" });
  } finally {
    await phone.close();
  }
});

test("j and k move through the list oldest first, a approves the selected one", async ({ e2e }) => {
  const first = await startRun(e2e, agentId, "kiwi");
  const firstApproval = await pendingOf(e2e, first.id);
  const second = await startRun(e2e, agentId, "lemon");
  const secondApproval = await pendingOf(e2e, second.id);
  const rows = inbox.getByTestId("approval-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute("data-approval-id", firstApproval.id);
  await expect(rows.nth(1)).toHaveAttribute("data-approval-id", secondApproval.id);
  await expect(inbox.getByTestId("approval-count")).toHaveText("2");
  await inbox.locator("body").press("j");
  await expect(rows.nth(1)).toHaveAttribute("aria-current", "true");
  await inbox.keyboard.press("k");
  await expect(rows.nth(0)).toHaveAttribute("aria-current", "true");
  await inbox.keyboard.press("j");
  await inbox.keyboard.press("a");
  await expect(inbox.locator(`[data-approval-id="${secondApproval.id}"]`)).toHaveCount(0);
  await expect(rows).toHaveCount(1);
  await expect.poll(() => runStatus(e2e, second.id), { timeout: 20_000 }).toBe("completed");
  expect(bodies().at(-1)).toEqual({ word: "lemon" });
  await inbox.keyboard.press("a");
  await expect(rows).toHaveCount(0);
  await expect.poll(() => runStatus(e2e, first.id), { timeout: 20_000 }).toBe("completed");
  expect(bodies().slice(-2)).toEqual([{ word: "lemon" }, { word: "kiwi" }]);
});

test("approve and remember: the grant's scope is said in words and the next run passes without asking", async ({ e2e }) => {
  const run = await startRun(e2e, agentId, "grape");
  const approval = await pendingOf(e2e, run.id);
  const row = inbox.locator(`[data-testid=approval-row][data-approval-id="${approval.id}"]`);
  await expect(row).toBeVisible();
  await row.click();
  await inbox.getByRole("button", { name: "Approve and remember…" }).click();
  const dialog = inbox.getByRole("dialog", { name: "Approve and remember" });
  await expect(dialog.getByTestId("grant-scope")).toHaveText(`From now on, allow calls of ${toolId} by ${agentId} in this project without asking.`);
  await dialog.getByRole("button", { name: "Approve and remember" }).click();
  await expect(row).toHaveCount(0);
  await expect.poll(() => runStatus(e2e, run.id), { timeout: 20_000 }).toBe("completed");
  const next = await startRun(e2e, agentId, "honeydew");
  expect(next.status).toBe("completed");
  expect(bodies().slice(-2)).toEqual([{ word: "grape" }, { word: "honeydew" }]);
  await expect(inbox.getByText("Nothing waits for a decision")).toBeVisible();
});

test("the history tab lists decided approvals with who decided, when and the rationale; filters narrow the pending list", async ({ e2e }) => {
  await inbox.getByRole("tab", { name: "History" }).click();
  const history = inbox.getByTestId("approval-history");
  await expect(history).toBeVisible();
  const rejected = history.locator("tr", { hasText: "not this one" });
  await expect(rejected).toContainText("rejected");
  await expect(rejected).toContainText("Rita Reviewer");
  await expect(history.locator("tr", { hasText: "decided by the API" })).toContainText("rejected");
  await expect(history.locator("tr", { hasText: "banana" }).first()).toContainText("edited");
  await expectNoSeriousA11yViolations(inbox);
  await screenshot(inbox, "approvals-history");

  await inbox.getByRole("tab", { name: "Pending" }).click();
  const one = await startRun(e2e, phoneAgentId, "mango");
  const oneApproval = await pendingOf(e2e, one.id);
  const two = await startRun(e2e, phoneAgentId, "nectarine");
  const twoApproval = await pendingOf(e2e, two.id);
  const rows = inbox.getByTestId("approval-row");
  await expect(rows).toHaveCount(2);
  await inbox.getByLabel("Run", { exact: true }).selectOption(two.id);
  await expect(rows).toHaveCount(1);
  await expect(rows).toHaveAttribute("data-approval-id", twoApproval.id);
  await inbox.getByLabel("Run", { exact: true }).selectOption("");
  await inbox.getByLabel("Agent", { exact: true }).selectOption(phoneAgentId);
  await inbox.getByLabel("Tool", { exact: true }).selectOption(toolId);
  await expect(rows).toHaveCount(2);
  for (const approval of [oneApproval, twoApproval]) expect((await bootstrapCall(e2e, "POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve" })).status).toBe(200);
  await expect(rows).toHaveCount(0);
});

test("select several and decide them together: approve two at once, reject two with one reason", async ({ e2e }) => {
  const runs = [];
  for (const word of ["olive", "peach", "quince", "raisin"]) runs.push(await startRun(e2e, phoneAgentId, word));
  const approvals = [];
  for (const run of runs) approvals.push(await pendingOf(e2e, run.id));
  const rows = inbox.getByTestId("approval-row");
  await expect(rows).toHaveCount(4);
  await inbox.getByRole("checkbox").nth(0).check();
  await rows.nth(1).click();
  await inbox.locator("body").press("x");
  await expect(inbox.getByRole("checkbox").nth(1)).toBeChecked();
  await inbox.getByRole("group", { name: "Batch decision" }).getByRole("button", { name: "Approve 2" }).click();
  await expect(rows).toHaveCount(2);
  for (const run of runs.slice(0, 2)) await expect.poll(() => runStatus(e2e, run.id), { timeout: 20_000 }).toBe("completed");
  expect(bodies().slice(-2).map((body) => body.word).sort()).toEqual(["olive", "peach"]);

  await inbox.getByRole("checkbox").nth(0).check();
  await inbox.getByRole("checkbox").nth(1).check();
  await inbox.getByRole("button", { name: "Reject 2…" }).click();
  const dialog = inbox.getByRole("dialog", { name: "Reject 2 calls" });
  await dialog.getByLabel("Reason (required)").fill("batch no");
  await dialog.getByRole("button", { name: "Reject all" }).click();
  await expect(rows).toHaveCount(0);
  for (const approval of approvals.slice(2)) expect((await bootstrapCall(e2e, "GET", `/v1/approvals/${approval.id}`)).body).toMatchObject({ status: "rejected", rationale: "batch no" });
  expect(bodies().map((body) => body.word)).not.toContain("quince");
});

test("the navigation's badge counts the project's pending approvals live, with an accessible name", async ({ e2e }) => {
  const nav = inbox.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Approvals", exact: true })).toBeVisible();
  await expect(nav.getByTestId("nav-approval-count")).toHaveCount(0);
  const first = await startRun(e2e, phoneAgentId, "sloe");
  const firstApproval = await pendingOf(e2e, first.id);
  await expect(nav.getByRole("link", { name: /^Approvals\s*,\s*1\s*pending$/ })).toBeVisible();
  const second = await startRun(e2e, phoneAgentId, "tangerine");
  const secondApproval = await pendingOf(e2e, second.id);
  await expect(nav.getByRole("link", { name: /^Approvals\s*,\s*2\s*pending$/ })).toBeVisible();
  await expect(nav.getByTestId("nav-approval-count")).toHaveText("2");
  // On another page of the console too: the count follows the stream there.
  const elsewhere = await reviewer.newPage();
  try {
    await elsewhere.goto("/runs");
    const otherNav = elsewhere.getByRole("navigation", { name: "Main" });
    await expect(otherNav.getByRole("link", { name: /^Approvals\s*,\s*2\s*pending$/ })).toBeVisible();
    expect((await bootstrapCall(e2e, "POST", `/v1/approvals/${firstApproval.id}/complete`, { decision: "approve" })).status).toBe(200);
    await expect(otherNav.getByRole("link", { name: /^Approvals\s*,\s*1\s*pending$/ })).toBeVisible();
    await expect(nav.getByRole("link", { name: /^Approvals\s*,\s*1\s*pending$/ })).toBeVisible();
    await expectNoSeriousA11yViolations(elsewhere);
    expect((await bootstrapCall(e2e, "POST", `/v1/approvals/${secondApproval.id}/complete`, { decision: "reject", rationale: "badge done" })).status).toBe(200);
    await expect(otherNav.getByRole("link", { name: "Approvals", exact: true })).toBeVisible();
    await expect(otherNav.getByTestId("nav-approval-count")).toHaveCount(0);
  } finally {
    await elsewhere.close();
  }
});

/** Records each `new Notification(…)` and lets the spec say whether the tab is in the background. */
const RECORD_NOTIFICATIONS = () => {
  const real = window.Notification;
  const w = window as unknown as { __notifications: Array<{ title: string; options?: NotificationOptions; onclick: null | (() => void); closed: boolean }>; __asked: number; __focused: boolean };
  w.__notifications = [];
  w.__asked = 0;
  w.__focused = true;
  document.hasFocus = () => w.__focused;
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (w.__focused ? "visible" : "hidden") });
  function Recorded(title: string, options?: NotificationOptions) {
    const entry = { title, options, onclick: null as null | (() => void), closed: false };
    w.__notifications.push(entry);
    return {
      close() {
        entry.closed = true;
      },
      set onclick(handler: (() => void) | null) {
        entry.onclick = handler;
      },
      get onclick() {
        return entry.onclick;
      },
    };
  }
  Object.defineProperty(Recorded, "permission", { get: () => real.permission });
  Object.defineProperty(Recorded, "requestPermission", {
    value: () => {
      w.__asked += 1;
      return real.requestPermission();
    },
  });
  (window as unknown as { Notification: unknown }).Notification = Recorded;
};

test("notifications: asked only on a click, remembered, shown for a new approval while the tab is in the background; clicking opens it", async ({ e2e, browser }: { e2e: E2eState; browser: Browser }) => {
  const context = await browser.newContext({ storageState: await signInState(e2e, `reviewer-${stamp}@example.test`, "a long reviewer password"), baseURL: e2e.baseUrl });
  try {
    await context.grantPermissions(["notifications"], { origin: e2e.baseUrl });
    await context.addInitScript(RECORD_NOTIFICATIONS);
    const page = await context.newPage();
    await page.goto("/approvals");
    await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-live", "true");
    const toggle = page.getByRole("button", { name: "Notify me of new approvals" });
    await expect(toggle).toHaveAttribute("aria-pressed", "false");
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-pressed", "true");
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(1);
    expect(await page.evaluate(() => window.localStorage.getItem("kindgi.approvals.notify"))).toBe("on");

    // In the foreground, a new approval shows in the list and no notification.
    const seen = await startRun(e2e, phoneAgentId, "ugli");
    const seenApproval = await pendingOf(e2e, seen.id);
    await expect(page.locator(`[data-testid=approval-row][data-approval-id="${seenApproval.id}"]`)).toBeVisible();
    const notifications = () => page.evaluate(() => (window as unknown as { __notifications: Array<{ title: string; options?: NotificationOptions }> }).__notifications.map((entry) => ({ title: entry.title, tag: entry.options?.tag })));
    expect(await notifications()).toEqual([]);

    // Remembered across a reload, without asking again.
    await page.reload();
    await expect(toggle).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-live", "true");
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, "approvals-notify");

    await page.evaluate(() => {
      (window as unknown as { __focused: boolean }).__focused = false;
    });
    const hidden = await startRun(e2e, phoneAgentId, "vanilla");
    const hiddenApproval = await pendingOf(e2e, hidden.id);
    await expect.poll(notifications).toEqual([{ title: `${toolId} · ${phoneAgentId}`, tag: `approval-${hiddenApproval.id}` }]);
    await page.evaluate(() => (window as unknown as { __notifications: Array<{ onclick: () => void }> }).__notifications[0].onclick());
    await expect(page).toHaveURL(new RegExp(`/approvals/${hiddenApproval.id}$`));
    await expect(page.locator(`article[data-approval-id="${hiddenApproval.id}"]`)).toContainText(`${toolId} @ 1.0.0`);
    expect(await page.evaluate(() => (window as unknown as { __notifications: Array<{ closed: boolean }> }).__notifications[0].closed)).toBe(true);
    for (const approval of [seenApproval, hiddenApproval]) expect((await bootstrapCall(e2e, "POST", `/v1/approvals/${approval.id}/complete`, { decision: "reject", rationale: "notification checked" })).status).toBe(200);
  } finally {
    await context.close();
  }
});

test("approve and remember with a condition: said in words, sent as a JSON Schema; a call inside passes, one outside asks again", async ({ e2e }) => {
  await inbox.goto("/approvals");
  const run = await startRun(e2e, transferAgentId, JSON.stringify({ amount: 80, currency: "EUR" }));
  const approval = await pendingOf(e2e, run.id);
  const row = inbox.locator(`[data-testid=approval-row][data-approval-id="${approval.id}"]`);
  await row.click();
  await inbox.getByRole("button", { name: "Approve and remember…" }).click();
  const dialog = inbox.getByRole("dialog", { name: "Approve and remember" });
  await dialog.getByRole("button", { name: "Add a condition" }).click();
  await expect(dialog.getByLabel("Field of condition 1")).toHaveValue("amount");
  await dialog.getByLabel("Operator of condition 1").selectOption({ label: "is at most" });
  await dialog.getByLabel("Value of condition 1").fill("lots");
  await dialog.getByRole("button", { name: "Approve and remember" }).click();
  await expect(dialog.getByText("must be a number")).toBeVisible();
  await expect(dialog.getByLabel("Value of condition 1")).toHaveAttribute("aria-invalid", "true");
  await dialog.getByLabel("Value of condition 1").fill("100");
  await expect(dialog.getByTestId("grant-scope")).toHaveText(`From now on, allow calls of ${transferToolId} by ${transferAgentId} in this project where amount ≤ 100 without asking.`);
  await expectNoSeriousA11yViolations(inbox);
  await screenshot(inbox, "approvals-condition");
  await dialog.getByRole("button", { name: "Approve and remember" }).click();
  await expect(row).toHaveCount(0);
  await expect.poll(() => runStatus(e2e, run.id), { timeout: 20_000 }).toBe("completed");

  const grants = await bootstrapCall(e2e, "GET", `/v1/approval-grants?toolId=${transferToolId}`);
  expect(grants.body.data).toHaveLength(1);
  expect(grants.body.data[0]).toMatchObject({ agentId: transferAgentId, approvalId: approval.id, condition: { type: "object", properties: { amount: { type: "number", maximum: 100 } }, required: ["amount"] } });
  const inside = await startRun(e2e, transferAgentId, JSON.stringify({ amount: 100 }));
  expect(inside.status).toBe("completed");
  const outside = await startRun(e2e, transferAgentId, JSON.stringify({ amount: 250 }));
  expect(outside.status).toBe("suspended");
  const asked = await pendingOf(e2e, outside.id);
  await expect(inbox.locator(`[data-testid=approval-row][data-approval-id="${asked.id}"]`)).toBeVisible();
  expect(transfers().map((body) => body.amount)).toEqual([80, 100]);
  expect((await bootstrapCall(e2e, "POST", `/v1/approvals/${asked.id}/complete`, { decision: "reject", rationale: "too much" })).status).toBe(200);
  expect(transfers().map((body) => body.amount)).toEqual([80, 100]);
});

test("a session approval shows the conversation so far and the waiting message; approved, the turn runs", async ({ e2e }) => {
  const conversation = await bootstrapCall(e2e, "POST", "/v1/conversations", { agent: { id: chatAgentId } });
  expect(conversation.status).toBe(201);
  const conversationId = conversation.body.id as string;
  const first = await startRun(e2e, chatAgentId, "Where is the first turn?", conversationId);
  expect(first.status).toBe("completed");
  const second = await startRun(e2e, chatAgentId, "And the second one?", conversationId);
  expect(second.status).toBe("suspended");
  const approval = await pendingOf(e2e, second.id);
  const row = inbox.locator(`[data-testid=approval-row][data-approval-id="${approval.id}"]`);
  await expect(row).toContainText("Next turn");
  await row.click();
  const detail = inbox.locator(`article[data-approval-id="${approval.id}"]`);
  await expect(detail).toContainText(`Next turn of ${chatAgentId}`);
  const messages = detail.getByTestId("session-message");
  await expect(messages).toHaveCount(2);
  await expect(messages.nth(0)).toHaveAttribute("data-role", "user");
  await expect(messages.nth(0)).toContainText("Where is the first turn?");
  await expect(messages.nth(1)).toHaveAttribute("data-role", "assistant");
  await expect(messages.nth(1)).toContainText("Where is the first turn?");
  await expect(detail.getByTestId("session-next")).toHaveText("And the second one?");
  await expect(detail.getByTestId("arguments-table")).toHaveCount(0);
  await expect(detail.getByRole("button", { name: "Approve and remember…" })).toHaveCount(0);
  await expectNoSeriousA11yViolations(inbox);
  await screenshot(inbox, "approvals-session");

  const own = await reviewer.newPage();
  try {
    await own.goto(`/approvals/${approval.id}`);
    const page = own.locator(`article[data-approval-id="${approval.id}"]`);
    await expect(page.getByTestId("session-message")).toHaveCount(2);
    await expect(page.getByTestId("session-next")).toHaveText("And the second one?");
    await expectNoSeriousA11yViolations(own);
  } finally {
    await own.close();
  }
  await detail.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(row).toHaveCount(0);
  await expect.poll(() => runStatus(e2e, second.id), { timeout: 20_000 }).toBe("completed");
  const finished = (await bootstrapCall(e2e, "GET", `/v1/runs/${second.id}`)).body;
  expect(String(finished.output)).toContain("And the second one?");
});

test("the history tab lists the most recent decision first", async ({ e2e }) => {
  const run = await startRun(e2e, phoneAgentId, "watermelon");
  const approval = await pendingOf(e2e, run.id);
  expect((await bootstrapCall(e2e, "POST", `/v1/approvals/${approval.id}/complete`, { decision: "reject", rationale: "the latest decision" })).status).toBe(200);
  await inbox.getByRole("tab", { name: "History" }).click();
  const rows = inbox.getByTestId("approval-history").locator("tbody tr");
  await expect(rows.first()).toHaveAttribute("data-approval-id", approval.id);
  await expect(rows.first()).toContainText("the latest decision");
  await expect(rows.first()).toContainText("word: watermelon");
  await expect(inbox.getByTestId("approval-history").getByRole("heading", { name: "Arguments" })).toHaveCount(0);
  const times = await rows.evaluateAll((list) => list.map((row) => row.getAttribute("data-decided-at") ?? ""));
  expect(times.length).toBeGreaterThan(5);
  expect([...times].sort().reverse()).toEqual(times);
  await inbox.getByRole("tab", { name: "Pending" }).click();
});

/** A pass-through HTTP proxy for the page's stream that the spec can cut (every open connection) and refuse for a while. */
async function startStreamProxy(target: string) {
  const sockets = new Set<Socket>();
  const seen: Array<{ lastEventId: string | null }> = [];
  let refusing = false;
  const proxy = http.createServer((request, response) => {
    if (refusing) {
      request.socket.destroy();
      return;
    }
    seen.push({ lastEventId: (request.headers["last-event-id"] as string | undefined) ?? null });
    const upstream = http.request(new URL(request.url ?? "/", target), { method: request.method, headers: { ...request.headers, host: new URL(target).host } }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
  proxy.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    drop() {
      refusing = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      proxy.close(() => resolve());
    }),
  };
}

test("a dropped stream: the indicator leaves live, an approval asked meanwhile appears after the reconnect (Last-Event-ID)", async ({ e2e }) => {
  const proxy = await startStreamProxy(e2e.baseUrl);
  const page = await reviewer.newPage();
  try {
    await page.route("**/v1/approvals/stream*", (route) => {
      const url = new URL(route.request().url());
      return route.continue({ url: `${proxy.origin}${url.pathname}${url.search}` });
    });
    await page.goto("/approvals");
    const indicator = page.getByTestId("live-indicator");
    await expect(indicator).toHaveAttribute("data-live", "true");
    const before = await startRun(e2e, phoneAgentId, "xigua");
    const beforeApproval = await pendingOf(e2e, before.id);
    await expect(page.locator(`[data-testid=approval-row][data-approval-id="${beforeApproval.id}"]`)).toBeVisible();
    const connections = proxy.seen.length;

    proxy.drop();
    await expect(indicator).toHaveAttribute("data-live", "false");
    await expect(indicator).toHaveText("reconnecting…");
    await expectNoSeriousA11yViolations(page);
    const during = await startRun(e2e, phoneAgentId, "yuzu");
    const duringApproval = await pendingOf(e2e, during.id);
    const duringRow = page.locator(`[data-testid=approval-row][data-approval-id="${duringApproval.id}"]`);
    await page.waitForTimeout(1500);
    await expect(duringRow).toHaveCount(0);

    proxy.restore();
    await expect(indicator).toHaveAttribute("data-live", "true", { timeout: 15_000 });
    await expect(duringRow).toBeVisible();
    const resumed = proxy.seen.slice(connections);
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(resumed[0].lastEventId)).toBeGreaterThan(0);
    for (const approval of [beforeApproval, duringApproval]) expect((await bootstrapCall(e2e, "POST", `/v1/approvals/${approval.id}/complete`, { decision: "reject", rationale: "stream checked" })).status).toBe(200);
    await expect(page.getByTestId("approval-row")).toHaveCount(0);
  } finally {
    await page.close();
    await proxy.close();
  }
});
