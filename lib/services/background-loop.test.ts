import { describe, expect, it, vi } from "vitest";
import { startBackgroundLoop } from "@/lib/services/background-loop";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("background loop", () => {
  it("runs one pass at a time, again at once when woken during a pass, and goes on after a failing pass", async () => {
    let active = 0;
    let maxActive = 0;
    const passes: number[] = [];
    const written: string[] = [];
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(((line: string) => written.push(line) > 0) as typeof process.stdout.write);
    const loop = startBackgroundLoop("test loop", 60_000, async () => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      passes.push(Date.now());
      await tick(30);
      active -= 1;
      if (passes.length === 2) throw new Error("boom");
      return null;
    });
    await tick(5);
    loop.wake(); // during the first pass: a second pass follows it at once
    loop.wake();
    await tick(100);
    expect(passes).toHaveLength(2);
    expect(maxActive).toBe(1);
    expect(written.map((line) => JSON.parse(line))).toContainEqual(expect.objectContaining({ level: "error", msg: "the test loop pass failed", loop: "test loop", err: expect.objectContaining({ message: "boom" }) }));
    loop.wake(); // between passes (the loop sleeps 60 s): a pass at once
    await tick(60);
    expect(passes).toHaveLength(3);
    stdout.mockRestore();
  });

  it("sleeps as long as the pass asks", async () => {
    let passes = 0;
    startBackgroundLoop("short loop", 60_000, async () => {
      passes += 1;
      return passes < 3 ? 10 : 60_000;
    });
    await tick(150);
    expect(passes).toBe(3);
  });
});
