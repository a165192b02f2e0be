import { Webhook } from "standardwebhooks";
import { startRecordingServer, sendJson, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./fixtures";
import { bootstrapCall, dictionaryAgent } from "./run-setup";

/**
 * The automation settings, driven as an admin does: a schedule with a seconds cron is refused with a bad pattern
 * (the API's issue at the field), created, fires with a run, paused; a webhook is created (URL and secret shown
 * once), a delivery signed with the standardwebhooks library starts a run that the deliveries list links to; both
 * appear in the audit log; a grant made by "approve and remember" over the API is revoked from its page.
 */
test.describe.configure({ mode: "serial" });

const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let agent: Awaited<ReturnType<typeof dictionaryAgent>>;
let payServer: RecordingServer | undefined;

test.beforeAll(async ({ e2e }) => {
  agent = await dictionaryAgent(e2e, stamp, { suffix: "-auto" });
});

test.afterAll(async () => {
  await agent?.server.close();
  await payServer?.close();
});

test("create a schedule with a seconds cron, see a fire with its run, pause it", async ({ page, api }) => {
  test.setTimeout(90_000);
  const name = `every-two-seconds-${stamp}`;
  await page.goto("/settings/schedules");
  await expect(page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Schedules" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("heading", { name: "No schedules yet" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("button", { name: "New schedule" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New schedule" });
  await dialog.getByLabel("Name").fill(name);
  const cron = dialog.getByLabel("Cron pattern");
  await cron.fill("61 * * * *");
  await dialog.getByLabel("Agent", { exact: true }).selectOption(agent.agentId);
  await dialog.getByLabel("User message").fill("apple");
  await dialog.getByLabel("Customer").fill("Ada");
  await dialog.getByRole("button", { name: "Create schedule" }).click();
  // The API's verdict lands beside the cron field, which is marked invalid.
  await expect(dialog.locator('[data-issue-path="/cron"]')).toBeVisible();
  await expect(cron).toHaveAttribute("aria-invalid", "true");
  await expectNoSeriousA11yViolations(page);

  await cron.fill("*/2 * * * * *");
  await expect(dialog.getByText("Runs: Every 2 seconds.")).toBeVisible();
  await dialog.getByRole("button", { name: "Create schedule" }).click();
  await expect(dialog).toHaveCount(0);

  const card = page.locator(`li[data-schedule="${name}"]`);
  await expect(card).toContainText("Every 2 seconds");
  await expect(card.getByText("active", { exact: true })).toBeVisible();
  await expect(card).toContainText(`${agent.agentId} @ latest`);
  await card.getByText("Fires").click();
  const runLink = card.getByRole("link", { name: /^Run / }).first();
  await expect(runLink).toBeVisible({ timeout: 30_000 });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-schedules");

  const schedules = await api.get<{ data: { id: string; name: string }[] }>("/v1/schedules");
  const schedule = schedules.body.data.find((item) => item.name === name)!;
  const fires = await api.get<{ data: { runId: string | null }[] }>(`/v1/schedules/${schedule.id}/fires`);
  const href = (await runLink.getAttribute("href"))!;
  expect(fires.body.data.map((fire) => `/runs/${fire.runId}`)).toContain(href);
  const firedRun = href.split("/").pop()!;

  await card.getByRole("button", { name: `Pause ${name}` }).click();
  await expect(card.getByText("paused", { exact: true })).toBeVisible();
  await expect(card.getByRole("button", { name: `Resume ${name}` })).toBeVisible();
  expect((await api.get<{ status: string; nextFireAt: string | null }>(`/v1/schedules/${schedule.id}`)).body).toMatchObject({ status: "paused", nextFireAt: null });

  // Newer fires came in meanwhile: follow the one read above.
  await card.getByRole("link", { name: `Run ${firedRun}` }).click();
  await expect(page).toHaveURL(new RegExp(`${href}$`));
});

test("create a webhook, see its secret once, post a signed delivery and see it with its run", async ({ page, context, e2e, api }) => {
  test.setTimeout(90_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: e2e.baseUrl });
  const name = `orders-${stamp}`;
  await page.goto("/settings/webhooks");
  await expect(page.getByRole("heading", { name: "No webhooks yet" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("button", { name: "New webhook" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New webhook" });
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByLabel("Agent", { exact: true }).selectOption(agent.agentId);
  await dialog.getByLabel("User message template").fill("{{ payload.word }}");
  await dialog.getByLabel("Customer (required)").fill("/customer/name");
  await dialog.getByRole("button", { name: "Create webhook" }).click();

  const once = page.getByRole("dialog", { name: "Your new webhook" });
  await expect(once).toBeVisible();
  const url = await once.getByLabel("Receiver URL", { exact: true }).inputValue();
  const secret = await once.getByLabel("Signing secret", { exact: true }).inputValue();
  expect(url).toMatch(new RegExp(`^${e2e.baseUrl}/v1/hooks/[0-9a-f-]{36}$`));
  expect(secret).toMatch(/^whsec_/);
  await once.getByRole("button", { name: "Copy signing secret" }).click();
  await expect(once.getByRole("button", { name: "Copied signing secret" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await expect(once.getByRole("figure", { name: /sign a delivery/ })).toContainText("webhook-signature: v1,");
  await expectNoSeriousA11yViolations(page);
  await once.getByRole("button", { name: "Done" }).click();
  // Shown once: the page no longer holds the secret.
  expect(await page.content()).not.toContain(secret);

  const messageId = `msg_${stamp}`;
  const body = JSON.stringify({ word: "pear", customer: { name: "Grace" } });
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(messageId, timestamp, body);
  const delivered = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", "webhook-id": messageId, "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)), "webhook-signature": signature }, body });
  expect(delivered.status).toBe(202);
  const delivery = (await delivered.json()) as { outcome: string; runId: string };
  expect(delivery.outcome).toBe("started");

  const card = page.locator(`li[data-webhook="${name}"]`);
  await expect(card).toContainText("customer ← /customer/name");
  await card.getByText("Deliveries").click();
  const row = card.locator("tr", { hasText: messageId });
  await expect(row).toBeVisible();
  await expect(row.getByText("started")).toBeVisible();
  await expect(row.getByRole("link", { name: `Run ${delivery.runId}` })).toHaveAttribute("href", `/runs/${delivery.runId}`);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-webhooks");

  await card.getByRole("button", { name: `Pause ${name}` }).click();
  await expect(card.getByText("paused", { exact: true })).toBeVisible();
  const webhooks = await api.get<{ data: { name: string; status: string }[] }>("/v1/webhooks");
  expect(webhooks.body.data.find((item) => item.name === name)?.status).toBe("paused");
});

test("the audit log lists both, newest first, filters by action and folds each event's data", async ({ page }) => {
  await page.goto("/settings/audit-log");
  const rows = page.locator("tbody tr");
  await expect(page.locator('tr[data-audit-action="schedule.created"]').first()).toBeVisible();
  await expect(page.locator('tr[data-audit-action="webhook.created"]').first()).toBeVisible();
  await expect(page.locator('tr[data-audit-action="schedule.paused"]').first()).toBeVisible();
  // Newest first: the webhook's pause is the last thing done.
  await expect(rows.first()).toHaveAttribute("data-audit-action", "webhook.paused");
  await expectNoSeriousA11yViolations(page);

  await page.getByLabel("Action").fill("schedule.created");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(rows.first()).toHaveAttribute("data-audit-action", "schedule.created");
  await expect(page.locator('tr[data-audit-action="webhook.created"]')).toHaveCount(0);
  await expect(rows.first().locator("pre")).toBeHidden(); // folded until asked
  await rows.first().getByText(/\d+ fields/).click();
  await expect(rows.first()).toContainText(`"name": "every-two-seconds-${stamp}"`);
  await expect(rows.first()).toContainText(`"cron": "*/2 * * * * *"`);
  await screenshot(page, "settings-audit-log");

  await page.getByLabel("Action").fill("no.such-action");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByRole("heading", { name: "No event matches these filters" })).toBeVisible();
  await page.getByRole("button", { name: "Clear" }).click();
  await expect(rows.first()).toHaveAttribute("data-audit-action", "webhook.paused");
});

test("revoke a grant made by approve-and-remember; the page says where grants come from", async ({ page, e2e, api }) => {
  // The empty state in a project of its own (other specs leave grants in the default project).
  const empty = await api.post<{ id: string }>("/v1/projects", { name: `No grants ${stamp}` });
  expect(empty.status).toBe(201);
  await page.goto(`/settings/grants?project=${empty.body.id}`);
  await expect(page.getByRole("heading", { name: "No grants yet" })).toBeVisible();
  await expect(page.getByText("Approve and remember")).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  payServer = await startRecordingServer((_request, response) => sendJson(response, 200, { paid: true }));
  const toolId = `e2e.pay-auto-${stamp}`;
  const agentId = `e2e.payer-auto-${stamp}`;
  const tool = await bootstrapCall(e2e, "POST", "/v1/tools", {
    projectId: e2e.defaultProjectId,
    id: toolId,
    version: "1.0.0",
    description: "Pays for a word.",
    mutating: true,
    input: { type: "object", required: ["word"], additionalProperties: false, properties: { word: { type: "string" } } },
    output: { type: "object" },
    network: { kind: "allowlist", hosts: [payServer.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${payServer.origin}/pay`, requestBody: { kind: "json-input" } },
  });
  expect(tool.status).toBe(201);
  const registered = await bootstrapCall(e2e, "POST", "/v1/agents", {
    projectId: e2e.defaultProjectId,
    id: agentId,
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
  expect(registered.status).toBe(201);
  const run = await bootstrapCall<{ id: string; status: string }>(e2e, "POST", "/v1/runs", { agent: { id: agentId }, input: { userMessage: "plum" } });
  expect(run.body.status).toBe("suspended");
  const pending = await api.get<{ data: { id: string }[] }>(`/v1/approvals?runId=${run.body.id}&status=pending`);
  const approvalId = pending.body.data[0].id;
  const decided = await api.post<{ grantId: string }>(`/v1/approvals/${approvalId}/complete`, { decision: "approve", remember: true });
  expect(decided.status).toBe(200);
  const grantId = decided.body.grantId;

  await page.goto(`/settings/grants?project=${e2e.defaultProjectId}`);
  const row = page.locator(`tr[data-grant-id="${grantId}"]`);
  await expect(row).toContainText(agentId);
  await expect(row).toContainText(toolId);
  await expect(row.getByText("every call")).toBeVisible();
  await expect(row.getByRole("link", { name: `from approval ${approvalId.slice(0, 8)}` })).toHaveAttribute("href", `/approvals/${approvalId}`);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-grants");

  await row.getByRole("button", { name: `Revoke the grant ${agentId} → ${toolId}` }).click();
  const confirm = page.getByRole("dialog", { name: "Revoke this grant?" });
  await expectNoSeriousA11yViolations(page);
  await confirm.getByRole("button", { name: "Revoke grant" }).click();
  await expect(row).toHaveCount(0);
  const grants = await api.get<{ data: { id: string; revokedAt: string | null }[] }>("/v1/approval-grants?revoked=true");
  expect(grants.body.data.find((grant) => grant.id === grantId)?.revokedAt).toEqual(expect.any(String));

  await page.getByLabel("Show revoked grants instead").check();
  await expect(row.getByText("revoked", { exact: true })).toBeVisible();
});

test("notification endpoints: an empty page that says what to do, and the add dialog", async ({ page }) => {
  await page.goto("/settings/notifications");
  await expect(page.getByRole("heading", { name: "No notification endpoints yet" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.getByRole("button", { name: "Add an endpoint" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add a notification endpoint" });
  await dialog.getByLabel("URL").fill("http://127.0.0.1:9/private");
  await dialog.getByRole("button", { name: "Add endpoint" }).click();
  // Loopback is refused by the network rules unless the server allows it: the API's answer is shown.
  await expect(dialog.getByRole("alert")).toContainText("notification-endpoint-refused");
  await expectNoSeriousA11yViolations(page);
});
