/**
 * What the generated form can and cannot express, and how a JSON pointer becomes a place in the form.
 * Pure functions: no React, no DOM, so they are unit-tested on their own.
 */

import type { Issue } from "@/lib/client/api";

type Schema = Record<string, unknown>;

/** Keywords the form has no control for; a schema using any of them is edited as JSON. */
const UNSUPPORTED_KEYWORDS = ["patternProperties", "prefixItems", "dependentSchemas", "dependencies", "$dynamicRef", "$recursiveRef", "unevaluatedItems", "contains"] as const;

const isSchemaObject = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

/** Decodes a JSON pointer ("/address/city", "/tags/0", "/a~1b") into its segments; "" is the root. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "" || pointer === "/") return [];
  const body = pointer.startsWith("/") ? pointer.slice(1) : pointer;
  return body.split("/").map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Encodes segments as a JSON pointer. */
export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** A nested error schema in the shape the form library reads: `{ address: { city: { __errors: ["…"] } } }`. */
export type ErrorTree = { __errors?: string[]; [key: string]: ErrorTree | string[] | undefined };

/** Places each issue at the field its JSON pointer names (relative to the form value). */
export function issuesToErrorTree(issues: readonly Issue[]): ErrorTree {
  const root: ErrorTree = {};
  for (const issue of issues) {
    let node = root;
    for (const segment of parsePointer(issue.path)) {
      const key = segment === "__errors" ? "_errors" : segment;
      const next = node[key];
      node = (isSchemaObject(next) ? next : (node[key] = {})) as ErrorTree;
    }
    (node.__errors ??= []).push(issue.message);
  }
  return root;
}

/** Resolves a local `$ref` ("#/$defs/Address", "#/definitions/x", "#") against the root schema. */
function resolveLocalRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const segment of parsePointer(ref.slice(1))) {
    if (!isSchemaObject(node)) return undefined;
    node = node[segment];
  }
  return isSchemaObject(node) ? node : node === true ? {} : undefined;
}

export type Formability = { formable: true } | { formable: false; reasons: string[] };

/**
 * Whether the form can show every part of `schema`. It cannot for: `oneOf`/`anyOf` without a discriminator, `$ref`
 * cycles or non-local refs, `patternProperties`, tuples (`prefixItems`), `dependentSchemas`, several non-null types, arrays
 * without `items`, and properties of no type at all. Those schemas are edited as JSON instead.
 */
export function formability(schema: unknown): Formability {
  const reasons: string[] = [];
  if (schema === true || (isSchemaObject(schema) && Object.keys(schema).filter((key) => !["$schema", "$id", "title", "description"].includes(key)).length === 0)) {
    return { formable: false, reasons: ["the schema accepts any value"] };
  }
  if (!isSchemaObject(schema)) return { formable: false, reasons: ["the schema is not an object"] };
  const root = schema;

  const visit = (node: unknown, path: string, refs: readonly string[]): void => {
    if (node === true || node === undefined) return;
    if (!isSchemaObject(node)) return;
    const at = path || "/";
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      if (refs.includes(ref)) return void reasons.push(`${at}: $ref ${ref} refers to itself (a cycle)`);
      const target = resolveLocalRef(root, ref);
      if (!target) return void reasons.push(`${at}: $ref ${ref} is not a local reference`);
      visit(target, path, [...refs, ref]);
    }
    for (const keyword of UNSUPPORTED_KEYWORDS) if (node[keyword] !== undefined) reasons.push(`${at}: ${keyword}`);
    for (const keyword of ["oneOf", "anyOf"] as const) {
      const branches = node[keyword];
      if (branches === undefined) continue;
      const discriminator = isSchemaObject(node.discriminator) ? node.discriminator.propertyName : undefined;
      if (typeof discriminator !== "string") {
        reasons.push(`${at}: ${keyword} without a discriminator`);
        continue;
      }
      if (Array.isArray(branches)) branches.forEach((branch, index) => visit(branch, `${path}/${keyword}/${index}`, refs));
    }
    if (Array.isArray(node.allOf)) node.allOf.forEach((branch, index) => visit(branch, `${path}/allOf/${index}`, refs));
    const types = Array.isArray(node.type) ? node.type.filter((type) => type !== "null") : node.type === undefined ? [] : [node.type];
    if (types.length > 1) reasons.push(`${at}: several types (${types.join(", ")})`);
    const describesShape = ["type", "enum", "const", "properties", "items", "$ref", "oneOf", "anyOf", "allOf", "additionalProperties"].some((key) => node[key] !== undefined);
    if (!describesShape && path !== "") reasons.push(`${at}: no type`);
    const type = types[0] ?? (node.properties ? "object" : node.items ? "array" : undefined);
    if (type === "object" || isSchemaObject(node.properties)) {
      const properties = isSchemaObject(node.properties) ? node.properties : {};
      for (const [name, property] of Object.entries(properties)) visit(property, `${path}/properties/${toPointer([name]).slice(1)}`, refs);
      if (isSchemaObject(node.additionalProperties)) visit(node.additionalProperties, `${path}/additionalProperties`, refs);
    }
    if (type === "array") {
      if (node.items === undefined) reasons.push(`${at}: an array without items`);
      else if (Array.isArray(node.items)) node.items.forEach((item, index) => visit(item, `${path}/items/${index}`, refs));
      else visit(node.items, `${path}/items`, refs);
    }
  };
  visit(root, "", []);
  return reasons.length === 0 ? { formable: true } : { formable: false, reasons: [...new Set(reasons)] };
}

/** The JSON Schema dialect a schema declares (`$schema`); Draft 2020-12 when it declares none. */
export function dialectOf(schema: unknown): "draft-06" | "draft-07" | "2019-09" | "2020-12" {
  const declared = isSchemaObject(schema) && typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("draft-06")) return "draft-06";
  if (declared.includes("draft-07")) return "draft-07";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** The offset where a JSON text stops being JSON and what was expected there, or null when it parses. */
function firstJsonError(text: string): { offset: number; expected: string } | null {
  let at = 0;
  const fail = (expected: string): never => {
    throw { offset: at, expected };
  };
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at])) at++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, at)) at += word.length;
    else fail("a value");
  };
  const string = () => {
    at++;
    while (at < text.length && text[at] !== '"') {
      if (text[at] === "\\") {
        at++;
        if (text[at] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail("four hex digits after \\u");
          at += 4;
        } else if (!'"\\/bfnrt'.includes(text[at] ?? "")) fail("an escape such as \\n or \\\"");
      } else if (text.charCodeAt(at) < 0x20) fail("no control character inside a string");
      at++;
    }
    if (at >= text.length) fail('a closing "');
    at++;
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === "{") {
      at++;
      space();
      if (text[at] === "}") return void at++;
      for (;;) {
        space();
        if (text[at] !== '"') fail("a property name in double quotes");
        string();
        space();
        if (text[at] !== ":") fail('":"');
        at++;
        value();
        space();
        if (text[at] === ",") at++;
        else if (text[at] === "}") return void at++;
        else fail('"," or "}"');
      }
    }
    if (char === "[") {
      at++;
      space();
      if (text[at] === "]") return void at++;
      for (;;) {
        value();
        space();
        if (text[at] === ",") at++;
        else if (text[at] === "]") return void at++;
        else fail('"," or "]"');
      }
    }
    if (char === '"') return string();
    if (char === "t") return literal("true");
    if (char === "f") return literal("false");
    if (char === "n") return literal("null");
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (!number) fail("a value");
    at += number![0].length;
  };
  try {
    value();
    space();
    if (at < text.length) fail("the end of the text");
    return null;
  } catch (error) {
    return error as { offset: number; expected: string };
  }
}

/** Where a JSON text fails to parse, in words with line and column, or null when it parses. */
export function jsonParseError(text: string): string | null {
  if (text.trim() === "") return "The text is empty: write a JSON value, e.g. {}";
  const error = firstJsonError(text);
  if (!error) {
    try {
      JSON.parse(text);
      return null;
    } catch (parseError) {
      return parseError instanceof Error ? parseError.message : String(parseError);
    }
  }
  const before = text.slice(0, error.offset).split("\n");
  const found = error.offset >= text.length ? "the end of the text" : JSON.stringify(text[error.offset]);
  return `Line ${before.length}, column ${before[before.length - 1].length + 1}: expected ${error.expected}, found ${found}`;
}

/**
 * Whether the form shows a control (or a group) at `pointer`: it follows `properties`, `items`,
 * `additionalProperties`, `allOf` and local `$ref`s. Issues at paths it does not show are listed apart.
 */
export function isPathInForm(schema: unknown, pointer: string): boolean {
  if (!isSchemaObject(schema)) return false;
  const root = schema;
  const descend = (node: Schema, segment: string, depth: number): Schema | undefined => {
    if (depth > 32) return undefined;
    if (typeof node.$ref === "string") {
      const target = resolveLocalRef(root, node.$ref);
      const found = target ? descend(target, segment, depth + 1) : undefined;
      if (found) return found;
    }
    const properties = isSchemaObject(node.properties) ? node.properties : undefined;
    if (properties && Object.prototype.hasOwnProperty.call(properties, segment)) {
      const property = properties[segment];
      return isSchemaObject(property) ? property : {};
    }
    if (/^\d+$/.test(segment)) {
      if (Array.isArray(node.items)) {
        const item = node.items[Number(segment)];
        if (isSchemaObject(item)) return item;
      } else if (isSchemaObject(node.items)) return node.items;
    }
    if (isSchemaObject(node.additionalProperties)) return node.additionalProperties;
    if (node.additionalProperties === true) return {};
    if (Array.isArray(node.allOf)) {
      for (const branch of node.allOf) {
        const found = isSchemaObject(branch) ? descend(branch, segment, depth + 1) : undefined;
        if (found) return found;
      }
    }
    return undefined;
  };
  let node: Schema | undefined = root;
  for (const segment of parsePointer(pointer)) {
    node = descend(node, segment, 0);
    if (!node) return false;
  }
  return true;
}
