/**
 * JSON Schema dialects for tool `input`/`output` schemas: checking that a schema compiles, and validating a tool's
 * data against it (defaults filled). Native tools use Draft 2020-12 in Ajv strict mode; an MCP server's tool uses the
 * dialect its `$schema` names (draft-06, draft-07, 2019-09, 2020-12), without strict mode: those schemas are written
 * by third parties and only have to be valid in their dialect.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import Ajv2019 from "ajv/dist/2019";
import Ajv2020 from "ajv/dist/2020";
import draft06MetaSchema from "ajv/dist/refs/json-schema-draft-06.json";
import { addLinearFormats, linearPatternProblem, linearRegexOptions, linearTest } from "./linear-regex";

/** One problem, at a JSON pointer ("" is the root). */
import type { Issue } from "@/lib/errors";
export type { Issue };

/** The JSON Schema dialects a tool schema may be written in. */
export type SchemaDialect = "draft-06" | "draft-07" | "2019-09" | "2020-12";

/** A tool's transport; only `"mcp"` changes how its schemas are read. */
export type ToolTransport = "auto" | "native" | "mcp";

/** The outcome of validating a tool's input or output. `value` is a copy of the data with defaults filled. */
export type DataValidation = { ok: true; value: unknown } | { ok: false; issues: Issue[] };

const DIALECT_URIS: Record<SchemaDialect, string> = {
  "draft-06": "http://json-schema.org/draft-06/schema",
  "draft-07": "http://json-schema.org/draft-07/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
};

/** Keywords whose value is a subschema, an array of subschemas, or a map of subschemas. */
const SUBSCHEMA_KEYWORDS = new Set([
  "not", "if", "then", "else", "contains", "items", "additionalItems", "additionalProperties",
  "unevaluatedItems", "unevaluatedProperties", "propertyNames", "allOf", "anyOf", "oneOf", "prefixItems",
]);
const SUBSCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);

/**
 * Uses of one Ajv instance before it is replaced: Ajv keeps every compiled function in its code scope, which
 * `removeSchema` does not clear, so a long-lived instance would grow by a few kB per compile.
 */
const USES_PER_INSTANCE = 500;
const instances = new Map<string, { ajv: Ajv; uses: number }>();

/** The dialect `schema.$schema` names (absent means 2020-12), or undefined for any other value. */
export function schemaDialect(schema: Record<string, unknown>): SchemaDialect | undefined {
  const uri = schema.$schema;
  if (uri === undefined) return "2020-12";
  if (typeof uri !== "string") return undefined;
  const normalized = uri.replace(/#$/, "");
  return (Object.keys(DIALECT_URIS) as SchemaDialect[]).find((dialect) => DIALECT_URIS[dialect] === normalized);
}

/** The cached Ajv instance for one dialect and strictness (one instance per dialect: their meta-schemas clash). */
function ajvFor(dialect: SchemaDialect, strict: boolean): Ajv {
  const key = `${dialect}:${strict}`;
  let instance = instances.get(key);
  if (!instance) {
    instance = { ajv: createAjv(dialect, strict), uses: 0 };
    instances.set(key, instance);
  }
  if (++instance.uses >= USES_PER_INSTANCE) instances.delete(key);
  return instance.ajv;
}

function createAjv(dialect: SchemaDialect, strict: boolean): Ajv {
  // Union types (`type: ["string", "null"]`) are plain JSON Schema, so strict mode allows them here.
  // Patterns run on the linear-time engine; allowMatchingProperties: strict mode's check that no `properties` name
  // matches a `patternProperties` pattern would run the pattern on V8's backtracking engine while compiling.
  const options = { strict, allowUnionTypes: true, allowMatchingProperties: true, allErrors: true, useDefaults: true, logger: false as const, ...linearRegexOptions };
  const ajv = dialect === "2020-12" ? new Ajv2020(options) : dialect === "2019-09" ? new Ajv2019(options) : new Ajv(options);
  if (dialect === "draft-06") ajv.addMetaSchema(draft06MetaSchema);
  return addLinearFormats(ajv);
}

/**
 * Compiles `schema` in `dialect` and leaves nothing registered in the shared Ajv instance, so the same `$id` in two
 * manifests never collides. Throws Ajv's error when the schema does not compile.
 */
export function compileDialectSchema(
  schema: Record<string, unknown>,
  dialect: SchemaDialect,
  options: { strict: boolean } = { strict: true },
): ValidateFunction {
  const ajv = ajvFor(dialect, options.strict);
  const id = typeof schema.$id === "string" ? schema.$id.replace(/#$/, "") : undefined;
  if (id && (ajv.schemas[id] || ajv.refs[id])) throw new Error(`$id "${id}" is reserved for a built-in schema`);
  const knownRefs = new Set(Object.keys(ajv.refs));
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
    for (const ref of Object.keys(ajv.refs)) if (!knownRefs.has(ref)) delete ajv.refs[ref];
  }
}

/**
 * Problems that stop `schema` from serving as a tool's input or output schema under `transport`, with paths relative
 * to the schema; [] when it compiles.
 */
export function jsonSchemaIssues(schema: Record<string, unknown>, transport: ToolTransport = "auto"): Issue[] {
  // By schema text: registering many tools with the same schemas compiles each schema once per process.
  const key = `${transport === "mcp"}:${JSON.stringify(schema)}`;
  let issues = checkedSchemas.get(key);
  if (issues) {
    checkedSchemas.delete(key);
  } else {
    issues = uncachedSchemaIssues(schema, transport);
    if (checkedSchemas.size >= MAX_CHECKED_SCHEMAS) checkedSchemas.delete(checkedSchemas.keys().next().value as string);
  }
  checkedSchemas.set(key, issues);
  return issues.map((issue) => ({ ...issue }));
}

/** What {@link jsonSchemaIssues} found, by transport and schema text (the oldest dropped first). */
const checkedSchemas = new Map<string, Issue[]>();
const MAX_CHECKED_SCHEMAS = 2000;

function uncachedSchemaIssues(schema: Record<string, unknown>, transport: ToolTransport): Issue[] {
  const isMcp = transport === "mcp";
  const dialect = schemaDialect(schema);
  if (!dialect || (!isMcp && dialect !== "2020-12")) {
    return [{ path: "/$schema", message: unsupportedDialectMessage(schema.$schema, isMcp) }];
  }
  const ajv = ajvFor(dialect, !isMcp);
  if (!ajv.validateSchema(schema)) return issuesFromAjvErrors(ajv.errors ?? []);
  const regexIssues = schemaRegexIssues(schema, { strict: !isMcp });
  if (regexIssues.length > 0) return regexIssues;
  try {
    compileDialectSchema(schema, dialect, { strict: !isMcp });
    return [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [{ path: compileErrorPath(message, schema), message }];
  }
}

function unsupportedDialectMessage(uri: unknown, isMcp: boolean): string {
  const named = `$schema ${JSON.stringify(uri)} is not supported`;
  return isMcp
    ? `${named}; an MCP tool's schema may be draft-06, draft-07, 2019-09 or 2020-12 (${Object.values(DIALECT_URIS).join(", ")})`
    : `${named}; a tool's schema must be Draft 2020-12 (${DIALECT_URIS["2020-12"]}) unless its transport is "mcp"`;
}

/**
 * Where in `schema` a compile error points: the schema path Ajv puts in the message (`at "#/properties/x"`), else the
 * first subschema holding the keyword the message quotes (`unknown keyword: "foo"`), else the root.
 */
function compileErrorPath(message: string, schema: Record<string, unknown>): string {
  const at = /\bat (?:path )?"[^"#]*#([^"]*)"/.exec(message);
  if (at) return safeDecode(at[1]);
  const keyword = /"([^"]+)"/.exec(message)?.[1];
  return (keyword && findKeyword(schema, keyword, "")) ?? "";
}

function safeDecode(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

/** The JSON pointer of the first subschema of `schema` (depth-first) that has `keyword`; iterative, so any depth is safe. */
function findKeyword(schema: unknown, keyword: string, pointer: string): string | undefined {
  const stack: Array<[string, unknown]> = [[pointer, schema]];
  while (stack.length) {
    const [here, node] = stack.pop()!;
    if (!isObject(node)) continue;
    if (keyword in node) return here;
    const children = [...subschemas(node, here)];
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]);
  }
  return undefined;
}

/**
 * The problems of `schema`'s regular expressions, which compiling it would not point at: each `pattern` and
 * `patternProperties` name that the linear-time engine cannot run (at its own pointer), and, in strict mode, each
 * `properties` name that a `patternProperties` pattern of the same schema matches. [] when there are none.
 */
export function schemaRegexIssues(schema: Record<string, unknown>, options: { strict: boolean }): Issue[] {
  const patternIssues = schemaPatterns(schema, "").flatMap(({ path, pattern }) => {
    const problem = linearPatternProblem(pattern);
    return problem ? [{ path, message: problem }] : [];
  });
  if (patternIssues.length > 0 || !options.strict) return patternIssues;
  return matchingPropertyIssues(schema, "");
}

/** Every regular expression of `schema` and its subschemas: `pattern` values and `patternProperties` names. */
function schemaPatterns(schema: unknown, pointer: string): Array<{ path: string; pattern: string }> {
  if (!isObject(schema)) return [];
  const found: Array<{ path: string; pattern: string }> = [];
  if (typeof schema.pattern === "string") found.push({ path: `${pointer}/pattern`, pattern: schema.pattern });
  if (isObject(schema.patternProperties)) {
    for (const name of Object.keys(schema.patternProperties)) found.push({ path: `${pointer}/patternProperties/${escapePointer(name)}`, pattern: name });
  }
  for (const [childPointer, child] of subschemas(schema, pointer)) found.push(...schemaPatterns(child, childPointer));
  return found;
}

/**
 * Strict mode's rule that no name in `properties` matches a `patternProperties` pattern of the same schema (Ajv's
 * own check runs the pattern on V8's engine, so it is turned off and done here on the linear-time engine).
 */
function matchingPropertyIssues(schema: unknown, pointer: string): Issue[] {
  if (!isObject(schema)) return [];
  const issues: Issue[] = [];
  if (isObject(schema.properties) && isObject(schema.patternProperties)) {
    for (const name of Object.keys(schema.properties)) {
      const pattern = Object.keys(schema.patternProperties).find((candidate) => linearTest(candidate, name));
      if (pattern !== undefined)
        issues.push({ path: `${pointer}/properties/${escapePointer(name)}`, message: `matches the patternProperties pattern ${JSON.stringify(pattern)}; strict mode allows no such overlap` });
    }
  }
  for (const [childPointer, child] of subschemas(schema, pointer)) issues.push(...matchingPropertyIssues(child, childPointer));
  return issues;
}

/** The direct subschemas of `schema`, with their JSON pointers. */
function subschemas(schema: Record<string, unknown>, pointer: string): Array<[string, unknown]> {
  return Object.entries(schema).flatMap(([key, value]): Array<[string, unknown]> => {
    const base = `${pointer}/${escapePointer(key)}`;
    if (SUBSCHEMA_MAP_KEYWORDS.has(key)) return isObject(value) ? Object.entries(value).map(([name, child]) => [`${base}/${escapePointer(name)}`, child]) : [];
    if (SUBSCHEMA_KEYWORDS.has(key)) return Array.isArray(value) ? value.map((child, index) => [`${base}/${index}`, child]) : [[base, value]];
    return [];
  });
}

/**
 * A validator of a tool's data (input or output) against one of its schemas. The returned function validates a copy of
 * the data and fills `default`s into it. Throws when the schema does not compile (the manifest check reports that).
 */
export function getValidator(schema: Record<string, unknown>, transport: ToolTransport = "auto"): (data: unknown) => DataValidation {
  const dialect = transport === "mcp" ? schemaDialect(schema) : "2020-12";
  if (!dialect) throw new Error(unsupportedDialectMessage(schema.$schema, true));
  const validate = compileDialectSchema(schema, dialect, { strict: transport !== "mcp" });
  return (data) => {
    const value = copyData(data);
    return validate(value) ? { ok: true, value } : { ok: false, issues: issuesFromAjvErrors(validate.errors ?? []) };
  };
}

/**
 * A deep copy of `data` for validation to fill defaults into. Plain objects and arrays (what JSON parsing and tools
 * produce) are copied here, own enumerable keys only, an own `__proto__` key kept as a key; anything else (a `Date`,
 * a `Map`, a deeper or cyclic structure) goes to `structuredClone`, which also refuses what it cannot copy (a
 * function). In the kernel's turn this is about a microsecond where `structuredClone` took about thirteen.
 */
export function copyData(data: unknown, depth = 0): unknown {
  if (data === null) return null;
  switch (typeof data) {
    case "string":
    case "number":
    case "boolean":
    case "undefined":
    case "bigint":
      return data;
    case "object":
      break;
    default:
      return structuredClone(data);
  }
  if (depth >= MAX_COPY_DEPTH) return structuredClone(data);
  if (Array.isArray(data)) {
    if (Object.getPrototypeOf(data) !== Array.prototype) return structuredClone(data);
    const copy = new Array<unknown>(data.length);
    for (let i = 0; i < data.length; i++) if (i in data) copy[i] = copyData(data[i], depth + 1);
    return copy;
  }
  const prototype = Object.getPrototypeOf(data);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(data);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    const value = copyData((data as Record<string, unknown>)[key], depth + 1);
    if (key === "__proto__") Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
    else copy[key] = value;
  }
  return copy;
}

/** Nesting past which {@link copyData} leaves the rest to `structuredClone` (which handles cycles). */
const MAX_COPY_DEPTH = 64;

/** Ajv errors as issues: one per JSON pointer (the first Ajv reports there), each with a specific message. */
export function issuesFromAjvErrors(errors: ErrorObject[], patternMessages: Record<string, string> = {}): Issue[] {
  const byPath = new Map<string, string>();
  for (const error of errors) {
    const patternMessage = error.keyword === "pattern" ? patternMessages[String(error.params.pattern)] : undefined;
    const issue = patternMessage ? { path: error.instancePath, message: patternMessage } : issueFromAjvError(error);
    if (!byPath.has(issue.path)) byPath.set(issue.path, issue.message);
  }
  return [...byPath].map(([path, message]) => ({ path, message }));
}

function issueFromAjvError(error: ErrorObject): Issue {
  const { instancePath: path, params } = error;
  switch (error.keyword) {
    case "required":
      return { path: `${path}/${escapePointer(params.missingProperty)}`, message: `required field "${params.missingProperty}" is missing` };
    case "additionalProperties":
      return { path: `${path}/${escapePointer(params.additionalProperty)}`, message: `unknown field "${params.additionalProperty}"` };
    case "discriminator":
      return { path: `${path}/${escapePointer(params.tag)}`, message: discriminatorMessage(error) };
    case "enum":
      return { path, message: `must be one of: ${params.allowedValues.map(String).join(", ")}` };
    case "const":
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case "type":
      return { path, message: `must be ${[params.type].flat().map(withArticle).join(" or ")}` };
    case "minLength":
      return { path, message: params.limit === 1 ? "must not be empty" : `must be at least ${params.limit} characters long` };
    case "pattern":
      return { path, message: `must match the pattern ${params.pattern}` };
    case "format":
      return { path, message: `must be a valid ${params.format}` };
    default:
      return { path, message: error.message ?? `fails the "${error.keyword}" rule` };
  }
}

/** "missing" or "must be one of" for a discriminated union's tag; the allowed tags come from the (verbose) error. */
function discriminatorMessage(error: ErrorObject): string {
  const { tag, tagValue } = error.params;
  if (tagValue === undefined) return `required field "${tag}" is missing`;
  const branches: unknown[] = error.parentSchema?.oneOf ?? [];
  const tags = branches.flatMap((branch) => {
    const property = isObject(branch) && isObject(branch.properties) ? branch.properties[tag] : undefined;
    return isObject(property) ? (property.enum as unknown[] | undefined) ?? [property.const] : [];
  });
  return tags.length > 0 ? `must be one of: ${tags.join(", ")}` : error.message ?? "is not an allowed kind";
}

function withArticle(type: string): string {
  if (type === "null") return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Escapes one reference token of a JSON pointer (RFC 6901). */
export function escapePointer(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
