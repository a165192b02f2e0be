import type { Browser, BrowserContext, Page } from "@playwright/test";
import { startRecordingServer, sendJson, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { expect, expectNoSeriousA11yViolations, screenshot, signInState, test, type ApiClient } from "./fixtures";
import { bootstrapCall } from "./run-setup";
import type { E2eState } from "./state";

/**
 * The whole approval flow through the console: a run started in the playground waits for a mutating HTTP tool's
 * call; a second member sees it in the inbox without reload, edits one argument and approves; the playground turns
 * the pending call into who approved it and streams on to the answer, and the tool received the edited arguments
 * once. Then a call is rejected in place with a reason, which reaches the model as the call's result; the run's page
 * shows the approval as a gap in its timeline. A run cancelled while it waits withdraws its approval; a session
 * approval (hitlAfterTurns) is decided in place too.
 */
test.describe.configure({ mode: "serial" });

const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const toolId = `e2e.transfer-${stamp}`;
const agentId = `e2e.treasurer-${stamp}`;
const sessionAgentId = `e2e.chatty-${stamp}`;
let server: RecordingServer;
let reviewer: BrowserContext;
let inbox: Page;
const reviewerName = "Rita Reviewer";

const bodies = () => server.requests.map((request) => JSON.parse(request.body) as { payee?: string });

async function approvalsOf(api: ApiClient, runId: string) {
  return (await api.get<{ data: { id: string; status: string; rationale: string | null; arguments: unknown; editedArguments: unknown }[] }>(`/v1/approvals?runId=${runId}`)).body.data;
}

async function runOf(api: ApiClient, runId: string) {
  return (await api.get<{ status: string; output: unknown }>(`/v1/runs/${runId}`)).body;
}

/** Picks the agent version in the playground as a person does, and fills its parameter form. */
async function openPlayground(page: Page, agent: string, customer?: string) {
  await page.goto("/playground");
  await expect(page.getByRole("heading", { name: "Playground", level: 1 })).toBeVisible();
  await page.getByLabel("Agent", { exact: true }).selectOption(agent);
  await expect(page.getByLabel("Version")).toHaveValue("1.0.0");
  await page.getByLabel("Version").selectOption("1.0.0");
  if (customer !== undefined) await page.getByLabel(/customer/i).fill(customer);
}

async function send(page: Page, message: string) {
  await page.getByLabel("Message").fill(message);
  await page.getByRole("button", { name: "Send" }).click();
}

/** The newest turn's run id in the playground. */
async function lastRunId(page: Page) {
  const id = await page.locator("[data-run-id]").last().getAttribute("data-run-id");
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return id as string;
}

test.beforeAll(async ({ e2e, browser }: { e2e: E2eState; browser: Browser }) => {
  server = await startRecordingServer((request, response) => {
    const body = request.body ? (JSON.parse(request.body) as { payee?: string }) : {};
    sendJson(response, 200, { transferred: true, payee: body.payee ?? "?" });
  });
  const tool = await bootstrapCall(e2e, "POST", "/v1/tools", {
    projectId: e2e.defaultProjectId,
    id: toolId,
    version: "1.0.0",
    description: "Transfers money to a payee.",
    mutating: true,
    effects: [{ kind: "external-side-effect", resource: "external:bank" }],
    input: { type: "object", required: ["payee"], additionalProperties: false, properties: { payee: { type: "string", title: "Payee", description: "Who gets the money" } } },
    output: { type: "object" },
    network: { kind: "allowlist", hosts: [server.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${server.origin}/transfer`, requestBody: { kind: "json-input" } },
  });
  if (tool.status !== 201) throw new Error(`tool registration failed: ${JSON.stringify(tool.body)}`);
  const common = { version: "1.0.0", capabilities: [{ kind: "llm-inference" }], retrieval: [], guardrails: [], projectId: e2e.defaultProjectId };
  const agent = await bootstrapCall(e2e, "POST", "/v1/agents", {
    ...common,
    id: agentId,
    name: "Treasurer",
    description: "Transfers money when asked.",
    instructions: "Transfer money for {{ customer }} to the payee named.",
    parameters: [{ name: "customer", type: "string", required: true, description: "Whose money it is" }],
    tools: [{ id: toolId, version: "^1.0.0" }],
  });
  if (agent.status !== 201) throw new Error(`agent registration failed: ${JSON.stringify(agent.body)}`);
  const chatty = await bootstrapCall(e2e, "POST", "/v1/agents", {
    ...common,
    id: sessionAgentId,
    name: "Chatty",
    description: "Talks; a person allows every second turn.",
    instructions: "Answer briefly.",
    parameters: [],
    tools: [],
    conversationPolicy: { hitlAfterTurns: 1 },
  });
  if (chatty.status !== 201) throw new Error(`agent registration failed: ${JSON.stringify(chatty.body)}`);
  const email = `flow-reviewer-${stamp}@example.test`;
  const password = "a long reviewer password";
  const member = await bootstrapCall(e2e, "POST", "/v1/members", { email, name: reviewerName, role: "member", password });
  if (member.status !== 201) throw new Error(`member creation failed: ${JSON.stringify(member.body)}`);
  reviewer = await browser.newContext({ storageState: await signInState(e2e, email, password), baseURL: e2e.baseUrl });
  inbox = await reviewer.newPage();
});

test.afterAll(async () => {
  await reviewer?.close();
  await server?.close();
});

test("a run started in the playground is approved with an edit in another member's inbox, then a call is rejected in place", async ({ page, api, e2e }) => {
  test.setTimeout(150_000);
  const members = await api.get<{ data: { email: string; name: string }[] }>("/v1/members?limit=100");
  const admin = members.body.data.find((member) => member.email === e2e.adminEmail);
  expect(admin).toBeTruthy();
  const adminName = admin!.name || admin!.email;

  await inbox.goto("/approvals");
  await expect(inbox.getByRole("heading", { name: /^Approvals/, level: 1 })).toBeVisible();
  await expect(inbox.getByTestId("live-indicator")).toHaveAttribute("data-live", "true");

  // Start the run in the playground: the agent version, its parameter form, a message.
  await openPlayground(page, agentId, "Ada");
  await send(page, "apple");
  const firstRunId = await lastRunId(page);
  const firstTurn = page.locator(`[data-run-id="${firstRunId}"]`);
  const pending = firstTurn.locator('[data-testid=approval-card][data-status="pending"]');
  await expect(pending).toBeVisible();
  await expect(pending).toContainText(`${toolId} @ 1.0.0`);
  await expect(pending).toContainText("external-side-effect: external:bank");
  await expect(pending.getByTestId("arguments-table")).toContainText("apple");
  for (const action of ["Approve", "Approve and remember…", "Edit then approve…", "Reject…"]) await expect(pending.getByRole("button", { name: action, exact: true })).toBeEnabled();
  await expect(firstTurn.getByTestId("run-waiting")).toBeVisible();
  await expect(page.getByTestId("run-events").locator('[data-event-type="approval-requested"]')).toContainText(`Waiting for an approval of ${toolId}@1.0.0`);
  expect((await runOf(api, firstRunId)).status).toBe("suspended");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "flow-playground-approval");

  // The other member sees it appear in the inbox without reload, edits the payee and approves.
  const [approval] = await approvalsOf(api, firstRunId);
  const row = inbox.locator(`[data-testid=approval-row][data-approval-id="${approval.id}"]`);
  await expect(row).toBeVisible();
  await row.click();
  const detail = inbox.locator(`article[data-approval-id="${approval.id}"]`);
  await expect(detail.getByTestId("arguments-table")).toContainText("apple");
  await expectNoSeriousA11yViolations(inbox);
  await detail.getByRole("button", { name: "Edit then approve…" }).click();
  const dialog = inbox.getByRole("dialog", { name: "Edit the arguments, then approve" });
  await dialog.getByLabel(/Payee/).fill("banana");
  await dialog.getByRole("button", { name: "Review changes" }).click();
  await expect(dialog.getByTestId("arguments-diff")).toContainText('+ "payee": "banana"');
  await screenshot(inbox, "flow-inbox-edit");
  await dialog.getByRole("button", { name: "Approve with these arguments" }).click();
  await expect(row).toHaveCount(0);

  // The playground follows without reload: who approved, the tool's result, the final answer.
  const decided = firstTurn.locator('[data-testid=approval-card][data-status="approved"]');
  await expect(decided.getByTestId("approval-outcome")).toHaveText(`approved by ${reviewerName} with edited arguments`);
  await expect(decided.getByTestId("arguments-diff")).toContainText('- "payee": "apple"');
  await expect(firstTurn.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  const events = page.getByTestId("run-events");
  await expect(events.locator('[data-event-type="approval-decided"]')).toContainText("Approval approved with edited arguments");
  await expect(events.locator('[data-event-type="tool-call-completed"]')).toContainText("banana");
  const firstAnswer = firstTurn.locator('[data-role="assistant"]');
  await expect(firstAnswer).toContainText('{"transferred":true,"payee":"banana"}');
  await expect(firstAnswer.getByTestId("dev-echo-mark")).toHaveText("not from a real model (dev-echo)");
  await expect(events.getByTestId("accrued")).toHaveText(/^2 model · 1 tool calls · [1-9]\d* tokens · /);
  expect(bodies()).toEqual([{ payee: "banana" }]);
  expect(await approvalsOf(api, firstRunId)).toMatchObject([{ status: "approved", arguments: { payee: "apple" }, editedArguments: { payee: "banana" } }]);

  // Another call, rejected in place with a reason: the reason goes back to the model as the call's result.
  await send(page, "cherry");
  await expect(page.locator("[data-run-id]")).toHaveCount(2);
  const secondRunId = await lastRunId(page);
  const secondTurn = page.locator(`[data-run-id="${secondRunId}"]`);
  const second = secondTurn.locator('[data-testid=approval-card][data-status="pending"]');
  await expect(second.getByTestId("arguments-table")).toContainText("cherry");
  const [asked] = await approvalsOf(api, secondRunId);
  const secondRow = inbox.locator(`[data-testid=approval-row][data-approval-id="${asked.id}"]`);
  await expect(secondRow).toBeVisible();
  await second.getByRole("button", { name: "Reject…" }).click();
  const reject = page.getByRole("dialog", { name: "Reject this call" });
  await expect(reject.getByRole("button", { name: "Reject", exact: true })).toBeDisabled();
  await reject.getByLabel("Reason (required)").fill("not this payee");
  await reject.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(secondTurn.locator('[data-testid=approval-card][data-status="rejected"]').getByTestId("approval-outcome")).toHaveText(`rejected by ${adminName}: not this payee`);
  // dev-echo's next step answers with the call's result, which is the rejection with its reason.
  const secondAnswer = secondTurn.locator('[data-role="assistant"]');
  await expect(secondAnswer).toContainText("[dev-echo: not a real model]");
  await expect(secondAnswer).toContainText('{"error":{"kind":"tool-error","reason":"approval-rejected","message":"the call was not run: a person rejected it (rationale: not this payee)"}}');
  await expect(page.getByTestId("run-events").locator('[data-event-type="approval-decided"]')).toContainText(/Approval rejected#\d+ · \+\d+ msnot this payee/);
  expect(await runOf(api, secondRunId)).toMatchObject({ status: "completed" });
  expect(bodies()).toEqual([{ payee: "banana" }]);
  // Decided in the playground, the call left the other member's inbox, where it had appeared.
  expect(await approvalsOf(api, secondRunId)).toMatchObject([{ id: asked.id, status: "rejected", rationale: "not this payee" }]);
  await expect(secondRow).toHaveCount(0);

  // The first run's page: its timeline with the approval as a gap between the model steps.
  await firstAnswer.getByRole("link", { name: /^Run / }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${firstRunId}$`));
  const timeline = page.getByTestId("run-timeline");
  await expect(timeline).toBeVisible();
  const gap = timeline.locator('[data-bar-kind="wait"]');
  await expect(gap).toHaveCount(1);
  expect(await gap.getAttribute("aria-label")).toMatch(/^Waiting for an approval/);
  await expect(timeline.locator('[data-bar-kind="model"]')).toHaveCount(2);
  await expect(timeline.locator('[data-bar-kind="tool"]')).toHaveCount(1);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "flow-run-timeline");
});

test("a waiting call is still there when the conversation is opened again; cancelling the run withdraws it", async ({ page, api }) => {
  await openPlayground(page, agentId, "Bob");
  await send(page, "date");
  const runId = await lastRunId(page);
  await expect(page.locator(`[data-run-id="${runId}"] [data-testid=approval-card][data-status="pending"]`)).toBeVisible();
  await expect(page).toHaveURL(/conversation=/);
  await page.reload();
  const turn = page.locator(`[data-run-id="${runId}"]`);
  await expect(turn.locator('[data-testid=approval-card][data-status="pending"]').getByTestId("arguments-table")).toContainText("date");
  await expect(turn.locator('[data-role="user"]')).toHaveText(/date$/);
  await expect(page.locator('[data-role="user"]')).toHaveCount(1);
  await page.getByRole("button", { name: "Cancel run" }).click();
  await expect(turn.getByText("The run was cancelled.")).toBeVisible();
  await expect(turn.locator('[data-testid=approval-card][data-status="withdrawn"]').getByTestId("approval-outcome")).toHaveText("withdrawn: the run was cancelled");
  expect((await runOf(api, runId)).status).toBe("cancelled");
  expect(await approvalsOf(api, runId)).toMatchObject([{ status: "withdrawn" }]);
  expect(bodies().map((body) => body.payee)).not.toContain("date");
});

test("a session approval (hitlAfterTurns) is decided in place, and a decision from the API shows live", async ({ page, api }) => {
  await openPlayground(page, sessionAgentId);
  await send(page, "hello");
  await expect(page.locator('[data-role="assistant"]').last()).toContainText("hello");

  await send(page, "again");
  await expect(page.locator("[data-run-id]")).toHaveCount(2);
  const secondRunId = await lastRunId(page);
  const second = page.locator(`[data-run-id="${secondRunId}"]`);
  const card = second.locator('[data-testid=approval-card][data-status="pending"]');
  await expect(card).toContainText("The conversation waits for a person to allow its next turn.");
  await expect(card.getByRole("button", { name: "Edit then approve…" })).toHaveCount(0);
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(second.locator('[data-testid=approval-card][data-status="approved"]').getByTestId("approval-outcome")).toHaveText(/^approved by /);
  await expect(second.locator('[data-role="assistant"]')).toContainText("again");

  // With hitlAfterTurns 1 the next turn asks again; this time someone else decides, through the API.
  await send(page, "third");
  await expect(page.locator("[data-run-id]")).toHaveCount(3);
  const thirdRunId = await lastRunId(page);
  const third = page.locator(`[data-run-id="${thirdRunId}"]`);
  await expect(third.locator('[data-testid=approval-card][data-status="pending"]')).toBeVisible();
  const [asked] = await approvalsOf(api, thirdRunId);
  expect((await api.post(`/v1/approvals/${asked.id}/complete`, { decision: "reject", rationale: "enough for today" })).status).toBe(200);
  await expect(third.locator('[data-testid=approval-card][data-status="rejected"]').getByTestId("approval-outcome")).toHaveText(/^rejected by .+: enough for today$/);
  await expect(third.getByTestId("run-failure")).toContainText("approval-rejected");
  expect((await runOf(api, thirdRunId)).status).toBe("failed");
});
