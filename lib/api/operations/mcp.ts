import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";

const endpointParams = { endpointId: { kind: "uuid", description: "The MCP endpoint's id." } } as const;

const issue = { type: "object", required: ["path", "message"], properties: { path: { type: "string" }, message: { type: "string" } } } as const;

/** An MCP endpoint and its status. */
const mcpEndpoint = {
  type: "object",
  required: ["id", "projectId", "name", "endpoint", "transport", "headers", "status", "lastError", "serverName", "serverVersion", "toolCount", "tools", "lastRefreshAt", "createdAt", "updatedAt"],
  properties: {
    id: uuid,
    projectId: uuid,
    name: { type: "string" },
    endpoint: { type: "string" },
    transport: { enum: ["stdio", "http", "sse"] },
    headers: {
      type: "object",
      description: "Header names: the secret a header names, or `{value: \"[set]\"}` for a literal value (never shown).",
      additionalProperties: { oneOf: [{ type: "object", required: ["secret"], properties: { secret: { type: "string" } } }, { type: "object", required: ["value"], properties: { value: { const: "[set]" } } }] },
    },
    status: { enum: ["connected", "error", "unregistered"], description: "`connected` after the last successful registration or refresh; `error` when the last one failed (see `lastError`)." },
    lastError: { ...nullable({ type: "string" }), description: "Why the last connection or listing failed." },
    serverName: nullable({ type: "string" }),
    serverVersion: nullable({ type: "string" }),
    toolCount: { type: "integer", minimum: 0 },
    tools: { type: "array", items: { type: "object", required: ["toolId", "version", "name"], properties: { toolId: { type: "string" }, version: { type: "string" }, name: { type: "string", description: "The tool's name on the MCP server." } } } },
    skipped: { type: "array", description: "Only in the answer of a registration or refresh: listed tools that could not be registered.", items: { type: "object", required: ["name", "issues"], properties: { name: { type: "string" }, issues: { type: "array", items: issue } } } },
    lastRefreshAt: nullable(dateTime),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
} as const;

export const registerMcpEndpointOperation = defineOperation({
  operationId: "registerMcpEndpoint",
  method: "POST",
  path: "/v1/mcp/endpoints",
  tag: "MCP",
  summary: "Register an MCP server: connect, list its tools and register each as a tool version",
  description:
    "`endpoint` is `mcp+stdio://<command line>` (program and arguments split on whitespace, quotes group, no shell), `mcp+http://<url>` (Streamable HTTP) or `mcp+sse://<url>` (a host without scheme means http://). " +
    "Each listed tool (every page of `tools/list`) becomes `<name>.<tool name>` (lower case, other characters than a-z 0-9 . _ - replaced by -) with `transport: \"mcp\"`, `mutating: false` only when its annotations say `readOnlyHint: true`, its schemas as the server declares them, and `metadata` {mcpToolName, title, annotations, mcpServer}; " +
    "the version is the server's when it is semver, else 1.0.0, and the next patch when that version exists. " +
    "Stdio endpoints start a process on the server's host: only when the server runs with KINDGI_MCP_STDIO=allow (else 403 mcp-stdio-disabled); the process gets an allowlisted environment only (PATH, HOME, LANG, LC_ALL, TZ, TMPDIR, USER, LOGNAME, SHELL, TERM, NODE_PATH). " +
    "URL endpoints follow the network rules of HTTP tools: loopback and private addresses are refused (403 mcp-endpoint-refused) unless the server runs with KINDGI_MCP_ALLOW_PRIVATE_URLS=1; cloud metadata addresses always. " +
    "A header value is a literal string or `{\"secret\": \"<name>\"}` naming a stored secret, resolved when connecting. A server that cannot be started, reached or listed is 502 mcp-connection-failed and nothing is registered.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["name", "endpoint", "projectId"],
      additionalProperties: false,
      properties: {
        name: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$", description: "Prefix of the tools' ids; unique in the tenant." },
        endpoint: { type: "string", minLength: 1, maxLength: 4096, pattern: "^mcp\\+(stdio|http|sse)://", examples: ["mcp+stdio://npx -y @modelcontextprotocol/server-memory", "mcp+http://mcp.example.com/mcp"] },
        projectId: uuid,
        headers: {
          type: "object",
          description: "Sent on every HTTP request to a URL endpoint.",
          propertyNames: { pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$" },
          additionalProperties: { oneOf: [{ type: "string", maxLength: 8192 }, { type: "object", required: ["secret"], additionalProperties: false, properties: { secret: { type: "string", pattern: "^[A-Za-z0-9_.-]{1,128}$" } } }] },
        },
      },
    },
  },
  responses: { 201: { description: "The endpoint, connected, with the tools it registered.", schema: mcpEndpoint } },
  errors: ["bad-input", "unknown-field", "validation-failed", "permission-denied", "mcp-stdio-disabled", "mcp-endpoint-refused", "mcp-endpoint-already-registered", "mcp-connection-failed", "sandbox-unavailable", "secret-not-found", "tool-project-mismatch"],
});

export const listMcpEndpointsOperation = defineOperation({
  operationId: "listMcpEndpoints",
  method: "GET",
  path: "/v1/mcp/endpoints",
  tag: "MCP",
  summary: "List the MCP endpoints the caller's projects registered, newest first",
  auth: "key",
  query: { ...pageQuery, projectId: { ...uuid, description: "Only this project's endpoints." } },
  responses: { 200: { description: "A page of endpoints.", schema: pageOf(mcpEndpoint) } },
  errors: ["bad-input", "unknown-field"],
});

export const getMcpEndpointOperation = defineOperation({
  operationId: "getMcpEndpoint",
  method: "GET",
  path: "/v1/mcp/endpoints/{endpointId}",
  tag: "MCP",
  summary: "Get an MCP endpoint and its status",
  auth: "key",
  params: endpointParams,
  responses: { 200: { description: "The endpoint.", schema: mcpEndpoint } },
  errors: ["bad-input", "not-found"],
});

export const refreshMcpEndpointOperation = defineOperation({
  operationId: "refreshMcpEndpoint",
  method: "POST",
  path: "/v1/mcp/endpoints/{endpointId}/refresh",
  tag: "MCP",
  summary: "Connect afresh and list the server's tools again",
  description: "A changed tool gets a new version, a new tool is registered, a tool the server no longer lists is unregistered. The pooled connection is replaced (a call in flight on it is cut). A failure records `status: error` with `lastError` and answers 502 mcp-connection-failed.",
  auth: "key",
  idempotent: true,
  params: endpointParams,
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } },
  responses: { 200: { description: "The endpoint after the refresh.", schema: mcpEndpoint } },
  errors: ["bad-input", "not-found", "permission-denied", "mcp-stdio-disabled", "mcp-endpoint-refused", "mcp-connection-failed", "sandbox-unavailable", "secret-not-found"],
});

export const unregisterMcpEndpointOperation = defineOperation({
  operationId: "unregisterMcpEndpoint",
  method: "POST",
  path: "/v1/mcp/endpoints/{endpointId}/unregister",
  tag: "MCP",
  summary: "Unregister an MCP endpoint and its tools and close its connection",
  description: "Runs that already resolved one of its tools keep the version, but its calls connect only as the manifest says (without the endpoint's headers). The name can be registered again in the same project.",
  auth: "key",
  idempotent: true,
  params: endpointParams,
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } },
  responses: { 200: { description: "The endpoint, `status: unregistered`.", schema: mcpEndpoint } },
  errors: ["bad-input", "not-found", "permission-denied"],
});
