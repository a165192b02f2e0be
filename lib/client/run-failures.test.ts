import { describe, expect, it } from "vitest";
import { FAILURE_SENTENCES, failureSentence } from "@/lib/client/run-failures";

describe("failure sentences", () => {
  it("explains every failure code the kernel documents", async () => {
    const source = (await import("node:fs")).readFileSync(new URL("../kernel/types.ts", import.meta.url), "utf8");
    const union = /export type RunFailureCode =([^;]+);/.exec(source)?.[1] ?? "";
    const codes = [...union.matchAll(/"([a-z-]+)"/g)].map((match) => match[1]);
    expect(codes.length).toBeGreaterThan(10);
    expect(Object.keys(FAILURE_SENTENCES).sort()).toEqual([...codes].sort());
    for (const code of codes) expect(failureSentence(code)).toMatch(/\.$/);
  });

  it("has no sentence for an unknown code", () => {
    expect(failureSentence("not-a-code")).toBeNull();
  });
});
