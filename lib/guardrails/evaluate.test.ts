import { describe, expect, test } from "vitest";
import { validateGuardrailDefinition, type GuardrailCheck, type GuardrailDefinition } from "./definition";
import { evaluateGuardrails, type ResolvedGuardrail } from "./evaluate";

let serial = 0;
/** A resolved guardrail around `check`; every definition used here passes validation first. */
function guardrail(check: GuardrailCheck, extra: Partial<GuardrailDefinition> = {}): ResolvedGuardrail {
  serial++;
  const definition: GuardrailDefinition = { id: `test.g${serial}`, version: "1.0.0", name: "g", action: "halt", check, ...extra };
  const validation = validateGuardrailDefinition(definition);
  if (!validation.ok) throw new Error(`invalid test definition: ${JSON.stringify(validation.issues)}`);
  return { id: definition.id, version: definition.version, definition };
}

/** The finding messages for one guardrail on each answer (null when it passes). */
function verdicts(check: GuardrailCheck, answers: string[]): Array<string | null> {
  const one = guardrail(check);
  return answers.map((answer) => evaluateGuardrails([one], answer)[0]?.message ?? null);
}

const fires = (check: GuardrailCheck, answer: string) => evaluateGuardrails([guardrail(check)], answer).length === 1;

describe("findings", () => {
  test("one per guardrail that fires, in the order given, with id, version, action and check kind", () => {
    const halt = guardrail({ kind: "max-length", maxLength: 3 });
    const passing = guardrail({ kind: "deny-terms", terms: ["absent"] });
    const flag = guardrail({ kind: "regex", pattern: "o" }, { action: "flag", version: "2.1.0-rc.1" });
    expect(evaluateGuardrails([flag, passing, halt], "hello")).toEqual([
      { guardrailId: flag.id, version: "2.1.0-rc.1", action: "flag", check: "regex", message: "the answer matches the forbidden pattern" },
      { guardrailId: halt.id, version: "1.0.0", action: "halt", check: "max-length", message: "the answer is 5 characters long; the limit is 3" },
    ]);
    expect(evaluateGuardrails([halt, passing, flag], "hi")).toEqual([]);
    expect(evaluateGuardrails([], "anything")).toEqual([]);
  });

  test("the definition's message comes first, the detail in parentheses", () => {
    const one = guardrail({ kind: "deny-terms", terms: ["secret"] }, { message: "Never mention secrets" });
    expect(evaluateGuardrails([one], "a secret")[0].message).toBe('Never mention secrets (the answer contains the denied term "secret")');
  });

  test("no message quotes the answer", () => {
    const answer = "TOPSECRET-4242 {\"ssn\": \"123-45-6789\", \"extra\": \"TOPSECRET-4242\"}";
    const all = [
      guardrail({ kind: "regex", pattern: "TOPSECRET" }),
      guardrail({ kind: "regex", pattern: "^\\{", match: "require" }),
      guardrail({ kind: "deny-terms", terms: ["ssn"] }),
      guardrail({ kind: "max-length", maxLength: 10 }),
      guardrail({ kind: "json-schema", schema: { type: "object" } }),
    ];
    const findings = evaluateGuardrails(all, answer);
    expect(findings).toHaveLength(5);
    for (const finding of findings) {
      expect(finding.message).not.toContain("TOPSECRET");
      expect(finding.message).not.toContain("123-45");
    }
    const schema = guardrail({ kind: "json-schema", schema: { type: "object", properties: { ssn: { type: "integer" } }, additionalProperties: false } });
    const message = evaluateGuardrails([schema], "{\"ssn\": \"123-45-6789\", \"extra\": \"TOPSECRET-4242\"}")[0].message;
    expect(message).not.toContain("123-45");
    expect(message).not.toContain("TOPSECRET");
  });

  test("the same definition gives the same findings every time (compiled checks are reused)", () => {
    const one = guardrail({ kind: "regex", pattern: "a", flags: "i" });
    const copy: ResolvedGuardrail = JSON.parse(JSON.stringify(one));
    for (let i = 0; i < 3; i++) {
      expect(evaluateGuardrails([one], "xAx")).toHaveLength(1);
      expect(evaluateGuardrails([copy], "xyz")).toHaveLength(0);
    }
  });

  test("the same id and version with another check (another tenant's) is compiled on its own", () => {
    const mine = guardrail({ kind: "deny-terms", terms: ["alpha"] });
    const theirs: ResolvedGuardrail = { ...mine, definition: { ...mine.definition, check: { kind: "deny-terms", terms: ["beta"] } } };
    expect(evaluateGuardrails([mine], "alpha")).toHaveLength(1);
    expect(evaluateGuardrails([theirs], "alpha")).toHaveLength(0);
    expect(evaluateGuardrails([theirs], "beta")).toHaveLength(1);
  });
});

describe("regex", () => {
  test("forbid (default): fires when the answer matches anywhere", () => {
    expect(verdicts({ kind: "regex", pattern: "sk-[a-z0-9]{4}" }, ["key sk-ab12 here", "no key", ""])).toEqual(["the answer matches the forbidden pattern", null, null]);
  });

  test("require: fires when the answer does not match", () => {
    expect(verdicts({ kind: "regex", pattern: "^Answer:", match: "require" }, ["Answer: 42", "42", ""])).toEqual([null, "the answer does not match the required pattern", "the answer does not match the required pattern"]);
  });

  test("an empty answer can satisfy a pattern that matches the empty string", () => {
    expect(fires({ kind: "regex", pattern: "^$" }, "")).toBe(true);
    expect(fires({ kind: "regex", pattern: "^$" }, "x")).toBe(false);
  });

  test("flags i, m and s", () => {
    expect(fires({ kind: "regex", pattern: "secret" }, "SECRET")).toBe(false);
    expect(fires({ kind: "regex", pattern: "secret", flags: "i" }, "SECRET")).toBe(true);
    expect(fires({ kind: "regex", pattern: "^b$" }, "a\nb\nc")).toBe(false);
    expect(fires({ kind: "regex", pattern: "^b$", flags: "m" }, "a\nb\nc")).toBe(true);
    expect(fires({ kind: "regex", pattern: "a.c" }, "a\nc")).toBe(false);
    expect(fires({ kind: "regex", pattern: "a.c", flags: "s" }, "a\nc")).toBe(true);
  });

  test("Unicode mode: . is one code point and property escapes work", () => {
    expect(fires({ kind: "regex", pattern: "^.$" }, "😀")).toBe(true);
    expect(fires({ kind: "regex", pattern: "\\p{Script=Cyrillic}" }, "привет")).toBe(true);
    expect(fires({ kind: "regex", pattern: "\\p{Script=Cyrillic}" }, "hello")).toBe(false);
  });

  test("no state carries over between answers", () => {
    const one = guardrail({ kind: "regex", pattern: "x" });
    for (let i = 0; i < 4; i++) expect(evaluateGuardrails([one], "x")).toHaveLength(1);
  });
});

describe("deny-terms", () => {
  test("case-insensitive by default, case-sensitive on request", () => {
    expect(fires({ kind: "deny-terms", terms: ["Password"] }, "your PASSWORD is")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["Password"], caseSensitive: true }, "your PASSWORD is")).toBe(false);
    expect(fires({ kind: "deny-terms", terms: ["Password"], caseSensitive: true }, "your Password is")).toBe(true);
  });

  test("case-insensitive beyond ASCII", () => {
    expect(fires({ kind: "deny-terms", terms: ["ÉCOLE"] }, "une école")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["straße"] }, "STRASSE")).toBe(false); // lower-casing, not full case folding
    expect(fires({ kind: "deny-terms", terms: ["ΑΘΗΝΑ"] }, "αθηνα")).toBe(true);
  });

  test("whole words by default: a letter or digit on either side means no match", () => {
    const check: GuardrailCheck = { kind: "deny-terms", terms: ["cat"] };
    expect(verdicts(check, ["cat", "a cat.", "(cat)", "cat!", "cat_food", "concatenate", "cats", "cat9", "9cat", "bobcat"])).toEqual([
      'the answer contains the denied term "cat"',
      'the answer contains the denied term "cat"',
      'the answer contains the denied term "cat"',
      'the answer contains the denied term "cat"',
      'the answer contains the denied term "cat"',
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  test("word boundaries are Unicode-aware: letters of any script, astral letters and combining marks", () => {
    expect(fires({ kind: "deny-terms", terms: ["bar"] }, "ébar")).toBe(false);
    expect(fires({ kind: "deny-terms", terms: ["bar"] }, "barж")).toBe(false);
    expect(fires({ kind: "deny-terms", terms: ["bar"] }, "𝐀bar")).toBe(false); // U+1D400, a letter outside the BMP
    expect(fires({ kind: "deny-terms", terms: ["bar"] }, "😀bar😀")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["bar"] }, "bar\u0301")).toBe(false); // a combining accent belongs to the word
    expect(fires({ kind: "deny-terms", terms: ["bar"] }, "٣bar")).toBe(false); // Arabic-Indic digit
    expect(fires({ kind: "deny-terms", terms: ["東京"] }, "東京タワー")).toBe(false);
    expect(fires({ kind: "deny-terms", terms: ["東京"] }, "「東京」")).toBe(true);
  });

  test("multi-word terms and terms with regex syntax are matched literally", () => {
    expect(fires({ kind: "deny-terms", terms: ["credit card"] }, "my credit card number")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["credit card"] }, "credit  card")).toBe(false);
    expect(fires({ kind: "deny-terms", terms: ["a.b"] }, "axb")).toBe(false);
    expect(fires({ kind: "deny-terms", terms: ["a.b"] }, "see a.b now")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["(x)+[y]{2}|z\\-/"] }, "so (x)+[y]{2}|z\\-/ it")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["c++"] }, "I like c++.")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["c++"] }, "I like c++x")).toBe(false);
  });

  test("substring mode", () => {
    expect(fires({ kind: "deny-terms", terms: ["cat"], wholeWord: false }, "concatenate")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["CAT"], wholeWord: false }, "conCatenate")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["CAT"], wholeWord: false, caseSensitive: true }, "conCatenate")).toBe(false);
  });

  test("a term and an answer in different Unicode normal forms still match", () => {
    expect(fires({ kind: "deny-terms", terms: ["caf\u00e9"] }, "un cafe\u0301 noir")).toBe(true);
    expect(fires({ kind: "deny-terms", terms: ["cafe\u0301"] }, "un caf\u00e9 noir")).toBe(true);
  });

  test("lists every denied term found, in the configured order", () => {
    expect(verdicts({ kind: "deny-terms", terms: ["zeta", "alpha", "beta"] }, ["beta then zeta", ""])).toEqual(['the answer contains the denied terms "zeta", "beta"', null]);
  });

  test("an occurrence inside a word does not hide a later whole-word one", () => {
    expect(fires({ kind: "deny-terms", terms: ["cat"] }, "concatenate the cat")).toBe(true);
  });
});

describe("max-length", () => {
  test("counts Unicode code points, not UTF-16 units", () => {
    expect(verdicts({ kind: "max-length", maxLength: 3 }, ["abc", "abcd", "😀😀😀", "😀😀😀😀", ""])).toEqual([
      null,
      "the answer is 4 characters long; the limit is 3",
      null,
      "the answer is 4 characters long; the limit is 3",
      null,
    ]);
  });

  test("a long answer reports its length", () => {
    expect(verdicts({ kind: "max-length", maxLength: 1000 }, ["x".repeat(1234)])).toEqual(["the answer is 1234 characters long; the limit is 1000"]);
  });
});

describe("json-schema", () => {
  const schema = { type: "object", required: ["answer"], properties: { answer: { type: "string" }, score: { type: "integer", minimum: 0 } }, additionalProperties: false };

  test("passes JSON text valid against the schema (surrounding whitespace allowed)", () => {
    expect(verdicts({ kind: "json-schema", schema }, ['{"answer":"yes"}', '  {"answer":"yes","score":3}\n'])).toEqual([null, null]);
  });

  test("an answer that is not JSON (including an empty one, or JSON in a code fence)", () => {
    expect(verdicts({ kind: "json-schema", schema }, ["", "yes", "{answer: 1}", '```json\n{"answer":"yes"}\n```'])).toEqual(Array(4).fill("the answer is not JSON"));
  });

  test("schema problems are listed as pointer and Ajv message", () => {
    expect(verdicts({ kind: "json-schema", schema }, ['{"score":-1}', "[1]", '{"answer":1}'])).toEqual([
      "the answer does not match the JSON Schema: / must have required property 'answer'; /score must be >= 0",
      "the answer does not match the JSON Schema: / must be object",
      "the answer does not match the JSON Schema: /answer must be string",
    ]);
  });

  test("at most ten problems are listed; the rest are counted", () => {
    const message = verdicts({ kind: "json-schema", schema: { type: "array", items: { type: "string" } } }, [JSON.stringify(Array.from({ length: 14 }, (_, i) => i))])[0];
    expect(message).toMatch(/^the answer does not match the JSON Schema: \/0 must be string; .*\/9 must be string; and 4 more$/);
  });

  test("JSON scalars are JSON text too", () => {
    expect(verdicts({ kind: "json-schema", schema: { type: "number" } }, ["42", '"42"'])).toEqual([null, "the answer does not match the JSON Schema: / must be number"]);
  });
});
