import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { escapePointer, issuesFromAjvErrors as ajvIssues } from "@/lib/tools/json-schema";
import { addLinearFormats, linearRegexOptions } from "@/lib/tools/linear-regex";
import { AppError, type Issue } from "@/lib/errors";
import { isCatalogId, isUuid } from "@/lib/ids";
import { TOOL_VERSION_PATTERN } from "@/lib/tools/manifest-schema";
import type { JsonSchema, Operation, ParamKind } from "@/lib/api/operation";
import { PROVIDER_ID_PATTERN } from "@/lib/models/registry";
import { MAX_BODY_DEPTH, MAX_PARAM_LENGTH, MAX_QUERY_LENGTH } from "@/lib/api/limits";

// The project's own schemas, with patterns on the same linear-time engine as every other schema the server compiles.
const ajv = addLinearFormats(new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, ...linearRegexOptions }));
const queryAjv = addLinearFormats(new Ajv2020({ allErrors: true, strict: false, coerceTypes: true, ...linearRegexOptions }));

const compiled = new WeakMap<object, ValidateFunction>();
function compile(instance: Ajv2020, schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = instance.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}


const VERSION = new RegExp(TOOL_VERSION_PATTERN);
const PROVIDER_ID = new RegExp(PROVIDER_ID_PATTERN);


function checkParam(kind: ParamKind, value: string): boolean {
  switch (kind) {
    case "uuid":
      return isUuid(value);
    case "version":
      return VERSION.test(value);
    case "secretName":
      return /^[A-Za-z0-9_.-]{1,128}$/.test(value);
    case "providerId":
      return PROVIDER_ID.test(value);
    case "catalogId":
      return isCatalogId(value);
  }
}

export function validateParams(operation: Operation, raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  const issues: Issue[] = [];
  for (const [name, spec] of Object.entries(operation.params ?? {})) {
    const value = raw[name] ?? "";
    const problem = checkUrlValue("path parameter", name, value, MAX_PARAM_LENGTH);
    if (problem) issues.push(problem);
    else if (!checkParam(spec.kind, value)) issues.push({ path: `/${name}`, message: `malformed ${name}` });
    params[name] = spec.kind === "uuid" ? value.toLowerCase() : value;
  }
  if (issues.length) throw new AppError("bad-input", issues.map((issue) => issue.message).join("; "), { issues });
  return params;
}

export function validateQuery(operation: Operation, searchParams: URLSearchParams): Record<string, unknown> {
  const declared = operation.query ?? {};
  const query: Record<string, unknown> = {};
  const unknown: Issue[] = [];
  for (const [name, value] of searchParams) {
    const problem = name in declared ? checkUrlValue("query parameter", name, value, MAX_QUERY_LENGTH) : null;
    if (problem) throw new AppError("bad-input", problem.message, { issues: [problem] });
    if (!(name in declared)) unknown.push({ path: `/${name}`, message: `unknown query parameter ${JSON.stringify(name)}` });
    else if (name in query) unknown.push({ path: `/${name}`, message: `query parameter ${JSON.stringify(name)} is given twice` });
    else query[name] = value;
  }
  if (unknown.length) throw new AppError("unknown-field", unknown[0].message, { issues: unknown });
  const schema = querySchemaOf(operation);
  const validate = compile(queryAjv, schema);
  if (!validate(query)) {
    const issues = ajvIssues(validate.errors ?? []);
    throw new AppError("bad-input", `invalid query: ${issues.map((i) => `${i.path.slice(1)} ${i.message}`).join("; ")}`, { issues });
  }
  return query;
}

const querySchemas = new WeakMap<Operation, JsonSchema>();
/** The query parameters as one object schema. */
export function querySchemaOf(operation: Operation): JsonSchema {
  let schema = querySchemas.get(operation);
  if (!schema) {
    schema = { type: "object", properties: operation.query ?? {}, additionalProperties: false };
    querySchemas.set(operation, schema);
  }
  return schema;
}

/** Validates a parsed JSON body against the operation's schema. */
export function validateBody(operation: Operation, body: unknown): void {
  const spec = operation.body;
  if (!spec) {
    if (body !== undefined && !(isPlainObject(body) && Object.keys(body).length === 0)) {
      const issues = isPlainObject(body)
        ? Object.keys(body).map((field) => ({ path: `/${escapePointer(field)}`, message: `unknown field ${JSON.stringify(field)}` }))
        : [{ path: "", message: "this operation takes no body" }];
      throw new AppError(isPlainObject(body) ? "unknown-field" : "bad-input", issues[0].message, { issues });
    }
    return;
  }
  if (!isPlainObject(body)) throw new AppError("bad-input", "the request body must be a JSON object", { issues: [{ path: "", message: "must be an object" }] });
  if (spec.validation === "any-object") return;
  const properties = (spec.schema.properties ?? {}) as Record<string, unknown>;
  const unknownFields = Object.keys(body).filter((field) => !(field in properties));
  if (unknownFields.length) {
    const issues = unknownFields.map((field) => ({ path: `/${escapePointer(field)}`, message: `unknown field ${JSON.stringify(field)}` }));
    throw new AppError("unknown-field", issues.map((issue) => issue.message).join("; "), { issues });
  }
  if (spec.validation === "top-level") return;
  const validate = compile(ajv, spec.schema);
  if (!validate(body)) {
    const issues = ajvIssues(validate.errors ?? []);
    throw new AppError("bad-input", issues.map((issue) => `${issue.path || "body"} ${issue.message}`).join("; "), { issues });
  }
}

/** Why a string cannot be stored as text, or null: U+0000 (PostgreSQL refuses it) or a lone UTF-16 surrogate. */
function textProblem(text: string): string | null {
  if (text.includes("\u0000")) return "contains U+0000";
  if (!text.isWellFormed()) return "contains a lone UTF-16 surrogate (not well-formed Unicode)";
  return null;
}

/**
 * The one check of a parsed request body before any recursive code sees it: nesting depth, and every string and key
 * well-formed Unicode without U+0000. Iterative, so any depth JSON.parse accepts is safe here.
 */
export function inspectBody(body: unknown): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: "", depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string") {
      const problem = textProblem(value);
      if (problem) throw badText(path, problem);
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_BODY_DEPTH) {
      throw new AppError("bad-input", `the request body nests deeper than ${MAX_BODY_DEPTH} levels of arrays and objects`, { issues: [{ path, message: `nests deeper than ${MAX_BODY_DEPTH} levels` }], maxDepth: MAX_BODY_DEPTH });
    }
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      const here = `${path}/${escapePointer(key)}`;
      const problem = Array.isArray(value) ? null : textProblem(key);
      if (problem) throw badText(here, `its key ${problem}`);
      stack.push({ value: item, path: here, depth: depth + 1 });
    }
  }
}

function badText(path: string, problem: string): AppError {
  const message = problem.includes("U+0000") ? "text must not contain the NUL character (U+0000)" : "text must be well-formed Unicode (a lone UTF-16 surrogate was sent)";
  return new AppError("bad-input", message, { issues: [{ path, message: problem }] });
}

/** Path and query values: bounded length, well-formed Unicode, no U+0000. */
function checkUrlValue(where: "path parameter" | "query parameter", name: string, value: string, maxLength: number): Issue | null {
  if (value.length > maxLength) return { path: `/${name}`, message: `${where} ${name} is longer than ${maxLength} characters` };
  const problem = textProblem(value);
  return problem ? { path: `/${name}`, message: `${where} ${name} ${problem}` } : null;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
