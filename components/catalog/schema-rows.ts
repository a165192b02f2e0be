/**
 * A JSON Schema flattened into the rows of a property table: name, type, required, default, allowed values,
 * constraints and description, nested objects and array items one level deeper each. Local `$ref`s are followed
 * (a cycle is shown once, as "see above").
 */

type Schema = Record<string, unknown>;

export type SchemaRow = {
  /** The property's JSON pointer in a value, e.g. "/address/city" or "/tags/[]". */
  path: string;
  name: string;
  depth: number;
  type: string;
  required: boolean;
  defaultValue?: string;
  enumValues?: string[];
  constraints: string[];
  description?: string;
};

const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

function resolve(root: Schema, node: Schema, seen: readonly string[]): { schema: Schema; cycle: boolean; seen: readonly string[] } {
  let current = node;
  let refs = seen;
  for (let hops = 0; typeof current.$ref === "string" && hops < 16; hops++) {
    const ref = current.$ref as string;
    if (refs.includes(ref)) return { schema: current, cycle: true, seen: refs };
    if (!ref.startsWith("#")) break;
    let target: unknown = root;
    for (const segment of ref.slice(1).split("/").filter(Boolean)) target = isSchema(target) ? target[segment.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    if (!isSchema(target)) break;
    refs = [...refs, ref];
    const { $ref: _ref, ...rest } = current;
    void _ref;
    current = { ...target, ...rest };
  }
  return { schema: current, cycle: false, seen: refs };
}

const json = (value: unknown) => JSON.stringify(value);

/** The type in words: "string (email)", "array of string", "integer", "one of: string | number", "object". */
export function typeInWords(root: Schema, schema: Schema): string {
  const { schema: node, cycle } = resolve(root, schema, []);
  if (cycle) return `${String(schema.$ref).split("/").pop()} (see above)`;
  if (node.const !== undefined) return `constant ${json(node.const)}`;
  const types = Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === "string" ? [node.type] : [];
  const describe = (type: string) => {
    if (type === "array") {
      if (Array.isArray(node.prefixItems)) return `tuple [${(node.prefixItems as unknown[]).map((item) => (isSchema(item) ? typeInWords(root, item) : "any")).join(", ")}]`;
      const items = isSchema(node.items) ? node.items : undefined;
      return items ? `array of ${typeInWords(root, items)}` : "array";
    }
    if (type === "string" && typeof node.format === "string") return `string (${node.format})`;
    return type;
  };
  if (types.length > 0) return types.map(describe).join(" or ");
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches)) return `${keyword === "oneOf" ? "one of" : "any of"}: ${branches.map((branch) => (isSchema(branch) ? (typeof branch.title === "string" ? branch.title : typeInWords(root, branch)) : "any")).join(" | ")}`;
  }
  if (Array.isArray(node.enum)) return [...new Set((node.enum as unknown[]).map((value) => (value === null ? "null" : typeof value)))].join(" or ");
  if (isSchema(node.properties)) return "object";
  if (isSchema(node.items)) return "array";
  return "any";
}

function constraintsOf(node: Schema): string[] {
  const out: string[] = [];
  const add = (keyword: string, words: (value: unknown) => string) => {
    if (node[keyword] !== undefined) out.push(words(node[keyword]));
  };
  add("minimum", (value) => `≥ ${value}`);
  add("exclusiveMinimum", (value) => `> ${value}`);
  add("maximum", (value) => `≤ ${value}`);
  add("exclusiveMaximum", (value) => `< ${value}`);
  add("multipleOf", (value) => `multiple of ${value}`);
  add("minLength", (value) => `at least ${value} character${value === 1 ? "" : "s"}`);
  add("maxLength", (value) => `at most ${value} character${value === 1 ? "" : "s"}`);
  add("pattern", (value) => `matches ${value}`);
  add("minItems", (value) => `at least ${value} item${value === 1 ? "" : "s"}`);
  add("maxItems", (value) => `at most ${value} item${value === 1 ? "" : "s"}`);
  if (node.uniqueItems === true) out.push("unique items");
  add("minProperties", (value) => `at least ${value} properties`);
  add("maxProperties", (value) => `at most ${value} properties`);
  if (node.additionalProperties === false) out.push("no other properties");
  if (isSchema(node.patternProperties)) out.push(`keys matching ${Object.keys(node.patternProperties).join(", ")}`);
  if (node.deprecated === true) out.push("deprecated");
  if (node.readOnly === true) out.push("read-only");
  return out;
}

/** The rows of the property table of `schema` (the schema's own root is not a row). */
export function schemaRows(schema: unknown): SchemaRow[] {
  if (!isSchema(schema)) return [];
  const root = schema;
  const rows: SchemaRow[] = [];

  const children = (node: Schema, path: string, depth: number, seen: readonly string[]) => {
    if (depth > 8) return;
    const properties = isSchema(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? (node.required as string[]) : [];
    for (const [name, property] of Object.entries(properties)) {
      row(name, isSchema(property) ? property : {}, `${path}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`, depth, required.includes(name), seen);
    }
    if (isSchema(node.additionalProperties)) row("(any other key)", node.additionalProperties, `${path}/*`, depth, false, seen);
    if (Array.isArray(node.allOf)) for (const branch of node.allOf) if (isSchema(branch)) children(resolve(root, branch, seen).schema, path, depth, seen);
  };

  const row = (name: string, property: Schema, path: string, depth: number, required: boolean, seen: readonly string[]) => {
    const resolved = resolve(root, property, seen);
    const node = resolved.schema;
    rows.push({
      path,
      name,
      depth,
      type: resolved.cycle ? `${String(node.$ref).split("/").pop()} (see above)` : typeInWords(root, property),
      required,
      defaultValue: node.default === undefined ? undefined : json(node.default),
      enumValues: Array.isArray(node.enum) ? (node.enum as unknown[]).map((value) => json(value)) : undefined,
      constraints: constraintsOf(node),
      description: typeof node.description === "string" ? node.description : typeof node.title === "string" ? node.title : undefined,
    });
    if (resolved.cycle) return;
    if (isSchema(node.properties) || isSchema(node.additionalProperties)) children(node, path, depth + 1, resolved.seen);
    const items = isSchema(node.items) ? resolve(root, node.items, resolved.seen) : undefined;
    if (items && !items.cycle && (isSchema(items.schema.properties) || isSchema(items.schema.additionalProperties))) children(items.schema, `${path}/[]`, depth + 1, items.seen);
    for (const keyword of ["oneOf", "anyOf"] as const) {
      const branches = node[keyword];
      if (!Array.isArray(branches)) continue;
      branches.forEach((branch, index) => {
        if (!isSchema(branch)) return;
        const option = resolve(root, branch, resolved.seen);
        if (isSchema(option.schema.properties)) {
          rows.push({ path: `${path}/${keyword}/${index}`, name: `option ${index + 1}${typeof option.schema.title === "string" ? `: ${option.schema.title}` : ""}`, depth: depth + 1, type: typeInWords(root, branch), required: false, constraints: [], description: typeof option.schema.description === "string" ? option.schema.description : undefined });
          children(option.schema, path, depth + 2, option.seen);
        }
      });
    }
  };

  const top = resolve(root, root, []).schema;
  children(top, "", 0, []);
  return rows;
}
