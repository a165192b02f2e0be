import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { openTestDatabase, type TestDatabase } from "@/lib/db/testing/test-database";
import { factIssues, rememberFact, retrieveFacts, searchFacts, type FactScope } from "@/lib/services/memory";

describe("factIssues", () => {
  it("accepts a lowercase slug type and non-blank content up to 8000 characters", () => {
    expect(factIssues({ type: "crm.contact_v2-x", content: "x".repeat(8000) })).toEqual([]);
    expect(factIssues({ type: "a".repeat(64), content: " a " })).toEqual([]);
  });

  it("points at each problem", () => {
    expect(factIssues({ type: "Note", content: "   \n" }).map((issue) => issue.path)).toEqual(["/type", "/content"]);
    for (const type of ["", "-note", ".x", "a b", "a".repeat(65), "é", 7, undefined]) expect(factIssues({ type, content: "x" }).map((issue) => issue.path)).toEqual(["/type"]);
    for (const content of ["", "x".repeat(8001), "a\u0000b", null, 3]) expect(factIssues({ type: "note", content }).map((issue) => issue.path)).toEqual(["/content"]);
  });
});

describe("retrieval on a real database: keyword, semantic and both", () => {
  let database: TestDatabase;
  // Migrating a fresh database takes a while on a busy machine.
  beforeAll(async () => {
    database = await openTestDatabase();
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });

  const newScope = (overrides: Partial<FactScope> = {}): FactScope => ({ tenantId: randomUUID(), projectId: randomUUID(), conversationId: randomUUID(), ...overrides });
  const store = (scope: FactScope, content: string, type = "note") => rememberFact({ ...scope, runId: randomUUID(), userId: randomUUID() }, { type, content }, database.db);

  it("matches any of the query's stemmed words, ranks by relevance, then newest first", async () => {
    const scope = newScope();
    const older = await store(scope, "Shipping address: Berlin");
    const best = await store(scope, "Preferred shipping: express shipping to Berlin");
    const newer = await store(scope, "Billing address: Berlin");
    await store(scope, "Nothing in common here");
    // Stored within one millisecond they would tie on time: make the order of storing the order of time.
    for (const [index, fact] of [older, best, newer].entries()) await database.db.memoryFact.update({ where: { id: fact.id }, data: { createdAt: new Date(Date.now() - 3000 + index * 1000) } });
    const { facts } = await retrieveFacts(scope, { types: ["note"], scope: "same-project" }, "ships to berlin?", { db: database.db });
    expect(facts.map((fact) => fact.id)).toEqual([best.id, older.id, newer.id]);
    expect(facts[0].rank).toBeGreaterThan(facts[1].rank);
    expect(facts[0]).toEqual({ id: best.id, type: "note", content: "Preferred shipping: express shipping to Berlin", conversationId: scope.conversationId, createdAt: expect.any(String), rank: expect.any(Number), score: facts[0].rank, foundBy: "keyword" });
    // Equal rank: the newer fact first.
    const tie = await searchFacts(scope, { text: "address", limit: 10, scope: "same-project" }, database.db);
    expect(tie.map((fact) => fact.id)).toEqual([newer.id, older.id]);
  });

  it("finds 'preference: email' for 'prefers emails' (English stemming)", async () => {
    const scope = newScope();
    const fact = await store(scope, "preference: email");
    expect((await searchFacts(scope, { text: "prefers emails", limit: 10, scope: "same-project" }, database.db)).map((found) => found.id)).toEqual([fact.id]);
  });

  it("matches nothing for a query without keywords, and treats operators and quotes in the query as text", async () => {
    const scope = newScope();
    const fact = await store(scope, "O'Brien's order & invoice | backslash \\ quote ' done");
    for (const text of ["", "   ", "the and of", "!!! ???", "' OR 1=1 --"]) expect(await searchFacts(scope, { text, limit: 10, scope: "tenant" }, database.db)).toEqual([]);
    for (const text of ["O'Brien", "order & !invoice", "invoice | nothing", "'; DROP TABLE \"MemoryFact\"; --invoice", "\\ backslash\\", "order:* <-> (invoice)", "x".repeat(20_000) + " invoice"]) {
      const found = await searchFacts(scope, { text, limit: 10, scope: "tenant" }, database.db);
      expect({ text: text.slice(0, 40), ids: found.map((item) => item.id) }).toEqual({ text: text.slice(0, 40), ids: text.startsWith("xxx") ? [] : [fact.id] });
    }
    expect(await database.db.memoryFact.count({ where: { tenantId: scope.tenantId } })).toBe(1);
  });

  it("keeps to the scope — the conversation, the project, or the tenant — and the types, by keyword and by meaning", async () => {
    const tenantId = randomUUID();
    const projectId = randomUUID();
    const here = newScope({ tenantId, projectId });
    const sameProject = newScope({ tenantId, projectId });
    const otherProject = newScope({ tenantId });
    const otherTenant = newScope({ projectId });
    const a = await fact(here, "alpha keyword", [1, 0]);
    const b = await fact(sameProject, "alpha keyword", [1, 0]);
    const c = await fact(otherProject, "alpha keyword", [1, 0]);
    await fact(otherTenant, "alpha keyword", [1, 0]);
    const typed = await fact(here, "alpha typed", [1, 0], "preference");
    for (const mode of ["keyword", "semantic"] as const) {
      const ids = async (scope: "same-conversation" | "same-project" | "tenant", from: FactScope = here, types = ["note"]) =>
        (await retrieveFacts(from, { types, scope, mode }, "alpha", { embedding: query([1, 0]), db: database.db })).facts.map((item) => item.id).sort();
      expect(await ids("same-conversation")).toEqual([a.id]);
      expect(await ids("same-project")).toEqual([a.id, b.id].sort());
      expect(await ids("tenant")).toEqual([a.id, b.id, c.id].sort());
      expect(await ids("same-conversation", { ...here, conversationId: null })).toEqual([]);
      expect(await ids("tenant", here, ["preference"])).toEqual([typed.id]);
    }
  });

  it("keeps to the intent's types (none match an empty list) and its limit (default 10, at most 100)", async () => {
    const scope = newScope();
    for (let i = 0; i < 12; i++) await store(scope, `gamma fact ${i}`, i % 2 ? "odd" : "even");
    await store(scope, "gamma other", "other");
    const retrieve = async (intent: { types: string[]; scope: "tenant"; limit?: number }) => (await retrieveFacts(scope, intent, "gamma", { db: database.db })).facts;
    expect(await retrieve({ types: [], scope: "tenant" })).toEqual([]);
    expect((await retrieve({ types: ["odd"], scope: "tenant" })).map((fact) => fact.type)).toEqual(Array(6).fill("odd"));
    expect(await retrieve({ types: ["odd", "even", "other"], scope: "tenant" })).toHaveLength(10);
    expect(await retrieve({ types: ["odd", "even", "other"], scope: "tenant", limit: 3 })).toHaveLength(3);
    expect(await searchFacts(scope, { text: "gamma", limit: 1000, scope: "tenant" }, database.db)).toHaveLength(13);
    expect(await searchFacts(scope, { text: "gamma", limit: 0, scope: "tenant" }, database.db)).toHaveLength(10);
    expect(await searchFacts(scope, { text: "gamma", types: ["'; --"], limit: 5, scope: "tenant" }, database.db)).toEqual([]);
  });

  it("refuses a fact the store cannot hold", async () => {
    const scope = newScope();
    await expect(store(scope, "   ")).rejects.toMatchObject({ code: "bad-input" });
    await expect(store(scope, "fine", "Bad Type")).rejects.toMatchObject({ code: "bad-input" });
  });

  // Semantic and both retrieval, with vectors stored as the embedder stores them.

  const MODEL = { providerId: "test-embed", model: "m1" };
  const unit = (vector: number[]) => {
    const length = Math.hypot(...vector);
    return vector.map((value) => value / length);
  };
  /** A fact, and (unless `vector` is null) its vector from MODEL. */
  async function fact(scope: FactScope, content: string, vector: number[] | null, type = "note") {
    const stored = await rememberFact({ ...scope, runId: randomUUID(), userId: randomUUID() }, { type, content }, database.db);
    if (vector) await database.db.factEmbedding.create({ data: { factId: stored.id, tenantId: scope.tenantId, projectId: scope.projectId, ...MODEL, dimensions: vector.length, vector: unit(vector) } });
    return stored;
  }
  const query = (vector: number[], model = MODEL) => ({ vector: unit(vector), ...model });

  it("semantic ranks by cosine similarity, finds what shares no word with the query, and counts the facts with no vector", async () => {
    const scope = newScope();
    const invoices = await fact(scope, "The customer prefers invoices in March", [1, 0.1, 0, 0]);
    const close = await fact(scope, "Payment terms are thirty days", [0.8, 0.6, 0, 0]);
    const far = await fact(scope, "The office dog is called Rex", [0, 0, 1, 0]);
    await fact(scope, "billing dates not embedded yet", null);
    const found = await retrieveFacts(scope, { types: ["note"], scope: "same-project", mode: "semantic" }, "when are billing dates?", { embedding: query([1, 0, 0, 0]), db: database.db });
    expect(found.facts.map((item) => item.id)).toEqual([invoices.id, close.id, far.id]);
    expect(found.facts[0]).toMatchObject({ foundBy: "semantic", content: "The customer prefers invoices in March" });
    expect(found.facts[0].score).toBeCloseTo(1 / Math.hypot(1, 0.1), 6);
    expect(found.facts[2].score).toBeCloseTo(0, 6);
    expect(found.skipped).toBe(1);
    // By keyword, the query shares no word with the invoices fact: only the fact that says "billing dates" is found.
    const keyword = await retrieveFacts(scope, { types: ["note"], scope: "same-project", mode: "keyword" }, "when are billing dates?", { db: database.db });
    expect(keyword.facts.map((item) => item.content)).toEqual(["billing dates not embedded yet"]);
    // Another model's vectors are not compared: nothing found, every fact skipped.
    const other = await retrieveFacts(scope, { types: ["note"], scope: "same-project", mode: "semantic" }, "billing", { embedding: query([1, 0, 0, 0], { providerId: "test-embed", model: "m2" }), db: database.db });
    expect(other).toEqual({ facts: [], skipped: 4 });
    // Without a query vector (its provider failed), semantic finds nothing and counts everything in reach as skipped.
    expect(await retrieveFacts(scope, { types: ["note"], scope: "same-project", mode: "semantic" }, "billing", { embedding: null, db: database.db })).toEqual({ facts: [], skipped: 4 });
  });

  it("both fuses the two rankings by reciprocal rank: a fact both find first, then each ranking's; not-embedded facts found by keyword", async () => {
    const scope = newScope();
    const both = await fact(scope, "invoice schedule: March", [1, 0, 0, 0]);
    const semanticOnly = await fact(scope, "payments are due at the start of the quarter", [0.9, 0.3, 0, 0]);
    const keywordOnly = await fact(scope, "an invoice template exists", null);
    await fact(scope, "unrelated: the office dog", [0, 0, 0, 1]);
    const found = await retrieveFacts(scope, { types: ["note"], scope: "same-project", mode: "both", limit: 3 }, "invoice", { embedding: query([1, 0.05, 0, 0]), db: database.db });
    expect(found.facts[0]).toMatchObject({ id: both.id, foundBy: "both" });
    // Found by both rankings (first or second in each): more than any one ranking's first place gives.
    expect(found.facts[0].score).toBeGreaterThan(1 / 61);
    expect(found.facts[0].score).toBeLessThanOrEqual(2 / 61);
    expect(found.facts.slice(1).every((item) => item.score <= 1 / 61)).toBe(true);
    expect(new Set(found.facts.slice(1).map((item) => item.id))).toEqual(new Set([semanticOnly.id, keywordOnly.id]));
    expect(Object.fromEntries(found.facts.map((item) => [item.id, item.foundBy]))).toMatchObject({ [semanticOnly.id]: "semantic", [keywordOnly.id]: "keyword" });
    expect(found.skipped).toBe(1);
  });

});
