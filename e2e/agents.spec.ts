import type { Page } from "@playwright/test";
import { expect, expectNoSeriousA11yViolations, screenshot, signInState, test, type ApiClient } from "./fixtures";

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function registerTool(api: ApiClient, id: string, version: string) {
  const whoami = await api.get<{ tenant: { defaultProjectId: string } }>("/v1/identity/whoami");
  const created = await api.post("/v1/tools", {
    id,
    version,
    description: "Looks up an order by its number.",
    input: { type: "object", properties: { order: { type: "string" } }, required: ["order"], additionalProperties: false },
    output: { type: "object", properties: { status: { type: "string" } } },
    mutating: false,
    effects: [{ kind: "reads", resource: "orders" }],
    network: { kind: "allowlist", hosts: ["orders.example.test"] },
    spec: { kind: "http", method: "GET", urlTemplate: "https://orders.example.test/orders/{order}" },
    projectId: whoami.body.tenant.defaultProjectId,
  });
  expect(created.status).toBe(201);
}

/** Replaces the text of a CodeMirror editor found by its accessible name. */
async function setCode(page: Page, name: string, text: string) {
  const editor = page.getByRole("textbox", { name, exact: true });
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}

test("build an agent with parameters and a tool, see the live preview and form, fix a Liquid error, save 1.0.0 and 1.1.0, diff them", async ({ page, api }) => {
  test.setTimeout(180_000);
  const suffix = unique();
  const lookup = `e2e.order-lookup-${suffix}`;
  const refund = `e2e.refund-check-${suffix}`;
  const agentId = `e2e.support-${suffix}`;

  await registerTool(api, lookup, "1.2.0");
  await registerTool(api, refund, "2.0.0");
  await page.goto("/agents");
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("link", { name: "New agent" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "New agent" })).toBeVisible();
  const basics = page.getByRole("region", { name: "Basics" });
  await basics.getByLabel("Agent id").fill(agentId);
  await basics.getByLabel("Name").fill("Support helper");
  await basics.getByLabel("Description").fill("Answers questions about orders.");

  // Two parameters: a number with a default, a required string.
  await page.getByRole("button", { name: "Add parameter" }).click();
  const first = page.getByRole("group", { name: "Parameter 1" });
  await first.getByLabel("Name").fill("maxItems");
  await first.getByLabel("Type").selectOption("number");
  await first.getByLabel("Default").fill("3");
  await page.getByRole("button", { name: "Add parameter" }).click();
  const second = page.getByRole("group", { name: "Parameter 2" });
  await second.getByLabel("Name").fill("topic");
  await second.getByLabel("Description").fill("What the customer asks about");
  await expect(second.getByLabel("Required")).toBeChecked();

  await setCode(page, "Instructions", "You are {{ agent.name }}. Help with {{ topic | downcase }}.\nList at most {{ maxItems }} items.");

  // A tool from the catalog, with what its range resolves to now.
  await page.getByLabel("Search the tool catalog").fill(lookup);
  await page.getByRole("button", { name: `Add tool ${lookup}` }).click();
  const selected = page.getByRole("list", { name: "Selected tools" });
  await expect(selected.getByText("Resolves to 1.2.0 now")).toBeVisible();
  await expect(selected.getByLabel(`Version range of ${lookup}`)).toHaveValue("^1.2.0");
  await selected.getByLabel(`Version range of ${lookup}`).fill("^9.0.0");
  await expect(selected.getByText(/resolves to nothing now — active versions: 1\.2\.0/)).toBeVisible();
  await selected.getByLabel(`Version range of ${lookup}`).fill("^1.0.0");
  await expect(selected.getByText("Resolves to 1.2.0 now")).toBeVisible();

  // The generated parameter form, exactly as users see it, drives the live preview.
  const form = page.getByRole("group", { name: "Parameter form" });
  await expect(form.getByLabel("Max items")).toHaveAttribute("placeholder", "3");
  await expect(form.getByText("Default: 3")).toBeVisible();
  await expect(form.getByLabel("Topic")).toHaveAttribute("required", "");
  await expect(form.getByText("What the customer asks about")).toBeVisible();
  await form.getByLabel("Topic").fill("Billing");
  const preview = page.getByRole("region", { name: "Rendered instructions" }).getByLabel("Rendered text");
  await expect(preview).toHaveText("You are Support helper. Help with billing.\nList at most 3 items.");
  await form.getByLabel("Max items").fill("5");
  await expect(preview).toHaveText("You are Support helper. Help with billing.\nList at most 5 items.");
  await expect(page.getByText("No problems: this definition can be saved.")).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  await basics.getByLabel("Description").focus();
  await screenshot(page, "agent-editor");
  await expectNoSeriousA11yViolations(page);

  // A Liquid error is marked at its line in the editor, and listed.
  await setCode(page, "Instructions", "You are {{ agent.name }}. Help with {{ topic | downcase }}.\nList {% if maxItems %}at most {{ maxItems }} items.");
  const instructions = page.getByRole("textbox", { name: "Instructions", exact: true });
  await expect(page.getByText(/^Line 2, column 6: tag \{% if maxItems %\} not closed/)).toBeVisible();
  await expect(instructions).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("The template has a problem (marked in the editor); fix it to see the preview.")).toBeVisible();
  const problem = page.getByRole("list", { name: "Problems" }).getByRole("button", { name: /\/instructions line 2, column 6/ });
  await expect(problem).toBeVisible();

  // Escape then Tab leaves the editor (it never traps the keyboard).
  await instructions.click();
  await page.keyboard.press("Escape");
  await page.keyboard.press("Tab");
  await expect(instructions).not.toBeFocused();

  await setCode(page, "Instructions", "You are {{ agent.name }}. Help with {{ topic | downcase }}.\nList {% if maxItems %}at most {{ maxItems }}{% endif %} items.");
  await expect(instructions).not.toHaveAttribute("aria-invalid", "true");
  await expect(preview).toHaveText("You are Support helper. Help with billing.\nList at most 5 items.");
  await expect(page.getByText("No problems: this definition can be saved.")).toBeVisible();

  // Save version 1.0.0 with the keyboard.
  await expect(page.getByLabel("Save as version")).toHaveValue("1.0.0");
  await expect(page.getByText("Unsaved changes")).toBeVisible();
  await basics.getByLabel("Description").focus();
  await page.keyboard.press("ControlOrMeta+s");
  await page.waitForURL(new RegExp(`/agents/${agentId.replace(/\./g, "\\.")}`));
  await expect(page.getByRole("heading", { level: 1, name: "Support helper" })).toBeVisible();
  await expect(page.getByText(`${agentId} · latest 1.0.0`)).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // Edit: one more tool (minor) and a new name through the raw JSON view, which round-trips with the form.
  await page.getByLabel("Search the tool catalog").fill(refund);
  await page.getByRole("button", { name: `Add tool ${refund}` }).click();
  await expect(page.getByRole("list", { name: "Selected tools" }).getByText("Resolves to 2.0.0 now")).toBeVisible();
  await page.getByRole("tab", { name: "Raw JSON" }).click();
  const raw = page.getByRole("textbox", { name: "Definition JSON" });
  await expect(raw).toContainText(`"id": "${agentId}"`);
  await expect(raw).toContainText(`"id": "${refund}"`);
  // The JSON → form direction: the saved definition plus the new tool, renamed, typed in as JSON.
  const saved = await api.get<{ definition: Record<string, unknown> & { tools: unknown[] } }>(`/v1/agents/${agentId}/versions/1.0.0`);
  const edited = { ...saved.body.definition, name: "Support helper v2", tools: [...saved.body.definition.tools, { id: refund, version: "^2.0.0" }] };
  await setCode(page, "Definition JSON", JSON.stringify(edited, null, 2));
  await page.getByRole("tab", { name: "Form" }).click();
  await expect(page.getByRole("region", { name: "Basics" }).getByLabel("Name")).toHaveValue("Support helper v2");
  await expect(page.getByRole("list", { name: "Selected tools" }).getByLabel(`Version range of ${refund}`)).toHaveValue("^2.0.0");
  await expect(page.getByText(/Suggested 1\.1\.0 \(minor: tool "e2e\.refund-check-/)).toBeVisible();
  await expect(page.getByLabel("Save as version")).toHaveValue("1.1.0");
  await page.getByRole("button", { name: /Save version/ }).click();
  await expect(page.getByText("Saved version 1.1.0.")).toBeVisible();
  await expect(page.getByText(`${agentId} · latest 1.1.0`)).toBeVisible();
  await expect(page.getByText("Unsaved changes")).toHaveCount(0);
  // The version just saved is taken now: the check says so as a warning, counted apart from the errors.
  await expect(page.getByRole("heading", { name: "Problems (0) · 1 warning" })).toBeVisible();
  await expect(page.getByText("No errors; 1 warning below.")).toBeVisible();
  await expect(page.getByRole("list", { name: "Warnings" })).toContainText("version 1.1.0");
  await expect(page.getByRole("list", { name: "Warnings" })).toContainText("is registered already");

  // Version history and the diff between 1.0.0 and 1.1.0.
  await page.getByRole("tab", { name: "Versions" }).click();
  await page.getByLabel("From", { exact: true }).selectOption("1.0.0");
  await page.getByLabel("To", { exact: true }).selectOption("1.1.0");
  const diff = page.getByRole("table", { name: "Differences from 1.0.0 to 1.1.0" });
  await expect(diff.getByRole("row").filter({ hasText: "added" }).filter({ hasText: refund })).toHaveCount(1);
  await expect(diff.getByRole("row").filter({ hasText: "removed" }).filter({ hasText: '"name": "Support helper"' })).toHaveCount(1);
  await expect(diff.getByRole("row").filter({ hasText: "added" }).filter({ hasText: '"name": "Support helper v2"' })).toHaveCount(1);

  // What an expired approval does: an agent setting beside the versions, saved when picked, kept after a reload.
  const expiry = page.getByRole("group", { name: "When an approval expires" });
  await expect(expiry.getByRole("radio", { name: /The server's default/ })).toBeChecked();
  await expect(expiry.getByText("Now: when an approval expires, the call goes back to the model as a rejection.")).toBeVisible();
  await expiry.getByRole("radio", { name: /Fail the run/ }).check();
  await expect(expiry.getByText("Now: when an approval expires, the run fails.")).toBeVisible();
  expect((await api.get<{ onApprovalExpired: string | null }>(`/v1/agents/${agentId}`)).body.onApprovalExpired).toBe("fail");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "agent-versions");
  await page.reload();
  await page.getByRole("tab", { name: "Versions" }).click();
  await expect(page.getByRole("group", { name: "When an approval expires" }).getByRole("radio", { name: /Fail the run/ })).toBeChecked();

  // The list shows the agent at its latest version.
  await page.goto("/agents");
  await page.getByLabel("Search agents").fill(agentId);
  const row = page.getByRole("row").filter({ hasText: agentId });
  await expect(row.getByRole("cell", { name: "1.1.0" })).toBeVisible();
});

test("a viewer sees what an expired approval of an agent's calls does, and cannot change it", async ({ browser, api, e2e }) => {
  const suffix = unique();
  const agentId = `e2e.viewer-expiry-${suffix}`;
  const whoami = await api.get<{ tenant: { defaultProjectId: string } }>("/v1/identity/whoami");
  const agent = { id: agentId, version: "1.0.0", name: "Expiry check", instructions: "Answer briefly.", capabilities: [{ kind: "llm-inference" }], tools: [], retrieval: [], guardrails: [], preferredProvider: "dev-echo" };
  expect((await api.post("/v1/agents", { ...agent, projectId: whoami.body.tenant.defaultProjectId })).status).toBe(201);
  expect((await api.request("PATCH", `/v1/agents/${agentId}`, { onApprovalExpired: "fail" })).status).toBe(200);
  const email = `viewer-${suffix}@example.test`;
  const password = "a long viewer password";
  expect((await api.post("/v1/members", { email, name: "Vera Viewer", role: "viewer", password })).status).toBe(201);

  const context = await browser.newContext({ storageState: await signInState(e2e, email, password), baseURL: e2e.baseUrl });
  try {
    const page = await context.newPage();
    await page.goto(`/agents/${agentId}`);
    await page.getByRole("tab", { name: "Versions" }).click();
    const expiry = page.getByRole("group", { name: "When an approval expires" });
    await expect(expiry.getByRole("radio", { name: /Fail the run/ })).toBeChecked();
    for (const name of [/The server's default/, /Send it back to the model/, /Fail the run/]) await expect(expiry.getByRole("radio", { name })).toBeDisabled();
    await expect(expiry.getByText("Now: when an approval expires, the run fails. Viewers cannot change it.")).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    // Nor can a viewer's session change it over the API.
    const refused = await page.request.patch(`/v1/agents/${agentId}`, { data: { onApprovalExpired: "reject" }, headers: { Origin: e2e.baseUrl } });
    expect(refused.status()).toBe(403);
  } finally {
    await context.close();
  }
  expect((await api.get<{ onApprovalExpired: string | null }>(`/v1/agents/${agentId}`)).body.onApprovalExpired).toBe("fail");
});
