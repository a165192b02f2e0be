import { afterEach, describe, expect, it, vi } from "vitest";
import { CACHE_TTL_MS, bumpGeneration, cached, cachedFor, clearCaches, createAnnouncer, createSharedRead, invalidateTenant } from "@/lib/services/tenant-generation";
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

describe("telling the other servers of a bump", () => {
  /** A `send` whose calls stay on their way until released, in order. */
  const gatedSend = () => {
    const calls: string[][] = [];
    const gates: (() => void)[] = [];
    const send = (payloads: string[]) => {
      calls.push(payloads);
      return new Promise<void>((resolve) => gates.push(resolve));
    };
    return { send, calls, release: () => gates.shift()?.() };
  };

  it("sends what is announced while a call is on its way once, together, in the next call", async () => {
    const { send, calls, release } = gatedSend();
    const announcer = createAnnouncer(send, () => {}, 0);
    const first = announcer.announce("t1");
    expect(calls).toEqual([["t1"]]);
    announcer.announce("t2:catalog");
    announcer.announce("t3");
    const last = announcer.announce("t2:catalog");
    expect(calls).toHaveLength(1);
    release();
    await vi.waitFor(() => expect(calls).toEqual([["t1"], ["t2:catalog", "t3"]]));
    release();
    await Promise.all([first, last]);
    expect(calls).toHaveLength(2);
    // Nothing on its way: the next announcement is sent at once.
    const again = announcer.announce("t1");
    expect(calls).toEqual([["t1"], ["t2:catalog", "t3"], ["t1"]]);
    release();
    await again;
  });

  it("reports a failed call and still sends what is announced after it", async () => {
    const errors: unknown[] = [];
    const sent: string[][] = [];
    let fail = true;
    const announcer = createAnnouncer(async (payloads) => {
      if (fail) throw new Error("connection refused");
      sent.push(payloads);
    }, (error) => errors.push(error), 0);
    await announcer.announce("t1");
    expect(errors.map((error) => (error as Error).message)).toEqual(["connection refused"]);
    fail = false;
    await announcer.announce("t2");
    expect(sent).toEqual([["t2"]]);
  });

  it("sends a burst of announcements in one call, no sooner than the interval after the last", async () => {
    const sentAt: { payloads: string[]; at: number }[] = [];
    const announcer = createAnnouncer(async (payloads) => void sentAt.push({ payloads, at: performance.now() }), () => {}, 200);
    await announcer.announce("t1");
    const burst = [announcer.announce("t2"), announcer.announce("t3"), announcer.announce("t2")];
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sentAt.map((call) => call.payloads)).toEqual([["t1"]]);
    await Promise.all(burst);
    expect(sentAt.map((call) => call.payloads)).toEqual([["t1"], ["t2", "t3"]]);
    expect(sentAt[1].at - sentAt[0].at).toBeGreaterThanOrEqual(195);
  });
});

describe("a read shared by concurrent callers", () => {
  /** A `load` whose calls stay on their way until released, in order; each answers its own number. */
  const gatedLoad = () => {
    let calls = 0;
    const gates: (() => void)[] = [];
    const load = () => {
      const call = ++calls;
      return new Promise<number>((resolve) => gates.push(() => resolve(call)));
    };
    return { load, calls: () => calls, release: () => gates.shift()?.() };
  };

  it("answers each caller with a call started after it came: one on its way for those before, the next for all who came meanwhile", async () => {
    const { load, calls, release } = gatedLoad();
    const read = createSharedRead(load);
    const first = read(performance.now());
    expect(calls()).toBe(1);
    const second = read(performance.now());
    const third = read(performance.now());
    // They came after the first call started: they wait for the next, one call for both.
    expect(calls()).toBe(1);
    release();
    expect(await first).toBe(1);
    await vi.waitFor(() => expect(calls()).toBe(2));
    release();
    expect([await second, await third]).toEqual([2, 2]);
  });

  it("answers a caller whose request came before the last call started with that call's result, without a new one", async () => {
    const { load, calls, release } = gatedLoad();
    const read = createSharedRead(load);
    const arrived = performance.now();
    const first = read(arrived);
    release();
    await first;
    expect(await read(arrived)).toBe(1);
    expect(calls()).toBe(1);
    // A caller that came after it: a new call.
    const later = read(performance.now());
    expect(calls()).toBe(2);
    release();
    expect(await later).toBe(2);
  });

  it("does not reuse a call that failed", async () => {
    let fail = true;
    const read = createSharedRead(async () => {
      if (fail) throw new Error("connection refused");
      return "ok";
    });
    const arrived = performance.now();
    await expect(read(arrived)).rejects.toThrow("connection refused");
    fail = false;
    expect(await read(arrived)).toBe("ok");
  });
});
