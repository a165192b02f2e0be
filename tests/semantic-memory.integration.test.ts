/**
 * Retrieval by meaning on a real server: facts embedded in the background with dev-embed (no embedding provider
 * configured), agents whose retrieval intents are `semantic` or `both`, the `recall` tool's `mode`, what
 * GET /v1/memory/facts/{id} says of a fact's embedding, and the journal's record of what a turn retrieved and how.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, newTenant, type TestTenant } from "./helpers/api";
import { registerAgent, script, unique } from "./helpers/kernel";
import { startEmbeddingsServer } from "../lib/models/providers/testing/embeddings-wire-server";

let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  [tenant, other] = await Promise.all([newTenant("semantic memory"), newTenant("semantic memory, another tenant")]);
});

/** Stores a fact and waits until it is embedded with its project's embedding model. */
async function embeddedFact(owner: TestTenant, content: string, type = "preference", extra: Record<string, unknown> = {}): Promise<{ id: string; embedding: Record<string, unknown> }> {
  const created = await call("POST", "/v1/memory/facts", { key: owner.key, body: { type, content, projectId: owner.projectId, ...extra } });
  expect(created.status, created.text).toBe(201);
  return waitEmbedded(owner, created.body.id);
}

async function waitEmbedded(owner: TestTenant, factId: string, model?: string, timeoutMs = 20_000): Promise<{ id: string; embedding: Record<string, unknown> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const fact = await call("GET", `/v1/memory/facts/${factId}`, { key: owner.key });
    expect(fact.status, fact.text).toBe(200);
    if (fact.body.embedding.status === "embedded" && (!model || fact.body.embedding.model === model)) return fact.body;
    if (Date.now() > deadline) throw new Error(`fact ${factId} was not embedded in time: ${JSON.stringify(fact.body.embedding)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A turn of an agent retrieving `preference` facts by `mode`; the turn-started event's facts and retrieval record. */
async function retrieved(owner: TestTenant, mode: "keyword" | "semantic" | "both", userMessage: string, intent: Record<string, unknown> = {}) {
  // dev-echo answers whatever the message: the message is the retrieval's query.
  const agent = await registerAgent(owner, { preferredProvider: "dev-echo", retrieval: [{ types: ["preference"], scope: "same-project", mode, ...intent }] });
  const run = await call("POST", "/v1/runs", { key: owner.key, body: { agent: { id: agent.id }, input: { userMessage } } });
  expect(run.status, run.text).toBe(201);
  const journal = await call("GET", `/v1/runs/${run.body.id}/journal?limit=100`, { key: owner.key });
  const started = journal.body.data.find((event: { type: string }) => event.type === "turn-started").data;
  return { facts: started.facts as { id: string; content: string; score: number; foundBy: string }[], retrieval: started.retrieval, run: run.body };
}

describe("facts are embedded in the background", () => {
  it("a stored fact is embedded with dev-embed when no embedding provider is configured, and says so", async () => {
    const fact = await embeddedFact(tenant, `the office plant is a ${unique("ficus")}`);
    expect(fact.embedding).toMatchObject({ status: "embedded", providerId: "dev-embed", model: "dev-embed", dimensions: 512, embeddedAt: expect.any(String) });
  });
});

describe("retrieval by meaning", () => {
  it("semantic finds a fact phrased differently from the query that keyword search misses; both finds it too", async () => {
    const colour = await embeddedFact(tenant, "favourite colour: dark green");
    await embeddedFact(tenant, "the delivery van is parked in bay seven");
    const keyword = await retrieved(tenant, "keyword", "what is my favorite color?");
    expect(keyword.facts.map((fact) => fact.id)).not.toContain(colour.id);
    const semantic = await retrieved(tenant, "semantic", "what is my favorite color?", { limit: 1 });
    expect(semantic.facts).toEqual([expect.objectContaining({ id: colour.id, foundBy: "semantic", score: expect.any(Number) })]);
    expect(semantic.retrieval).toMatchObject({ embedding: { providerId: "dev-embed", model: "dev-embed" }, skipped: 0, warnings: [] });
    const both = await retrieved(tenant, "both", "what is my favorite color?", { limit: 3 });
    expect(both.facts[0]).toMatchObject({ id: colour.id, foundBy: "semantic" });
  });

  it("keeps to the intent's types and scope, and never reaches another tenant's facts", async () => {
    const word = unique("zebrafish");
    const mine = await embeddedFact(tenant, `the lab keeps ${word} in tank four`);
    const wrongType = await embeddedFact(tenant, `the lab keeps ${word} in tank five`, "note");
    const theirs = await embeddedFact(other, `the lab keeps ${word} in tank four`);
    const found = await retrieved(tenant, "semantic", `where are the ${word} kept?`, { limit: 100 });
    const ids = found.facts.map((fact) => fact.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(wrongType.id);
    expect(ids).not.toContain(theirs.id);
    const conversationOnly = await retrieved(tenant, "semantic", `where are the ${word} kept?`, { scope: "same-conversation" });
    expect(conversationOnly.facts).toEqual([]);
  });

  it("the recall tool searches by meaning with mode semantic", async () => {
    const colour = await embeddedFact(tenant, "favourite colour of the team mascot: orange");
    const agent = await registerAgent(tenant, { tools: [{ id: "recall", version: "^1.1.0" }] });
    const run = await call("POST", "/v1/runs", {
      key: tenant.key,
      body: { agent: { id: agent.id }, input: { userMessage: script({ toolCalls: [{ name: "recall", arguments: { query: "mascot favorite color", mode: "semantic", limit: 3 } }] }, { text: "done" }) } },
    });
    expect(run.status, run.text).toBe(201);
    const journal = await call("GET", `/v1/runs/${run.body.id}/journal?limit=100`, { key: tenant.key });
    const result = journal.body.data.find((event: { type: string }) => event.type === "tool-call-completed").data;
    expect(result.ok).toBe(true);
    expect(result.output.facts[0]).toMatchObject({ id: colour.id, foundBy: "semantic" });
    expect(result.output.skipped).toEqual(expect.any(Number));
  });
});

describe("an embedding capability no provider serves", () => {
  it("is a warning at its pointer; it fails a turn that retrieves by meaning, and only such a turn", async () => {
    const capabilities = [{ kind: "llm-inference" }, { kind: "embedding", needs: [{ providers: { allow: ["no-such-embedder"] } }] }];
    const validated = await call("POST", "/v1/agents/validate", { key: tenant.key, body: { id: unique("v.agent"), version: "1.0.0", name: "V", instructions: "x", capabilities, tools: [], retrieval: [{ types: ["preference"], scope: "same-project", mode: "semantic" }], guardrails: [], projectId: tenant.projectId } });
    expect(validated.body).toMatchObject({ valid: true, embeddingRouting: { error: "no-provider" } });
    expect(validated.body.warnings).toEqual([expect.objectContaining({ path: "/capabilities/1" })]);
    const semantic = await registerAgent(tenant, { preferredProvider: "dev-echo", capabilities, retrieval: [{ types: ["preference"], scope: "same-project", mode: "semantic" }] });
    const failed = await call("POST", "/v1/runs", { key: tenant.key, body: { agent: { id: semantic.id }, input: { userMessage: "anything" } } });
    expect(failed.body).toMatchObject({ status: "failed", failure: { code: "no-provider", message: expect.stringContaining("searches by meaning") } });
    const keyword = await registerAgent(tenant, { preferredProvider: "dev-echo", capabilities, retrieval: [{ types: ["preference"], scope: "same-project", mode: "keyword" }] });
    expect((await call("POST", "/v1/runs", { key: tenant.key, body: { agent: { id: keyword.id }, input: { userMessage: "anything" } } })).body.status).toBe("completed");
  });
});

describe("an embedding provider of the tenant's own", () => {
  it("re-embeds the facts when the model changes; a fact written while the provider is down is embedded after it recovers", async () => {
    const own = await newTenant("semantic memory, own embedding provider");
    const wire = await startEmbeddingsServer({ apiKey: "wire-embed-key", dimensions: 16 });
    try {
      const before = await embeddedFact(own, "the espresso machine descales on Fridays");
      expect(before.embedding).toMatchObject({ providerId: "dev-embed", model: "dev-embed" });

      // The provider is down from its first request on; configuring it changes the project's embedding model.
      wire.update({ faults: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [i + 1, { status: 503 }])) });
      const secret = await call("POST", "/v1/secrets", { key: own.key, body: { name: "wire-embed-key", value: "wire-embed-key" } });
      expect(secret.status, secret.text).toBe(201);
      const provider = await call("POST", "/v1/providers", { key: own.key, body: { id: "wire-embed", kind: "openai-compatible-embeddings", baseUrl: wire.baseUrl, apiKeySecret: "wire-embed-key", models: [{ name: "wire-embed-1", dimensions: 16, inputUsdPerMTok: 100 }] } });
      expect(provider.status, provider.text).toBe(201);
      const written = await call("POST", "/v1/memory/facts", { key: own.key, body: { type: "preference", content: "the printer on floor two jams on A3", projectId: own.projectId } });
      expect(written.status, written.text).toBe(201);

      // The write was kept; the fact waits, with the failure on record.
      const deadline = Date.now() + 20_000;
      let pending: Record<string, unknown> = {};
      for (;;) {
        pending = (await call("GET", `/v1/memory/facts/${written.body.id}`, { key: own.key })).body.embedding;
        if (Number(pending.attempts) >= 1 || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(pending).toMatchObject({ status: "pending", providerId: "wire-embed", model: "wire-embed-1", attempts: expect.any(Number), lastError: expect.stringContaining("503"), nextAttemptAt: expect.any(String) });
      expect(Number(pending.attempts)).toBeGreaterThanOrEqual(1);

      // A turn that retrieves by meaning while the provider is down is not failed: it says why nothing was searched by meaning.
      const during = await retrieved(own, "both", "espresso machine");
      expect(during.run.status).toBe("completed");
      expect(during.retrieval.warnings).toEqual([expect.stringContaining("could not be embedded with wire-embed/wire-embed-1")]);
      expect(during.facts.map((fact) => fact.foundBy)).toEqual(["keyword"]);

      // It recovers: both facts get vectors from the new model.
      wire.update({ faults: {} });
      for (const id of [written.body.id, before.id]) expect((await waitEmbedded(own, id, "wire-embed-1", 30_000)).embedding).toMatchObject({ status: "embedded", providerId: "wire-embed", model: "wire-embed-1", dimensions: 16 });
      const embeddedTexts = wire.requests.filter((request) => request.status === 200).flatMap((request) => request.inputs ?? []);
      expect(embeddedTexts).toEqual(expect.arrayContaining(["the printer on floor two jams on A3", "the espresso machine descales on Fridays"]));
      expect(wire.requests.every((request) => request.headers.authorization === "Bearer wire-embed-key")).toBe(true);

      // A turn that retrieves by meaning embeds its query with the same model.
      const turn = await retrieved(own, "semantic", "printer problems");
      expect(turn.retrieval).toMatchObject({ embedding: { providerId: "wire-embed", model: "wire-embed-1", inputTokens: expect.any(Number) }, skipped: 0 });
      // The query's embedding is accounted: its cost (100 USD per million tokens here) is the run's (dev-echo costs nothing).
      expect(turn.retrieval.embedding.inputTokens).toBeGreaterThan(0);
      expect(turn.retrieval.embedding.costUsd).toBeCloseTo((turn.retrieval.embedding.inputTokens * 100) / 1_000_000, 9);
      expect(turn.run.costUsd).toBeCloseTo(turn.retrieval.embedding.costUsd, 9);
      expect(turn.facts.map((fact) => fact.id).sort()).toEqual([written.body.id, before.id].sort());
    } finally {
      await wire.close();
    }
  }, 90_000);
});
