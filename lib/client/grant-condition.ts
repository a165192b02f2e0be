/**
 * The condition of an "approve and remember" grant, built as rows (field, operator, value) over the top-level
 * properties of the tool's input schema, and turned into the JSON Schema the API evaluates on later calls'
 * arguments: `{type: "object", properties: {…}, required: […]}`. Each operator is one JSON Schema keyword:
 * equals → const, not equals → not.const, one of → enum, at most → maximum, at least → minimum, starts with →
 * pattern `^<the prefix, escaped>`. A field a row names is required: a later call without it asks again.
 */

export const CONDITION_OPERATORS = ["equals", "not-equals", "one-of", "at-most", "at-least", "starts-with"] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export type FieldKind = "string" | "number" | "integer" | "boolean";
/** A top-level property of the input schema a condition can name. */
export type ConditionField = { name: string; kind: FieldKind; title?: string; options?: Array<string | number | boolean> };
/** One row as typed in the form: `value` is the text of the value (`one-of`: values separated by commas). */
export type ConditionRow = { field: string; operator: ConditionOperator; value: string };
export type RowIssue = { row: number; message: string };
export type GrantCondition = { type: "object"; properties: Record<string, object>; required: string[] };

export const OPERATOR_LABELS: Record<ConditionOperator, string> = {
  equals: "equals",
  "not-equals": "does not equal",
  "one-of": "is one of",
  "at-most": "is at most",
  "at-least": "is at least",
  "starts-with": "starts with",
};

const OPERATOR_SYMBOLS: Record<ConditionOperator, string> = { equals: "=", "not-equals": "≠", "one-of": "in", "at-most": "≤", "at-least": "≥", "starts-with": "starts with" };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function kindOf(schema: Record<string, unknown>): FieldKind | null {
  const type = Array.isArray(schema.type) ? schema.type.filter((each) => each !== "null") : [schema.type];
  if (type.length === 1 && (type[0] === "string" || type[0] === "number" || type[0] === "integer" || type[0] === "boolean")) return type[0];
  const values = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : null;
  if (values?.length && values.every((value) => typeof value === "string")) return "string";
  if (values?.length && values.every((value) => typeof value === "number")) return "number";
  return null;
}

/** The input schema's top-level properties of a scalar type (string, number, integer, boolean), in schema order. */
export function conditionFields(inputSchema: unknown): ConditionField[] {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return [];
  const fields: ConditionField[] = [];
  for (const [name, schema] of Object.entries(inputSchema.properties)) {
    if (!isObject(schema)) continue;
    const kind = kindOf(schema);
    if (!kind) continue;
    const options = Array.isArray(schema.enum) ? (schema.enum.filter((value) => ["string", "number", "boolean"].includes(typeof value)) as ConditionField["options"]) : undefined;
    fields.push({ name, kind, ...(typeof schema.title === "string" ? { title: schema.title } : {}), ...(options?.length ? { options } : {}) });
  }
  return fields;
}

/** The operators that make sense for a field's type. */
export function operatorsFor(kind: FieldKind): ConditionOperator[] {
  switch (kind) {
    case "string":
      return ["equals", "not-equals", "one-of", "starts-with"];
    case "number":
    case "integer":
      return ["equals", "not-equals", "one-of", "at-most", "at-least"];
    case "boolean":
      return ["equals", "not-equals"];
  }
}

/** A literal prefix as an ECMA-262 pattern (u mode) anchored at the start: every syntax character escaped. */
export function prefixPattern(prefix: string): string {
  return `^${prefix.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")}`;
}

type Parsed = { ok: true; value: string | number | boolean } | { ok: false; message: string };

function parseScalar(kind: FieldKind, text: string): Parsed {
  if (kind === "string") return { ok: true, value: text };
  const trimmed = text.trim();
  if (kind === "boolean") return trimmed === "true" || trimmed === "false" ? { ok: true, value: trimmed === "true" } : { ok: false, message: "must be true or false" };
  if (!trimmed || !Number.isFinite(Number(trimmed))) return { ok: false, message: "must be a number" };
  const value = Number(trimmed);
  if (kind === "integer" && !Number.isInteger(value)) return { ok: false, message: "must be a whole number" };
  return { ok: true, value };
}

/** The JSON Schema of one row (for the property it names), or why its value is not one. */
export function rowSchema(field: ConditionField, row: ConditionRow): { ok: true; schema: Record<string, unknown> } | { ok: false; message: string } {
  if (!operatorsFor(field.kind).includes(row.operator)) return { ok: false, message: `“${OPERATOR_LABELS[row.operator]}” does not apply to a ${field.kind}` };
  const type = field.kind;
  if (row.operator === "one-of") {
    const parts = row.value.split(",").map((part) => (field.kind === "string" ? part.trim() : part));
    if (!parts.length || parts.some((part) => part.trim() === "")) return { ok: false, message: "give one or more values, separated by commas" };
    const values: Array<string | number | boolean> = [];
    for (const part of parts) {
      const parsed = parseScalar(field.kind, part);
      if (!parsed.ok) return { ok: false, message: `each value ${parsed.message}` };
      if (!values.includes(parsed.value)) values.push(parsed.value);
    }
    return { ok: true, schema: { type, enum: values } };
  }
  if (row.operator === "starts-with") {
    if (!row.value) return { ok: false, message: "give the prefix" };
    return { ok: true, schema: { type, pattern: prefixPattern(row.value) } };
  }
  const parsed = parseScalar(field.kind, row.value);
  if (!parsed.ok) return parsed;
  switch (row.operator) {
    case "equals":
      return { ok: true, schema: { type, const: parsed.value } };
    case "not-equals":
      return { ok: true, schema: { type, not: { const: parsed.value } } };
    case "at-most":
      return { ok: true, schema: { type, maximum: parsed.value } };
    case "at-least":
      return { ok: true, schema: { type, minimum: parsed.value } };
  }
}

/**
 * The rows as one JSON Schema, or the issues of the rows that are not complete (by row index). No rows → null (an
 * unconditional grant). Several rows on one field all apply (`allOf`).
 */
export function conditionSchema(rows: ConditionRow[], fields: ConditionField[]): { condition: GrantCondition | null; issues: RowIssue[] } {
  const issues: RowIssue[] = [];
  const byField = new Map<string, Array<Record<string, unknown>>>();
  rows.forEach((row, index) => {
    const field = fields.find((candidate) => candidate.name === row.field);
    if (!field) {
      issues.push({ row: index, message: row.field ? `the input has no field ${row.field}` : "choose a field" });
      return;
    }
    const built = rowSchema(field, row);
    if (!built.ok) issues.push({ row: index, message: built.message });
    else byField.set(field.name, [...(byField.get(field.name) ?? []), built.schema]);
  });
  if (issues.length || byField.size === 0) return { condition: null, issues };
  const properties: Record<string, object> = {};
  for (const [name, schemas] of byField) properties[name] = schemas.length === 1 ? schemas[0] : { allOf: schemas };
  return { condition: { type: "object", properties, required: [...byField.keys()] }, issues };
}

function valueInWords(field: ConditionField | undefined, row: ConditionRow): string {
  const quote = (text: string) => (field?.kind === "string" ? `“${text}”` : text.trim());
  if (row.operator === "one-of") return `{${row.value.split(",").map((part) => quote(field?.kind === "string" ? part.trim() : part)).join(", ")}}`;
  return quote(row.value);
}

/** The rows as words: `amount ≤ 100 and currency = “EUR”`. */
export function conditionInWords(rows: ConditionRow[], fields: ConditionField[]): string {
  return rows
    .filter((row) => row.field)
    .map((row) => `${row.field} ${OPERATOR_SYMBOLS[row.operator]} ${valueInWords(fields.find((field) => field.name === row.field), row)}`)
    .join(" and ");
}
