import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { validateGuardrailDefinition, type GuardrailCheck, type GuardrailDefinition } from "./definition";
import { evaluateGuardrails, evaluateGuardrailsSafely, type ResolvedGuardrail } from "./evaluate";

let serial = 0;
/** A resolved guardrail around `check`; every definition used here passes validation first. */
function guardrail(check: GuardrailCheck, extra: Partial<GuardrailDefinition> = {}): ResolvedGuardrail {
  serial++;
  const definition: GuardrailDefinition = { id: `safe.g${serial}`, version: "1.0.0", name: "g", action: "halt", check, ...extra };
  const validation = validateGuardrailDefinition(definition);
  if (!validation.ok) throw new Error(`invalid test definition: ${JSON.stringify(validation.issues)}`);
  return { id: definition.id, version: definition.version, definition };
}

/** Backtracks exponentially on a run of "a" that does not end the answer. */
const CATASTROPHIC: GuardrailCheck = { kind: "regex", pattern: "(a+)+$" };
const EVIL_ANSWER = "a".repeat(40) + "b";

describe("evaluateGuardrailsSafely", () => {
  test("gives the same findings, in the same order, as evaluateGuardrails for every kind of check", async () => {
    const all = [
      guardrail({ kind: "regex", pattern: "sk-[a-z0-9]{4}" }),
      guardrail({ kind: "regex", pattern: "^Answer:", match: "require" }, { action: "flag", message: "Start with Answer:" }),
      guardrail({ kind: "regex", pattern: "secret", flags: "i" }),
      guardrail({ kind: "regex", pattern: "^b$", flags: "m" }),
      guardrail({ kind: "regex", pattern: "a.c", flags: "s" }, { version: "2.0.0-rc.1" }),
      guardrail({ kind: "regex", pattern: "^.$" }),
      guardrail({ kind: "regex", pattern: "\\p{Script=Cyrillic}" }),
      guardrail({ kind: "deny-terms", terms: ["cat", "Password"] }, { message: "No pets" }),
      guardrail({ kind: "deny-terms", terms: ["CAT"], wholeWord: false, caseSensitive: true }, { action: "flag" }),
      guardrail({ kind: "max-length", maxLength: 12 }),
      guardrail({ kind: "json-schema", schema: { type: "object", required: ["answer"], properties: { answer: { type: "string" } } } }),
    ];
    const answers = ["", "Answer: 42", "key sk-ab12 and a SECRET", "a\nb\nc", "a\nc", "😀", "привет", "the cat knows the PASSWORD", "conCATenate", '{"answer":"yes"}', '{"score":1}'];
    let total = 0;
    for (const answer of answers) {
      const expected = evaluateGuardrails(all, answer);
      total += expected.length;
      expect(await evaluateGuardrailsSafely(all, answer)).toEqual(expected);
    }
    // Every guardrail fires on some answer, and each answer trips several: the comparison covers every check.
    const fired = new Set(answers.flatMap((answer) => evaluateGuardrails(all, answer).map((finding) => finding.guardrailId)));
    expect(fired).toEqual(new Set(all.map((one) => one.id)));
    expect(total).toBeGreaterThan(answers.length * 2);
  });

  test("no guardrails, no findings", async () => {
    expect(await evaluateGuardrailsSafely([], "anything")).toEqual([]);
  });

  test("a regex that does not compile rejects like evaluateGuardrails throws", async () => {
    const broken: ResolvedGuardrail = { id: "safe.broken", version: "1.0.0", definition: { id: "safe.broken", version: "1.0.0", name: "b", action: "halt", check: { kind: "regex", pattern: "(" } } };
    expect(() => evaluateGuardrails([broken], "x")).toThrow(SyntaxError);
    await expect(evaluateGuardrailsSafely([broken], "x")).rejects.toThrow(SyntaxError);
    await expect(evaluateGuardrailsSafely([broken], "x")).rejects.toThrow("Unterminated group");
    // The worker survives a job that throws.
    expect(await evaluateGuardrailsSafely([guardrail({ kind: "regex", pattern: "x" })], "x")).toHaveLength(1);
  });

  test("a catastrophic pattern times out as a violation without blocking the thread, and the next evaluation still works", async () => {
    const evil = guardrail(CATASTROPHIC);
    const flagged = guardrail(CATASTROPHIC, { action: "flag", message: "Suspicious" });
    const terms = guardrail({ kind: "deny-terms", terms: ["b"], wholeWord: false });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = performance.now();
    try {
      const findings = await evaluateGuardrailsSafely([evil, terms, flagged], EVIL_ANSWER, { regexTimeoutMs: 200 });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(findings).toEqual([
        { guardrailId: evil.id, version: "1.0.0", action: "halt", check: "regex", message: "the pattern did not finish within 200 ms on the answer; treated as a violation" },
        { guardrailId: terms.id, version: "1.0.0", action: "halt", check: "deny-terms", message: 'the answer contains the denied term "b"' },
        { guardrailId: flagged.id, version: "1.0.0", action: "flag", check: "regex", message: "Suspicious (the pattern did not finish within 200 ms on the answer; treated as a violation)" },
      ]);
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(5); // the main thread kept running while the pattern backtracked
    // The stuck worker was replaced: the same pattern completes on a harmless answer, and others still match.
    expect(await evaluateGuardrailsSafely([evil], "aaaa", { regexTimeoutMs: 200 })).toEqual([{ guardrailId: evil.id, version: "1.0.0", action: "halt", check: "regex", message: "the answer matches the forbidden pattern" }]);
    expect(await evaluateGuardrailsSafely([evil], "bbbb")).toEqual([]);
    expect(await evaluateGuardrailsSafely([guardrail({ kind: "regex", pattern: "b$" })], EVIL_ANSWER)).toHaveLength(1);
  });

  test("concurrent evaluations each get the findings for their own answer", async () => {
    const seven = guardrail({ kind: "regex", pattern: "^n7$" });
    const shape = guardrail({ kind: "regex", pattern: "^n\\d$", match: "require" }, { action: "flag" });
    const answers = Array.from({ length: 20 }, (_, i) => `n${i}`);
    const results = await Promise.all(answers.map((answer) => evaluateGuardrailsSafely([seven, shape], answer)));
    expect(results).toEqual(answers.map((answer) => evaluateGuardrails([seven, shape], answer)));
    expect(results.map((findings) => findings.map((finding) => finding.guardrailId))).toEqual(answers.map((_, i) => [...(i === 7 ? [seven.id] : []), ...(i >= 10 ? [shape.id] : [])]));
  });

  test("a timed-out check does not time out the evaluations waiting behind it", async () => {
    const evil = guardrail(CATASTROPHIC);
    const plain = guardrail({ kind: "regex", pattern: "^ok\\d+$", match: "require" });
    const slow = evaluateGuardrailsSafely([evil], EVIL_ANSWER, { regexTimeoutMs: 200 });
    const others = Array.from({ length: 5 }, (_, i) => evaluateGuardrailsSafely([plain, evil], i % 2 === 0 ? `ok${i}` : `no${i}`, { regexTimeoutMs: 500 }));
    expect((await slow).map((finding) => finding.message)).toEqual(["the pattern did not finish within 200 ms on the answer; treated as a violation"]);
    expect((await Promise.all(others)).map((findings) => findings.map((finding) => finding.message))).toEqual([[], ["the answer does not match the required pattern"], [], ["the answer does not match the required pattern"], []]);
  });

  test("an idle worker does not keep the process alive", async () => {
    const root = path.resolve(import.meta.dirname, "../..");
    const script = [
      'import { evaluateGuardrailsSafely } from "./lib/guardrails/evaluate.ts";',
      'const definition = { id: "x", version: "1.0.0", name: "x", action: "halt", check: { kind: "regex", pattern: "b" } };',
      'evaluateGuardrailsSafely([{ id: "x", version: "1.0.0", definition }], "abc").then((findings) => console.log(findings.length));',
    ].join("\n");
    const { stdout } = await promisify(execFile)(path.join(root, "node_modules/.bin/tsx"), ["--input-type=module", "-e", script], { cwd: root, timeout: 20_000 });
    expect(stdout.trim()).toBe("1");
  }, 30_000);
});
