import { test } from "vitest";
import { validateToolManifest } from "./validate-manifest";
test("smoke", () => {
  const base = { id: "acme.x", description: "d", version: "1.0.0", input: { type: "object", properties: { id: { type: "string" } } }, output: {} };
  const cases: unknown[] = [
    { ...base, spec: { kind: "http", method: "GET", urlTemplate: "https://u:{id}@{id}.x.com:{id}/a/{id}?q={id}#{id}" } },
    { ...base, spec: { kind: "http", method: "GET", urlTemplate: "{id}://x.com/" } },
    { ...base, spec: { kind: "http", method: "GET", urlTemplate: "ftp://x.com/{id}" } },
    { ...base, output: { type: "object", properties: { a: { type: "string", foo: 1 } } } },
    { ...base, output: { type: "object", $defs: { "a/b": { type: "object", if: { type: "object" } } } } },
    { ...base, input: { $id: "https://a.example/s", type: "object", properties: { id: { type: "string" } } }, output: { $id: "https://a.example/s", type: "string" } },
    { ...base, input: { $id: "https://a.example/s", type: "object", properties: { id: { type: "string" } } }, output: { $id: "https://a.example/s", type: "string" } },
    { ...base, transport: "mcp", mcpEndpoint: "mcp+stdio://node x.js", input: { $schema: "http://json-schema.org/draft-06/schema#", type: "object", properties: { a: { type: "string" } }, dependencies: { a: ["b"] } }, output: { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", $recursiveAnchor: true } },
    { ...base, transport: "mcp", mcpEndpoint: "mcp+sse://https://x.com/sse", input: { $schema: "http://json-schema.org/draft-06/schema#", type: "object", properties: { a: { type: 7 } } }, output: { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", properties: { a: { type: "strin" } } } },
    { ...base, input: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" } },
  ];
  for (const c of cases) console.log("\n" + JSON.stringify(validateToolManifest(c)));
});
