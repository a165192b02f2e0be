import { expect, expectNoSeriousA11yViolations, screenshot, test, type ApiClient } from "./fixtures";

/**
 * Settings → MCP server on a fresh project, driven as an admin does: the project's endpoint URL and the client
 * configurations (copied, with a placeholder and never a key); a toolset made with one tool and a range and what it
 * resolves to, its own URL in the configurations, a bad range refused with the API's message at its field, the range
 * edited, the warning when its version is unregistered later, and the toolset deleted.
 */
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function registerTool(api: ApiClient, projectId: string, id: string, version: string) {
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
    projectId,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

test("the MCP server page: the endpoint and client configurations, a toolset created, resolved, refused, edited and deleted", async ({ page, context, api, e2e }) => {
  test.setTimeout(120_000);
  const created = await api.post<{ id: string; name: string }>("/v1/projects", { name: `MCP Desk ${stamp}` });
  expect(created.status).toBe(201);
  const projectId = created.body.id;
  const tool = `e2e.order-lookup-${stamp}`;
  await registerTool(api, projectId, tool, "1.0.0");
  await registerTool(api, projectId, tool, "1.3.0");
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: e2e.baseUrl });

  // Reached from the settings navigation.
  await page.goto(`/settings?project=${projectId}`);
  await expect(page).toHaveURL(/\/settings\/api-keys/);
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "MCP server" }).click();
  await expect(page).toHaveURL(/\/settings\/mcp-server/);
  await expect(page.getByRole("heading", { name: "MCP server", level: 1 })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "MCP server" })).toHaveAttribute("aria-current", "page");

  // The project's endpoint, and a configuration per client with a placeholder for the key.
  const projectUrl = `${e2e.baseUrl}/v1/mcp?projectId=${projectId}`;
  await expect(page.getByLabel("Endpoint URL", { exact: true })).toHaveValue(projectUrl);
  await expect(page.getByLabel("Serve")).toHaveValue("project");
  const serverName = `kindgi-mcp-desk-${stamp}`;
  const desktop = page.getByLabel("Claude Desktop configuration", { exact: true });
  await expect(desktop).toContainText('"mcp-remote"');
  await expect(desktop).toContainText("<your API key>");
  await expect(page.getByRole("link", { name: "create one in API keys" })).toHaveAttribute("href", "/settings/api-keys");
  await expect(page.getByRole("heading", { name: "No toolsets yet" })).toBeVisible();

  // Copy from the keyboard.
  await page.getByRole("button", { name: "Copy Claude Desktop configuration" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Copied Claude Desktop configuration" })).toBeVisible();
  expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))).toEqual({
    mcpServers: {
      [serverName]: {
        command: "npx",
        args: ["-y", "mcp-remote", projectUrl, "--header", "Authorization:${KINDGI_API_KEY}"],
        env: { KINDGI_API_KEY: "Bearer <your API key>" },
      },
    },
  });
  // The tabs move with the arrow keys.
  await page.getByRole("tab", { name: "Claude Desktop" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "VS Code" })).toHaveAttribute("aria-selected", "true");
  const vscode = page.getByLabel("VS Code configuration", { exact: true });
  await expect(vscode).toContainText('"type": "http"');
  await expect(vscode).toContainText('"Authorization": "Bearer ${input:kindgi-api-key}"');
  await page.keyboard.press("ArrowRight");
  await expect(page.getByLabel("Claude Code configuration", { exact: true })).toHaveText(`claude mcp add --transport http ${serverName} '${projectUrl}' --header "Authorization: Bearer <your API key>"`);
  await page.getByRole("button", { name: "Copy Claude Code configuration" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`claude mcp add --transport http ${serverName}`);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-mcp-server-empty");

  // A toolset with one tool and a range: what it resolves to.
  const name = `orders-${stamp}`;
  await page.getByRole("button", { name: "New toolset" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New toolset" });
  await dialog.getByLabel("Name", { exact: true }).fill(name);
  await dialog.getByLabel("Description (optional)").fill("Order look-ups for the helpdesk assistant.");
  await dialog.getByLabel("Tool 1", { exact: true }).fill(tool);
  await dialog.getByLabel("Version range of tool 1").fill("^1");
  await expectNoSeriousA11yViolations(page);
  await dialog.getByRole("button", { name: "Create toolset" }).click();
  await expect(dialog).toHaveCount(0);
  const card = page.locator("li[data-toolset]", { has: page.getByRole("heading", { name, level: 3 }) });
  const row = card.getByRole("row", { name: new RegExp(tool.replace(/\./g, "\\.")) });
  await expect(row).toContainText("^1");
  await expect(row.getByRole("cell").last()).toHaveText("1.3.0");
  const listed = await api.get<{ data: { id: string; name: string; mcpPath: string }[] }>(`/v1/toolsets?projectId=${projectId}`);
  const toolset = listed.body.data.find((candidate) => candidate.name === name);
  expect(toolset).toBeTruthy();
  const toolsetUrl = `${e2e.baseUrl}${toolset!.mcpPath}`;
  await expect(card.getByLabel(`Endpoint URL of ${name}`)).toHaveValue(toolsetUrl);
  await expect(page.getByRole("heading", { name: "No toolsets yet" })).toHaveCount(0);

  // A second toolset of the same name: the 409's message at the name.
  await page.getByRole("button", { name: "New toolset" }).first().click();
  await dialog.getByLabel("Name", { exact: true }).fill(name);
  await dialog.getByLabel("Tool 1", { exact: true }).fill(tool);
  await dialog.getByLabel("Version range of tool 1").fill("^1");
  await dialog.getByRole("button", { name: "Create toolset" }).click();
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(dialog.locator('[data-issue-path="/name"]')).toContainText(name);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);

  // The configurations for the toolset's own URL.
  await card.getByRole("button", { name: `Connect a client to ${name}` }).click();
  await expect(page.getByLabel("Serve")).toHaveValue(toolset!.id);
  await expect(page.getByLabel("Endpoint URL", { exact: true })).toHaveValue(toolsetUrl);
  await expect(page.getByLabel("Claude Code configuration", { exact: true })).toContainText(`kindgi-orders-${stamp} ${toolsetUrl}`);

  // A range that is no range, and one that matches no active version: the API's message beside the field.
  const refused = await api.request<{ error: { details: { issues: { path: string; message: string }[] } } }>("PATCH", `/v1/toolsets/${toolset!.id}`, { tools: [{ id: tool, version: "one point oh" }] });
  expect(refused.status).toBe(400);
  const message = refused.body.error.details.issues.find((issue) => issue.path === "/tools/0/version")?.message;
  expect(message).toBeTruthy();
  await card.getByRole("button", { name: `Edit ${name}` }).click();
  const dialog2 = page.getByRole("dialog", { name: `Edit “${name}”` });
  const range = dialog2.getByLabel("Version range of tool 1");
  await range.fill("one point oh");
  await dialog2.getByRole("button", { name: "Save changes" }).click();
  await expect(range).toHaveAttribute("aria-invalid", "true");
  await expect(range).toHaveAccessibleDescription(message!);
  await expect(dialog2.locator('[data-issue-path="/tools/0/version"]')).toHaveText(message!);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-mcp-server-toolset-error");
  await range.fill("^2");
  await dialog2.getByRole("button", { name: "Save changes" }).click();
  await expect(dialog2.locator('[data-issue-path="/tools/0/version"]')).toContainText("2");
  await expect(range).toHaveAttribute("aria-invalid", "true");

  // Edited to another range that matches: resolves to another version.
  await range.fill("~1.0");
  await dialog2.getByRole("button", { name: "Save changes" }).click();
  await expect(dialog2).toHaveCount(0);
  await expect(row).toContainText("~1.0");
  await expect(row.getByRole("cell").last()).toHaveText("1.0.0");
  await screenshot(page, "settings-mcp-server");

  // The one version in its range unregistered later: the reference matches nothing, in a warning.
  const unregistered = await api.post(`/v1/tools/${encodeURIComponent(tool)}/versions/1.0.0/unregister`, {});
  expect(unregistered.status, JSON.stringify(unregistered.body)).toBe(200);
  await page.goto(`/settings/mcp-server?project=${projectId}`);
  await expect(row.getByRole("cell").last()).toHaveText("no active version matches");
  await expect(card.getByText("1 reference matches nothing")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, "settings-mcp-server-unresolved");

  // No key anywhere on the page.
  expect(await page.content()).not.toContain(e2e.bootstrapKey);
  expect(await page.content()).not.toMatch(/kgi_[0-9A-Za-z]{20,}/);

  // Deleted, after a confirmation.
  await card.getByRole("button", { name: `Delete ${name}` }).click();
  const confirm = page.getByRole("dialog", { name: `Delete “${name}”?` });
  await confirm.getByRole("button", { name: "Keep it" }).click();
  await expect(card).toHaveCount(1);
  await card.getByRole("button", { name: `Delete ${name}` }).click();
  await confirm.getByRole("button", { name: "Delete toolset" }).click();
  await expect(card).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "No toolsets yet" })).toBeVisible();
  await expect(page.getByLabel("Serve")).toHaveValue("project");
  expect((await api.get(`/v1/toolsets/${toolset!.id}`)).status).toBe(404);
});
