import fs from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { call } from "./helpers/api";
import { root } from "./helpers/server";

/** Every route file under app/ with the methods it exports, as OpenAPI paths. */
function routeFiles(): Array<{ path: string; methods: string[] }> {
  const found: Array<{ path: string; methods: string[] }> = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const urlPath = "/" + path.relative(path.join(root, "app"), dir).split(path.sep).filter((s) => !s.startsWith("(")).join("/");
        if (urlPath.includes("[...")) continue; // the JSON 404 for unknown /v1 paths
        if (urlPath.startsWith("/api/auth")) continue; // next-auth's own routes
        const source = fs.readFileSync(full, "utf8");
        const methods = [...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1].toLowerCase());
        found.push({ path: urlPath.replace(/\[(\w+)\]/g, "{$1}"), methods });
      }
    }
  };
  walk(path.join(root, "app"));
  return found;
}

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const response = await call("GET", "/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("documents every route the server serves, and nothing else", async () => {
    const document = (await call("GET", "/v1/openapi.json")).body;
    const served = routeFiles().flatMap((route) => route.methods.map((method) => `${method} ${route.path}`)).sort();
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((method) => `${method} ${p}`)).sort();
    expect(documented).toEqual(served);
  });

  it("says what a free-form object may hold: no object schema is left without properties or additionalProperties", async () => {
    // Client generators (openapi-typescript) read a bare {"type": "object"} as an object whose every property must be
    // undefined, so a free-form object (a tool's input schema, metadata, parameter values) says additionalProperties.
    const document = (await call("GET", "/v1/openapi.json")).body;
    const bare: string[] = [];
    const walk = (node: unknown, pointer: string) => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${pointer}/${i}`));
      if (typeof node !== "object" || node === null) return;
      const schema = node as Record<string, unknown>;
      const isObject = schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object"));
      const shaped = ["properties", "additionalProperties", "patternProperties", "oneOf", "anyOf", "allOf", "$ref"].some((keyword) => keyword in schema);
      if (isObject && !shaped) bare.push(pointer);
      for (const [key, value] of Object.entries(schema)) walk(value, `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
    };
    walk(document, "");
    expect(bare).toEqual([]);
    const register = document.paths["/v1/tools"].post.requestBody.content["application/json"].schema;
    for (const field of ["input", "output", "metadata"]) expect(register.properties[field], field).toMatchObject({ type: "object", additionalProperties: true });
    // Request bodies carry their sub-schemas inline: a shared component with defaults would be typed as always present.
    expect(JSON.stringify(document.paths["/v1/tools"].post.requestBody)).not.toContain("$ref");
    expect(register.properties.spec).toMatchObject({ type: "object", required: ["kind", "method", "urlTemplate"], properties: { timeoutMs: { default: 30000 } } });
  });

  it("shows the same schemas the server validates with", async () => {
    const document = (await call("GET", "/v1/openapi.json")).body;
    const register = document.paths["/v1/tools"].post;
    const body = register.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(expect.arrayContaining(["id", "description", "version", "input", "output", "projectId"]));
    expect(body.properties.effects).toBeDefined();
    expect(Object.keys(register.responses)).toEqual(expect.arrayContaining(["201", "400", "401", "409", "500"]));
    expect(register.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key");
    const list = document.paths["/v1/tools"].get;
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["cursor", "effect", "limit", "mutating", "projectId", "q", "transport"]);
  });
});
