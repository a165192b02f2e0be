import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { openTestDatabase, type TestDatabase } from "@/lib/db/testing/test-database";
import type { Actor } from "@/lib/services/actor";

let database: TestDatabase;
vi.mock("@/lib/db", async (importOriginal) => ({ ...(await importOriginal<typeof import("@/lib/db")>()), getDb: async () => database.db }));
// Every read goes to the database: these tests write rows behind the catalog's back.
vi.mock("@/lib/services/tenant-generation", async (importOriginal) => ({ ...(await importOriginal<typeof import("@/lib/services/tenant-generation")>()), cached: (_tenantId: string, _key: string, load: () => Promise<unknown>) => load() }));

const { listTools } = await import("@/lib/services/tools");

type Listed = { toolId: string; builtIn: boolean; projectId: string | null; latestVersion: string };

describe("listTools on a real database: the built-in tools in the id order", () => {
  beforeAll(async () => {
    database = await openTestDatabase();
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });

  const newActor = (): Actor => ({ tenantId: randomUUID(), userId: randomUUID(), apiKeyId: null, projectId: null, role: "admin", isService: false, callerId: randomUUID() });
  const list = async (actor: Actor, filters: Record<string, unknown> = {}, page: { limit: number; cursor?: string } = { limit: 50 }) =>
    JSON.parse((await listTools(actor, filters, page)).text) as { data: Listed[]; hasMore: boolean; nextCursor?: string };
  /** A tool row as a registration writes it (and as a registration made before built-in ids were reserved left it). */
  async function insertTool(actor: Actor, projectId: string, id: string, options: { mutating?: boolean; transport?: string; effects?: string[]; tags?: string[]; description?: string } = {}) {
    const description = options.description ?? `The ${id} tool`;
    const tags = options.tags ?? [];
    const entry = await database.db.catalogEntry.create({ data: { tenantId: actor.tenantId, projectId, kind: "tool", entryId: id, latestVersion: "0.9.0" } });
    await database.db.catalogVersion.create({
      data: {
        tenantId: actor.tenantId, projectId, entryRowId: entry.id, kind: "tool", entryId: id, version: "0.9.0", description, tags,
        searchText: [id, "", description, ...tags].join("\n").toLowerCase(), mutating: options.mutating ?? true, transport: options.transport ?? "auto", effectKinds: options.effects ?? [],
        document: JSON.stringify({ id, version: "0.9.0", description, input: { type: "object" }, output: { type: "object" } }), registeredBy: actor.userId, isLatest: true,
      },
    });
  }
  const walk = async (actor: Actor, limit: number, filters: Record<string, unknown> = {}) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await list(actor, filters, { limit, cursor });
      expect(page.data.length).toBeLessThanOrEqual(limit);
      expect(page.hasMore).toBe(page.nextCursor !== undefined);
      seen.push(...page.data.map((tool) => tool.toolId));
      if (!page.hasMore) return seen;
      cursor = page.nextCursor;
    }
    throw new Error("too many pages");
  };

  it("lists the built-ins of a tenant with no tools, with builtIn and no project", async () => {
    const page = await list(newActor());
    expect(page).toEqual({ data: [expect.objectContaining({ toolId: "current-time" }), expect.objectContaining({ toolId: "recall" }), expect.objectContaining({ toolId: "remember" })], hasMore: false });
    expect(page.data[0]).toEqual({
      toolId: "current-time", projectId: null, latestVersion: "1.0.0", description: expect.any(String), mutating: false, transport: "native", effects: [], tags: ["built-in", "time"],
      needsApprovalWhenUnattended: false, pauses: false, resultIsOutsideData: false, registeredAt: "2026-11-30T00:00:00.000Z", builtIn: true,
    });
    expect(page.data.find((tool) => tool.toolId === "remember")).toMatchObject({ mutating: true, effects: ["writes"], builtIn: true, projectId: null });
  });

  it("merges them into the id order across pages of 1 and 2, each id once", async () => {
    const actor = newActor();
    const projectId = randomUUID();
    for (const id of ["a.first", "d.middle", "p.between", "s.later", "z.last"]) await insertTool(actor, projectId, id);
    const all = ["a.first", "current-time", "d.middle", "p.between", "recall", "remember", "s.later", "z.last"];
    expect((await list(actor)).data.map((tool) => tool.toolId)).toEqual(all);
    expect(await walk(actor, 1)).toEqual(all);
    expect(await walk(actor, 2)).toEqual(all);
    expect(await walk(actor, 3)).toEqual(all);
    const registered = (await list(actor)).data.find((tool) => tool.toolId === "a.first");
    expect(registered).toMatchObject({ builtIn: false, projectId });
    // Only built-ins after the last registered tool: the final page holds them, cut to the limit.
    const onlyLater = newActor();
    await insertTool(onlyLater, randomUUID(), "a.one");
    expect(await walk(onlyLater, 2)).toEqual(["a.one", "current-time", "recall", "remember"]);
  });

  it("filters them as registered tools; projectId does not exclude them", async () => {
    const actor = newActor();
    const projectId = randomUUID();
    const other = randomUUID();
    await insertTool(actor, projectId, "f.search", { mutating: false, effects: ["network"], tags: ["internet"], description: "Searches the web" });
    await insertTool(actor, other, "f.mcp-files", { mutating: false, transport: "mcp", effects: ["reads"], description: "Lists files" });
    const ids = async (filters: Record<string, unknown>) => (await list(actor, filters)).data.map((tool) => tool.toolId);
    expect(await ids({ projectId: other })).toEqual(["current-time", "f.mcp-files", "recall", "remember"]);
    expect(await ids({ q: "TIME" })).toEqual(["current-time"]);
    expect(await ids({ q: "memory" })).toEqual(["recall", "remember"]);
    expect(await ids({ q: "internet" })).toEqual(["f.search"]);
    expect(await ids({ effect: "writes" })).toEqual(["remember"]);
    expect(await ids({ effect: "reads" })).toEqual(["f.mcp-files", "recall"]);
    expect(await ids({ effect: "network" })).toEqual(["f.search"]);
    expect(await ids({ mutating: true })).toEqual(["remember"]);
    expect(await ids({ mutating: false })).toEqual(["current-time", "f.mcp-files", "f.search", "recall"]);
    expect(await ids({ transport: "native" })).toEqual(["current-time", "recall", "remember"]);
    expect(await ids({ transport: "mcp" })).toEqual(["f.mcp-files"]);
    expect(await ids({ transport: "auto" })).toEqual(["f.search"]);
    expect(await ids({ tag: "built-in" })).toEqual(["current-time", "recall", "remember"]);
    expect(await ids({ tag: "memory", mutating: false })).toEqual(["recall"]);
    expect(await walk(actor, 1, { mutating: false })).toEqual(["current-time", "f.mcp-files", "f.search", "recall"]);
  });

  it("shows a tenant's legacy registration of a built-in id instead of the built-in", async () => {
    const actor = newActor();
    const projectId = randomUUID();
    await insertTool(actor, projectId, "recall", { mutating: false, description: "Our own recall" });
    const page = await list(actor);
    expect(page.data.map((tool) => [tool.toolId, tool.builtIn])).toEqual([["current-time", true], ["recall", false], ["remember", true]]);
    expect(page.data[1]).toMatchObject({ projectId, latestVersion: "0.9.0" });
    expect(await walk(actor, 1)).toEqual(["current-time", "recall", "remember"]);
    // Filtered out, the registration still shadows the built-in.
    expect((await list(actor, { transport: "native" })).data.map((tool) => tool.toolId)).toEqual(["current-time", "remember"]);
    // Another tenant still sees the built-in.
    expect((await list(newActor(), { transport: "native" })).data.map((tool) => [tool.toolId, tool.builtIn])).toEqual([["current-time", true], ["recall", true], ["remember", true]]);
  });
});
