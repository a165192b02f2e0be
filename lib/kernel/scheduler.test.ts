import { describe, expect, it } from "vitest";
import { MAX_CONCURRENT_CALLS, planGroups, runToolCalls } from "@/lib/kernel/scheduler";

type Call = { name: string; mutating: boolean; pauses?: boolean; declaresConnections?: boolean; mayAsk?: boolean };
const read = (name: string): Call => ({ name, mutating: false });
const write = (name: string): Call => ({ name, mutating: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs calls that each take `ms`, recording how many ran at once and which overlapped. */
async function observe(calls: Call[], parallelToolCalls = true, ms = 50) {
  let active = 0;
  let peak = 0;
  const running = new Set<string>();
  const overlaps: Array<[string, string[]]> = [];
  const started = performance.now();
  const results = await runToolCalls(calls, { parallelToolCalls }, async (call) => {
    if (running.size > 0) overlaps.push([call.name, [...running]]);
    running.add(call.name);
    active++;
    peak = Math.max(peak, active);
    await sleep(ms);
    active--;
    running.delete(call.name);
    return call.name.toUpperCase();
  });
  return { results, peak, overlaps, elapsed: performance.now() - started };
}

describe("tool-call scheduling", () => {
  it("runs 8 read-only calls of 200 ms each concurrently, well under 400 ms", async () => {
    const { elapsed, peak, results } = await observe(Array.from({ length: 8 }, (_, i) => read(`r${i}`)), true, 200);
    expect(peak).toBe(8);
    expect(elapsed).toBeLessThan(300);
    expect(results).toEqual(["R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7"]);
  });

  it("never runs more than 8 at once", async () => {
    const { peak, results } = await observe(Array.from({ length: 20 }, (_, i) => read(`r${i}`)));
    expect(peak).toBe(MAX_CONCURRENT_CALLS);
    expect(results).toHaveLength(20);
  });

  it("runs a mutating call alone, in order, never overlapping another call", async () => {
    const calls = [read("a"), read("b"), write("w1"), read("c"), write("w2"), write("w3"), read("d"), read("e")];
    const { overlaps, results } = await observe(calls);
    for (const [name, others] of overlaps) {
      expect(name.startsWith("w")).toBe(false);
      for (const other of others) expect(other.startsWith("w")).toBe(false);
    }
    expect(overlaps.map(([name]) => name).sort()).toEqual(["b", "e"]);
    expect(results).toEqual(["A", "B", "W1", "C", "W2", "W3", "D", "E"]);
  });

  it("runs a read-only call that pauses or declares connections alone", () => {
    const calls: Call[] = [read("a"), { name: "p", mutating: false, pauses: true }, read("b"), read("c"), { name: "k", mutating: false, declaresConnections: true }, read("d")];
    expect(planGroups(calls, { parallelToolCalls: true }).map((group) => group.map((call) => call.name))).toEqual([["a"], ["p"], ["b", "c"], ["k"], ["d"]]);
  });

  it("runs a read-only call that may ask for an approval alone", () => {
    const calls: Call[] = [read("a"), read("b"), { name: "q", mutating: false, mayAsk: true }, read("c"), read("d")];
    expect(planGroups(calls, { parallelToolCalls: true }).map((group) => group.map((call) => call.name))).toEqual([["a", "b"], ["q"], ["c", "d"]]);
  });

  it("starts no later group once a call waits, and prepares none of them", async () => {
    const executed: string[] = [];
    const prepared: string[][] = [];
    const calls: Call[] = [read("a"), read("b"), write("w"), ...Array.from({ length: 8 }, (_, i) => read(`r${i}`)), write("v")];
    const results = await runToolCalls(
      calls,
      { parallelToolCalls: true, waits: (result: string) => result === "wait" },
      async (call) => {
        executed.push(call.name);
        return call.name === "w" ? "wait" : "done";
      },
      async (group) => void prepared.push(group.map((call) => call.name)),
    );
    expect(executed).toEqual(["a", "b", "w"]);
    expect(prepared).toEqual([["a", "b"]]);
    expect(results).toEqual(["done", "done", "wait"]);
  });

  it("runs everything sequentially when the agent sets parallelToolCalls: false", async () => {
    const { peak, overlaps } = await observe([read("a"), read("b"), read("c")], false);
    expect(peak).toBe(1);
    expect(overlaps).toEqual([]);
  });
});

describe("runToolCalls after a throw", () => {
  it("starts no further call, lets the started ones settle, then throws the first error", async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const calls = Array.from({ length: 12 }, () => ({ mutating: false }));
    let index = 0;
    const run = runToolCalls(calls, { parallelToolCalls: true }, async () => {
      const mine = index++;
      started.push(mine);
      await new Promise((resolve) => setTimeout(resolve, mine === 0 ? 10 : 50));
      if (mine === 0) throw new Error("lease lost");
      settled.push(mine);
      return mine;
    });
    await expect(run).rejects.toThrow("lease lost");
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(settled.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});
