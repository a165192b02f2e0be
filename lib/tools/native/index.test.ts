import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { openTestDatabase, type TestDatabase } from "@/lib/db/testing/test-database";
import { getValidator } from "@/lib/tools/json-schema";
import { validateToolManifest } from "@/lib/tools/validate-manifest";
import { BUILTIN_TOOLS, builtinToolVersions, getBuiltinTool, invokeNativeTool, isBuiltinToolId, type NativeToolContext } from "./index";

const now = () => new Date("2026-06-01T12:00:00.000Z");

/** Validates the input like the kernel does (defaults filled), calls the tool, and checks its output against `output`. */
async function call(id: string, input: unknown, context: NativeToolContext) {
  const manifest = getBuiltinTool(id)!;
  const checkedInput = getValidator(manifest.input, "native")(input);
  if (!checkedInput.ok) throw new Error(`invalid input: ${JSON.stringify(checkedInput.issues)}`);
  const result = await invokeNativeTool(manifest, checkedInput.value, context);
  if (result.ok) expect(getValidator(manifest.output, "native")(result.output)).toMatchObject({ ok: true });
  return result;
}

describe("built-in tool manifests", () => {
  it("each passes validateToolManifest, is native, version 1.x, with a bare id and no spec", () => {
    expect(BUILTIN_TOOLS.map((manifest) => `${manifest.id}@${manifest.version}`)).toEqual(["current-time@1.0.0", "remember@1.0.0", "recall@1.1.0", "recall@1.0.0"]);
    for (const manifest of BUILTIN_TOOLS) {
      expect(validateToolManifest(manifest)).toEqual({ ok: true, manifest });
      expect(manifest).toMatchObject({ transport: "native" });
      expect(manifest.id).toMatch(/^[a-z-]+$/);
      expect(manifest.spec).toBeUndefined();
    }
  });

  it("declare what the kernel schedules and fences by", () => {
    expect(getBuiltinTool("current-time")).toMatchObject({ mutating: false });
    expect(getBuiltinTool("remember")).toMatchObject({ mutating: true, effects: [{ kind: "writes", resource: "memory:facts" }] });
    expect(getBuiltinTool("recall")).toMatchObject({ mutating: false, resultIsOutsideData: true, effects: [{ kind: "reads", resource: "memory:facts" }] });
  });

  it("are found by id and version only", () => {
    expect(isBuiltinToolId("current-time")).toBe(true);
    expect(isBuiltinToolId("acme.current-time")).toBe(false);
    expect(isBuiltinToolId("Current-Time")).toBe(false);
    expect(getBuiltinTool("recall", "1.1.0")?.id).toBe("recall");
    expect(getBuiltinTool("recall")?.version).toBe("1.1.0");
    expect(builtinToolVersions("recall")).toEqual(["1.1.0", "1.0.0"]);
    // The first version takes no mode: an agent that pinned it searches by keyword as before.
    expect(getValidator(getBuiltinTool("recall", "1.0.0")!.input)({ query: "x", mode: "semantic" })).toMatchObject({ ok: false });
    expect(getBuiltinTool("recall", "2.0.0")).toBeUndefined();
    expect(getBuiltinTool("nope")).toBeUndefined();
    expect(builtinToolVersions("remember")).toEqual(["1.0.0"]);
    expect(builtinToolVersions("nope")).toEqual([]);
  });

  it("fill the documented defaults into the input", () => {
    expect(getValidator(getBuiltinTool("remember")!.input)({ content: "x" })).toEqual({ ok: true, value: { content: "x", type: "note" } });
    expect(getValidator(getBuiltinTool("recall")!.input)({ query: "x" })).toEqual({ ok: true, value: { query: "x", limit: 10, scope: "same-project", mode: "keyword" } });
    expect(getValidator(getBuiltinTool("remember")!.input)({ content: "   ", type: "Not A Slug" })).toMatchObject({ ok: false, issues: [{ path: "/content" }, { path: "/type" }] });
    expect(getValidator(getBuiltinTool("recall")!.input)({ query: "x", limit: 51, scope: "galaxy" })).toMatchObject({ ok: false });
  });
});

describe("invokeNativeTool", () => {
  const context: NativeToolContext = { tenantId: randomUUID(), projectId: randomUUID(), conversationId: null, runId: randomUUID(), userId: randomUUID(), now };

  it("current-time answers in UTC by default and in the zone asked for", async () => {
    expect(await call("current-time", {}, context)).toEqual({
      ok: true,
      output: { iso: "2026-06-01T12:00:00.000Z", unixMs: Date.parse("2026-06-01T12:00:00.000Z"), timezone: "UTC", local: "2026-06-01T12:00:00", weekday: "Monday", utcOffset: "+00:00" },
    });
    expect(await call("current-time", { timezone: "Asia/Tokyo" }, context)).toMatchObject({ ok: true, output: { local: "2026-06-01T21:00:00", timezone: "Asia/Tokyo" } });
    expect(await call("current-time", { timezone: "Nowhere/Land" }, context)).toEqual({ ok: false, error: { kind: "invalid-arguments", message: expect.stringContaining('"Nowhere/Land"') } });
  });

  it("refuses a manifest that is not built in, and a cancelled call", async () => {
    const foreign = { ...getBuiltinTool("current-time")!, version: "9.9.9" };
    expect(await invokeNativeTool(foreign, {}, context)).toEqual({ ok: false, error: { kind: "tool-error", message: expect.stringContaining("not a tool built into Kindgi") } });
    const controller = new AbortController();
    controller.abort();
    expect(await invokeNativeTool(getBuiltinTool("current-time")!, {}, { ...context, signal: controller.signal })).toMatchObject({ ok: false, error: { kind: "tool-error" } });
  });
});

describe("remember and recall on a real database", () => {
  let database: TestDatabase;
  // Migrating a fresh database takes a while on a busy machine.
  beforeAll(async () => {
    database = await openTestDatabase();
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });

  const runContext = (overrides: Partial<NativeToolContext> = {}): NativeToolContext => ({
    tenantId: randomUUID(),
    projectId: randomUUID(),
    conversationId: randomUUID(),
    runId: randomUUID(),
    userId: randomUUID(),
    now,
    db: database.db,
    ...overrides,
  });

  it("remember stores a fact in the run's project and conversation, marked as the tool's, with the run id", async () => {
    const context = runContext();
    const result = await call("remember", { content: "The customer prefers email over phone calls." }, context);
    expect(result).toEqual({ ok: true, output: { factId: expect.any(String), type: "note" } });
    const factId = (result as { output: { factId: string } }).output.factId;
    const row = await database.db.memoryFact.findUniqueOrThrow({ where: { id: factId } });
    expect(row).toMatchObject({
      tenantId: context.tenantId,
      projectId: context.projectId,
      conversationId: context.conversationId,
      type: "note",
      content: "The customer prefers email over phone calls.",
      source: "tool",
      runId: context.runId,
      createdBy: context.userId,
    });
  });

  it("remember refuses content the store refuses as a tool error, storing nothing", async () => {
    const context = runContext();
    const result = await invokeNativeTool(getBuiltinTool("remember")!, { content: "x".repeat(8001), type: "note" }, context);
    expect(result).toEqual({ ok: false, error: { kind: "tool-error", message: expect.stringContaining("/content") } });
    expect(await database.db.memoryFact.count({ where: { tenantId: context.tenantId } })).toBe(0);
  });

  it("recall finds by stemmed keywords, best match first, within the scope asked for", async () => {
    const tenantId = randomUUID();
    const projectId = randomUUID();
    const here = runContext({ tenantId, projectId });
    const otherConversation = runContext({ tenantId, projectId });
    const otherProject = runContext({ tenantId });
    await call("remember", { content: "Preference: email, never phone", type: "preference" }, here);
    await call("remember", { content: "Invoices are emailed monthly by email to the billing address", type: "billing" }, otherConversation);
    await call("remember", { content: "The office cat is called Email", type: "trivia" }, otherProject);
    await call("remember", { content: "Unrelated: the sky is blue" }, here);

    const recall = async (input: Record<string, unknown>, context = here) => {
      const result = await call("recall", input, context);
      if (!result.ok) throw new Error(result.error.message);
      return (result.output as { facts: Array<{ type: string; content: string }> }).facts.map((fact) => fact.type);
    };
    expect(await recall({ query: "does she prefer emails?" })).toEqual(["preference", "billing"]);
    expect(await recall({ query: "emails", scope: "same-conversation" })).toEqual(["preference"]);
    expect(await recall({ query: "emails", scope: "tenant" })).toHaveLength(3);
    expect(await recall({ query: "emails", scope: "tenant", types: ["trivia", "billing"] })).toEqual(expect.arrayContaining(["trivia", "billing"]));
    expect(await recall({ query: "emails", scope: "tenant", limit: 1 })).toHaveLength(1);
    expect(await recall({ query: "the of and" })).toEqual([]);
    expect(await recall({ query: "emails", scope: "same-conversation" }, { ...here, conversationId: null })).toEqual([]);
    expect(await recall({ query: "emails", scope: "tenant" }, runContext())).toEqual([]);
  });
});
