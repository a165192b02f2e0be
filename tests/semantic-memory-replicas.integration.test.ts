/**
 * Facts embedded by two replicas on one PostgreSQL database, each with its own embedder: facts written through both
 * replicas at once are all embedded, each exactly once (a batch is claimed before it is embedded), and a fact written
 * on A is found by meaning in a turn on B.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, kindgi, tenantOn, type TestTenant } from "./helpers/api";
import { startReplicas, type Replicas } from "./helpers/replicas";
import { startEmbeddingsServer, type EmbeddingsServer } from "../lib/models/providers/testing/embeddings-wire-server";

describe.skipIf(kindgi().backend !== "postgresql")("facts embedded by two replicas", () => {
  let replicas: Replicas;
  let wire: EmbeddingsServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    // Slow safety passes: the embedders work when a new fact wakes them.
    [replicas, wire] = await Promise.all([startReplicas({ env: { KINDGI_EMBED_PASS_MS: "600000" } }), startEmbeddingsServer({ apiKey: "replica-embed-key", dimensions: 32 })]);
    tenant = await tenantOn(replicas.a.baseUrl, replicas.operatorToken, "semantic memory replicas");
    expect((await call("POST", "/v1/secrets", { key: tenant.key, baseUrl: replicas.a.baseUrl, body: { name: "replica-embed-key", value: "replica-embed-key" } })).status).toBe(201);
    const provider = await call("POST", "/v1/providers", { key: tenant.key, baseUrl: replicas.a.baseUrl, body: { id: "replica-embed", kind: "openai-compatible-embeddings", baseUrl: wire.baseUrl, apiKeySecret: "replica-embed-key", models: [{ name: "replica-embed-1", dimensions: 32 }] } });
    expect(provider.status, provider.text).toBe(201);
  }, 240_000);

  afterAll(async () => {
    await wire?.close();
    await replicas?.stop();
  });

  it("embeds every fact written on either replica exactly once", async () => {
    const contents = Array.from({ length: 120 }, (_, i) => `replica fact number ${i} about ${i % 2 ? "invoices" : "deliveries"}`);
    const written = await Promise.all(
      contents.map((content, i) => call("POST", "/v1/memory/facts", { key: tenant.key, baseUrl: (i % 2 ? replicas.b : replicas.a).baseUrl, body: { type: "note", content, projectId: tenant.projectId } })),
    );
    expect(written.map((response) => response.status)).toEqual(contents.map(() => 201));
    const deadline = Date.now() + 60_000;
    for (const response of written) {
      for (;;) {
        const fact = await call("GET", `/v1/memory/facts/${response.body.id}`, { key: tenant.key, baseUrl: replicas.b.baseUrl });
        if (fact.body.embedding.status === "embedded") {
          expect(fact.body.embedding).toMatchObject({ providerId: "replica-embed", model: "replica-embed-1", dimensions: 32 });
          break;
        }
        if (Date.now() > deadline) throw new Error(`not embedded in time: ${JSON.stringify(fact.body.embedding)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const embedded = wire.requests.filter((request) => request.status === 200).flatMap((request) => request.inputs ?? []);
    const counts = new Map<string, number>();
    for (const text of embedded) counts.set(text, (counts.get(text) ?? 0) + 1);
    expect(contents.filter((content) => counts.get(content) !== 1)).toEqual([]);
  }, 120_000);

  it("a fact written on A is found by meaning in a turn on B", async () => {
    const written = await call("POST", "/v1/memory/facts", { key: tenant.key, baseUrl: replicas.a.baseUrl, body: { type: "preference", content: "the boardroom projector needs an HDMI adapter", projectId: tenant.projectId } });
    expect(written.status, written.text).toBe(201);
    const deadline = Date.now() + 30_000;
    while ((await call("GET", `/v1/memory/facts/${written.body.id}`, { key: tenant.key, baseUrl: replicas.b.baseUrl })).body.embedding.status !== "embedded") {
      if (Date.now() > deadline) throw new Error("not embedded in time");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const agent = { id: `replica.semantic-${Date.now().toString(36)}`, version: "1.0.0", name: "Semantic", instructions: "Answer.", capabilities: [{ kind: "llm-inference" }, { kind: "embedding" }], tools: [], retrieval: [{ types: ["preference"], scope: "same-project", mode: "semantic", limit: 1 }], guardrails: [], preferredProvider: "dev-echo", projectId: tenant.projectId };
    expect((await call("POST", "/v1/agents", { key: tenant.key, baseUrl: replicas.b.baseUrl, body: agent })).status).toBe(201);
    const run = await call("POST", "/v1/runs", { key: tenant.key, baseUrl: replicas.b.baseUrl, body: { agent: { id: agent.id }, input: { userMessage: "the boardroom projector" } } });
    expect(run.status, run.text).toBe(201);
    const journal = await call("GET", `/v1/runs/${run.body.id}/journal?limit=100`, { key: tenant.key, baseUrl: replicas.b.baseUrl });
    const started = journal.body.data.find((event: { type: string }) => event.type === "turn-started").data;
    expect(started.retrieval).toMatchObject({ embedding: { providerId: "replica-embed", model: "replica-embed-1" } });
    expect(started.facts).toEqual([expect.objectContaining({ id: written.body.id, foundBy: "semantic" })]);
  }, 60_000);
});
