import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getBuiltinTool } from "@/lib/tools/native";
import { call, expectError, newTenant, toolManifest, type TestTenant } from "./helpers/api";

const createFact = (tenant: TestTenant, body: Record<string, unknown>, key = tenant.key, headers: Record<string, string> = {}) =>
  call("POST", "/v1/memory/facts", { key, body: { projectId: tenant.projectId, ...body }, headers });

async function storeFact(tenant: TestTenant, content: string, type = "note", projectId = tenant.projectId) {
  const response = await call("POST", "/v1/memory/facts", { key: tenant.key, body: { type, content, projectId } });
  if (response.status !== 201) throw new Error(`fact creation failed: ${response.status} ${response.text}`);
  return response.body as { id: string; type: string; content: string; createdAt: string };
}

const listFacts = (tenant: TestTenant, query = "", key = tenant.key) => call("GET", `/v1/memory/facts${query ? `?${query}` : ""}`, { key });
const contentsOf = (response: { body: { data: Array<{ content: string }> } }) => response.body.data.map((fact) => fact.content);
const paths = (error: { details?: { issues?: Array<{ path: string }> } }) => (error.details?.issues ?? []).map((issue) => issue.path);

/** Every page of a list, following nextCursor. */
async function allPages(tenant: TestTenant, query: string, limit: number) {
  const seen: Array<{ id: string; content: string }> = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const response = await listFacts(tenant, `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(response.status).toBe(200);
    expect(response.body.data.length).toBeLessThanOrEqual(limit);
    seen.push(...response.body.data);
    if (!response.body.hasMore) {
      expect(response.body.nextCursor).toBeUndefined();
      return seen;
    }
    cursor = response.body.nextCursor;
  }
  throw new Error("pagination did not end");
}

describe("memory facts API", () => {
  it("stores, reads, lists and forgets a fact", async () => {
    const tenant = await newTenant();
    const created = await createFact(tenant, { type: "preference", content: "Prefers email over phone." });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: "preference",
      content: "Prefers email over phone.",
      projectId: tenant.projectId,
      conversationId: null,
      source: "api",
      runId: null,
      createdBy: tenant.adminUserId,
      createdAt: expect.any(String),
    });
    const id = created.body.id;
    const read = await call("GET", `/v1/memory/facts/${id}`, { key: tenant.key });
    expect(read.status).toBe(200);
    // One fact says whether it is embedded yet, and with what (dev-embed: no embedding provider is configured).
    const embedding = { status: expect.stringMatching(/^(pending|embedded)$/), providerId: "dev-embed", model: "dev-embed" };
    expect(read.body).toEqual({ ...created.body, embedding: expect.objectContaining(embedding) });
    expect((await call("GET", `/v1/memory/facts/${id.toUpperCase()}`, { key: tenant.key })).body).toEqual({ ...created.body, embedding: expect.objectContaining(embedding) });
    expect((await listFacts(tenant)).body).toEqual({ data: [created.body], hasMore: false });

    const deleted = await call("DELETE", `/v1/memory/facts/${id}`, { key: tenant.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expectError(await call("GET", `/v1/memory/facts/${id}`, { key: tenant.key }), 404, "not-found");
    expectError(await call("DELETE", `/v1/memory/facts/${id}`, { key: tenant.key }), 404, "not-found");
    expect((await listFacts(tenant)).body).toEqual({ data: [], hasMore: false });
  });

  it("replays POST and DELETE with the same Idempotency-Key", async () => {
    const tenant = await newTenant();
    const key = `fact-${randomUUID()}`;
    const first = await createFact(tenant, { type: "note", content: "Once only." }, tenant.key, { "Idempotency-Key": key });
    const again = await createFact(tenant, { type: "note", content: "Once only." }, tenant.key, { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("x-idempotent-replay")).toBe("true");
    expect(again.text).toBe(first.text);
    expect((await listFacts(tenant)).body.data).toHaveLength(1);
    expectError(await createFact(tenant, { type: "note", content: "Something else." }, tenant.key, { "Idempotency-Key": key }), 409, "idempotency-key-body-mismatch");

    const deleteKey = { "Idempotency-Key": `forget-${randomUUID()}` };
    expect((await call("DELETE", `/v1/memory/facts/${first.body.id}`, { key: tenant.key, headers: deleteKey })).status).toBe(200);
    const replayed = await call("DELETE", `/v1/memory/facts/${first.body.id}`, { key: tenant.key, headers: deleteKey });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get("x-idempotent-replay")).toBe("true");
  });

  it("refuses bad input with pointers and stores nothing", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const bad = async (body: Record<string, unknown>, status: number, code: string) => expectError(await call("POST", "/v1/memory/facts", { key: tenant.key, body }), status, code);
    const base = { type: "note", content: "A fact.", projectId: tenant.projectId };

    expect(paths(await bad({ projectId: tenant.projectId }, 400, "bad-input"))).toEqual(expect.arrayContaining(["/type", "/content"]));
    for (const type of ["Note", "-note", "a b", "", "x".repeat(65), 5, null]) expect(paths(await bad({ ...base, type }, 400, "bad-input"))).toEqual(["/type"]);
    for (const content of ["", "   \n\t", "x".repeat(8001), 42]) expect(paths(await bad({ ...base, content }, 400, "bad-input"))).toEqual(["/content"]);
    expect(paths(await bad({ ...base, content: "nul \u0000 here" }, 400, "bad-input"))).toEqual(["/content"]);
    expect(paths(await bad({ ...base, extra: 1 }, 400, "unknown-field"))).toEqual(["/extra"]);
    expect(paths(await bad({ type: "note", content: "No project." }, 400, "bad-input"))).toEqual(["/projectId"]);
    expect(paths(await bad({ ...base, projectId: "not-a-uuid" }, 400, "bad-input"))).toEqual(["/projectId"]);
    expect(paths(await bad({ ...base, projectId: other.projectId }, 400, "bad-input"))).toEqual(["/projectId"]);
    expect(paths(await bad({ ...base, projectId: randomUUID() }, 400, "bad-input"))).toEqual(["/projectId"]);
    expect(paths(await bad({ ...base, conversationId: "abc" }, 400, "bad-input"))).toEqual(["/conversationId"]);
    await bad({ ...base, conversationId: randomUUID() }, 404, "not-found");
    await bad({ type: "note", content: "x", conversationId: randomUUID() }, 404, "not-found");
    expectError(await call("POST", "/v1/memory/facts", { key: tenant.key, rawBody: "{not json", headers: { "Content-Type": "application/json" } }), 400, "bad-input");
    expectError(await call("POST", "/v1/memory/facts", { key: tenant.key, body: [base] }), 400, "bad-input");
    expect((await listFacts(tenant)).body.data).toEqual([]);
  });

  it("refuses malformed ids, queries and cursors with 400 before touching anything", async () => {
    const tenant = await newTenant();
    for (const id of ["not-a-uuid", "123", "00000000-0000-4000-8000-00000000000G", "%27%20OR%201%3D1"]) {
      expectError(await call("GET", `/v1/memory/facts/${id}`, { key: tenant.key }), 400, "bad-input");
      expectError(await call("DELETE", `/v1/memory/facts/${id}`, { key: tenant.key }), 400, "bad-input");
    }
    expectError(await call("GET", `/v1/memory/facts/${randomUUID()}`, { key: tenant.key }), 404, "not-found");
    for (const query of ["conversationId=abc", "projectId=abc", "type=Not%20A%20Slug", "limit=0", "limit=101", "q=", `q=${"x".repeat(1001)}`, "cursor=garbage", `cursor=${Buffer.from('["x"]').toString("base64url")}`])
      expectError(await listFacts(tenant, query), 400, "bad-input");
    expectError(await listFacts(tenant, `q=word&cursor=${Buffer.from(JSON.stringify([new Date().toISOString(), randomUUID()])).toString("base64url")}`), 400, "bad-input");
    expectError(await listFacts(tenant, `cursor=${Buffer.from(JSON.stringify([0.5, new Date().toISOString(), randomUUID()])).toString("base64url")}`), 400, "bad-input");
    expectError(await listFacts(tenant, "bogus=1"), 400, "unknown-field");
  });

  it("keeps tenants apart: another tenant's fact is 404 and never listed or found", async () => {
    const owner = await newTenant();
    const stranger = await newTenant();
    const fact = await storeFact(owner, "The vault code is kept in the red binder.");
    expectError(await call("GET", `/v1/memory/facts/${fact.id}`, { key: stranger.key }), 404, "not-found");
    expectError(await call("DELETE", `/v1/memory/facts/${fact.id}`, { key: stranger.key }), 404, "not-found");
    expect((await listFacts(stranger)).body.data).toEqual([]);
    expect((await listFacts(stranger, "q=vault%20binder")).body.data).toEqual([]);
    expect((await listFacts(stranger, `projectId=${owner.projectId}`)).body.data).toEqual([]);
    expect((await call("GET", `/v1/memory/facts/${fact.id}`, { key: owner.key })).status).toBe(200);
  });

  it("lets a viewer read but not write or forget (403), and a project key see only its project", async () => {
    const tenant = await newTenant();
    const fact = await storeFact(tenant, "Read me.");
    const viewer = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "v", serviceAccount: { name: "viewer", role: "viewer" } } });
    expect(viewer.status).toBe(201);
    expectError(await createFact(tenant, { type: "note", content: "Viewer writes." }, viewer.body.key), 403, "permission-denied");
    expectError(await call("DELETE", `/v1/memory/facts/${fact.id}`, { key: viewer.body.key }), 403, "permission-denied");
    expect((await call("GET", `/v1/memory/facts/${fact.id}`, { key: viewer.body.key })).status).toBe(200);
    expect((await listFacts(tenant, "", viewer.body.key)).body.data.map((item: { id: string }) => item.id)).toEqual([fact.id]);

    const project = await call("POST", "/v1/projects", { key: tenant.key, body: { name: `second ${randomUUID()}` } });
    expect(project.status).toBe(201);
    const inSecond = await storeFact(tenant, "Second project fact.", "note", project.body.id);
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "narrow", projectId: project.body.id } });
    expect(narrowed.status).toBe(201);
    expect((await listFacts(tenant, "", narrowed.body.key)).body.data.map((item: { id: string }) => item.id)).toEqual([inSecond.id]);
    expect((await listFacts(tenant, `projectId=${tenant.projectId}`, narrowed.body.key)).body.data).toEqual([]);
    expect((await listFacts(tenant, "q=fact", narrowed.body.key)).body.data.map((item: { id: string }) => item.id)).toEqual([inSecond.id]);
    expectError(await call("GET", `/v1/memory/facts/${fact.id}`, { key: narrowed.body.key }), 404, "not-found");
    expectError(await call("DELETE", `/v1/memory/facts/${fact.id}`, { key: narrowed.body.key }), 404, "not-found");
    expect(paths(expectError(await createFact(tenant, { type: "note", content: "Elsewhere." }, narrowed.body.key), 400, "bad-input"))).toEqual(["/projectId"]);
    expect((await createFact(tenant, { type: "note", content: "Here.", projectId: project.body.id }, narrowed.body.key)).status).toBe(201);
    expect((await listFacts(tenant, `projectId=${project.body.id}`)).body.data).toHaveLength(2);
  });

  it("filters by type and conversation, newest first, and pages without skipping or repeating", async () => {
    const tenant = await newTenant();
    const stored = [];
    for (let i = 0; i < 7; i++) stored.push(await storeFact(tenant, `fact number ${i}`, i % 2 ? "odd" : "even"));
    const all = await allPages(tenant, "", 3);
    expect(all.map((fact) => fact.id).sort()).toEqual(stored.map((fact) => fact.id).sort());
    const times = all.map((fact) => (fact as unknown as { createdAt: string }).createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(contentsOf(await listFacts(tenant, "type=odd"))).toEqual(["fact number 5", "fact number 3", "fact number 1"]);
    expect((await listFacts(tenant, `conversationId=${randomUUID()}`)).body).toEqual({ data: [], hasMore: false });
  });
});

describe("keyword search (GET /v1/memory/facts?q=)", () => {
  it("matches stemmed words: 'prefers emails' finds 'preference: email'", async () => {
    const tenant = await newTenant();
    await storeFact(tenant, "preference: email", "preference");
    await storeFact(tenant, "The office is in Berlin");
    expect(contentsOf(await listFacts(tenant, "q=prefers%20emails"))).toEqual(["preference: email"]);
    expect(contentsOf(await listFacts(tenant, "q=PREFERRING"))).toEqual(["preference: email"]);
    expect(contentsOf(await listFacts(tenant, "q=offices%20in%20berlin"))).toEqual(["The office is in Berlin"]);
    expect(contentsOf(await listFacts(tenant, "q=the%20and%20of"))).toEqual([]);
    expect(contentsOf(await listFacts(tenant, "q=email&type=note"))).toEqual([]);
  });

  it("orders by relevance, then newest, and pages through ties", async () => {
    const tenant = await newTenant();
    const best = await storeFact(tenant, "invoice invoice invoice overdue");
    for (let i = 0; i < 5; i++) await storeFact(tenant, `invoice number ${i}`);
    await storeFact(tenant, "unrelated");
    const first = await listFacts(tenant, "q=overdue%20invoices");
    expect(first.body.data[0].id).toBe(best.id);
    expect(first.body.data).toHaveLength(6);
    const paged = await allPages(tenant, "q=overdue%20invoices", 2);
    expect(paged.map((fact) => fact.id)).toEqual(first.body.data.map((fact: { id: string }) => fact.id));
  });

  it("treats SQL and tsquery syntax in the query as plain words", async () => {
    const tenant = await newTenant();
    await storeFact(tenant, "O'Brien's order & invoice | done");
    const hostile = ["' OR 1=1 --", "'; DROP TABLE \"MemoryFact\"; --", "\\", "''''", "!(a & b) | c:*", "<-> <2>", "%", "😀", "\"quoted\""];
    for (const q of hostile) {
      const response = await listFacts(tenant, `q=${encodeURIComponent(q)}`);
      expect({ q, status: response.status, data: response.body.data }).toEqual({ q, status: 200, data: [] });
    }
    for (const q of ["O'Brien", "invoice' OR '1'='1", "order & !invoice", "(done)"]) expect(contentsOf(await listFacts(tenant, `q=${encodeURIComponent(q)}`))).toEqual(["O'Brien's order & invoice | done"]);
    expect((await listFacts(tenant)).body.data).toHaveLength(1);
  });
});

describe("built-in tools in the registry", () => {
  it("GET /v1/tools/{id} and its versions answer for a built-in tool, with builtIn: true", async () => {
    const tenant = await newTenant();
    const tool = await call("GET", "/v1/tools/current-time", { key: tenant.key });
    expect(tool.status).toBe(200);
    expect(tool.body).toMatchObject({ toolId: "current-time", projectId: null, latestVersion: "1.0.0", builtIn: true, versions: [{ version: "1.0.0", status: "active", isLatest: true }] });
    expect(tool.body.latest).toMatchObject({ toolId: "current-time", version: "1.0.0", projectId: null, status: "active", isLatest: true, registeredBy: null, builtIn: true });
    expect(tool.body.latest.manifest).toEqual(getBuiltinTool("current-time"));
    const version = await call("GET", "/v1/tools/recall/versions/1.0.0", { key: tenant.key });
    expect(version.status).toBe(200);
    expect(version.body).toMatchObject({ toolId: "recall", builtIn: true, manifest: { id: "recall", transport: "native", resultIsOutsideData: true } });
    expect((await call("GET", "/v1/tools/remember/versions", { key: tenant.key })).body).toEqual({ data: [expect.objectContaining({ version: "1.0.0", isLatest: true })], hasMore: false });
    expectError(await call("GET", "/v1/tools/current-time/versions/2.0.0", { key: tenant.key }), 404, "not-found");

    const registered = toolManifest();
    await call("POST", "/v1/tools", { key: tenant.key, body: { ...registered, projectId: tenant.projectId } });
    expect((await call("GET", `/v1/tools/${registered.id}`, { key: tenant.key })).body).toMatchObject({ builtIn: false, latest: { builtIn: false } });
  });

  it("refuses to register a tool under a built-in id (validation-failed at /id), registering nothing", async () => {
    const tenant = await newTenant();
    for (const id of ["current-time", "remember", "recall"]) {
      const error = expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...toolManifest({ id }), projectId: tenant.projectId } }), 400, "validation-failed");
      expect(error.details.issues).toEqual([{ path: "/id", message: expect.stringContaining("reserved for a built-in tool") }]);
      expect((await call("GET", `/v1/tools/${id}`, { key: tenant.key })).body.builtIn).toBe(true);
    }
    // The list shows the built-in tools themselves, and nothing registered.
    expect((await call("GET", "/v1/tools", { key: tenant.key })).body.data.map((tool: { toolId: string; builtIn: boolean }) => [tool.toolId, tool.builtIn])).toEqual([["current-time", true], ["recall", true], ["remember", true]]);
  });

  it("resolves an agent's reference to a built-in tool, with no warning", async () => {
    const tenant = await newTenant();
    const id = `test.agent-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    const definition = {
      id,
      version: "1.0.0",
      name: "Clock",
      description: "Tells the time.",
      instructions: "Tell the time.",
      capabilities: [{}],
      tools: [{ id: "current-time", version: "^1.0.0" }, { id: "recall", version: "1.0.0" }, { id: "remember", version: "^2.0.0" }],
      retrieval: [{ types: ["note"], scope: "same-project" }],
      guardrails: [],
    };
    const created = await call("POST", "/v1/agents", { key: tenant.key, body: { ...definition, projectId: tenant.projectId } });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([{ path: "/tools/2/version", message: expect.stringContaining("active versions: 1.0.0") }]);
    const resolution = await call("GET", `/v1/agents/${id}/versions/1.0.0/resolution`, { key: tenant.key });
    expect(resolution.status).toBe(200);
    expect(resolution.body.resolved).toEqual([
      { id: "current-time", range: "^1.0.0", version: "1.0.0" },
      { id: "recall", range: "1.0.0", version: "1.0.0" },
    ]);
    expect(resolution.body.unresolved).toEqual([{ id: "remember", range: "^2.0.0", available: ["1.0.0"] }]);

    const clockOnly = { ...definition, id: `${id}-clock`, tools: [{ id: "current-time", version: "^1.0.0" }] };
    expect((await call("POST", "/v1/agents", { key: tenant.key, body: { ...clockOnly, projectId: tenant.projectId } })).body.warnings).toEqual([]);
  });
});
