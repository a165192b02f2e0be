import { describe, expect, it } from "vitest";
import { validateAgentDefinition, type Issue } from "./validate-agent";

type Def = Record<string, unknown>;

function base(): Def {
  return {
    id: "acme.helper",
    version: "1.0.0",
    name: "Helper",
    instructions: "Help {{ customer }}.",
    parameters: [{ name: "customer", type: "string" }],
    capabilities: [{ kind: "llm-inference" }],
    tools: [{ id: "acme.search", version: "^1.0.0" }],
    retrieval: [{ types: ["note"], scope: "same-project" }],
    guardrails: [],
  };
}

function issuesOf(def: unknown): Issue[] {
  const result = validateAgentDefinition(def);
  return result.ok ? [] : result.issues;
}

function withParams(...parameters: Def[]): Def {
  return { ...base(), instructions: "Hello.", parameters };
}

describe("validateAgentDefinition", () => {
  it("accepts a valid definition and returns it as given", () => {
    const def = base();
    const result = validateAgentDefinition(def);
    expect(result).toEqual({ ok: true, definition: def, warnings: [] });
    if (result.ok) expect(result.definition).toBe(def);
  });

  it("accepts parallelToolCalls, the one field beyond 1.3.0", () => {
    expect(validateAgentDefinition({ ...base(), parallelToolCalls: false }).ok).toBe(true);
    expect(issuesOf({ ...base(), parallelToolCalls: "no" })).toEqual([
      { path: "/parallelToolCalls", message: "must be a boolean" },
    ]);
  });

  it("refuses a non-object", () => {
    expect(issuesOf(null)).toEqual([{ path: "", message: "must be an object" }]);
    expect(issuesOf([base()])).toEqual([{ path: "", message: "must be an object" }]);
  });

  describe("schema issues: one clear message per problem", () => {
    it("names each missing required field at its path", () => {
      const def = base();
      delete def.tools;
      delete def.guardrails;
      expect(issuesOf(def)).toEqual([
        { path: "/tools", message: 'missing required field "tools"' },
        { path: "/guardrails", message: 'missing required field "guardrails"' },
      ]);
    });

    it("reports unknown fields at their own path, at the root and nested", () => {
      const def = { ...base(), owner: "me", budget: { maxSteps: 3, maxSpend: 1 } };
      expect(issuesOf(def)).toEqual([
        { path: "/owner", message: 'unknown field "owner"' },
        { path: "/budget/maxSpend", message: 'unknown field "maxSpend"' },
      ]);
    });

    it("explains bare-string tool ids", () => {
      expect(issuesOf({ ...base(), tools: ["acme.search"] })).toEqual([
        {
          path: "/tools/0",
          message: "tool references are {id, version} objects; bare string ids are not accepted (since schema 1.1.0)",
        },
      ]);
    });

    it("refuses blank tool ids and versions, once each", () => {
      expect(issuesOf({ ...base(), tools: [{ id: "", version: "  " }] })).toEqual([
        { path: "/tools/0/id", message: "must not be blank" },
        { path: "/tools/0/version", message: "must not be blank" },
      ]);
    });

    it("explains enums, types, minimums, patterns and duplicates", () => {
      const def = {
        ...base(),
        id: "",
        version: "1.0",
        retrieval: [{ types: ["note"], scope: "galaxy", limit: 0 }],
        budget: { maxSteps: 1.5 },
        toolErrors: { retryOn: ["tool-error", "tool-error"] },
      };
      expect(issuesOf(def)).toEqual([
        { path: "/id", message: "must not be empty" },
        { path: "/version", message: 'must be a semver version such as "1.2.3" (x.y.z, optional -prerelease and +build)' },
        { path: "/retrieval/0/scope", message: 'must be one of "same-conversation", "same-project", "tenant"' },
        { path: "/retrieval/0/limit", message: "must be at least 1" },
        { path: "/budget/maxSteps", message: "must be an integer" },
        { path: "/toolErrors/retryOn", message: "must not contain duplicates (items 0 and 1 are equal)" },
      ]);
    });

    it("ids follow the {agentId} path parameter's grammar: 1 to 200 characters, no control characters", () => {
      expect(issuesOf({ ...base(), id: "x".repeat(200) })).toEqual([]);
      expect(issuesOf({ ...base(), id: "✓".repeat(200) })).toEqual([]);
      expect(issuesOf({ ...base(), id: "x".repeat(201) })).toEqual([{ path: "/id", message: "must be at most 200 characters long" }]);
      for (const id of ["a\tb", "a\u0000b", "line\n"]) {
        expect(issuesOf({ ...base(), id })).toEqual([{ path: "/id", message: "must not contain control characters (U+0000–U+001F)" }]);
      }
    });

    it("versions are full semver without leading zeros, at most 200 characters", () => {
      expect(issuesOf({ ...base(), version: "2.0.0-beta.1+build.7" })).toEqual([]);
      for (const version of ["01.0.0", "1.02.0", "1.0.00", "1.0.0-01"]) {
        expect(issuesOf({ ...base(), version })).toEqual([{ path: "/version", message: expect.stringContaining("must be a semver version") }]);
      }
      expect(issuesOf({ ...base(), version: `1.0.0+${"b".repeat(195)}` })).toEqual([{ path: "/version", message: "must be at most 200 characters long" }]);
    });

    it("refuses a retrieval limit above 100 instead of capping it", () => {
      expect(issuesOf({ ...base(), retrieval: [{ types: ["note"], scope: "same-project", limit: 100 }] })).toEqual([]);
      expect(issuesOf({ ...base(), retrieval: [{ types: ["note"], scope: "same-project", limit: 101 }] })).toEqual([{ path: "/retrieval/0/limit", message: "must be at most 100" }]);
    });

    it("requires at least one capability, each an object", () => {
      expect(issuesOf({ ...base(), capabilities: [] })).toEqual([
        { path: "/capabilities", message: "must have at least 1 item" },
      ]);
      expect(issuesOf({ ...base(), capabilities: ["llm"] })).toEqual([
        { path: "/capabilities/0", message: "must be an object" },
      ]);
    });

    it("accepts capability kinds and free-form requirement fields", () => {
      const capabilities = [{ needs: [{ feature: "vision" }] }, { kind: "gpu-compute", gpus: 2 }];
      expect(validateAgentDefinition({ ...base(), capabilities }).ok).toBe(true);
    });
  });

  describe("budget", () => {
    it("accepts positive steps and wall time and a zero cost", () => {
      expect(validateAgentDefinition({ ...base(), budget: { maxSteps: 1, maxWallMs: 1, maxCostUsd: 0 } }).ok).toBe(true);
    });

    it("refuses zero steps or wall time and a negative cost", () => {
      expect(issuesOf({ ...base(), budget: { maxSteps: 0, maxWallMs: 0, maxCostUsd: -1 } })).toEqual([
        { path: "/budget/maxSteps", message: "must be at least 1" },
        { path: "/budget/maxCostUsd", message: "must be at least 0" },
        { path: "/budget/maxWallMs", message: "must be at least 1" },
      ]);
    });
  });

  describe("parameter names", () => {
    it.each(["today", "now", "agent", "conversation"])("refuses the reserved name %s", (name) => {
      expect(issuesOf(withParams({ name, type: "string" }))).toEqual([
        {
          path: "/parameters/0/name",
          message: `"${name}" is reserved for an auto-var (today, now, agent, conversation); choose another name`,
        },
      ]);
    });

    it("accepts names that merely start like a reserved one", () => {
      expect(validateAgentDefinition(withParams({ name: "todays", type: "string" }, { name: "agent_name", type: "string" })).ok).toBe(true);
    });

    it("refuses duplicate names, pointing at the first", () => {
      const def = withParams({ name: "a", type: "string" }, { name: "b", type: "string" }, { name: "a", type: "number" });
      expect(issuesOf(def)).toEqual([{ path: "/parameters/2/name", message: "duplicate parameter name (also /parameters/0)" }]);
    });

    it("refuses names a template cannot reference", () => {
      expect(issuesOf(withParams({ name: "due date", type: "date" }))).toEqual([
        { path: "/parameters/0/name", message: "must be an identifier: letters, digits and _, not starting with a digit" },
      ]);
    });
  });

  describe("parameter defaults match the declared type", () => {
    it.each([
      ["string", "x"],
      ["number", 2.5],
      ["boolean", false],
      ["date", "2024-02-29"],
      ["date", "2024-02-29T08:30:00.000Z"],
    ])("accepts a %s default %j", (type, value) => {
      expect(validateAgentDefinition(withParams({ name: "p", type, default: value })).ok).toBe(true);
    });

    it.each([
      ["string", 1, "must be a string"],
      ["number", "1", "must be a finite number"],
      ["boolean", "true", "must be a boolean (true or false)"],
      ["date", "2023-02-29", "must be a date (YYYY-MM-DD)"],
      ["date", "yesterday", "must be a date (YYYY-MM-DD)"],
    ])("refuses a %s default %j", (type, value, problem) => {
      expect(issuesOf(withParams({ name: "p", type, default: value }))).toEqual([
        { path: "/parameters/0/default", message: `${problem} to match the parameter's type "${type}"` },
      ]);
    });
  });

  describe("tool references", () => {
    it.each(["1.2.3", "^1.2.3", "~1.2.3", ">=1.0.0 <2.0.0", "1.x", "*", "^1.0.0 || ^2.0.0"])(
      "accepts the semver range %s",
      (version) => {
        expect(validateAgentDefinition({ ...base(), tools: [{ id: "acme.search", version }] }).ok).toBe(true);
      },
    );

    it.each(["latest", "^^1", "1.2.3.4", "next-major"])("refuses %s, which is not a semver range", (version) => {
      expect(issuesOf({ ...base(), tools: [{ id: "acme.search", version }] })).toEqual([
        { path: "/tools/0/version", message: 'must be an npm semver range such as "^1.2.3", "~1.2.3", "1.2.3" or ">=1.0.0 <2.0.0"' },
      ]);
    });

    it("refuses a tool listed twice", () => {
      const tools = [
        { id: "acme.search", version: "^1.0.0" },
        { id: "acme.fetch", version: "^1.0.0" },
        { id: "acme.search", version: "^2.0.0" },
      ];
      expect(issuesOf({ ...base(), tools })).toEqual([
        { path: "/tools/2/id", message: 'duplicate tool "acme.search" (also /tools/0)' },
      ]);
    });

    it("accepts no tools (chat-only)", () => {
      expect(validateAgentDefinition({ ...base(), tools: [] }).ok).toBe(true);
    });
  });

  describe("output schema", () => {
    it("accepts a schema that compiles in strict mode, with formats", () => {
      const schema = {
        type: "object",
        properties: { at: { type: "string", format: "date-time" }, score: { type: "number" } },
        required: ["at"],
      };
      expect(validateAgentDefinition({ ...base(), output: { schema, name: "result", maxRepairs: 0 } }).ok).toBe(true);
    });

    it("accepts a schema naming draft 2020-12 explicitly", () => {
      const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "array", items: { type: "integer" } };
      expect(validateAgentDefinition({ ...base(), output: { schema } }).ok).toBe(true);
    });

    it("accepts two definitions whose schemas share an $id", () => {
      const output = { schema: { $id: "https://example.com/out", type: "object" } };
      expect(validateAgentDefinition({ ...base(), output }).ok).toBe(true);
      expect(validateAgentDefinition({ ...base(), output }).ok).toBe(true);
    });

    it.each([
      [{ type: "object", propertys: {} }, 'unknown keyword: "propertys"'],
      [{ type: "object", properties: { a: { typ: "string" } } }, 'unknown keyword: "typ"'],
      [{ type: "object", properties: { ok: {} }, required: ["okay"] }, 'required property "okay" is not defined'],
      [{ type: "string", format: "moment" }, 'unknown format "moment"'],
      [{ type: "nothing" }, "schema is invalid"],
      [{ $schema: "http://json-schema.org/draft-07/schema#", type: "object" }, "no schema with key or ref"],
    ])("refuses %j", (schema, problem) => {
      const issues = issuesOf({ ...base(), output: { schema } });
      expect(issues).toHaveLength(1);
      expect(issues[0].path).toBe("/output/schema");
      expect(issues[0].message).toMatch(/^does not compile as a JSON Schema \(draft 2020-12, strict\): /);
      expect(issues[0].message).toContain(problem);
    });

    it("refuses a pattern the linear-time engine cannot run, at the pattern keyword", () => {
      const schema = { type: "object", properties: { word: { type: "string", pattern: "^(\\w)\\1$" } } };
      expect(issuesOf({ ...base(), output: { schema } })).toEqual([
        { path: "/output/schema/properties/word/pattern", message: expect.stringMatching(/^does not compile as a JSON Schema \(draft 2020-12, strict\): .*backreferences/) },
      ]);
      const catastrophic = { type: "object", properties: { word: { type: "string", pattern: "^(a|a)+$" } } };
      expect(validateAgentDefinition({ ...base(), output: { schema: catastrophic } }).ok).toBe(true);
    });

    it("requires the schema to be an object", () => {
      expect(issuesOf({ ...base(), output: { name: "x" } })).toEqual([
        { path: "/output/schema", message: 'missing required field "schema"' },
      ]);
    });
  });

  describe("retrieval mode", () => {
    it("accepts keyword and no mode", () => {
      const retrieval = [{ types: ["a"], scope: "tenant", mode: "keyword" }, { types: ["b"], scope: "tenant" }];
      expect(validateAgentDefinition({ ...base(), retrieval }).ok).toBe(true);
    });

    it.each(["semantic", "both"])("accepts %s; without an embedding capability entry, warns at the intent's mode", (mode) => {
      const result = validateAgentDefinition({ ...base(), retrieval: [{ types: ["a"], scope: "tenant", mode }] });
      expect(result.ok).toBe(true);
      expect(result.warnings).toEqual([{ path: "/retrieval/0/mode", message: expect.stringContaining('no capability entry of kind "embedding"') }]);
      const withEntry = validateAgentDefinition({ ...base(), capabilities: [{ kind: "llm-inference" }, { kind: "embedding" }], retrieval: [{ types: ["a"], scope: "tenant", mode }] });
      expect(withEntry.ok).toBe(true);
      expect(withEntry.warnings).toEqual([]);
    });
  });

  describe("instructions", () => {
    it("accepts declared parameters, auto-vars, control flow and filters", () => {
      const def = {
        ...base(),
        instructions: "{% if customer %}Hi {{ customer | capitalize }}{% endif %} on {{ today }} as {{ agent.name }}.",
      };
      expect(validateAgentDefinition(def).ok).toBe(true);
    });

    it("reports each undeclared variable with line and column", () => {
      const def = { ...base(), instructions: "Help {{ customer }}.\n  Cite {{ source }} and {{ agent.owner }}." };
      expect(issuesOf(def)).toEqual([
        {
          path: "/instructions",
          message:
            'line 2, column 11: unknown variable "source": declare it as a parameter or use an auto-var (today, now, agent.id, agent.name, agent.version, conversation.id, conversation.turn)',
        },
        { path: "/instructions", message: 'line 2, column 28: unknown auto-var "agent.owner"; use agent.id, agent.name or agent.version' },
      ]);
    });

    it("reports a syntax error with line and column", () => {
      expect(issuesOf({ ...base(), instructions: "Help.\n{% if customer %}" })).toEqual([
        { path: "/instructions", message: "line 2, column 1: tag {% if customer %} not closed" },
      ]);
    });

    it("reports an unknown filter with line and column", () => {
      expect(issuesOf({ ...base(), instructions: "Help {{ customer | shout }}." })).toEqual([
        { path: "/instructions", message: 'line 1, column 6: unknown filter "shout"' },
      ]);
    });
  });

  describe("warnings", () => {
    it("warns about a parameter the instructions never use", () => {
      const result = validateAgentDefinition({ ...base(), instructions: "Help." });
      expect(result).toMatchObject({
        ok: true,
        warnings: [{ path: "/parameters/0/name", message: 'parameter "customer" is not used by the instructions' }],
      });
    });

    it("warns about required: true next to a default", () => {
      const parameters = [{ name: "customer", type: "string", required: true, default: "you" }];
      expect(validateAgentDefinition({ ...base(), parameters })).toMatchObject({
        ok: true,
        warnings: [{ path: "/parameters/0/required", message: "has no effect: a parameter with a default is never missing" }],
      });
    });
  });

  it("reports every problem at once", () => {
    const def = {
      ...base(),
      instructions: "{{ nobody }}",
      parameters: [{ name: "now", type: "date", default: "soon" }],
      tools: [{ id: "t", version: "latest" }],
      retrieval: [{ types: ["a"], scope: "tenant", mode: "fuzzy" }],
      output: { schema: { type: "object", nope: true } },
      extra: 1,
    };
    expect(issuesOf(def).map((i) => i.path)).toEqual([
      "/extra",
      "/retrieval/0/mode",
      "/parameters/0/name",
      "/parameters/0/default",
      "/tools/0/version",
      "/output/schema",
      "/instructions",
    ]);
  });
});
