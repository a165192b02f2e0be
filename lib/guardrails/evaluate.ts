/**
 * Evaluation of guardrails on a turn's final answer. Pure and deterministic: the same guardrails and answer give the
 * same findings, in the order the guardrails are given. A finding's message never quotes the answer (the answer of
 * a halted turn is stored nowhere): it names configuration (a denied term, a limit) and describes the problem.
 */
import type { ValidateFunction } from "ajv";
import { comparableTerm, type GuardrailCheck, type GuardrailDefinition } from "@/lib/guardrails/definition";
import { compileDialectSchema } from "@/lib/tools/json-schema";

/** A guardrail version resolved for a run (see resolveGuardrails in lib/services/guardrails.ts). */
export type ResolvedGuardrail = { id: string; version: string; definition: GuardrailDefinition };

export type GuardrailFinding = {
  guardrailId: string;
  version: string;
  action: "halt" | "flag";
  check: "regex" | "deny-terms" | "max-length" | "json-schema";
  message: string;
};

/** A compiled check: the problem with the answer in words, or null when the answer passes. */
type CompiledCheck = (answer: string) => string | null;

/** A letter, digit or combining mark: what must not touch a whole-word term on either side. */
const WORD_CHARACTER = "[\\p{L}\\p{N}\\p{M}]";
/** JSON Schema problems listed in one finding; more are counted, not listed. */
const MAX_LISTED_SCHEMA_PROBLEMS = 10;
const CACHE_SIZE = 256;

/**
 * Compiled checks by guardrail id, version and check. Ids and versions are unique per tenant only, so the check
 * itself is part of the key: two tenants' `acme.x@1.0.0` never share a compiled check unless their checks are equal.
 */
const cache = new Map<string, CompiledCheck>();

/**
 * Runs each guardrail on `answer`, in the order given, and returns a finding for each one that fires. Throws only
 * for a definition that validateGuardrailDefinition would refuse (a regex or schema that does not compile).
 * Regex checks run synchronously on the caller's thread, and registration does not refuse patterns prone to
 * catastrophic backtracking.
 */
export function evaluateGuardrails(guardrails: readonly ResolvedGuardrail[], answer: string): GuardrailFinding[] {
  const findings: GuardrailFinding[] = [];
  for (const guardrail of guardrails) {
    const { definition } = guardrail;
    const problem = compiledCheck(guardrail)(answer);
    if (problem === null) continue;
    findings.push({
      guardrailId: guardrail.id,
      version: guardrail.version,
      action: definition.action,
      check: definition.check.kind,
      message: definition.message ? `${definition.message} (${problem})` : problem,
    });
  }
  return findings;
}

function compiledCheck(guardrail: ResolvedGuardrail): CompiledCheck {
  const key = `${guardrail.id}\u0000${guardrail.version}\u0000${JSON.stringify(guardrail.definition.check)}`;
  let compiled = cache.get(key);
  if (compiled) {
    cache.delete(key); // most recently used last: the first key is the one to evict
  } else {
    compiled = compileCheck(guardrail.definition.check);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, compiled);
  return compiled;
}

function compileCheck(check: GuardrailCheck): CompiledCheck {
  switch (check.kind) {
    case "regex":
      return compileRegex(check.pattern, check.flags ?? "", check.match ?? "forbid");
    case "deny-terms":
      return compileDenyTerms(check.terms, check.caseSensitive ?? false, check.wholeWord ?? true);
    case "max-length":
      return compileMaxLength(check.maxLength);
    case "json-schema":
      return compileJsonSchema(check.schema);
  }
}

function compileRegex(pattern: string, flags: string, match: "forbid" | "require"): CompiledCheck {
  // No `g` or `y` flag: test() keeps no state between answers.
  const regex = new RegExp(pattern, `u${flags}`);
  return match === "forbid"
    ? (answer) => (regex.test(answer) ? "the answer matches the forbidden pattern" : null)
    : (answer) => (regex.test(answer) ? null : "the answer does not match the required pattern");
}

/** Escapes the characters that are syntax in a `u`-mode RegExp (other escapes are errors in that mode). */
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

function compileDenyTerms(terms: readonly string[], caseSensitive: boolean, wholeWord: boolean): CompiledCheck {
  const matchers = terms.map((term) => {
    const needle = comparableTerm(term, caseSensitive);
    if (!wholeWord) return { term, matches: (text: string) => text.includes(needle) };
    const regex = new RegExp(`(?<!${WORD_CHARACTER})${escapeRegExp(needle)}(?!${WORD_CHARACTER})`, "u");
    return { term, matches: (text: string) => regex.test(text) };
  });
  return (answer) => {
    const text = comparableTerm(answer, caseSensitive);
    const found = matchers.filter((matcher) => matcher.matches(text)).map((matcher) => JSON.stringify(matcher.term));
    if (found.length === 0) return null;
    return found.length === 1 ? `the answer contains the denied term ${found[0]}` : `the answer contains the denied terms ${found.join(", ")}`;
  };
}

function compileMaxLength(maxLength: number): CompiledCheck {
  return (answer) => {
    // A string has at most as many code points as UTF-16 units: most answers need no count.
    if (answer.length <= maxLength) return null;
    let length = 0;
    for (const _ of answer) length++;
    return length > maxLength ? `the answer is ${length} characters long; the limit is ${maxLength}` : null;
  };
}

function compileJsonSchema(schema: Record<string, unknown>): CompiledCheck {
  const validate: ValidateFunction = compileDialectSchema(schema, "2020-12", { strict: true });
  return (answer) => {
    let data: unknown;
    try {
      data = JSON.parse(answer);
    } catch {
      return "the answer is not JSON";
    }
    if (validate(data)) return null;
    // Ajv's own messages name the schema's constraints, never the data's values.
    const problems = [...new Set((validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? `fails "${error.keyword}"`}`))];
    const listed = problems.slice(0, MAX_LISTED_SCHEMA_PROBLEMS).join("; ");
    const more = problems.length > MAX_LISTED_SCHEMA_PROBLEMS ? `; and ${problems.length - MAX_LISTED_SCHEMA_PROBLEMS} more` : "";
    return `the answer does not match the JSON Schema: ${listed}${more}`;
  };
}
