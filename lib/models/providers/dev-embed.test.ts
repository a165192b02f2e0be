import { describe, expect, it } from "vitest";
import { DEV_EMBED_ID } from "@/lib/models/embedding";
import { DEV_EMBED_DIMENSIONS, DEV_EMBED_WARNING, createDevEmbedProvider, devEmbedVector } from "@/lib/models/providers/dev-embed";

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * b[i], 0);
const similarity = (a: string, b: string) => cosine(devEmbedVector(a), devEmbedVector(b));

describe("dev-embed", () => {
  it("answers one unit vector of DEV_EMBED_DIMENSIONS per input, says it is not a real model, costs nothing", async () => {
    const answer = await createDevEmbedProvider().embed({ model: DEV_EMBED_ID, inputs: ["The invoice is overdue", "hello"] });
    expect(answer).toMatchObject({ model: "dev-embed", dimensions: DEV_EMBED_DIMENSIONS, costUsd: 0, attempts: 0, warnings: [DEV_EMBED_WARNING], usage: { inputTokens: 6 + 2 } });
    expect(DEV_EMBED_WARNING).toMatch(/^dev-embed is not a real model/);
    for (const vector of answer.vectors) {
      expect(vector).toHaveLength(DEV_EMBED_DIMENSIONS);
      expect(cosine(vector, vector)).toBeCloseTo(1, 12);
    }
  });

  it("is deterministic: the same text gives the same vector (pinned, so a change of features is noticed)", () => {
    expect(devEmbedVector("The invoice is overdue")).toEqual(devEmbedVector("the INVOICE is overdue!"));
    const pinned = devEmbedVector("the invoice is overdue");
    const nonZero = pinned.flatMap((value, index) => (value !== 0 ? [[index, Math.round(value * 1e6) / 1e6]] : []));
    expect(nonZero.length).toBeGreaterThan(10);
    expect(nonZero.slice(0, 4)).toEqual([[25, -0.240842], [92, 0.240842], [151, 0.240842], [175, 0.28901]]);
  });

  it("leaves function words out: a shared \"is\" makes no match, other spellings of a word do", () => {
    const query = "what is my favorite color?";
    expect(similarity(query, "favourite colour: dark green")).toBeGreaterThan(similarity(query, "the delivery van is parked in bay seven") + 0.2);
    expect(similarity("is", "is")).toBeCloseTo(1, 6);
  });

  it("ranks texts that share words or stems above unrelated ones", () => {
    expect(similarity("invoices", "invoice")).toBeGreaterThan(0.3);
    expect(similarity("invoices", "invoice")).toBeGreaterThan(similarity("invoices", "weather"));
    expect(similarity("the invoice is overdue", "overdue invoices")).toBeGreaterThan(similarity("the invoice is overdue", "my cat likes fish"));
    expect(similarity("customer prefers email", "email preference of the customer")).toBeGreaterThan(similarity("customer prefers email", "the server is down"));
    expect(similarity("billing address", "billing")).toBeGreaterThan(similarity("billing address", "forecast"));
  });

  it("gives a text without letters or digits a zero vector; handles non-Latin scripts", () => {
    expect(devEmbedVector("  !? ").every((value) => value === 0)).toBe(true);
    expect(similarity("Rechnung überfällig", "überfällige Rechnung")).toBeGreaterThan(similarity("Rechnung überfällig", "Katze"));
  });

  it("rejects an aborted call", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(createDevEmbedProvider().embed({ model: DEV_EMBED_ID, inputs: ["a"], signal: controller.signal })).rejects.toThrow("stop");
  });
});
