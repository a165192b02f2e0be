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

/** Where a client learns how to authenticate to the MCP server (RFC 9728). */
export const MCP_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource/v1/mcp";

/** What both MCP server operations (the project's and a toolset's) say about the protocol. */
export const MCP_SERVER_DESCRIPTION =
  "One JSON-RPC message of the Model Context Protocol (revisions 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07): `initialize`, `ping`, `logging/setLevel`, `tools/list` and `tools/call`. `tools/call` is answered as a `text/event-stream` (its notifications, then its result), everything else as JSON. " +
  "Sessions: `initialize` answers an `Mcp-Session-Id` (kept in the database for 30 days: any replica serves any request of it; only the key that opened it may use it); a request naming an unknown or ended one is 404 (initialize again); requests without one are served too (nothing is kept for them). The session keeps the level `logging/setLevel` sets. GET opens the stream of `notifications/tools/list_changed` (sent when the tenant's catalog changes, on any replica); DELETE ends the session. " +
  "Authentication: an API key as `Authorization: Bearer kgi_…` (there is no OAuth authorization server); without a valid key the answer is 401 with `WWW-Authenticate: Bearer resource_metadata=\"<origin>/.well-known/oauth-protected-resource/v1/mcp\"`. " +
  "DNS rebinding: a request whose Host (X-Forwarded-Host behind a proxy) is not localhost, 127.0.0.1, [::1], the host of KINDGI_PUBLIC_URL or one in KINDGI_ALLOWED_HOSTS / KINDGI_ALLOWED_ORIGINS is 403 host-not-allowed; one carrying an `Origin` header that is neither this server's origin nor in KINDGI_ALLOWED_ORIGINS is 403 origin-not-allowed. " +
  "The project: the key's when it is narrowed to one, else `projectId`, else the tenant's default project. " +
  "`tools/list`: the built-in tools, then the project's tools (latest active version of each) by id, 50 a page with `nextCursor`; the name is the tool id (an id that is not a valid MCP tool name is escaped: each byte other than A-Z a-z 0-9 - . becomes `_` and two hex digits); annotations from the manifest: readOnlyHint = `mutating: false`, destructiveHint = an effect `writes` or `deletes`, openWorldHint = an effect `network` or `external-side-effect`. " +
  "`tools/call`: a `tool-invocation` run with origin `mcp` (attended for a person's key, unattended for a service account's), awaited within its wall-clock budget; the tool's log lines arrive as `notifications/message` (logger: the tool id) and a handler's `context.progress` as `notifications/progress` when the request has a `progressToken`; the output is `structuredContent` (an object) and a text item with its JSON; a failed run or invalid arguments is a result with `isError: true` and the code and message. " +
  "A mutating tool asks for a person's approval, as an agent's call does: the request stays open (a progress and a log notification name the approval and its console link `/approvals/{id}`) up to KINDGI_MCP_APPROVAL_WAIT_MS (default 50000); decided in time, it answers the result (`_meta[\"kindgi/editedArguments\"]` and a text item when the reviewer edited the arguments) or `isError` with the reviewer's reason; else `isError` \"waiting for approval <id>\", and the same call again (same tool, same arguments, same key) waits for that same approval and run. An unknown tool is the JSON-RPC error -32602.";

export const mcpServerOperation = defineOperation({
  operationId: "mcpServer",
  method: "POST",
  path: "/v1/mcp",
  tag: "MCP",
  summary: "The project's tools as an MCP server (Streamable HTTP)",
  description: MCP_SERVER_DESCRIPTION,
  auth: "key",
  sameOriginOnly: true,
  resourceMetadataPath: MCP_RESOURCE_METADATA_PATH,
  query: { projectId: { ...uuid, description: "The project whose tools are served (a key narrowed to a project serves that one)." } },
  body: { validation: "any-object", schema: { type: "object", additionalProperties: true, required: ["jsonrpc"], description: "A JSON-RPC 2.0 request or notification of MCP.", properties: { jsonrpc: { const: "2.0" }, id: { type: ["string", "integer"] }, method: { type: "string" }, params: { type: "object", additionalProperties: true } } } },
  responses: {
    200: { description: "The JSON-RPC response.", schema: { type: "object", additionalProperties: true, required: ["jsonrpc"], properties: { jsonrpc: { const: "2.0" }, id: { type: ["string", "integer"] }, result: { type: "object", additionalProperties: true }, error: { type: "object", additionalProperties: true } } } },
    202: { description: "A notification or a response was accepted (no body).", schema: { type: "object", additionalProperties: true, description: "Empty." } },
  },
  errors: ["bad-input", "host-not-allowed", "origin-not-allowed", "not-found", "permission-denied", "not-acceptable", "unsupported-media-type"],
});

export const mcpServerStreamOperation = defineOperation({
  operationId: "mcpServerStream",
  method: "GET",
  path: "/v1/mcp",
  tag: "MCP",
  summary: "The MCP server's stream of notifications (tools/list_changed)",
  description: "With `Accept: text/event-stream`: an SSE stream of JSON-RPC notifications the server sends unasked: `notifications/tools/list_changed` when the tenant's catalog changes (a registration, a new version, an unregistration, on any replica), and a keep-alive comment every 25 s. It stays open until the client closes it. Authentication, Origin check and project as for POST.",
  auth: "key",
  sameOriginOnly: true,
  resourceMetadataPath: MCP_RESOURCE_METADATA_PATH,
  query: { projectId: { ...uuid, description: "The project whose tools are served (a key narrowed to a project serves that one)." } },
  responses: { 200: { description: "The notification stream.", schema: { type: "object", additionalProperties: true, description: "Each `data` is a JSON-RPC notification." }, contentType: "text/event-stream" } },
  errors: ["bad-input", "host-not-allowed", "origin-not-allowed", "not-found", "not-acceptable"],
});

export const mcpSessionEndOperation = defineOperation({
  operationId: "mcpSessionEnd",
  method: "DELETE",
  path: "/v1/mcp",
  tag: "MCP",
  summary: "End an MCP session",
  description: "Ends the session the `Mcp-Session-Id` header names (200 `{id, deleted: true}`); without the header 400, an unknown or ended session (or another key's) 404. Authentication, Host and Origin checks as for POST.",
  auth: "key",
  sameOriginOnly: true,
  resourceMetadataPath: MCP_RESOURCE_METADATA_PATH,
  query: { projectId: { ...uuid, description: "The project whose tools are served (a key narrowed to a project serves that one)." } },
  responses: { 200: { description: "The session, ended.", schema: { type: "object", required: ["id", "deleted"], properties: { id: uuid, deleted: { const: true } } } } },
  errors: ["bad-input", "host-not-allowed", "origin-not-allowed", "not-found"],
});

export const mcpResourceMetadataOperation = defineOperation({
  operationId: "mcpResourceMetadata",
  method: "GET",
  path: MCP_RESOURCE_METADATA_PATH,
  tag: "MCP",
  summary: "The MCP server's protected-resource metadata (RFC 9728; public)",
  description: "Names the resource (`<origin>/v1/mcp`) and how to send a credential: an API key as a bearer token in the Authorization header. `authorization_servers` is empty: there is no OAuth authorization server; create a key in the console (Settings → API keys) or with POST /v1/tokens.",
  auth: "none",
  responses: {
    200: {
      description: "The metadata document.",
      schema: {
        type: "object",
        required: ["resource", "authorization_servers", "bearer_methods_supported", "resource_documentation"],
        properties: {
          resource: { type: "string", format: "uri" },
          resource_name: { type: "string" },
          authorization_servers: { type: "array", items: { type: "string" }, maxItems: 0 },
          bearer_methods_supported: { type: "array", items: { const: "header" } },
          resource_documentation: { type: "string", format: "uri" },
        },
      },
    },
  },
  errors: [],
});
