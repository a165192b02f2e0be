import path from "node:path";
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, test } from "vitest";
import { invalidManifests, validManifests } from "../../tests/corpus/invalid-manifests";
import { compileDialectSchema, copyData, getValidator, jsonSchemaIssues, schemaDialect } from "./json-schema";
import { MAX_TIMEOUT_MS, registerToolBodySchema, TOOL_VERSION_PATTERN, toolManifestSchema } from "./manifest-schema";
import { isCatalogId } from "@/lib/ids";
import { filesystemHandlersAllowed, parseMcpEndpoint, templatePlaceholders, validateToolManifest, type Issue } from "./validate-manifest";

type Manifest = Record<string, unknown>;

const base: Manifest = {
  id: "acme.get-item",
  description: "Gets one item.",
  version: "1.0.0",
  input: { type: "object", properties: { id: { type: "string" }, q: { type: "string" } }, required: ["id"] },
  output: { type: "object" },
};
const http = (spec: Manifest, extra: Manifest = {}): Manifest => ({
  ...base,
  ...extra,
  spec: { kind: "http", method: "GET", urlTemplate: "https://api.example.com/items/{id}", ...spec },
});
const handler = { kind: "filesystem", modulePath: "/srv/packs/acme/handler.js" };
const mcp = (extra: Manifest): Manifest => ({ ...base, transport: "mcp", mcpEndpoint: "mcp+stdio://acme-mcp", ...extra });

function issuesOf(manifest: unknown): Issue[] {
  const result = validateToolManifest(manifest);
  return result.ok ? [] : result.issues;
}

function expectValid(manifest: unknown): void {
  expect(issuesOf(manifest)).toEqual([]);
}

function expectIssue(manifest: unknown, path: string, message: string | RegExp = /./): void {
  const matcher = typeof message === "string" ? message : expect.stringMatching(message);
  expect(issuesOf(manifest)).toContainEqual({ path, message: matcher });
}

describe("schema", () => {
  test("accepts a minimal manifest and returns it typed", () => {
    expect(validateToolManifest(base)).toEqual({ ok: true, manifest: base });
  });

  test.each(["id", "description", "version", "input", "output"])("requires %s, reported at its own path", (field) => {
    const { [field]: _dropped, ...manifest } = base;
    expect(issuesOf(manifest)).toEqual([{ path: `/${field}`, message: `required field "${field}" is missing` }]);
  });

  test("reports an unknown field at its path, at the root and nested", () => {
    expect(issuesOf({ ...base, foo: 1 })).toEqual([{ path: "/foo", message: 'unknown field "foo"' }]);
    expectIssue(http({ retries: 3 }), "/spec/retries", 'unknown field "retries"');
    expectIssue({ ...base, "a/b~c": 1 }, "/a~1b~0c", 'unknown field "a/b~c"');
  });

  test("a manifest that is not an object gets one issue at the root", () => {
    expect(issuesOf([])).toEqual([{ path: "", message: "must be an object" }]);
  });

  test("effect kinds are the closed list", () => {
    expectValid({ ...base, effects: [{ kind: "sensitive-data-egress", resource: "external:x", notes: "n" }] });
    expect(issuesOf({ ...base, effects: [{ kind: "mutates" }] })).toEqual([
      {
        path: "/effects/0/kind",
        message: "must be one of: reads, writes, deletes, network, spawns-run, emits-event, external-side-effect, sensitive-data-egress",
      },
    ]);
  });

  test("version follows the seed's pattern MAJOR.MINOR.PATCH, without leading zeros (semver can order it)", () => {
    expectValid({ ...base, version: "0.10.200" });
    const message = 'must be a version MAJOR.MINOR.PATCH such as "1.2.3", without leading zeros';
    for (const version of ["01.0.0", "1.02.3", "1.0.00", "1.0.0-beta", "1.0"]) expectIssue({ ...base, version }, "/version", message);
  });

  test("id: 1 to 200 characters (code points) without control characters, the grammar of the {toolId} path parameter", () => {
    expectValid({ ...base, id: "x".repeat(200) });
    expectValid({ ...base, id: "✓".repeat(200) });
    expectValid({ ...base, id: "acme/odd id ü%" });
    expectIssue({ ...base, id: "x".repeat(201) }, "/id", /200/);
    for (const id of ["a\tb", "a\nb", "a\u001fb"]) expectIssue({ ...base, id }, "/id", "must not contain control characters (U+0000–U+001F)");
  });

  test("string fields the route constrains must not be empty", () => {
    expectIssue({ ...base, id: "" }, "/id", "must not be empty");
    expectIssue(http({ headers: [{ name: "", value: "" }] }), "/spec/headers/0/name", "must not be empty");
    expectValid(http({ headers: [{ name: "X-Empty", value: "" }] }));
  });

  test("timeoutMs at most what a timer can hold; successStatus min ≤ max", () => {
    expectValid(http({ timeoutMs: 2_147_483_647, successStatus: { min: 204, max: 204 } }));
    expectIssue(http({ timeoutMs: 2_147_483_648 }), "/spec/timeoutMs", "must be <= 2147483647");
    expect(issuesOf(http({ successStatus: { min: 300, max: 200 } }))).toEqual([{ path: "/spec/successStatus", message: "min (300) must not be greater than max (200)" }]);
    // An out-of-range bound gets the schema's message only.
    expect(issuesOf(http({ successStatus: { min: 700, max: 200 } }))).toEqual([{ path: "/spec/successStatus/min", message: "must be <= 599" }]);
  });

  test("headers the runtime sets itself are refused at registration", () => {
    for (const name of ["Host", "content-length", "Idempotency-Key", "Transfer-Encoding", "Connection"]) {
      expect(issuesOf(http({ headers: [{ name: "Accept", value: "x" }, { name, value: "x" }] }))).toEqual([{ path: "/spec/headers/1/name", message: `${name} is set by the runtime and cannot be declared in the spec` }]);
    }
    const bearer = { kind: "bearer", secretRef: { envName: "K", name: "k" } };
    expect(issuesOf(http({ authorization: bearer, headers: [{ name: "Authorization", value: "Basic x" }] }))).toEqual([
      { path: "/spec/headers/0/name", message: "Authorization is set by the runtime from the spec's authorization and cannot also be declared as a header" },
    ]);
    const header = { kind: "header", headerName: "X-Api-Key", secretRef: { envName: "K", name: "k" } };
    expectIssue(http({ authorization: header, headers: [{ name: "x-api-key", value: "v" }] }), "/spec/headers/0/name", /from the spec's authorization/);
    expectIssue(http({ authorization: { ...header, headerName: "Host" } }), "/spec/authorization/headerName", "Host is set by the runtime and cannot carry the authorization");
    // Without an authorization, an Authorization header is the spec's own; with a header-kind one, it is too.
    expectValid(http({ headers: [{ name: "Authorization", value: "Basic x" }] }));
    expectValid(http({ authorization: header, headers: [{ name: "Authorization", value: "Basic x" }] }));
  });

  test("a filesystem handler's modulePath is absolute; a production server refuses filesystem handlers", () => {
    const local = { ...base, codeArtifactRef: handler };
    expectValid(local);
    expectValid({ ...base, codeArtifactRef: { kind: "filesystem", modulePath: "C:\\packs\\handler.js" } });
    for (const modulePath of ["handlers/sign.js", "./sign.js", "../sign.js", "~/sign.js"]) {
      expectIssue({ ...base, codeArtifactRef: { kind: "filesystem", modulePath } }, "/codeArtifactRef/modulePath", /must be an absolute path/);
    }
    const production = validateToolManifest(local, { allowFilesystemHandlers: false });
    expect(production).toEqual({ ok: false, issues: [{ path: "/codeArtifactRef", message: expect.stringContaining('"filesystem" handler is the local-development shape') }] });
    expect(validateToolManifest(local, { allowFilesystemHandlers: true })).toEqual({ ok: true, manifest: local });
    const oci = { ...base, codeArtifactRef: { kind: "oci", imageRef: "registry.example/tools:1", modulePath: "dist/handler.js", artifactVersion: "1" } };
    expect(validateToolManifest(oci, { allowFilesystemHandlers: false })).toEqual({ ok: true, manifest: oci });
  });

  test("filesystemHandlersAllowed: everywhere but NODE_ENV=production, where KINDGI_ALLOW_FILESYSTEM_HANDLERS=1 allows them", () => {
    expect(filesystemHandlersAllowed({ NODE_ENV: "development" })).toBe(true);
    expect(filesystemHandlersAllowed({})).toBe(true);
    expect(filesystemHandlersAllowed({ NODE_ENV: "production" })).toBe(false);
    expect(filesystemHandlersAllowed({ NODE_ENV: "production", KINDGI_ALLOW_FILESYSTEM_HANDLERS: "0" })).toBe(false);
    expect(filesystemHandlersAllowed({ NODE_ENV: "production", KINDGI_ALLOW_FILESYSTEM_HANDLERS: "1" })).toBe(true);
  });

  test("numeric limits: limits >= 1, timeoutMs >= 1, successStatus in 100..599", () => {
    expectValid(http({ timeoutMs: 1, successStatus: { min: 100, max: 599 } }, { limits: { memMB: 1, cpuMs: 1 } }));
    expectIssue({ ...base, limits: { memMB: 0, cpuMs: 1 } }, "/limits/memMB", "must be >= 1");
    expectIssue({ ...base, limits: { memMB: 1, cpuMs: 2.5 } }, "/limits/cpuMs", "must be an integer");
    expectIssue(http({ timeoutMs: 0 }), "/spec/timeoutMs", "must be >= 1");
    expectIssue(http({ successStatus: { min: 99, max: 600 } }), "/spec/successStatus/min", "must be >= 100");
    expectIssue(http({ successStatus: { min: 99, max: 600 } }), "/spec/successStatus/max", "must be <= 599");
  });

  test("a discriminated union gives one issue at kind, not a oneOf cascade", () => {
    expect(issuesOf({ ...base, network: { kind: "deny" } })).toEqual([
      { path: "/network/kind", message: "must be one of: none, unrestricted, allowlist" },
    ]);
    expect(issuesOf({ ...base, codeArtifactRef: { modulePath: "/x.js" } })).toEqual([
      { path: "/codeArtifactRef/kind", message: 'required field "kind" is missing' },
    ]);
    expect(issuesOf(http({ authorization: { kind: "basic" } }))).toEqual([
      { path: "/spec/authorization/kind", message: "must be one of: bearer, header, connection" },
    ]);
    expect(issuesOf(http({ requestBody: { kind: "text" } }))).toEqual([
      { path: "/spec/requestBody/template", message: 'required field "template" is missing' },
    ]);
    expect(issuesOf({ ...base, network: { kind: "allowlist" } })).toEqual([
      { path: "/network/hosts", message: 'required field "hosts" is missing' },
    ]);
    expectIssue(http({ kind: "grpc" }), "/spec/kind", 'must be "http"');
  });

  test("accepts every 1.3.0 addition", () => {
    expectValid({
      ...http(
        { method: "POST", authorization: { kind: "connection", connection: "mail" } },
        { needsSpec: { connections: { mail: { app: "google", permissions: ["gmail.send"], as: "company" } } } },
      ),
      needsApprovalWhenUnattended: true,
      resultIsOutsideData: true,
    });
    expectValid({ ...base, codeArtifactRef: handler, pauses: true });
  });

  test("free-form parts stay free-form", () => {
    expectValid({ ...base, metadata: { anything: [1, { deep: true }] }, needsSpec: { env: { A: { x: 1 } }, secrets: {}, config: {} } });
    expectIssue({ ...base, needsSpec: { env: { A: "x" } } }, "/needsSpec/env/A", "must be an object");
  });

  test("reports every problem of a manifest, schema and rules together", () => {
    const issues = issuesOf({
      ...http({ urlTemplate: "https://{id}.example.com/" }, { codeArtifactRef: handler }),
      version: "1",
      extra: true,
      input: { type: "object", properties: { id: { type: "string", foo: 1 } } },
    });
    expect(issues.map((issue) => issue.path).sort()).toEqual(["/extra", "/input/properties/id", "/spec", "/spec/urlTemplate", "/version"]);
  });
});

describe("input and output schemas", () => {
  test("compile as Draft 2020-12 in strict mode (union types allowed)", () => {
    expectValid({
      ...base,
      input: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          when: { type: "string", format: "date-time" },
          pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 2, maxItems: 2 },
          maybe: { type: ["string", "null"] },
        },
      },
    });
  });

  test("a schema that breaks the meta-schema is reported at the nested path", () => {
    expect(issuesOf({ ...base, output: { type: "object", properties: { a: { type: "strin" } } } })).toEqual([
      { path: "/output/properties/a/type", message: "must be one of: array, boolean, integer, null, number, object, string" },
    ]);
  });

  test("strict-mode errors carry Ajv's message, at the nested path when Ajv names it", () => {
    expectIssue({ ...base, input: { type: "array", prefixItems: [{ type: "string" }] } }, "/input", /"prefixItems" is 1-tuple/);
    expectIssue({ ...base, input: { type: "object", properties: { a: { type: "string", foo: 1 } } } }, "/input/properties/a", 'strict mode: unknown keyword: "foo"');
    expectIssue({ ...base, output: { type: "object", properties: { a: { properties: {} } } } }, "/output/properties/a", /missing type "object"/);
    expectIssue({ ...base, output: { type: "string", format: "colour" } }, "/output", /unknown format "colour"/);
  });

  test("another dialect is refused unless the tool is an MCP tool", () => {
    expectIssue({ ...base, input: { $schema: "http://json-schema.org/draft-07/schema#" } }, "/input/$schema", /must be Draft 2020-12/);
  });

  test.each([
    ["draft-06", "http://json-schema.org/draft-06/schema#", { type: "number", exclusiveMinimum: 0 }],
    ["draft-07", "http://json-schema.org/draft-07/schema#", { type: "object", if: { required: ["a"] }, then: {} }],
    ["2019-09", "https://json-schema.org/draft/2019-09/schema", { $recursiveAnchor: true, type: "object" }],
    ["2020-12", "https://json-schema.org/draft/2020-12/schema", { type: "array", prefixItems: [{}] }],
  ])("an MCP tool's schema compiles in its $schema's dialect: %s", (_dialect, uri, schema) => {
    expectValid(mcp({ input: { $schema: uri, ...schema }, output: { $schema: uri } }));
  });

  test("an MCP tool's schema is checked against its own dialect's meta-schema", () => {
    const schema = { $schema: "http://json-schema.org/draft-06/schema#", type: "number", exclusiveMinimum: true };
    expectIssue(mcp({ input: schema }), "/input/exclusiveMinimum", "must be a number");
  });

  test("an MCP tool's schema without $schema is 2020-12; an unknown $schema is reported at /$schema", () => {
    expectValid(mcp({ input: { type: "object", properties: { a: { type: "string" } } } }));
    expectIssue(mcp({ input: { $schema: "http://json-schema.org/draft-04/schema#" } }), "/input/$schema", /draft-06, draft-07, 2019-09 or 2020-12/);
  });

  test("difference by design: an MCP tool's (third-party) schema is not held to Ajv strict mode", () => {
    const loose = { type: "object", required: ["undeclared"], properties: { a: { properties: {} } } };
    expectValid(mcp({ input: loose }));
    expect(issuesOf({ ...base, input: loose }).length).toBeGreaterThan(0);
  });

  test("the same $id in two manifests, or in input and output, never collides", () => {
    const input = { $id: "https://acme.example/schemas/item.json", type: "object", properties: { id: { type: "string" } } };
    expectValid({ ...base, input, output: { ...input, properties: {} } });
    expectValid({ ...base, input: { ...input, type: "object", $defs: { x: { $id: "https://acme.example/x.json" } } } });
    expectValid({ ...base, input: { ...input, $defs: { x: { $id: "https://acme.example/x.json", type: "string" } } } });
  });

  test("a pattern the linear-time engine cannot run is refused at the pattern keyword, in every dialect", () => {
    const word = (pattern: string) => ({ type: "object", properties: { word: { type: "string", pattern } } });
    expect(issuesOf({ ...base, input: word("^(\\w+)\\1$") })).toEqual([
      { path: "/input/properties/word/pattern", message: expect.stringContaining("backreferences") },
    ]);
    expectIssue({ ...base, output: { type: "array", items: { type: "string", pattern: "a(?=b)" } } }, "/output/items/pattern", /lookahead/);
    expectIssue({ ...base, input: { type: "object", patternProperties: { "^(?!x-)a/b": { type: "string" } } } }, "/input/patternProperties/^(?!x-)a~1b", /lookahead/);
    expectIssue({ ...base, input: { type: "object", $defs: { w: { type: "string", pattern: "a{5000}" } } } }, "/input/$defs/w/pattern", /repetition counts above 1000/);
    expectIssue(mcp({ input: { $schema: "http://json-schema.org/draft-07/schema#", definitions: { w: { pattern: "(?<=a)b" } } } }), "/input/definitions/w/pattern", /lookahead and lookbehind/);
    expectIssue({ ...base, input: word("(") }, "/input/properties/word/pattern", /^not a valid regular expression: /);
  });

  test("patterns the engine runs are accepted, a catastrophic one for a backtracking engine included", () => {
    expectValid({ ...base, input: { type: "object", properties: { word: { type: "string", pattern: "^(a|a)+$" } }, patternProperties: { "^x-\\p{L}+$": { type: "string" } } } });
  });

  test("strict mode still refuses a property name that a pattern property matches (checked on the linear-time engine)", () => {
    const schema = { type: "object", properties: { "x-a": { type: "string" }, b: { type: "string" } }, patternProperties: { "^x-": { type: "string" } } };
    expect(issuesOf({ ...base, input: schema })).toEqual([{ path: "/input/properties/x-a", message: expect.stringContaining('"^x-"') }]);
    expectValid(mcp({ input: schema }));
  });

  test('format "regex" in a tool\'s data accepts the patterns the engine accepts', () => {
    const validate = getValidator({ type: "string", format: "regex" });
    expect(validate("^[a-z]+$")).toEqual({ ok: true, value: "^[a-z]+$" });
    expect(validate("(a)\\1")).toEqual({ ok: false, issues: [{ path: "", message: "must be a valid regex" }] });
  });

  test("a schema may not take the $id of a built-in meta-schema", () => {
    expectIssue({ ...base, output: { $id: "https://json-schema.org/draft/2020-12/schema" } }, "/output", /reserved/);
    expectValid(base); // and the meta-schema is still there
  });
});

describe("mcpEndpoint", () => {
  test.each([
    ["mcp+stdio://npx -y @acme/server", { transport: "stdio", command: "npx -y @acme/server" }],
    ["mcp+http://localhost:3000/mcp", { transport: "http", url: new URL("http://localhost:3000/mcp") }],
    ["mcp+sse://https://mcp.example.com/sse", { transport: "sse", url: new URL("https://mcp.example.com/sse") }],
  ])("parses %s", (endpoint, parsed) => {
    expect(parseMcpEndpoint(endpoint)).toEqual(parsed);
    expectValid(mcp({ mcpEndpoint: endpoint }));
  });

  test.each(["mcp://x", "mcp+stdio://", "mcp+http://", "mcp+http://:80/x", "mcp+sse://ftp://x.example", "mcp+ws://x.example"])(
    "rejects %s",
    (endpoint) => expectIssue(mcp({ mcpEndpoint: endpoint }), "/mcpEndpoint", /mcp\+/),
  );

  test('is required with transport "mcp", refused with "native" (at /transport), allowed with "auto"', () => {
    expectIssue({ ...base, transport: "mcp" }, "/mcpEndpoint", 'is required when transport is "mcp"');
    expectIssue({ ...base, transport: "native", mcpEndpoint: "mcp+stdio://x" }, "/transport", /requires in-process execution, and a tool with an mcpEndpoint runs on its MCP server/);
    expectValid({ ...base, mcpEndpoint: "mcp+stdio://x" });
  });
});

describe("transport", () => {
  test('"native" accepts what runs in this server\'s process: an HTTP spec, a handler at sandbox "none" (or none given)', () => {
    expectValid(http({}, { transport: "native" }));
    expectValid({ ...base, transport: "native", codeArtifactRef: handler });
    expectValid({ ...base, transport: "native", codeArtifactRef: handler, sandbox: "none" });
  });

  test('"native" refuses a handler in a sandbox of its own', () => {
    for (const sandbox of ["context-isolated", "strict"]) {
      expectIssue({ ...base, transport: "native", codeArtifactRef: handler, sandbox }, "/transport", `"native" requires in-process execution, and a handler at sandbox "${sandbox}" runs in a sandbox of its own; use sandbox "none" or transport "auto"`);
    }
  });

  test('"mcp" refuses a spec or a handler, which would never run', () => {
    expectIssue(mcp({ spec: http({}).spec }), "/transport", /"mcp" requires MCP execution on the mcpEndpoint, so an HTTP spec would never run/);
    expectIssue(mcp({ codeArtifactRef: handler }), "/transport", /so a handler \(codeArtifactRef\) would never run/);
  });

  test('"auto" accepts a handler together with an mcpEndpoint (the handler runs)', () => {
    expectValid({ ...base, codeArtifactRef: handler, sandbox: "strict", mcpEndpoint: "mcp+http://mcp.example/mcp" });
  });
});

describe("needsSpec.secrets envName", () => {
  test("names where the handler reads the resolved secret in context.env", () => {
    expectValid({ ...base, codeArtifactRef: handler, needsSpec: { secrets: { API_TOKEN: { name: "acme-token", envName: "ACME_TOKEN" }, OTHER: { name: "other" } } } });
  });

  test("is a non-empty string, not a needsSpec.env name, and not another secret's envName", () => {
    expectIssue({ ...base, needsSpec: { secrets: { "a/b": { envName: "" } } } }, "/needsSpec/secrets/a~1b/envName", /non-empty string/);
    expectIssue({ ...base, needsSpec: { secrets: { A: { envName: 7 } } } }, "/needsSpec/secrets/A/envName", /non-empty string/);
    expectIssue({ ...base, needsSpec: { env: { REGION: {} }, secrets: { A: { envName: "REGION" } } } }, "/needsSpec/secrets/A/envName", /also a needsSpec.env name/);
    expectIssue({ ...base, needsSpec: { secrets: { A: { envName: "X" }, B: { envName: "X" } } } }, "/needsSpec/secrets/B/envName", '"X" is also the envName of secret "A"');
  });
});

describe("spec.urlTemplate", () => {
  test("accepts placeholders in the path and the query", () => {
    expectValid(http({ urlTemplate: "https://api.example.com:8443/items/{id}/x?q={q}&fixed=1" }));
    expect(templatePlaceholders("https://x/{id}?q={q}")).toEqual([{ name: "id", index: 10 }, { name: "q", index: 17 }]);
  });

  test.each([
    ["https://{id}.example.com/", "host"],
    ["https://api.example.com:{id}/", "port"],
    ["https://{id}@api.example.com/", "userinfo"],
    ["{id}://api.example.com/", "scheme"],
    ["https://api.example.com/x#{id}", "fragment"],
  ])("refuses a placeholder in the URL's %s part: %s", (urlTemplate, part) => {
    expect(issuesOf(http({ urlTemplate }))).toEqual([
      {
        path: "/spec/urlTemplate",
        message: `placeholder {id} is in the ${part} part of the URL; placeholders are allowed only in the path and query`,
      },
    ]);
  });

  test("each placeholder names a property of input.properties", () => {
    expectIssue(http({ urlTemplate: "https://x.example/{host}" }), "/spec/urlTemplate", "placeholder {host} is not a property declared in input.properties");
  });

  test("braces balance", () => {
    expectIssue(http({ urlTemplate: "https://x.example/{id" }), "/spec/urlTemplate", /unbalanced "\{" at position 18/);
    expectIssue(http({ urlTemplate: "https://x.example/id}" }), "/spec/urlTemplate", /unbalanced "\}"/);
  });

  test.each(["/items/{id}", "api.example.com/{id}", "ftp://x.example/{id}", "https:///{id}"])("must be an absolute http(s) URL: %s", (urlTemplate) => {
    expectIssue(http({ urlTemplate }), "/spec/urlTemplate", /must be an absolute http\(s\) URL/);
  });
});

describe("rules between fields", () => {
  test("spec and codeArtifactRef are mutually exclusive", () => {
    expectValid({ ...base, codeArtifactRef: handler });
    expectIssue(http({}, { codeArtifactRef: handler }), "/spec", /mutually exclusive/);
  });

  test("only a tool with a handler can pause", () => {
    expectValid({ ...base, codeArtifactRef: { kind: "oci", imageRef: "r/i:1", modulePath: "/m.js", artifactVersion: "1" }, pauses: true });
    expectValid(http({}, { pauses: false }));
    expectIssue(http({}, { pauses: true }), "/pauses", /declarative spec cannot pause/);
    expectIssue(mcp({ pauses: true }), "/pauses", /MCP tool cannot pause/);
    expectIssue({ ...base, pauses: true }, "/pauses", /without a handler/);
  });

  test("allowlisted hosts are host names, host:port or IP addresses", () => {
    const hosts = ["api.example.com", "api.example.com:443", "10.0.0.1", "[::1]:8080", "::1", "https://x.example", "x.example/p", "x.example:99999"];
    expect(issuesOf({ ...base, network: { kind: "allowlist", hosts } }).map((issue) => issue.path)).toEqual([
      "/network/hosts/5",
      "/network/hosts/6",
      "/network/hosts/7",
    ]);
  });

  test("a text body's placeholders name input properties; JSON braces are text", () => {
    expectValid(http({ method: "POST", requestBody: { kind: "text", template: '{"id": "{id}", "q": "{q}"}' } }));
    expectIssue(http({ method: "POST", requestBody: { kind: "text", template: "by={author}" } }), "/spec/requestBody/template", "placeholder {author} is not a property declared in input.properties");
  });

  test('authorization kind "connection" names a declared connection', () => {
    const connections = { mail: { app: "google", permissions: ["gmail.send"], as: "person" } };
    expectValid(http({ authorization: { kind: "connection", connection: "mail" } }, { needsSpec: { connections } }));
    expectIssue(http({ authorization: { kind: "connection", connection: "drive" } }, { needsSpec: { connections } }), "/spec/authorization/connection", 'connection "drive" is not declared in needsSpec.connections');
  });

  test("a field that fails the schema gets no second message from the rules", () => {
    expect(issuesOf({ ...base, transport: "mcp", mcpEndpoint: 5 })).toEqual([{ path: "/mcpEndpoint", message: "must be a string" }]);
  });
});

describe("json-schema helpers", () => {
  test("getValidator fills defaults into a copy and reports issues by JSON pointer", () => {
    const schema = { type: "object", properties: { limit: { type: "integer", default: 10 }, q: { type: "string" } }, required: ["q"] };
    const validate = getValidator(schema);
    const data = { q: "x" };
    expect(validate(data)).toEqual({ ok: true, value: { q: "x", limit: 10 } });
    expect(data).toEqual({ q: "x" });
    expect(validate({ limit: "x" })).toEqual({
      ok: false,
      issues: [
        { path: "/q", message: 'required field "q" is missing' },
        { path: "/limit", message: "must be an integer" },
      ],
    });
  });

  test("copyData copies JSON data deeply, keeps an own __proto__ key as a key, and leaves other objects to structuredClone", () => {
    const parsed = JSON.parse('{"a":[1,{"b":null}],"__proto__":{"polluted":true},"s":"x"}') as Record<string, unknown>;
    const copy = copyData(parsed) as Record<string, unknown>;
    expect(copy).toEqual(parsed);
    expect(copy).not.toBe(parsed);
    expect(copy.a).not.toBe(parsed.a);
    expect((copy.a as unknown[])[1]).not.toBe((parsed.a as unknown[])[1]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["a", "__proto__", "s"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const when = new Date(0);
    const other = copyData({ when, sparse: [1, , 3] }) as { when: Date; sparse: unknown[] };
    expect(other.when).toBeInstanceOf(Date);
    expect(other.when).not.toBe(when);
    expect(other.when.getTime()).toBe(0);
    expect(1 in other.sparse).toBe(false);
    const cyclic: Record<string, unknown> = {};
    let node = cyclic;
    for (let i = 0; i < 100; i++) node = (node.next = {}) as Record<string, unknown>;
    node.next = cyclic;
    expect(() => copyData(cyclic)).not.toThrow();
    expect(() => copyData({ f: () => 1 })).toThrow();
  });

  test("getValidator reads an MCP tool's schema in its dialect and throws on a schema that does not compile", () => {
    const validate = getValidator({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { n: { type: "number" } } }, "mcp");
    expect(validate({ n: "1" })).toEqual({ ok: false, issues: [{ path: "/n", message: "must be a number" }] });
    expect(() => getValidator({ type: "array", prefixItems: [{}] })).toThrow(/strict mode/);
    expect(() => getValidator({ $schema: "urn:nope" }, "mcp")).toThrow(/not supported/);
  });

  test("compileDialectSchema leaves nothing registered: the same $id compiles again with new content", () => {
    const first = compileDialectSchema({ $id: "https://acme.example/a.json", type: "string" }, "2020-12");
    const second = compileDialectSchema({ $id: "https://acme.example/a.json", type: "number" }, "2020-12");
    expect([first("x"), second("x")]).toEqual([true, false]);
  });

  test("keeps compiling across Ajv instance renewals (instances are replaced to bound memory)", () => {
    for (let index = 0; index < 1200; index++) {
      const validate = compileDialectSchema({ $id: "https://acme.example/n.json", type: "object", properties: { [`p${index}`]: { type: "integer" } } }, "2020-12");
      expect(validate({ [`p${index}`]: "x" })).toBe(false);
    }
  });

  test("schemaDialect maps $schema URIs, with or without '#'", () => {
    expect(schemaDialect({})).toBe("2020-12");
    expect(schemaDialect({ $schema: "http://json-schema.org/draft-06/schema" })).toBe("draft-06");
    expect(schemaDialect({ $schema: "https://json-schema.org/draft/2019-09/schema#" })).toBe("2019-09");
    expect(schemaDialect({ $schema: "http://json-schema.org/draft-04/schema#" })).toBeUndefined();
    expect(jsonSchemaIssues({ type: "object" }, "native")).toEqual([]);
  });
});

describe("exported JSON Schemas", () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, discriminator: true });
  addFormats(ajv);
  const validateBody = ajv.compile(registerToolBodySchema);

  test("every manifest property is documented", () => {
    for (const [name, property] of Object.entries(toolManifestSchema.properties)) {
      expect(property, name).toHaveProperty("description");
    }
  });

  test("registerToolBodySchema is the manifest plus a uuid projectId, which the manifest validator refuses", () => {
    const projectId = "2489E9AD-2EE2-8E00-8EC9-32D5F69181C0";
    expect(validateBody({ ...base, projectId })).toBe(true);
    expect(validateBody(base)).toBe(false);
    expect(validateBody({ ...base, projectId: "project-1" })).toBe(false);
    expectIssue({ ...base, projectId }, "/projectId", 'unknown field "projectId"');
  });
});

describe("conformance with the public tool.schema.json (1.1.0)", () => {
  const reference = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../tests/fixtures/specs/tool.schema.json"), "utf8"));
  const referenceAccepts = new Ajv2020({ strict: false, allErrors: true }).compile(reference);
  const ourSchemaAccepts = new Ajv2020({ strict: true, allErrors: true, discriminator: true }).compile(toolManifestSchema);

  /** The manifest without what 1.3.0 added to 1.1.0. */
  function without13Additions(manifest: unknown): unknown {
    if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) return manifest;
    const { needsApprovalWhenUnattended: _a, pauses: _p, resultIsOutsideData: _r, ...rest } = structuredClone(manifest) as Manifest;
    const needsSpec = rest.needsSpec as Manifest | undefined;
    if (needsSpec && typeof needsSpec === "object") delete needsSpec.connections;
    const spec = rest.spec as Manifest | undefined;
    if ((spec?.authorization as Manifest | undefined)?.kind === "connection") delete spec!.authorization;
    return rest;
  }

  /** Where our schema is stricter than 1.1.0 on purpose: the id grammar, versions without leading zeros, a timeoutMs a timer can hold. */
  function stricterOnPurpose(manifest: unknown): boolean {
    if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) return false;
    const { id, version, spec } = manifest as Manifest;
    const timeoutMs = typeof spec === "object" && spec !== null ? (spec as Manifest).timeoutMs : undefined;
    return (
      (typeof id === "string" && !isCatalogId(id)) ||
      (typeof version === "string" && /^\d+\.\d+\.\d+$/.test(version) && !new RegExp(TOOL_VERSION_PATTERN).test(version)) ||
      (typeof timeoutMs === "number" && timeoutMs > MAX_TIMEOUT_MS)
    );
  }

  test("difference: ids follow the path parameter's grammar, versions have no leading zeros, timeoutMs fits a timer", () => {
    const cases: Array<[Manifest, string]> = [
      [{ ...base, id: "x".repeat(201) }, "/id"],
      [{ ...base, id: "acme\ttool" }, "/id"],
      [{ ...base, version: "01.0.0" }, "/version"],
      [http({ timeoutMs: MAX_TIMEOUT_MS + 1 }), "/spec/timeoutMs"],
    ];
    for (const [manifest, path] of cases) {
      expect(referenceAccepts(manifest)).toBe(true);
      expect(stricterOnPurpose(manifest)).toBe(true);
      expectIssue(manifest, path);
    }
  });

  test("on every corpus manifest without 1.3.0 additions, our schema and 1.1.0 agree (but where ours is stricter on purpose)", () => {
    const manifests = [...validManifests(), ...invalidManifests()].map((entry) => without13Additions(entry.manifest)).filter((manifest) => !stricterOnPurpose(manifest));
    const disagreements = manifests.filter((manifest) => referenceAccepts(manifest) !== ourSchemaAccepts(manifest));
    expect(disagreements).toEqual([]);
  });

  test("every valid corpus manifest without 1.3.0 additions is valid under 1.1.0", () => {
    for (const { name, manifest } of validManifests()) expect(referenceAccepts(without13Additions(manifest)), name).toBe(true);
  });

  test("difference: 1.3.0 adds needsApprovalWhenUnattended, pauses and resultIsOutsideData", () => {
    for (const field of ["needsApprovalWhenUnattended", "resultIsOutsideData"]) {
      expect(referenceAccepts({ ...base, [field]: true })).toBe(false);
      expectValid({ ...base, [field]: true });
    }
    expect(referenceAccepts({ ...base, codeArtifactRef: handler, pauses: true })).toBe(false);
    expectValid({ ...base, codeArtifactRef: handler, pauses: true });
  });

  test('difference: 1.3.0 adds needsSpec.connections and authorization kind "connection"', () => {
    const manifest = http(
      { authorization: { kind: "connection", connection: "mail" } },
      { needsSpec: { connections: { mail: { app: "google", permissions: ["gmail.readonly"], as: "person" } } } },
    );
    expect(referenceAccepts(manifest)).toBe(false);
    expectValid(manifest);
  });

  test("difference: rules beyond the schema reject what 1.1.0's schema alone accepts", () => {
    const cases: Array<[Manifest, string]> = [
      [http({ urlTemplate: "https://{id}.example.com/" }), "/spec/urlTemplate"],
      [http({}, { codeArtifactRef: handler }), "/spec"],
      [{ ...base, input: { type: "array", prefixItems: [{}] } }, "/input"],
      [{ ...base, mcpEndpoint: "example" }, "/mcpEndpoint"],
      [{ ...base, network: { kind: "allowlist", hosts: ["https://x.example/"] } }, "/network/hosts/0"],
    ];
    for (const [manifest, path] of cases) {
      expect(referenceAccepts(manifest)).toBe(true);
      expectIssue(manifest, path);
    }
  });

  test("the route seed's generated example body fails only where its placeholders are not real values", () => {
    const { projectId: _projectId, ...example } = JSON.parse(
      /body: '(\{.*\})'/.exec(readFileSync(path.resolve(import.meta.dirname, "../../tests/fixtures/seeds/003_8b0ba644dbd077e8.txt"), "utf8"))![1],
    );
    expect(referenceAccepts(example)).toBe(false); // successStatus 1 is below 100 in 1.1.0 too
    expect([...new Set(issuesOf(example).map((issue) => issue.path))].sort()).toEqual([
      "/mcpEndpoint", // "example" is no MCP endpoint
      "/spec", // spec together with codeArtifactRef
      "/spec/successStatus/max",
      "/spec/successStatus/min",
      "/spec/urlTemplate", // "example" is no absolute URL
      "/version", // "example" is no MAJOR.MINOR.PATCH
    ]);
  });
});
