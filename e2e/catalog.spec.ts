import { startRecordingServer, sendJson, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { expect, expectNoSeriousA11yViolations, screenshot, test, type ApiClient } from "./fixtures";
import type { E2eState } from "./state";

/**
 * The catalog and a tool's page, driven as a person does: search and filter, read the schema table, fill the form
 * generated from the input schema (a nested object and an enum), run the tool through the API and read its result.
 * The HTTP tool calls a recording server on 127.0.0.1 that its network allowlist names.
 */
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const weatherId = `e2e.weather-${stamp}`;
const mailerId = `e2e.send-mail-${stamp}`;
const filesId = `e2e.list-files-${stamp}`;
const signerId = `e2e.sign-${stamp}`;
const signerDigest = `sha256:${"5e".repeat(32)}`;

let server: RecordingServer;

/** /v1 with the bootstrap key, for `beforeAll` (the `api` fixture is per test). */
function bootstrapClient(e2e: E2eState): Pick<ApiClient, "post"> {
  return {
    post: async <T>(path: string, body?: unknown) => {
      const response = await fetch(`${e2e.baseUrl}${path}`, { method: "POST", headers: { Authorization: `Bearer ${e2e.bootstrapKey}`, "Content-Type": "application/json" }, body: JSON.stringify(body ?? {}) });
      return { status: response.status, body: (await response.json()) as T, headers: response.headers };
    },
  };
}

async function register(api: Pick<ApiClient, "post">, projectId: string, manifest: Record<string, unknown>) {
  const response = await api.post("/v1/tools", { projectId, ...manifest });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}

test.beforeAll(async ({ e2e }) => {
  server = await startRecordingServer((request, response) => {
    const args = JSON.parse(request.body || "{}") as { address?: { city?: string }; unit?: string; days?: number };
    sendJson(response, 200, { city: args.address?.city, unit: args.unit, days: args.days, forecast: [{ day: 1, temperature: args.unit === "imperial" ? 70 : 21 }] });
  });
  const client = bootstrapClient(e2e);
  await register(client, e2e.defaultProjectId, {
    id: weatherId,
    version: "1.0.0",
    description: "Forecast for an address, in the unit asked for.",
    mutating: false,
    metadata: { tags: ["weather", "forecast"] },
    effects: [{ kind: "network", resource: "external:127.0.0.1" }],
    input: {
      type: "object",
      required: ["address", "unit"],
      additionalProperties: false,
      properties: {
        address: {
          type: "object",
          description: "Where the forecast is for.",
          required: ["city"],
          additionalProperties: false,
          properties: { city: { type: "string", minLength: 1, description: "City name" }, country: { type: "string", default: "FR" } },
        },
        unit: { type: "string", enum: ["metric", "imperial"], description: "Temperature unit" },
        days: { type: "integer", minimum: 1, maximum: 7, default: 3, description: "How many days" },
      },
    },
    output: { type: "object" },
    network: { kind: "allowlist", hosts: [server.hostPort] },
    limits: { memMB: 128, cpuMs: 2000 },
    spec: { kind: "http", method: "POST", urlTemplate: `${server.origin}/forecast`, requestBody: { kind: "json-input" } },
  });
  await register(client, e2e.defaultProjectId, { id: weatherId, version: "0.9.0", description: "The first forecast.", mutating: false, input: { type: "object", properties: { city: { type: "string" } } }, output: { type: "object" }, network: { kind: "allowlist", hosts: [server.hostPort] }, spec: { kind: "http", method: "POST", urlTemplate: `${server.origin}/forecast`, requestBody: { kind: "json-input" } } });
  await register(client, e2e.defaultProjectId, {
    id: mailerId,
    version: "2.1.0",
    description: "Sends a mail to a person.",
    needsApprovalWhenUnattended: true,
    metadata: { tags: ["mail"] },
    effects: [{ kind: "external-side-effect" }, { kind: "sensitive-data-egress" }],
    input: { type: "object", properties: { to: { type: "string", format: "email" } } },
    output: { type: "object" },
  });
  // An OCI handler named by digest: registration records it without asking the registry.
  await register(client, e2e.defaultProjectId, {
    id: signerId,
    version: "1.2.0",
    description: "Signs a text with the team key.",
    mutating: false,
    sandbox: "strict",
    network: { kind: "none" },
    input: { type: "object", properties: { text: { type: "string" } } },
    output: { type: "object" },
    codeArtifactRef: { kind: "oci", imageRef: `registry.example/acme/tools@${signerDigest}`, modulePath: "/pack/sign.mjs", artifactVersion: "1.2.0-build.7" },
  });
  await register(client, e2e.defaultProjectId, { id: filesId, version: "1.0.0", description: "Lists files of a folder.", mutating: false, transport: "mcp", mcpEndpoint: "mcp+stdio://files-server --root /tmp", effects: [{ kind: "reads" }], input: { type: "object" }, output: { type: "object" } });
});

test.afterAll(async () => {
  await server?.close();
});

test("finds a tool by search and filters, with its behaviour in words", async ({ page }) => {
  await page.goto("/tools");
  await expect(page.getByRole("heading", { name: "Catalog", level: 1 })).toBeVisible();
  const table = page.getByRole("table");
  await expect(table.getByRole("link", { name: weatherId })).toBeVisible();
  await expect(table.getByRole("link", { name: mailerId })).toBeVisible();

  const mailerRow = page.getByRole("row").filter({ has: page.getByRole("link", { name: mailerId }) });
  await expect(mailerRow.getByText("mutating", { exact: true })).toBeVisible();
  await expect(mailerRow.getByText("asks on first use")).toBeVisible();
  await expect(mailerRow.getByText("asks on every unattended call")).toBeVisible();
  await expect(mailerRow.getByText("v2.1.0")).toBeVisible();
  const weatherRow = page.getByRole("row").filter({ has: page.getByRole("link", { name: weatherId }) });
  await expect(weatherRow.getByText("read-only")).toBeVisible();
  await expect(weatherRow.getByText("passes", { exact: true })).toBeVisible();
  await expect(weatherRow.getByText("v1.0.0")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "catalog");

  // Search covers ids, descriptions and tags, on the server.
  await page.getByLabel("Search tools").fill(`forecast`);
  await expect(page).toHaveURL(/q=forecast/);
  await expect(table.getByRole("link", { name: weatherId })).toBeVisible();
  await expect(table.getByRole("link", { name: mailerId })).toHaveCount(0);

  await page.getByLabel("Search tools").fill(stamp);
  await expect(table.getByRole("link", { name: /^e2e\./ })).toHaveCount(4);
  await page.getByLabel("Mutating", { exact: true }).selectOption("false");
  await expect(page).toHaveURL(/mutating=false/);
  await expect(table.getByRole("link", { name: /^e2e\./ })).toHaveText([filesId, signerId, weatherId]);
  await page.getByLabel("Transport").selectOption("mcp");
  await expect(table.getByRole("link", { name: /^e2e\./ })).toHaveText([filesId]);
  await page.getByLabel("Transport").selectOption("");
  await page.getByLabel("Mutating", { exact: true }).selectOption("");
  await page.getByLabel("Effect").selectOption("sensitive-data-egress");
  await expect(table.getByRole("link", { name: /^e2e\./ })).toHaveText([mailerId]);

  await page.getByLabel("Search tools").fill(`nothing-like-this-${stamp}`);
  await expect(page.getByRole("heading", { name: "No tool matches" })).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(table.getByRole("link", { name: weatherId })).toBeVisible();

  // The top bar's search lands on the catalog with the same server-side search.
  await page.getByRole("searchbox", { name: "Search", exact: true }).fill("mail");
  await page.getByRole("searchbox", { name: "Search", exact: true }).press("Enter");
  await expect(page).toHaveURL(/\/tools\?q=mail/);
  await expect(page.getByLabel("Search tools")).toHaveValue("mail");
  await expect(table.getByRole("link", { name: mailerId })).toBeVisible();
  await expect(table.getByRole("link", { name: weatherId })).toHaveCount(0);

  await page.getByRole("link", { name: mailerId }).click();
  await expect(page.getByRole("heading", { name: mailerId, level: 1 })).toBeVisible();
});

test("reads a tool's schema, fills its generated form and sees the result; a bad value shows the field's error", async ({ page }) => {
  await page.goto("/tools");
  await page.getByLabel("Search tools").fill(weatherId);
  await expect(page).toHaveURL(/q=e2e\.weather/);
  await expect(page.getByRole("table").getByRole("link", { name: /^e2e\./ })).toHaveText([weatherId]);
  await page.getByRole("link", { name: weatherId }).click();
  await expect(page).toHaveURL(new RegExp(`/tools/${weatherId.replace(/\./g, "\\.")}$`));
  await expect(page.getByRole("heading", { name: weatherId, level: 1 })).toBeVisible();
  await expect(page.getByText("Forecast for an address, in the unit asked for.")).toBeVisible();

  // The input schema as a property table: nested properties, required marks, defaults, enum values, bounds.
  const schema = page.getByRole("table", { name: "Input properties" });
  const row = (name: string) => schema.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });
  await expect(row("address")).toContainText("object");
  await expect(row("address")).toContainText("required");
  await expect(row("city")).toContainText("City name");
  await expect(row("city")).toContainText("required");
  await expect(row("country")).toContainText('"FR"');
  await expect(row("unit")).toContainText('One of "metric", "imperial"');
  await expect(row("days")).toContainText("≥ 1 · ≤ 7");
  await page.getByRole("tab", { name: "Raw JSON" }).first().click();
  await expect(page.getByLabel("Input schema as JSON")).toContainText('"maximum": 7');
  await page.getByRole("tab", { name: "Properties" }).first().click();

  // How it runs, in one line each.
  await expect(page.getByText(`may reach ${server.hostPort} only`)).toBeVisible();
  await expect(page.getByText("128 MB · 2 s CPU")).toBeVisible();
  await expect(page.getByText(`POST ${server.origin}/forecast`)).toBeVisible();

  // The generated form: defaults filled, a nested object, an enum as a select.
  const tryIt = page.getByRole("region", { name: "Try it" });
  await expect(tryIt.getByLabel("country")).toHaveValue("FR");
  await expect(tryIt.getByLabel("days")).toHaveValue("3");
  await tryIt.getByRole("button", { name: "Run", exact: true }).click();
  await expect(tryIt.getByLabel("city")).toHaveAttribute("aria-invalid", "true");
  await expect(tryIt.locator("#try-it_address_city__error")).toHaveText("Required");
  await expect(tryIt.locator("#try-it_unit__error")).toHaveText("Required");

  await tryIt.getByLabel("city").fill("Paris");
  await tryIt.getByLabel("unit").selectOption("imperial");
  await tryIt.getByLabel("days").fill("9");
  await tryIt.getByRole("button", { name: "Run", exact: true }).click();
  await expect(tryIt.locator("#try-it_days__error")).toHaveText("Must be at most 7");
  await expect(tryIt.getByLabel("days")).toHaveAttribute("aria-invalid", "true");
  expect(server.requests).toHaveLength(0);

  await tryIt.getByLabel("days").fill("2");
  await tryIt.getByRole("button", { name: "Run", exact: true }).click();
  const result = tryIt.getByRole("region", { name: "Result" });
  await expect(result.getByText("completed")).toBeVisible();
  await expect(result.getByLabel("Tool output")).toContainText('"Paris"');
  await expect(result.getByLabel("Tool output")).toContainText("70");
  expect(server.requests).toHaveLength(1);
  expect(JSON.parse(server.requests[0].body)).toEqual({ address: { city: "Paris", country: "FR" }, unit: "imperial", days: 2 });
  const runLink = result.getByRole("link", { name: /^run / });
  const runId = (await runLink.textContent())!.replace(/^run /, "");
  const run = await page.request.get(`/v1/runs/${runId}`);
  expect(run.status()).toBe(200);
  expect((await run.json()).output).toMatchObject({ city: "Paris", unit: "imperial", days: 2 });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "tool-page");

  // The same value as JSON; a JSON syntax error says where it is.
  await tryIt.getByRole("button", { name: "JSON", exact: true }).click();
  const json = tryIt.getByLabel("Value (JSON)");
  await expect(json).toHaveValue(/"city": "Paris"/);
  await json.fill('{ "address": { "city": "Lyon" }, "unit": }');
  await expect(tryIt.getByRole("alert").first()).toContainText("Line 1, column");

  // Another version: the version switcher shows that version's schema and form.
  await page.getByLabel("Version", { exact: true }).selectOption("0.9.0");
  await expect(page).toHaveURL(/version=0\.9\.0/);
  await expect(page.getByText("The first forecast.")).toBeVisible();
  await expect(page.getByRole("table", { name: "Input properties" }).getByRole("rowheader", { name: "city" })).toBeVisible();
});

test("an OCI handler's page names its artifact version and the digest it runs", async ({ page }) => {
  await page.goto(`/tools/${signerId}`);
  await expect(page.getByRole("heading", { name: signerId, level: 1 })).toBeVisible();
  const runs = page.getByRole("region", { name: "How it runs" });
  await expect(runs.getByText(`registry.example/acme/tools@${signerDigest}`)).toBeVisible();
  await expect(runs.getByText("artifact version 1.2.0-build.7")).toBeVisible();
  await expect(runs.getByTitle(signerDigest)).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "tool-page-oci");
});

test("the built-in current-time tool runs from its page", async ({ page }) => {
  await page.goto("/tools/current-time");
  await expect(page.getByRole("heading", { name: "current-time", level: 1 })).toBeVisible();
  await expect(page.getByText("built into Kindgi")).toBeVisible();
  const tryIt = page.getByRole("region", { name: "Try it" });
  await tryIt.getByRole("button", { name: "Run", exact: true }).click();
  const result = tryIt.getByRole("region", { name: "Result" });
  await expect(result.getByText("completed")).toBeVisible();
  await expect(result.getByLabel("Tool output")).toContainText(String(new Date().getUTCFullYear()));
});

test("a fresh project's catalog lists the three built-in tools, marked built-in, each linking to its page", async ({ page, api }) => {
  const created = await api.post<{ id: string }>("/v1/projects", { name: `Fresh catalog ${stamp}` });
  expect(created.status).toBe(201);
  await page.goto(`/tools?project=${created.body.id}`);
  const table = page.getByRole("table");
  await expect(table.getByRole("link")).toHaveText(["current-time", "recall", "remember"]);
  for (const id of ["current-time", "recall", "remember"]) {
    const row = table.getByRole("row").filter({ has: page.getByRole("link", { name: id, exact: true }) });
    await expect(row.getByText("built-in", { exact: true })).toBeVisible();
  }
  await expect(page.getByRole("heading", { name: "No tools yet" })).toHaveCount(0);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "catalog-built-ins");

  // Filtered like registered tools; the empty state only when even they are filtered out.
  await page.getByLabel("Mutating", { exact: true }).selectOption("true");
  await expect(table.getByRole("link")).toHaveText(["remember"]);
  await page.getByLabel("Transport").selectOption("mcp");
  await expect(page.getByRole("heading", { name: "No tool matches" })).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await table.getByRole("link", { name: "current-time", exact: true }).click();
  await expect(page.getByRole("heading", { name: "current-time", level: 1 })).toBeVisible();
  await expect(page.getByText("built into Kindgi")).toBeVisible();
});

test("an admin unregisters a version and reinstates it", async ({ page, api }) => {
  await page.goto(`/tools/${mailerId}`);
  await expect(page.getByRole("heading", { name: mailerId, level: 1 })).toBeVisible();
  await page.getByRole("button", { name: "Unregister v2.1.0" }).click();
  const dialog = page.getByRole("dialog", { name: `Unregister ${mailerId} v2.1.0?` });
  await expect(dialog).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await dialog.getByRole("button", { name: "Unregister", exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Reinstate v2.1.0" })).toBeVisible();
  expect((await api.get<{ status: string }>(`/v1/tools/${mailerId}/versions/2.1.0`)).body.status).toBe("unregistered");
  await expect(page.getByText("This version is unregistered: reinstate it to call it.")).toBeVisible();

  await page.getByRole("button", { name: "Reinstate v2.1.0" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Reinstate", exact: true }).click();
  await expect(page.getByRole("button", { name: "Unregister v2.1.0" })).toBeVisible();
  expect((await api.get<{ status: string }>(`/v1/tools/${mailerId}/versions/2.1.0`)).body.status).toBe("active");
});

test("an unknown tool id says so and leads back to the catalog", async ({ page }) => {
  await page.goto(`/tools/e2e.no-such-tool-${stamp}`);
  await expect(page.getByRole("heading", { name: `No tool e2e.no-such-tool-${stamp}` })).toBeVisible();
  await page.getByRole("link", { name: "Back to the catalog" }).click();
  await expect(page.getByRole("heading", { name: "Catalog", level: 1 })).toBeVisible();
});
