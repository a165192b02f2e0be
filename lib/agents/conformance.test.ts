/**
 * Conformance: our validator (seed-based) and the public agent.schema.json (1.3.0) must agree on the
 * whole corpus, except on entries naming one of the known differences below, where they must disagree
 * and our verdict is the corpus's.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { agentCorpus, type KnownDifference } from "@/tests/corpus/agent-definitions";
import { validateAgentDefinition } from "./validate-agent";

/** The public schema, a copy kept in the repository (tests/fixtures/README.md). */
const PUBLIC_SCHEMA_PATH = path.resolve(import.meta.dirname, "../../tests/fixtures/specs/agent.schema.json");

/** Every difference between the public schema and our verdict, and why ours is right. */
const KNOWN_DIFFERENCES: Record<KnownDifference, string> = {
  "parallel-tool-calls": "parallelToolCalls is the one field we accept beyond Agent 1.3.0 (DESIGN §5)",
  "semver-build-metadata": "the agent version is full semver: +build metadata is allowed (the public pattern has none)",
  "semver-leading-zero": "full semver forbids leading zeros in numeric identifiers (the public pattern uses \\d+)",
  "parameter-name-identifier": "a parameter name must be referenceable from Liquid: letters, digits and _",
  "reserved-parameter-name": "the seed reserves today, now, agent, conversation (a rule the public schema cannot say)",
  "duplicate-parameter-name": "two parameters with one name would be one template variable",
  "parameter-default-type": "the seed: a default must match the declared type",
  "tool-version-range": "tool versions are checked as npm semver ranges at registration, not only at run start",
  "duplicate-tool-id": "a tool listed twice is ambiguous at resolution",
  "output-schema-compiles": "output.schema must compile as draft 2020-12 in Ajv strict mode",
  "instructions-variables": "the seed: every referenced variable must be a declared parameter or an auto-var",
  "instructions-syntax": "instructions must parse as Liquid with strict filters and no file tags",
  "capability-fields-typed": "capability fields named by capability.schema.json (kind, needs) are typed",
  "tool-errors-max-retries-uncapped": "the seed sets no maximum for toolErrors.maxRetries (the public schema caps it at 10)",
};

function publicValidator() {
  const schema = JSON.parse(readFileSync(PUBLIC_SCHEMA_PATH, "utf8"));
  return new Ajv2020({ strict: false, allErrors: true }).compile(schema);
}

const corpus = agentCorpus();
const publicValidate = publicValidator();

describe("agent definition corpus", () => {
  it("has at least 120 definitions, valid and invalid, with unique names", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(120);
    expect(corpus.some((e) => e.valid)).toBe(true);
    expect(corpus.some((e) => !e.valid)).toBe(true);
    expect(new Set(corpus.map((e) => e.name)).size).toBe(corpus.length);
  });

  it.each(corpus.map((e) => [e.name, e] as const))("our validator: %s", (_name, entry) => {
    const result = validateAgentDefinition(entry.definition);
    expect(result.ok, JSON.stringify(result.ok ? result.warnings : result.issues)).toBe(entry.valid);
  });

  it.each(corpus.filter((e) => !e.difference).map((e) => [e.name, e] as const))(
    "public schema agrees: %s",
    (_name, entry) => {
      expect(publicValidate(entry.definition), JSON.stringify(publicValidate.errors)).toBe(entry.valid);
    },
  );
});

describe.each(Object.entries(KNOWN_DIFFERENCES))("known difference %s", (difference, why) => {
  const entries = corpus.filter((e) => e.difference === difference);

  it(`is exercised by the corpus (${why})`, () => {
    expect(entries.length).toBeGreaterThan(0);
  });

  it.each(entries.map((e) => [e.name, e] as const))("public schema disagrees, ours holds: %s", (_name, entry) => {
    expect(publicValidate(entry.definition)).toBe(!entry.valid);
    expect(validateAgentDefinition(entry.definition).ok).toBe(entry.valid);
  });
});
