// The cache on PostgreSQL, with the database's change counters in memory: a value is served from memory only while
// every change the counters count is accounted for.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const database = vi.hoisted(() => ({ access: 0, catalog: 0, reads: 0, advances: [] as { access: boolean; catalog: boolean }[] }));

vi.mock("@/lib/db/config", () => ({ databaseConfig: () => ({ kind: "postgresql", url: "postgresql://test/unused" }) }));
vi.mock("@/lib/services/event-bus-postgres", () => ({ startEventBus: async () => {} }));
vi.mock("@/lib/db", () => ({
  afterTransaction: (_tx: unknown, fn: () => unknown) => void fn(),
  getSideQuery: async () => async (sql: string, params: unknown[]) => {
    if (sql.includes("generation read")) {
      database.reads += 1;
      return [{ access: String(database.access), catalog: String(database.catalog) }];
    }
    const [access, catalog] = params as [boolean, boolean];
    database.advances.push({ access, catalog });
    return [{ access: access ? String(++database.access) : null, catalog: catalog ? String(++database.catalog) : null }];
  },
}));

const { cached, cachedFor, clearCaches, generationChanged, GENERATION_TOPIC } = await import("@/lib/services/tenant-generation");
const { eventBus } = await import("@/lib/services/event-bus");

const counter = () => {
  let loads = 0;
  return { load: async () => ++loads, loads: () => loads };
};

/** Another server's change: its counter advanced in the database, and (unless `heard` is false) its announcement heard. */
function changeElsewhere(tenantId: string, scope: "catalog" | undefined, heard = true) {
  const value = scope === "catalog" ? ++database.catalog : ++database.access;
  if (heard) eventBus().publish(GENERATION_TOPIC, { tenants: [scope ? `${tenantId}:${scope}` : tenantId], [scope ?? "access"]: value });
}

beforeEach(async () => {
  // The first read of the counters (every later read is compared with it).
  await cached("setup", "k", async () => 0);
});

afterEach(() => {
  clearCaches();
});

describe("cached values on PostgreSQL", () => {
  it("reads the counters before serving a value, and serves it from memory while they stand still", async () => {
    const { load, loads } = counter();
    const before = database.reads;
    expect(await cached("t1", "k", load)).toBe(1);
    expect(await cached("t1", "k", load)).toBe(1);
    expect(loads()).toBe(1);
    expect(database.reads - before).toBe(2);
  });

  it("a change announced by another server forgets its tenant's values only", async () => {
    const mine = counter();
    const other = counter();
    await cached("t1", "tools", mine.load, "catalog");
    await cached("t2", "tools", other.load, "catalog");
    changeElsewhere("t1", "catalog");
    expect(await cached("t1", "tools", mine.load, "catalog")).toBe(2);
    expect(await cached("t2", "tools", other.load, "catalog")).toBe(1);
  });

  it("a change counted but not heard of yet forgets every value it could have changed, at once", async () => {
    const tools = counter();
    const actor = counter();
    await cached("t1", "tools", tools.load, "catalog");
    await cached("t1", "actor", actor.load);
    // A catalog change whose announcement is still on its way: catalog values go, the others stay.
    changeElsewhere("t2", "catalog", false);
    expect(await cached("t1", "tools", tools.load, "catalog")).toBe(2);
    expect(await cached("t1", "actor", actor.load)).toBe(1);
    // A change of everything of some tenant: every value goes.
    changeElsewhere("t2", undefined, false);
    expect(await cached("t1", "actor", actor.load)).toBe(2);
    expect(await cached("t1", "tools", tools.load, "catalog")).toBe(3);
    // Accounted for now: served from memory again.
    expect(await cached("t1", "tools", tools.load, "catalog")).toBe(3);
  });

  it("a change of this server advances the counter once it has committed, and does not make it forget other tenants' values", async () => {
    const other = counter();
    await cached("t2", "tools", other.load, "catalog");
    const advances = database.advances.length;
    await Promise.all([generationChanged("t1", "catalog"), generationChanged("t3", "catalog")]);
    expect(database.advances.length - advances).toBeLessThanOrEqual(2);
    expect(database.advances.at(-1)).toEqual({ access: false, catalog: true });
    expect(await cached("t2", "tools", other.load, "catalog")).toBe(1);
  });

  it("never keeps a value the database does not have (an unknown key), so a key made elsewhere is found on the next request", async () => {
    let stored: string | null = null;
    const byKey = async () => (stored ? { tenantId: "t1", value: stored } : { tenantId: "", value: null });
    expect(await cachedFor("key:new", byKey)).toBeNull();
    stored = "actor";
    expect(await cachedFor("key:new", byKey)).toBe("actor");
  });

  it("does not share a load on its way, of a tenant not known yet, with a request that came after a change", async () => {
    let release!: (value: { tenantId: string; value: string }) => void;
    const first = cachedFor<string>("key:slow", () => new Promise((resolve) => (release = resolve)));
    await vi.waitFor(() => expect(release).toBeDefined());
    changeElsewhere("t1", undefined);
    const second = cachedFor("key:slow", async () => ({ tenantId: "t1", value: "after" }));
    // The first load ends after the second request has looked for a value.
    setTimeout(() => release({ tenantId: "t1", value: "before" }), 20);
    expect(await first).toBe("before");
    expect(await second).toBe("after");
  });

  it("an announcement that comes after the counters told of its change does not make it forget again", async () => {
    const { load } = counter();
    await cached("t1", "k", load);
    const value = ++database.access;
    // The counter moved, unheard: everything is forgotten once.
    expect(await cached("t1", "k", load)).toBe(2);
    eventBus().publish(GENERATION_TOPIC, { tenants: ["t1"], access: value });
    expect(await cached("t1", "k", load)).toBe(2);
  });

  it("forgets everything when the bus may have lost announcements", async () => {
    const { load } = counter();
    await cached("t1", "k", load);
    eventBus().publish(GENERATION_TOPIC, null);
    expect(await cached("t1", "k", load)).toBe(2);
  });
});
