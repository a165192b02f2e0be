import path from "node:path";
import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./fixtures";

/**
 * Settings, driven as an admin does: an API key created (shown once, copied), used, revoked and then refused by the
 * API; a secret set, versioned and deleted; the model providers in routing order; a real MCP server from npm added
 * over stdio, its tools in the catalog, refreshed and unregistered; a member invited, given another role, deactivated.
 */
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const EVERYTHING = path.resolve(import.meta.dirname, "../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

test("create an API key, see it once, use it, revoke it and see the API refuse it", async ({ page, context, e2e }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: e2e.baseUrl });
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/settings\/api-keys$/);
  await expect(page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "API keys" })).toHaveAttribute("aria-current", "page");
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("button", { name: "New API key" }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Name").fill(`ci-${stamp}`);
  await dialog.getByRole("button", { name: "Create key" }).click();
  await expect(dialog.getByRole("heading", { name: "Your new API key" })).toBeVisible();
  const key = await dialog.getByLabel("The new API key").inputValue();
  expect(key).toMatch(/^kgi_[0-9A-Za-z]{40}$/);
  await dialog.getByRole("button", { name: "Copy" }).click();
  await expect(dialog.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-api-key-once");
  await dialog.getByRole("button", { name: "Done" }).click();

  const whoami = (bearer: string) => fetch(`${e2e.baseUrl}/v1/identity/whoami`, { headers: { Authorization: `Bearer ${bearer}` } });
  expect((await whoami(key)).status).toBe(200);
  // Shown once: the list has its prefix only, and nothing on the page holds the key any more.
  const row = page.locator("tr", { hasText: `ci-${stamp}` });
  await expect(row).toContainText(key.slice(0, 12));
  expect(await page.content()).not.toContain(key);

  await row.getByRole("button", { name: `Revoke ci-${stamp}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(row.getByText("revoked")).toBeVisible();
  const refused = await whoami(key);
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("auth-revoked");
  await screenshot(page, "settings-api-keys");
});

test("set a secret, give it a new version, delete it; the value is never shown", async ({ page, api }) => {
  const name = `e2e.token-${stamp}`;
  const value = `value-${stamp}-do-not-show`;
  await page.goto("/settings/secrets");
  await page.getByRole("button", { name: "Set a secret" }).first().click();
  await page.getByRole("dialog").getByLabel("Name").fill(name);
  await page.getByRole("dialog").getByLabel("Value").fill(value);
  await page.getByRole("dialog").getByRole("button", { name: "Save secret" }).click();
  const row = page.locator("tr", { hasText: name });
  await expect(row).toContainText("v1");
  await row.getByRole("button", { name: `Set a new value for ${name}` }).click();
  await page.getByRole("dialog").getByLabel("Value").fill(`${value}-2`);
  await page.getByRole("dialog").getByRole("button", { name: "Save secret" }).click();
  await expect(row).toContainText("v2");
  expect(await page.content()).not.toContain(value);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-secrets");
  await row.getByRole("button", { name: `Delete ${name}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete secret" }).click();
  await expect(row).toHaveCount(0);
  const secrets = await api.get<{ data: { name: string }[] }>("/v1/secrets");
  expect(secrets.body.data.map((secret) => secret.name)).not.toContain(name);
});

test("the model and embedding providers are listed in routing order, dev-echo last, the dev ones marked", async ({ page }) => {
  await page.goto("/settings/providers");
  const rows = page.locator("tbody tr");
  await expect(rows.last()).toContainText("dev-echo");
  await expect(rows.last()).toContainText("not a real model");
  await expect(rows.last().getByText("model", { exact: true })).toBeVisible();
  // dev-embed, the embedding provider that is not a real model either, serves embeddings.
  const devEmbed = rows.filter({ hasText: "dev-embed" });
  await expect(devEmbed.getByText("embeddings", { exact: true })).toBeVisible();
  await expect(devEmbed).toContainText("not a real model");
  await expectNoSeriousA11yViolations(page);
  await page.getByRole("button", { name: "Add a provider" }).click();
  await expect(page.getByRole("dialog").getByLabel("Base URL")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.keyboard.press("Escape");
  await screenshot(page, "settings-providers");
});

test("add a real MCP server, see its tools in the catalog, refresh and unregister it", async ({ page }) => {
  test.setTimeout(90_000);
  const name = `everything-${stamp}`;
  await page.goto("/settings/mcp");
  await expect(page.getByRole("heading", { name: "No MCP endpoints yet" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.getByRole("button", { name: "Add an MCP endpoint" }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByLabel("Endpoint").fill(`mcp+stdio://node ${EVERYTHING} stdio`);
  await dialog.getByRole("button", { name: "Connect" }).click();
  await expect(dialog).toHaveCount(0, { timeout: 45_000 });
  const card = page.locator(`li[data-endpoint="${name}"]`);
  await expect(card.getByText("connected")).toBeVisible();
  await expect(card).toContainText(/\d+ tools/);
  await card.getByText(/Its tools/).click();
  await expect(card.getByRole("link", { name: `${name}.echo` })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-mcp");

  await page.goto(`/tools?q=${name}`);
  await expect(page.getByRole("link", { name: `${name}.echo` }).first()).toBeVisible();
  await screenshot(page, "settings-mcp-catalog");

  await page.goto("/settings/mcp");
  await card.getByRole("button", { name: `Refresh ${name}` }).click();
  await expect(card.getByText("connected")).toBeVisible();
  await card.getByRole("button", { name: `Unregister ${name}` }).click();
  // An unregistered endpoint leaves the list (and its tools the catalog's active versions).
  await expect(card).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "No MCP endpoints yet" })).toBeVisible();
});

test("invite a member, change their role, deactivate them", async ({ page, api, e2e }) => {
  const email = `member-${stamp}@example.test`;
  await page.goto("/settings/members");
  await expect(page.locator("tr", { hasText: e2e.adminEmail })).toContainText("you");
  await page.getByRole("button", { name: "Invite a member" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Name").fill("Grace");
  await dialog.getByLabel("Initial password").fill("a long initial password");
  await dialog.getByRole("button", { name: "Invite" }).click();
  const row = page.locator(`tr[data-member="${email}"]`);
  await expect(row).toContainText("Grace");
  await row.getByLabel(`Role of ${email}`).selectOption("viewer");
  await expect.poll(async () => (await api.get<{ data: { email: string; role: string }[] }>("/v1/members")).body.data.find((m) => m.email === email)?.role).toBe("viewer");
  await row.getByRole("button", { name: `Deactivate ${email}` }).click();
  await expect(row.getByText("deactivated")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-members");
});
