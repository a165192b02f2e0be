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

describe("keyword retrieval on a real database", () => {
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
    const facts = await retrieveFacts(scope, { types: ["note"], scope: "same-project" }, "ships to berlin?", database.db);
    expect(facts.map((fact) => fact.id)).toEqual([best.id, older.id, newer.id]);
    expect(facts[0].rank).toBeGreaterThan(facts[1].rank);
    expect(facts[0]).toEqual({ id: best.id, type: "note", content: "Preferred shipping: express shipping to Berlin", conversationId: scope.conversationId, createdAt: expect.any(String), rank: expect.any(Number) });
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

  it("keeps to the scope: the conversation, the project, or the tenant", async () => {
    const tenantId = randomUUID();
    const projectId = randomUUID();
    const here = newScope({ tenantId, projectId });
    const sameProject = newScope({ tenantId, projectId });
    const otherProject = newScope({ tenantId });
    const otherTenant = newScope({ projectId });
    const a = await store(here, "alpha keyword");
    const b = await store(sameProject, "alpha keyword");
    const c = await store(otherProject, "alpha keyword");
    await store(otherTenant, "alpha keyword");
    const ids = async (scope: "same-conversation" | "same-project" | "tenant", from: FactScope = here) => (await searchFacts(from, { text: "alpha", limit: 10, scope }, database.db)).map((fact) => fact.id).sort();
    expect(await ids("same-conversation")).toEqual([a.id]);
    expect(await ids("same-project")).toEqual([a.id, b.id].sort());
    expect(await ids("tenant")).toEqual([a.id, b.id, c.id].sort());
    expect(await ids("same-conversation", { ...here, conversationId: null })).toEqual([]);
  });

  it("keeps to the intent's types (none match an empty list) and its limit (default 10, at most 100)", async () => {
    const scope = newScope();
    for (let i = 0; i < 12; i++) await store(scope, `gamma fact ${i}`, i % 2 ? "odd" : "even");
    await store(scope, "gamma other", "other");
    expect(await retrieveFacts(scope, { types: [], scope: "tenant" }, "gamma", database.db)).toEqual([]);
    expect((await retrieveFacts(scope, { types: ["odd"], scope: "tenant" }, "gamma", database.db)).map((fact) => fact.type)).toEqual(Array(6).fill("odd"));
    expect(await retrieveFacts(scope, { types: ["odd", "even", "other"], scope: "tenant" }, "gamma", database.db)).toHaveLength(10);
    expect(await retrieveFacts(scope, { types: ["odd", "even", "other"], scope: "tenant", limit: 3 }, "gamma", database.db)).toHaveLength(3);
    expect(await searchFacts(scope, { text: "gamma", limit: 1000, scope: "tenant" }, database.db)).toHaveLength(13);
    expect(await searchFacts(scope, { text: "gamma", limit: 0, scope: "tenant" }, database.db)).toHaveLength(10);
    expect(await searchFacts(scope, { text: "gamma", types: ["'; --"], limit: 5, scope: "tenant" }, database.db)).toEqual([]);
  });

  it("refuses a fact the store cannot hold", async () => {
    const scope = newScope();
    await expect(store(scope, "   ")).rejects.toMatchObject({ code: "bad-input" });
    await expect(store(scope, "fine", "Bad Type")).rejects.toMatchObject({ code: "bad-input" });
  });
});
