/**
 * The event bus's PostgreSQL transport against a real database: two buses with connections of their own stand for two
 * processes. A message reaches the other's subscribers (once), a delta too large for one notification arrives whole,
 * and a listening connection killed from outside comes back, with a loss (`null`) told to the subscribers first.
 */
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { kindgi } from "./helpers/api";
import { PostgresBus, type BusClient, type BusDelta } from "@/lib/services/event-bus-postgres";

describe.skipIf(kindgi().backend !== "postgresql")("the event bus on PostgreSQL", () => {
  const { databaseUrl } = kindgi();
  const buses: PostgresBus[] = [];
  const tag = `kindgi-bus-test-${process.pid}`;
  /** A bus whose listening connection is named `<tag>-<name>` (so that a test can find it in pg_stat_activity). */
  const newBus = (name: string) => {
    const bus = new PostgresBus({ createClient: () => new pg.Client({ connectionString: databaseUrl, application_name: `${tag}-${name}` }) as unknown as BusClient, log: () => {} });
    buses.push(bus);
    return bus;
  };
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
  });

  it("delivers a message published in one process to a subscriber in another, and not twice to the publisher's", async () => {
    const a = newBus("a1");
    const b = newBus("b1");
    await Promise.all([a.ready, b.ready]);
    const topic = `approvals:${crypto.randomUUID()}`;
    const heardA: unknown[] = [];
    const heardB: unknown[] = [];
    a.subscribe(topic, (message) => heardA.push(message));
    b.subscribe(topic, (message) => heardB.push(message));
    const sent = performance.now();
    a.publish(topic, { seq: 1 });
    await vi.waitFor(() => expect(heardB).toEqual([{ seq: 1 }]), { timeout: 2000, interval: 1 });
    const crossed = performance.now() - sent;
    expect(crossed).toBeLessThan(500);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heardA).toEqual([{ seq: 1 }]);
  });

  it("carries a delta larger than a notification may be as several, each accepted by PostgreSQL, that join to the original", async () => {
    const a = newBus("a2");
    const b = newBus("b2");
    await Promise.all([a.ready, b.ready]);
    const topic = `delta:${crypto.randomUUID()}`;
    const heard: BusDelta[] = [];
    b.subscribe(topic, (message) => heard.push(message as BusDelta));
    const text = "Grüße aus 東京 😀 \"quoted\"\n".repeat(1500);
    const args = JSON.stringify({ body: "ü€😀".repeat(3000) });
    a.publish(topic, { callIndex: 0, attempt: 1, text: text.slice(0, 5000) });
    a.publish(topic, { callIndex: 0, attempt: 1, text: text.slice(5000), toolCalls: [{ index: 0, id: "call-1", name: "write", argumentsDelta: args }] });
    await vi.waitFor(() => expect(heard.map((piece) => piece.text ?? "").join("")).toBe(text), { timeout: 5000 });
    await vi.waitFor(() => expect(heard.flatMap((piece) => piece.toolCalls ?? []).map((call) => call.argumentsDelta).join("")).toBe(args), { timeout: 5000 });
    expect(heard.length).toBeGreaterThan(5);
    expect(heard.flatMap((piece) => piece.toolCalls ?? []).filter((call) => call.name === "write")).toHaveLength(1);
  });

  it("after its listening connection is terminated, tells its subscribers of a loss (null) and delivers again", async () => {
    const a = newBus("a3");
    const b = newBus("b3");
    await Promise.all([a.ready, b.ready]);
    const topic = `run:${crypto.randomUUID()}`;
    const heard: unknown[] = [];
    b.subscribe(topic, (message) => heard.push(message));
    a.publish(topic, { lastSeq: 1 });
    await vi.waitFor(() => expect(heard).toEqual([{ lastSeq: 1 }]), { timeout: 2000 });

    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const killed = await admin.query(`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1`, [`${tag}-b3`]);
      expect(killed.rows).toEqual([{ done: true }]);
    } finally {
      await admin.end();
    }
    await vi.waitFor(() => expect(heard).toEqual([{ lastSeq: 1 }, null]), { timeout: 5000 });
    expect(b.listening).toBe(true);
    a.publish(topic, { lastSeq: 2 });
    await vi.waitFor(() => expect(heard).toEqual([{ lastSeq: 1 }, null, { lastSeq: 2 }]), { timeout: 2000 });
  });
});
