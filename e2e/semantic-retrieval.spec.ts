import { expect, expectNoSeriousA11yViolations, screenshot, test, type ApiClient } from "./fixtures";

/**
 * Retrieval by meaning, from the console: a fact embedded in the background with dev-embed (the tenant has no
 * embedding provider of its own yet) found by a semantic retrieval intent and shown on the run page with its
 * "meaning" badge and score; then an embedding provider of the tenant's own added through the settings form (its
 * errors at their fields first), listed as an embedding provider, and named by the agent editor's embedding note.
 *
 * The run comes first: once the tenant has its own embedding provider (here a URL that never answers), its facts
 * wait for it. The provider is removed at the end, so the specs after this one find the tenant as it was.
 */
test.describe.configure({ mode: "serial" });

const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const factType = `e2e.taste-${stamp}`;
const providerId = `e2e-embed-${stamp}`;
const secretName = `e2e.embed-key-${stamp}`;

/** Polls GET /v1/memory/facts/{id} until the fact has its vector. */
async function waitEmbedded(api: ApiClient, factId: string) {
  let embedding: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        const fact = await api.get<{ embedding: Record<string, unknown> }>(`/v1/memory/facts/${factId}`);
        expect(fact.status).toBe(200);
        embedding = fact.body.embedding;
        return embedding.status;
      },
      { timeout: 30_000, intervals: [100, 250, 500] },
    )
    .toBe("embedded");
  return embedding;
}

test.afterAll(async ({ api }) => {
  await api.request("DELETE", `/v1/providers/${providerId}`);
  await api.request("DELETE", `/v1/secrets/${secretName}`);
});

test("a fact embedded in the background is retrieved by meaning and shown on the run page with its badge and score", async ({ page, api, e2e }) => {
  const colour = await api.post<{ id: string }>("/v1/memory/facts", { type: factType, content: "favourite colour: dark green", projectId: e2e.defaultProjectId });
  expect(colour.status, JSON.stringify(colour.body)).toBe(201);
  const other = await api.post<{ id: string }>("/v1/memory/facts", { type: factType, content: "the delivery van is parked in bay seven", projectId: e2e.defaultProjectId });
  expect(other.status, JSON.stringify(other.body)).toBe(201);
  expect(await waitEmbedded(api, colour.body.id)).toMatchObject({ status: "embedded", providerId: "dev-embed", model: "dev-embed", dimensions: 512 });
  await waitEmbedded(api, other.body.id);

  const agentId = `e2e.taste-${stamp}`;
  const agent = await api.post("/v1/agents", {
    projectId: e2e.defaultProjectId,
    id: agentId,
    version: "1.0.0",
    name: "Taste keeper",
    description: "Remembers what people like.",
    instructions: "Answer from the facts you are given.",
    parameters: [],
    capabilities: [{ kind: "llm-inference" }],
    tools: [],
    retrieval: [{ types: [factType], scope: "same-project", mode: "semantic", limit: 1 }],
    guardrails: [],
    preferredProvider: "dev-echo",
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  // dev-echo answers whatever the message says: the message is the retrieval's query, worded unlike the fact.
  const run = await api.post<{ id: string }>("/v1/runs", { agent: { id: agentId }, input: { userMessage: "what is my favorite color?" } });
  expect(run.status, JSON.stringify(run.body)).toBe(201);

  await page.goto(`/runs/${run.body.id}`);
  const started = page.locator('li[data-event-type="turn-started"]').first();
  await expect(started).toContainText("1 fact retrieved");
  await expect(started).toContainText("query embedded with dev-embed/dev-embed");
  // The fact's line: how it was found, its score in the ranking that ordered it, its type and content.
  const fact = started.locator("span").filter({ has: page.getByTitle("favourite colour: dark green") }).last();
  await expect(fact).toBeVisible();
  await expect(fact.getByText("meaning", { exact: true })).toBeVisible();
  await expect(fact.getByTitle("The fact's score in the ranking that ordered it")).toHaveText(/^\d\.\d{3}$/);
  await expect(started).not.toContainText("the delivery van");
  await started.scrollIntoViewIfNeeded();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "semantic-run");
});

test("add an embedding provider in settings: errors at their fields, then listed as an embedding provider", async ({ page, api }) => {
  expect((await api.post("/v1/secrets", { name: secretName, value: `sk-e2e-${stamp}` })).status).toBe(201);
  await page.goto("/settings/providers");
  const rows = page.locator("tbody tr");
  const devEmbed = rows.filter({ hasText: "dev-embed" }).first();
  await expect(devEmbed.getByText("embeddings", { exact: true })).toBeVisible();
  await expect(devEmbed.getByText("not a real model")).toBeVisible();
  await expect(devEmbed).toContainText("512 dimensions");
  const devEcho = rows.last();
  await expect(devEcho).toContainText("dev-echo");
  await expect(devEcho.getByText("model", { exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("button", { name: "Add a provider" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByLabel("Dimensions (optional)")).toHaveCount(0);
  await dialog.getByLabel("Id").fill(providerId);
  await dialog.getByLabel("Kind").selectOption("openai-compatible-embeddings");
  // A cloud metadata address is always refused, and a vector of no length is no vector: both at their fields.
  await dialog.getByLabel("Base URL").fill("http://169.254.169.254/v1");
  await dialog.getByLabel("API key secret").selectOption(secretName);
  await dialog.getByLabel("Model").fill("text-embedding-3-small");
  await dialog.getByLabel("Dimensions (optional)").fill("0");
  await dialog.getByRole("button", { name: "Add provider" }).click();
  await expect(dialog.getByLabel("Base URL")).toHaveAttribute("aria-invalid", "true");
  await expect(dialog.locator('[data-issue-path="/baseUrl"]')).toContainText(/metadata|link-local/);
  await expect(dialog.getByLabel("Dimensions (optional)")).toHaveAttribute("aria-invalid", "true");
  await expect(dialog.locator('[data-issue-path="/models/0/dimensions"]')).toContainText(/>= 1|at least 1|minimum/i);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-providers-embedding-errors");

  // A name that never resolves: accepted (a host name is checked on each call), and never called while the spec runs.
  await dialog.getByLabel("Base URL").fill("https://embeddings.example.test/v1");
  await dialog.getByLabel("Dimensions (optional)").fill("1536");
  await dialog.getByRole("button", { name: "Add provider" }).click();
  await expect(dialog).toHaveCount(0);
  const row = rows.filter({ hasText: providerId });
  await expect(row.getByText("embeddings", { exact: true })).toBeVisible();
  await expect(row).toContainText("openai-compatible-embeddings");
  await expect(row).toContainText("text-embedding-3-small");
  await expect(row).toContainText("1536 dimensions");
  await expect(row).toContainText("https://embeddings.example.test/v1");
  await expect(row.getByText("not a real model")).toHaveCount(0);
  const listed = await api.get<{ data: { id: string; capabilityKind: string; models: { name: string; dimensions?: number }[] }[] }>("/v1/providers");
  expect(listed.body.data.find((provider) => provider.id === providerId)).toMatchObject({ capabilityKind: "embedding", models: [{ name: "text-embedding-3-small", dimensions: 1536 }] });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "settings-providers-embedding");
});

test("the agent editor names the embedding provider a semantic retrieval intent would use", async ({ page }) => {
  await page.goto("/agents/new");
  await expect(page.getByRole("heading", { level: 1, name: "New agent" })).toBeVisible();
  const basics = page.getByRole("region", { name: "Basics" });
  await basics.getByLabel("Agent id").fill(`e2e.semantic-${stamp}`);
  await basics.getByLabel("Name").fill("Semantic helper");
  const instructions = page.getByRole("textbox", { name: "Instructions", exact: true });
  await instructions.click();
  await page.keyboard.insertText("Answer from the facts you are given.");
  await page.getByRole("button", { name: "Add retrieval intent" }).click();
  const intent = page.getByRole("group", { name: "Intent 1" });
  await intent.getByLabel("Fact types").fill("preference");
  await intent.getByLabel("Fact types").blur();
  await intent.getByLabel("Scope").selectOption({ label: "Same project" });
  await intent.getByLabel("Mode").selectOption({ label: "Semantic" });
  const note = page.getByTestId("embedding-routing");
  await expect(note).toContainText(`would embed with ${providerId} / text-embedding-3-small`);
  await expect(intent.getByText("must have at least 1 item")).toHaveCount(0);
  await note.scrollIntoViewIfNeeded();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "agent-editor-semantic");
});
