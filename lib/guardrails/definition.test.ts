import Ajv2020 from "ajv/dist/2020";
import { describe, expect, test } from "vitest";
import { guardrailDefinitionSchema, validateGuardrailDefinition, type Issue } from "./definition";

type Doc = Record<string, unknown>;

const base: Doc = { id: "acme.no-secrets", version: "1.0.0", name: "No secrets", action: "halt", check: { kind: "deny-terms", terms: ["password"] } };
const withCheck = (check: Doc, extra: Doc = {}): Doc => ({ ...base, ...extra, check });

function issuesOf(doc: unknown): Issue[] {
  const result = validateGuardrailDefinition(doc);
  return result.ok ? [] : result.issues;
}

function expectIssue(doc: unknown, path: string, message: string | RegExp = /./): void {
  expect(issuesOf(doc)).toContainEqual({ path, message: typeof message === "string" ? message : expect.stringMatching(message) });
}

describe("guardrailDefinitionSchema", () => {
  test("compiles as draft 2020-12 in Ajv strict mode (with discriminator)", () => {
    expect(() => new Ajv2020({ strict: true, discriminator: true }).compile(guardrailDefinitionSchema)).not.toThrow();
  });
});

describe("valid definitions", () => {
  test.each([
    ["deny-terms", base],
    ["regex with every option", withCheck({ kind: "regex", pattern: "\\bsk-[A-Za-z0-9]{20,}\\b", flags: "ims", match: "forbid" }, { description: "d", tags: ["security"], message: "Do not leak keys", action: "flag" })],
    ["regex required", withCheck({ kind: "regex", pattern: "^\\p{Lu}", match: "require" })],
    ["deny-terms with options", withCheck({ kind: "deny-terms", terms: ["Foo", "foo"], caseSensitive: true, wholeWord: false })],
    ["max-length", withCheck({ kind: "max-length", maxLength: 1 })],
    ["json-schema", withCheck({ kind: "json-schema", schema: { type: "object", required: ["answer"], properties: { answer: { type: "string" } } } })],
    ["json-schema naming 2020-12", withCheck({ kind: "json-schema", schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "array" } })],
    ["prerelease version", { ...base, version: "2.0.0-beta.1+build.5" }],
  ])("%s", (_name, doc) => {
    expect(validateGuardrailDefinition(doc)).toEqual({ ok: true, definition: doc });
  });
});

describe("schema problems", () => {
  test("a document that is not an object gets one issue at the root", () => {
    expect(issuesOf([])).toEqual([{ path: "", message: "must be an object" }]);
    expect(issuesOf(null)).toEqual([{ path: "", message: "must be an object" }]);
  });

  test.each(["id", "version", "name", "action", "check"])("requires %s, reported at its own path", (field) => {
    const { [field]: _dropped, ...doc } = base;
    expect(issuesOf(doc)).toEqual([{ path: `/${field}`, message: `required field "${field}" is missing` }]);
  });

  test("reports every problem at once, each at its pointer", () => {
    const issues = issuesOf({ id: "", version: "1.0", name: "  ", action: "stop", message: "", tags: [""], description: 3, extra: true, check: { kind: "max-length", maxLength: 0 } });
    expect(issues.map((issue) => issue.path).sort()).toEqual(["/action", "/check/maxLength", "/description", "/extra", "/id", "/message", "/name", "/tags/0", "/version"].sort());
    expect(issues).toContainEqual({ path: "/name", message: "must not be blank" });
    expect(issues).toContainEqual({ path: "/version", message: 'must be a semver version such as "1.2.3" (x.y.z, optional -prerelease and +build)' });
    expect(issues).toContainEqual({ path: "/action", message: "must be one of: halt, flag" });
    expect(issues).toContainEqual({ path: "/extra", message: 'unknown field "extra"' });
  });

  test("ids: 1 to 200 characters without control characters", () => {
    expectIssue({ ...base, id: "x".repeat(201) }, "/id", /200/);
    expectIssue({ ...base, id: "a\tb" }, "/id", "must not contain control characters (U+0000–U+001F)");
    expectIssue({ ...base, version: `1.0.0+${"b".repeat(195)}` }, "/version", /200/);
    expect(issuesOf({ ...base, id: "x".repeat(200) })).toEqual([]);
    expect(issuesOf({ ...base, id: "acme.ünïcode-✓" })).toEqual([]);
  });

  test("a missing or unknown check kind names the kinds", () => {
    expect(issuesOf(withCheck({ pattern: "x" }))).toEqual([{ path: "/check/kind", message: 'required field "kind" is missing' }]);
    expect(issuesOf(withCheck({ kind: "profanity" }))).toEqual([{ path: "/check/kind", message: "must be one of: regex, deny-terms, max-length, json-schema" }]);
    expect(issuesOf({ ...base, check: "regex" })).toEqual([{ path: "/check", message: "must be an object" }]);
  });

  test("unknown fields inside a check are reported at their path", () => {
    expect(issuesOf(withCheck({ kind: "max-length", maxLength: 5, minLength: 1 }))).toEqual([{ path: "/check/minLength", message: 'unknown field "minLength"' }]);
    expect(issuesOf(withCheck({ kind: "regex", pattern: "x", terms: ["a"] }))).toEqual([{ path: "/check/terms", message: 'unknown field "terms"' }]);
  });

  test("max-length: a positive integer", () => {
    expectIssue(withCheck({ kind: "max-length", maxLength: 1.5 }), "/check/maxLength", "must be an integer");
    expectIssue(withCheck({ kind: "max-length", maxLength: 0 }), "/check/maxLength", /1/);
    expectIssue(withCheck({ kind: "max-length", maxLength: "10" }), "/check/maxLength", "must be an integer");
    expectIssue(withCheck({ kind: "max-length" }), "/check/maxLength", 'required field "maxLength" is missing');
  });

  test("json-schema: the schema must be an object", () => {
    expect(issuesOf(withCheck({ kind: "json-schema", schema: true }))).toEqual([{ path: "/check/schema", message: "must be an object" }]);
    expectIssue(withCheck({ kind: "json-schema" }), "/check/schema", 'required field "schema" is missing');
  });
});

describe("regex rules", () => {
  test("a pattern that does not compile is reported with the RegExp error", () => {
    const issues = issuesOf(withCheck({ kind: "regex", pattern: "(unclosed" }));
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("/check/pattern");
    expect(issues[0].message).toMatch(/^does not compile as a regular expression: Invalid regular expression: .*\(unclosed/);
  });

  test("the u flag is always on: escapes that only non-Unicode mode allows are refused", () => {
    expectIssue(withCheck({ kind: "regex", pattern: "\\-" }), "/check/pattern", /Invalid/);
    expectIssue(withCheck({ kind: "regex", pattern: "a{" }), "/check/pattern", /Invalid/);
    expect(issuesOf(withCheck({ kind: "regex", pattern: "\\p{Script=Greek}+" }))).toEqual([]);
  });

  test("flags: only i, m and s, each once", () => {
    expect(issuesOf(withCheck({ kind: "regex", pattern: "x", flags: "g" }))).toEqual([{ path: "/check/flags", message: 'may contain only the flags "i", "m" and "s"' }]);
    expect(issuesOf(withCheck({ kind: "regex", pattern: "x", flags: "u" }))).toEqual([{ path: "/check/flags", message: 'may contain only the flags "i", "m" and "s"' }]);
    expect(issuesOf(withCheck({ kind: "regex", pattern: "x", flags: "ii" }))).toEqual([{ path: "/check/flags", message: "must not repeat a flag" }]);
    expect(issuesOf(withCheck({ kind: "regex", pattern: "x", flags: "" }))).toEqual([]);
  });

  test("a bad pattern is reported even when the flags are bad too", () => {
    const issues = issuesOf(withCheck({ kind: "regex", pattern: "[", flags: "ss" }));
    expect(issues.map((issue) => issue.path).sort()).toEqual(["/check/flags", "/check/pattern"]);
  });

  test("pattern length 1..1000 and match forbid|require", () => {
    expect(issuesOf(withCheck({ kind: "regex", pattern: "" }))).toEqual([{ path: "/check/pattern", message: "must not be empty" }]);
    expectIssue(withCheck({ kind: "regex", pattern: "a".repeat(1001) }), "/check/pattern", /1000/);
    expect(issuesOf(withCheck({ kind: "regex", pattern: "a".repeat(1000) }))).toEqual([]);
    expect(issuesOf(withCheck({ kind: "regex", pattern: "x", match: "allow" }))).toEqual([{ path: "/check/match", message: "must be one of: forbid, require" }]);
    expectIssue(withCheck({ kind: "regex" }), "/check/pattern", 'required field "pattern" is missing');
  });
});

describe("deny-terms rules", () => {
  test("1 to 500 non-blank terms", () => {
    expectIssue(withCheck({ kind: "deny-terms", terms: [] }), "/check/terms", /1/);
    expectIssue(withCheck({ kind: "deny-terms", terms: Array.from({ length: 501 }, (_, i) => `t${i}`) }), "/check/terms", /500/);
    expect(issuesOf(withCheck({ kind: "deny-terms", terms: Array.from({ length: 500 }, (_, i) => `t${i}`) }))).toEqual([]);
    expect(issuesOf(withCheck({ kind: "deny-terms", terms: ["ok", " ", 3] }))).toEqual([
      { path: "/check/terms/1", message: "must not be blank" },
      { path: "/check/terms/2", message: "must be a string" },
    ]);
  });

  test("terms are distinct as the check compares them", () => {
    expect(issuesOf(withCheck({ kind: "deny-terms", terms: ["foo", "bar", "foo"] }))).toEqual([{ path: "/check/terms/2", message: "duplicate term (also /check/terms/0, ignoring case)" }]);
    expect(issuesOf(withCheck({ kind: "deny-terms", terms: ["Foo", "FOO"] }))).toEqual([{ path: "/check/terms/1", message: "duplicate term (also /check/terms/0, ignoring case)" }]);
    expect(issuesOf(withCheck({ kind: "deny-terms", terms: ["Foo", "FOO"], caseSensitive: true }))).toEqual([]);
    expect(issuesOf(withCheck({ kind: "deny-terms", terms: ["Foo", "Foo"], caseSensitive: true }))).toEqual([{ path: "/check/terms/1", message: "duplicate term (also /check/terms/0)" }]);
    // é precomposed and e + combining acute are the same term once normalized.
    expect(issuesOf(withCheck({ kind: "deny-terms", terms: ["caf\u00e9", "cafe\u0301"] }))).toEqual([{ path: "/check/terms/1", message: "duplicate term (also /check/terms/0, ignoring case)" }]);
  });

  test("options are booleans", () => {
    expect(issuesOf(withCheck({ kind: "deny-terms", terms: ["x"], caseSensitive: "yes", wholeWord: 1 }))).toEqual([
      { path: "/check/caseSensitive", message: "must be a boolean" },
      { path: "/check/wholeWord", message: "must be a boolean" },
    ]);
  });
});

describe("json-schema rules", () => {
  test("a schema that does not compile in strict mode is reported under /check/schema", () => {
    const issues = issuesOf(withCheck({ kind: "json-schema", schema: { type: "object", properties: { a: { type: "nope" } } } }));
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((issue) => issue.path.startsWith("/check/schema"))).toBe(true);
  });

  test("unknown keywords are refused (strict mode)", () => {
    const issues = issuesOf(withCheck({ kind: "json-schema", schema: { type: "string", maxLenght: 3 } }));
    expect(issues).toEqual([{ path: "/check/schema", message: expect.stringMatching(/^does not compile as a JSON Schema \(draft 2020-12, strict\): .*maxLenght/) }]);
  });

  test("only draft 2020-12", () => {
    expect(issuesOf(withCheck({ kind: "json-schema", schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" } }))).toEqual([
      { path: "/check/schema/$schema", message: expect.stringContaining("draft 2020-12") },
    ]);
  });

  test("the same $id in two definitions does not collide", () => {
    const doc = withCheck({ kind: "json-schema", schema: { $id: "https://example.com/answer", type: "object" } });
    expect(issuesOf(doc)).toEqual([]);
    expect(issuesOf(doc)).toEqual([]);
  });
});
