import { afterEach, describe, expect, it, vi } from "vitest";
import { CACHE_TTL_MS, bumpGeneration, cached, cachedFor, clearCaches, invalidateTenant } from "@/lib/services/tenant-generation";
import type { DbTx } from "@/lib/db";

const counter = () => {
  let loads = 0;
  return { load: async () => ++loads, loads: () => loads };
};
const noTx = {} as DbTx;

afterEach(() => {
  clearCaches();
  vi.useRealTimers();
});

describe("per-tenant cache generations", () => {
  it("serves a value from memory until the tenant's generation is bumped", async () => {
    const { load, loads } = counter();
    expect(await cached("t1", "k", load)).toBe(1);
    expect(await cached("t1", "k", load)).toBe(1);
    await bumpGeneration(noTx, "t1");
    expect(await cached("t1", "k", load)).toBe(2);
    expect(loads()).toBe(2);
  });

  it("a bump of one tenant leaves another's values", async () => {
    const { load } = counter();
    await cached("a", "k", load);
    invalidateTenant("b");
    expect(await cached("a", "k", load)).toBe(1);
  });

  it("a catalog bump invalidates catalog values only; a full bump invalidates all", async () => {
    const catalog = counter();
    const access = counter();
    await cached("t", "tools", catalog.load, "catalog");
    await cached("t", "actor", access.load);
    invalidateTenant("t", "catalog");
    expect(await cached("t", "tools", catalog.load, "catalog")).toBe(2);
    expect(await cached("t", "actor", access.load)).toBe(1);
    invalidateTenant("t");
    expect(await cached("t", "tools", catalog.load, "catalog")).toBe(3);
    expect(await cached("t", "actor", access.load)).toBe(2);
  });

  it("a value whose load started before a bump is not kept (it may have read the state before the write)", async () => {
    let release!: () => void;
    const slow = cached("t", "k", () => new Promise<string>((resolve) => (release = () => resolve("old"))));
    invalidateTenant("t");
    release();
    expect(await slow).toBe("old");
    expect(await cached("t", "k", async () => "new")).toBe("new");
  });

  it("no value is served past the time-to-live, whatever the notifications", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { load } = counter();
    await cached("t", "k", load);
    vi.setSystemTime(Date.now() + CACHE_TTL_MS - 10);
    expect(await cached("t", "k", load)).toBe(1);
    vi.setSystemTime(Date.now() + 20);
    expect(await cached("t", "k", load)).toBe(2);
  });

  it("a value whose tenant is known once loaded (an API key's actor) follows that tenant's generation", async () => {
    const { load } = counter();
    const byKey = async () => ({ tenantId: "t9", value: await load() });
    expect(await cachedFor("key:x", byKey)).toBe(1);
    expect(await cachedFor("key:x", byKey)).toBe(1);
    invalidateTenant("t9");
    expect(await cachedFor("key:x", byKey)).toBe(2);
  });

  it("a failed load is not kept, and concurrent callers share one load", async () => {
    await expect(cached("t", "k", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    const { load, loads } = counter();
    const [a, b] = await Promise.all([cached("t", "k", load), cached("t", "k", load)]);
    expect([a, b, loads()]).toEqual([1, 1, 1]);
  });
});
