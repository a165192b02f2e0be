/**
 * Validation of agent definitions: the project's schema of Agent 1.3.0 (agent-schema.ts), then the
 * rules a schema cannot say. Every problem is reported once, at a JSON pointer, in plain words.
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { compileDialectSchema, schemaRegexIssues } from "../tools/json-schema";
import semver from "semver";
import {
  NON_BLANK_PATTERN,
  PARAMETER_NAME_PATTERN,
  SEMVER_VERSION_PATTERN,
  agentDefinitionSchema,
} from "./agent-schema";
import { CATALOG_ID_PATTERN, CATALOG_ID_PATTERN_MESSAGE } from "@/lib/ids";
import { inspectInstructions, type TemplateIssue } from "./instructions";
import { parameterValueProblem } from "./parameters";

/** A problem in a document, at a JSON pointer (RFC 6901; "" is the whole document). */
import type { Issue } from "@/lib/errors";
export type { Issue };

/** Value type of a prompt parameter. */
export type ParameterType = "string" | "number" | "boolean" | "date";

/** A typed parameter supplied at invoke time and referenced by the instructions template. */
export type PromptParameter = {
  name: string;
  description?: string;
  type: ParameterType;
  /** Default true. */
  required?: boolean;
  default?: unknown;
};

/** A tool id plus an npm semver range. */
export type ToolRef = { id: string; version: string };

/** A capability declaration; fields beyond these belong to the kind's router. */
export type Capability = {
  /** Default "llm-inference". */
  kind?: string;
  needs?: Record<string, unknown>[];
  prefer?: Record<string, unknown>[];
  budget?: Record<string, unknown>;
  [field: string]: unknown;
};

/** A fact-retrieval intent run before every turn. */
export type RetrievalIntent = {
  types: string[];
  scope: "same-conversation" | "same-project" | "tenant";
  /** Default 10. */
  limit?: number;
  mode?: "keyword" | "semantic" | "both";
};

/** Kinds of tool failures that can be sent back to the model. */
export type ToolErrorKind = "invalid-arguments" | "unknown-tool" | "tool-error";

/** An agent definition: Agent 1.3.0 plus `parallelToolCalls`. */
export type AgentDefinition = {
  id: string;
  version: string;
  name: string;
  description?: string;
  instructions: string;
  parameters?: PromptParameter[];
  capabilities: Capability[];
  tools: ToolRef[];
  retrieval: RetrievalIntent[];
  guardrails: string[];
  preferredProvider?: string;
  preferredModel?: string;
  conversationPolicy?: { historyLimit?: number; autoCloseAfterInactiveSeconds?: number; hitlAfterTurns?: number };
  budget?: { maxSteps?: number; maxCostUsd?: number; maxWallMs?: number };
  tags?: string[];
  output?: { schema: Record<string, unknown>; name?: string; maxRepairs?: number };
  toolErrors?: { maxRetries?: number; retryOn?: ToolErrorKind[] };
  /** Default true. */
  parallelToolCalls?: boolean;
};

/** The outcome of validating an agent definition; warnings never make it invalid. */
export type AgentValidation =
  | { ok: true; definition: AgentDefinition; warnings: Issue[] }
  | { ok: false; issues: Issue[]; warnings: Issue[] };

const RESERVED_PARAMETER_NAMES = new Set(["today", "now", "agent", "conversation"]);
const BARE_TOOL_ID_MESSAGE =
  "tool references are {id, version} objects; bare string ids are not accepted (since schema 1.1.0)";
const PATTERN_MESSAGES: Record<string, string> = {
  [SEMVER_VERSION_PATTERN]: 'must be a semver version such as "1.2.3" (x.y.z, optional -prerelease and +build)',
  [NON_BLANK_PATTERN]: "must not be blank",
  [PARAMETER_NAME_PATTERN]: "must be an identifier: letters, digits and _, not starting with a digit",
  [CATALOG_ID_PATTERN]: CATALOG_ID_PATTERN_MESSAGE,
};

// verbose: errors carry the failing data (a bare-string tool reference gets its own message).
const validateSchema = new Ajv2020({ allErrors: true, strict: true, verbose: true }).compile(
  agentDefinitionSchema,
);

// ---------------------------------------------------------------------------------------------
// Schema errors → issues

function escapePointer(segment: string | number): string {
  return String(segment).replace(/~/g, "~0").replace(/\//g, "~1");
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function schemaMessage(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "type":
      if (error.schemaPath === "#/properties/tools/items/type" && typeof error.data === "string") {
        return BARE_TOOL_ID_MESSAGE;
      }
      return `must be ${withArticle(String(p.type))}`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "pattern":
      return PATTERN_MESSAGES[String(p.pattern)] ?? `must match ${String(p.pattern)}`;
    case "minLength":
      return "must not be empty";
    case "maxLength":
      return `must be at most ${String(p.limit)} characters long`;
    case "minItems":
      return `must have at least ${String(p.limit)} item${p.limit === 1 ? "" : "s"}`;
    case "minimum":
      return `must be at least ${String(p.limit)}`;
    case "maximum":
      return `must be at most ${String(p.limit)}`;
    case "uniqueItems": {
      const [first, second] = [Number(p.i), Number(p.j)].sort((a, b) => a - b);
      return `must not contain duplicates (items ${first} and ${second} are equal)`;
    }
    default:
      return error.message ?? `fails ${error.keyword}`;
  }
}

function schemaIssue(error: ErrorObject): Issue {
  const p = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties") {
    const field = String(p.additionalProperty);
    return { path: `${error.instancePath}/${escapePointer(field)}`, message: `unknown field "${field}"` };
  }
  if (error.keyword === "required") {
    const field = String(p.missingProperty);
    return { path: `${error.instancePath}/${escapePointer(field)}`, message: `missing required field "${field}"` };
  }
  return { path: error.instancePath, message: schemaMessage(error) };
}

/** One issue per failing location: the first error Ajv reports there. */
function schemaIssues(def: unknown): Issue[] {
  if (validateSchema(def)) return [];
  const byPath = new Map<string, Issue>();
  for (const error of validateSchema.errors ?? []) {
    const issue = schemaIssue(error);
    if (!byPath.has(issue.path)) byPath.set(issue.path, issue);
  }
  return [...byPath.values()];
}

// ---------------------------------------------------------------------------------------------
// Rules beyond the schema. Each reads the raw input defensively: a malformed part already has a
// schema issue, so rules only look at the well-formed parts and every problem is still reported.

type Raw = Record<string, unknown>;

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The entries of `value` that are objects, with their indexes. */
function records(value: unknown): Array<[number, Raw]> {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item, i) => (isRecord(item) ? [[i, item] as [number, Raw]] : []));
}

const PARAMETER_TYPES = new Set<unknown>(["string", "number", "boolean", "date"]);

/** For each entry whose string `key` repeats an earlier entry's: its index and the first index. */
function repeats(entries: Array<[number, Raw]>, key: string): Array<{ index: number; first: number; value: string }> {
  const firstIndex = new Map<string, number>();
  return entries.flatMap(([index, entry]) => {
    const value = entry[key];
    if (typeof value !== "string") return [];
    const first = firstIndex.get(value);
    if (first === undefined) firstIndex.set(value, index);
    return first === undefined ? [] : [{ index, first, value }];
  });
}

function parameterNameIssues(def: Raw): Issue[] {
  const params = records(def.parameters);
  const reserved = params
    .filter(([, p]) => typeof p.name === "string" && RESERVED_PARAMETER_NAMES.has(p.name))
    .map(([i, p]) => ({
      path: `/parameters/${i}/name`,
      message: `"${String(p.name)}" is reserved for an auto-var (today, now, agent, conversation); choose another name`,
    }));
  const duplicates = repeats(params, "name").map(({ index, first }) => ({
    path: `/parameters/${index}/name`,
    message: `duplicate parameter name (also /parameters/${first})`,
  }));
  return [...reserved, ...duplicates];
}

function parameterDefaultIssues(def: Raw): Issue[] {
  return records(def.parameters).flatMap(([i, p]) => {
    if (p.default === undefined || !PARAMETER_TYPES.has(p.type)) return [];
    const problem = parameterValueProblem(p.type as ParameterType, p.default);
    if (!problem) return [];
    return [{ path: `/parameters/${i}/default`, message: `${problem} to match the parameter's type "${String(p.type)}"` }];
  });
}

function toolIssues(def: Raw): Issue[] {
  const refs = records(def.tools);
  const ranges = refs
    .filter(([, ref]) => typeof ref.version === "string" && ref.version.trim() && semver.validRange(ref.version) === null)
    .map(([i]) => ({
      path: `/tools/${i}/version`,
      message: 'must be an npm semver range such as "^1.2.3", "~1.2.3", "1.2.3" or ">=1.0.0 <2.0.0"',
    }));
  const duplicates = repeats(refs, "id").map(({ index, first, value }) => ({
    path: `/tools/${index}/id`,
    message: `duplicate tool "${value}" (also /tools/${first})`,
  }));
  return [...ranges, ...duplicates];
}

/** Checks schemas against the draft 2020-12 meta-schema (compiled once, shared). */
const metaSchemaAjv = new Ajv2020();
const OUTPUT_SCHEMA_PROBLEM = "does not compile as a JSON Schema (draft 2020-12, strict): ";

/**
 * Why `schema` does not compile as draft 2020-12 in Ajv strict mode, as issues relative to the schema ([] when it
 * compiles). Compiled as the kernel compiles it (lib/tools/json-schema.ts): the same strictness as a native tool's
 * schemas, patterns on the linear-time engine; a pattern that engine cannot run is reported at its own pointer.
 */
function outputSchemaIssues(schema: Raw): Issue[] {
  try {
    if (!metaSchemaAjv.validateSchema(schema)) {
      return [{ path: "", message: `schema is invalid: ${metaSchemaAjv.errorsText(metaSchemaAjv.errors)}` }];
    }
    const regexIssues = schemaRegexIssues(schema, { strict: true });
    if (regexIssues.length > 0) return regexIssues;
    compileDialectSchema(schema, "2020-12", { strict: true });
    return [];
  } catch (err) {
    return [{ path: "", message: (err as Error).message }];
  }
}

function outputIssues(def: Raw): Issue[] {
  if (!isRecord(def.output) || !isRecord(def.output.schema)) return [];
  return outputSchemaIssues(def.output.schema).map((issue) => ({ path: `/output/schema${issue.path}`, message: OUTPUT_SCHEMA_PROBLEM + issue.message }));
}

/** An intent that retrieves by meaning in an agent with no `embedding` capability entry: the project's default model serves it. */
function retrievalWarnings(def: Raw): Issue[] {
  const hasEmbedding = records(def.capabilities).some(([, capability]) => capability.kind === "embedding");
  if (hasEmbedding) return [];
  return records(def.retrieval)
    .filter(([, intent]) => intent.mode === "semantic" || intent.mode === "both")
    .map(([i, intent]) => ({
      path: `/retrieval/${i}/mode`,
      message: `"${String(intent.mode)}" retrieval needs an embedding model and the agent has no capability entry of kind "embedding": the project's embedding model serves it (the first embedding provider configured, else dev-embed, which is not a real model)`,
    }));
}

function declaredNames(def: Raw): string[] {
  return records(def.parameters).flatMap(([, p]) => (typeof p.name === "string" ? [p.name] : []));
}

function instructionsChecks(def: Raw): { issues: Issue[]; warnings: Issue[] } {
  if (typeof def.instructions !== "string" || !def.instructions) return { issues: [], warnings: [] };
  const { issues, referencedParameters } = inspectInstructions(def.instructions, declaredNames(def));
  const toIssue = ({ message, line, column }: TemplateIssue): Issue => ({
    path: "/instructions",
    message: `line ${line}, column ${column}: ${message}`,
  });
  if (issues.length) return { issues: issues.map(toIssue), warnings: [] };
  const used = new Set(referencedParameters);
  const warnings = records(def.parameters)
    .filter(([, p]) => typeof p.name === "string" && !used.has(p.name))
    .map(([i, p]) => ({
      path: `/parameters/${i}/name`,
      message: `parameter "${String(p.name)}" is not used by the instructions`,
    }));
  return { issues: [], warnings };
}

function parameterWarnings(def: Raw): Issue[] {
  return records(def.parameters)
    .filter(([, p]) => p.required === true && p.default !== undefined)
    .map(([i]) => ({
      path: `/parameters/${i}/required`,
      message: "has no effect: a parameter with a default is never missing",
    }));
}

// ---------------------------------------------------------------------------------------------

/**
 * Validate an agent definition against the project's schema of Agent 1.3.0 (+ `parallelToolCalls`)
 * and the rules beyond it: reserved and duplicate parameter names, defaults of the declared type,
 * npm semver ranges and unique ids in tool references, an output schema that compiles (draft 2020-12,
 * Ajv strict), keyword-only retrieval, and an instructions template whose every variable is declared.
 * Every problem is reported; warnings (unused parameters, needless `required`) never fail it.
 * The definition is returned as given (defaults are not filled in).
 */
export function validateAgentDefinition(def: unknown): AgentValidation {
  const issues = schemaIssues(def);
  if (!isRecord(def)) return { ok: false, issues, warnings: [] };
  const instructions = instructionsChecks(def);
  issues.push(
    ...parameterNameIssues(def),
    ...parameterDefaultIssues(def),
    ...toolIssues(def),
    ...outputIssues(def),
    ...instructions.issues,
  );
  const warnings = [...instructions.warnings, ...parameterWarnings(def), ...retrievalWarnings(def)];
  if (issues.length) return { ok: false, issues, warnings };
  return { ok: true, definition: def as AgentDefinition, warnings };
}
