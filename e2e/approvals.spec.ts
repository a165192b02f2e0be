import type { Browser, BrowserContext, Page } from "@playwright/test";
import { startRecordingServer, sendJson, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import fs from "node:fs";
import path from "node:path";
import { SCREENSHOT_DIR, expect, expectNoSeriousA11yViolations, screenshot, signInState, test } from "./fixtures";
import { bootstrapCall } from "./run-setup";
import type { E2eState } from "./state";

/**
 * The approval inbox, seen by a second member in their own browser context: a mutating HTTP tool's call waits there,
 * appears without reload through the stream, is edited then approved (the recording server gets the edited arguments
 * once), rejected with a reason, approved on its own page at 375 px, and approved-and-remembered so the next run
 * passes without asking.
 */
test.describe.configure({ mode: "serial" });

const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const toolId = `e2e.pay-${stamp}`;
const agentId = `e2e.payer-${stamp}`;
const phoneAgentId = `e2e.payer-phone-${stamp}`;
let server: RecordingServer;
let reviewer: BrowserContext;
let inbox: Page;

async function registerAgent(e2e: E2eState, id: string) {
  const agent = await bootstrapCall(e2e, "POST", "/v1/agents", {
    projectId: e2e.defaultProjectId,
    id,
    version: "1.0.0",
    name: "Payer",
    description: "Pays words.",
    instructions: "Pay what is asked.",
    parameters: [],
    capabilities: [{ kind: "llm-inference" }],
    tools: [{ id: toolId, version: "^1.0.0" }],
    retrieval: [],
    guardrails: [],
  });
  if (agent.status !== 201) throw new Error(`agent registration failed: ${JSON.stringify(agent.body)}`);
}

async function startRun(e2e: E2eState, agent: string, message: string) {
  const run = await bootstrapCall(e2e, "POST", "/v1/runs", { agent: { id: agent }, input: { userMessage: message } });
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

const bodies = () => server.requests.map((request) => JSON.parse(request.body) as { word?: string });

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
