/**
 * Guardrail definitions: the project's JSON Schema (draft 2020-12) of a guardrail, the types it describes, and
 * `validateGuardrailDefinition`, which adds the rules a schema cannot say (a regex that compiles, distinct flags and
 * terms, a JSON Schema that compiles). A guardrail is a check the kernel runs on each turn's final answer; an agent
 * names guardrails by id in its `guardrails` list.
 *
 * Sub-schemas are inlined (no `$ref`/`$defs`) so the schema can be embedded in the OpenAPI document as is.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import { NON_BLANK_PATTERN, SEMVER_VERSION_PATTERN } from "@/lib/agents/agent-schema";
import type { Issue } from "@/lib/errors";
import { CATALOG_ID_MAX_LENGTH, CATALOG_ID_PATTERN, CATALOG_ID_PATTERN_MESSAGE, catalogIdSchema } from "@/lib/ids";
import { issuesFromAjvErrors, isObject, jsonSchemaIssues, schemaDialect } from "@/lib/tools/json-schema";

export type { Issue };

/** A regular expression the answer must not match (`forbid`, the default) or must match (`require`). */
export type RegexCheck = { kind: "regex"; pattern: string; flags?: string; match?: "forbid" | "require" };
/** Terms the answer must not contain; case-insensitive and whole-word by default. */
export type DenyTermsCheck = { kind: "deny-terms"; terms: string[]; caseSensitive?: boolean; wholeWord?: boolean };
/** The answer's length limit, in Unicode code points. */
export type MaxLengthCheck = { kind: "max-length"; maxLength: number };
/** The answer must be JSON text valid against `schema` (draft 2020-12). */
export type JsonSchemaCheck = { kind: "json-schema"; schema: Record<string, unknown> };
export type GuardrailCheck = RegexCheck | DenyTermsCheck | MaxLengthCheck | JsonSchemaCheck;
export type GuardrailCheckKind = GuardrailCheck["kind"];

/** A guardrail definition as registered (the body of POST /v1/guardrails without `projectId`). */
export type GuardrailDefinition = {
  id: string;
  version: string;
  name: string;
  description?: string;
  tags?: string[];
  /** `halt`: the turn's answer is withheld and the turn fails; `flag`: the answer stands and the finding is recorded. */
  action: "halt" | "flag";
  /** Shown first in a finding's message when the guardrail fires. */
  message?: string;
  check: GuardrailCheck;
};

export type GuardrailValidation = { ok: true; definition: GuardrailDefinition } | { ok: false; issues: Issue[] };

/** Guardrail ids follow the catalog id grammar (lib/ids.ts), so every id is addressable as a `/v1/guardrails/{guardrailId}` segment. */
export const GUARDRAIL_ID_MAX_LENGTH = CATALOG_ID_MAX_LENGTH;
export const GUARDRAIL_ID_PATTERN = CATALOG_ID_PATTERN;
/** Regex flags a guardrail may set; `u` is always on. */
export const REGEX_FLAGS_PATTERN = "^[ims]*$";
export const REGEX_PATTERN_MAX_LENGTH = 1000;
export const DENY_TERMS_MAX_ITEMS = 500;

const nonBlank = { type: "string", pattern: NON_BLANK_PATTERN } as const;

const regexCheckSchema = {
  type: "object",
  description: "A regular expression (JavaScript syntax, always with the `u` flag) tested against the whole answer.",
  required: ["kind", "pattern"],
  additionalProperties: false,
  properties: {
    kind: { const: "regex", description: "Discriminant." },
    pattern: {
      type: "string",
      minLength: 1,
      maxLength: REGEX_PATTERN_MAX_LENGTH,
      description: "JavaScript RegExp source, 1 to 1000 characters; must compile with the `u` flag plus `flags`.",
    },
    flags: { type: "string", pattern: REGEX_FLAGS_PATTERN, description: "Extra flags: distinct letters among `i`, `m`, `s`. Default none." },
    match: {
      enum: ["forbid", "require"],
      default: "forbid",
      description: "`forbid` (default): the guardrail fires when the answer matches; `require`: it fires when the answer does not match.",
    },
  },
} as const;

const denyTermsCheckSchema = {
  type: "object",
  description: "Terms the answer must not contain. The guardrail fires when any term occurs.",
  required: ["kind", "terms"],
  additionalProperties: false,
  properties: {
    kind: { const: "deny-terms", description: "Discriminant." },
    terms: {
      type: "array",
      minItems: 1,
      maxItems: DENY_TERMS_MAX_ITEMS,
      items: nonBlank,
      description: "1 to 500 distinct, non-blank terms (compared case-insensitively unless `caseSensitive`). Terms and answer are compared in Unicode NFC.",
    },
    caseSensitive: { type: "boolean", default: false, description: "Default false: both sides are lower-cased (locale-independent) before comparing." },
    wholeWord: {
      type: "boolean",
      default: true,
      description: "Default true: a term counts only where no letter, digit or combining mark touches it on either side. False: any substring counts.",
    },
  },
} as const;

const maxLengthCheckSchema = {
  type: "object",
  description: "A limit on the answer's length.",
  required: ["kind", "maxLength"],
  additionalProperties: false,
  properties: {
    kind: { const: "max-length", description: "Discriminant." },
    maxLength: { type: "integer", minimum: 1, description: "Most characters allowed, counted as Unicode code points." },
  },
} as const;

const jsonSchemaCheckSchema = {
  type: "object",
  description: "The answer must be JSON text valid against `schema`.",
  required: ["kind", "schema"],
  additionalProperties: false,
  properties: {
    kind: { const: "json-schema", description: "Discriminant." },
    schema: { type: "object", additionalProperties: true, description: "A JSON Schema (draft 2020-12) that compiles in Ajv strict mode, like a native tool's input schema." },
  },
} as const;

/** JSON Schema (draft 2020-12) of a guardrail definition. Validate it with Ajv option `discriminator: true`. */
export const guardrailDefinitionSchema = {
  title: "Guardrail",
  description: "A check on each turn's final answer. Agents name guardrails by id; a run uses the highest active version in the agent's project.",
  type: "object",
  required: ["id", "version", "name", "action", "check"],
  additionalProperties: false,
  properties: {
    id: {
      ...catalogIdSchema,
      description: "Guardrail identifier, 1 to 200 characters without control characters. Convention: '<pack>.<guardrail>' (e.g. 'acme.no-secrets').",
    },
    version: { type: "string", pattern: SEMVER_VERSION_PATTERN, maxLength: CATALOG_ID_MAX_LENGTH, description: "Semver version (x.y.z, optional -prerelease and +build, no leading zeros), at most 200 characters." },
    name: { ...nonBlank, description: "Display name. Must not be blank." },
    description: { type: "string", description: "What the guardrail is for." },
    tags: { type: "array", items: { type: "string", minLength: 1 }, description: "Free-form filter tags for the catalog." },
    action: {
      enum: ["halt", "flag"],
      description: "`halt`: the turn's answer is withheld (never stored) and the turn fails; `flag`: the answer stands and the finding is recorded.",
    },
    message: { ...nonBlank, description: "Shown first in the finding when the guardrail fires." },
    check: {
      type: "object",
      description: "What is checked, by `kind`.",
      discriminator: { propertyName: "kind" },
      oneOf: [regexCheckSchema, denyTermsCheckSchema, maxLengthCheckSchema, jsonSchemaCheckSchema],
    },
  },
} as const;

const PATTERN_MESSAGES: Record<string, string> = {
  [SEMVER_VERSION_PATTERN]: 'must be a semver version such as "1.2.3" (x.y.z, optional -prerelease and +build)',
  [NON_BLANK_PATTERN]: "must not be blank",
  [CATALOG_ID_PATTERN]: CATALOG_ID_PATTERN_MESSAGE,
  [REGEX_FLAGS_PATTERN]: 'may contain only the flags "i", "m" and "s"',
};

let schemaValidator: ValidateFunction | undefined;

/** Schema problems, one per JSON pointer; patterns get a message in words instead of the pattern. */
function schemaIssues(doc: unknown): Issue[] {
  // verbose: the discriminator message lists the allowed kinds from the parent schema.
  schemaValidator ??= new Ajv2020({ allErrors: true, strict: true, discriminator: true, verbose: true }).compile(guardrailDefinitionSchema);
  if (schemaValidator(doc)) return [];
  const byPath = new Map<string, string>();
  for (const error of schemaValidator.errors ?? []) {
    const issue = patternIssue(error) ?? issuesFromAjvErrors([error])[0];
    if (!byPath.has(issue.path)) byPath.set(issue.path, issue.message);
  }
  return [...byPath].map(([path, message]) => ({ path, message }));
}

function patternIssue(error: ErrorObject): Issue | undefined {
  const message = error.keyword === "pattern" ? PATTERN_MESSAGES[String(error.params.pattern)] : undefined;
  return message ? { path: error.instancePath, message } : undefined;
}

/** The distinct flags of a well-formed `flags` value ("" for anything else, which has its own issue). */
function usableFlags(flags: unknown): string {
  return typeof flags === "string" && /^[ims]*$/.test(flags) ? [...new Set(flags)].join("") : "";
}

function regexIssues(check: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  const { flags, pattern } = check;
  if (typeof flags === "string" && /^[ims]*$/.test(flags) && new Set(flags).size !== flags.length)
    issues.push({ path: "/check/flags", message: "must not repeat a flag" });
  if (typeof pattern === "string" && pattern.length > 0) {
    const problem = regexProblem(pattern, usableFlags(flags));
    if (problem) issues.push({ path: "/check/pattern", message: `does not compile as a regular expression: ${problem}` });
  }
  return issues;
}

/** Why `pattern` does not compile with the `u` flag plus `flags`, or null when it does. */
function regexProblem(pattern: string, flags: string): string | null {
  try {
    new RegExp(pattern, `u${flags}`);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Terms are compared as the check compares them (NFC, and lower-cased unless `caseSensitive`), so two terms that
 * would always match the same text are reported as duplicates.
 */
function denyTermsIssues(check: Record<string, unknown>): Issue[] {
  if (!Array.isArray(check.terms)) return [];
  const caseSensitive = check.caseSensitive === true;
  const first = new Map<string, number>();
  const issues: Issue[] = [];
  check.terms.forEach((term: unknown, index) => {
    if (typeof term !== "string" || !/\S/.test(term)) return;
    const key = comparableTerm(term, caseSensitive);
    const seen = first.get(key);
    if (seen === undefined) first.set(key, index);
    else issues.push({ path: `/check/terms/${index}`, message: `duplicate term (also /check/terms/${seen}${caseSensitive ? "" : ", ignoring case"})` });
  });
  return issues;
}

/** The form in which a deny-terms check compares text: NFC, lower-cased (locale-independent) unless case-sensitive. */
export function comparableTerm(text: string, caseSensitive: boolean): string {
  const normalized = text.normalize("NFC");
  return caseSensitive ? normalized : normalized.toLowerCase();
}

function jsonSchemaCheckIssues(check: Record<string, unknown>): Issue[] {
  if (!isObject(check.schema)) return [];
  const schema = check.schema;
  if (schema.$schema !== undefined && schemaDialect(schema) !== "2020-12")
    return [{ path: "/check/schema/$schema", message: 'must be "https://json-schema.org/draft/2020-12/schema" or absent: a guardrail\'s schema is draft 2020-12' }];
  return jsonSchemaIssues(schema).map((issue) => ({ path: `/check/schema${issue.path}`, message: `does not compile as a JSON Schema (draft 2020-12, strict): ${issue.message}` }));
}

const CHECK_RULES: Record<string, (check: Record<string, unknown>) => Issue[]> = {
  regex: regexIssues,
  "deny-terms": denyTermsIssues,
  "json-schema": jsonSchemaCheckIssues,
};

/**
 * Validates a guardrail definition (the POST /v1/guardrails body without `projectId`): the schema, then the rules
 * it cannot say — the regex compiles (with `u` and its flags) and repeats no flag, the terms are distinct as the
 * check compares them, the JSON Schema compiles as draft 2020-12 in Ajv strict mode. Every problem is reported at a
 * JSON pointer; a rule does not repeat a location the schema already reported. The definition is returned as given
 * (defaults are not filled in).
 */
export function validateGuardrailDefinition(doc: unknown): GuardrailValidation {
  const issues = schemaIssues(doc);
  const failed = new Set(issues.map((issue) => issue.path));
  const check = isObject(doc) && isObject(doc.check) ? doc.check : undefined;
  const rule = check && typeof check.kind === "string" ? CHECK_RULES[check.kind] : undefined;
  if (check && rule) issues.push(...rule(check).filter((issue) => !failed.has(issue.path)));
  return issues.length === 0 ? { ok: true, definition: doc as GuardrailDefinition } : { ok: false, issues };
}
