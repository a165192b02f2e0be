import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";
import { MCP_RESOURCE_METADATA_PATH, mcpServerOperation, mcpServerStreamOperation, mcpSessionEndOperation } from "@/lib/api/operations/mcp";

const toolsetParams = { toolsetId: { kind: "uuid", description: "The toolset's id." } } as const;

const NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$";

/** A reference as written: an id and an npm semver range. */
const reference = (what: "tool" | "agent") =>
  ({
    type: "object",
    required: ["id", "version"],
    additionalProperties: false,
    properties: {
      id: { type: "string", minLength: 1, maxLength: 200, description: what === "tool" ? "A tool of the project, or a built-in tool (current-time, remember, recall)." : "An agent of the project." },
      version: { type: "string", minLength: 1, maxLength: 256, description: "An npm semver range (`1.2.3`, `^1.2`, `~1.2.0`, `*`), resolved as an agent's tool references are: to the highest active version satisfying it.", examples: ["^1.0.0"] },
    },
  }) as const;

const references = (what: "tool" | "agent") => ({ type: "array", maxItems: 200, items: reference(what) }) as const;

/** What a reference resolves to now. */
const resolvedReference = {
  type: "object",
  required: ["id", "range", "version"],
  properties: { id: { type: "string" }, range: { type: "string" }, version: { ...nullable({ type: "string" }), description: "The newest active version satisfying the range now; null when none does any more." } },
} as const;

/** A toolset as the API shows it. */
const toolset = {
  type: "object",
  required: ["id", "projectId", "name", "description", "tools", "agents", "resolved", "mcpPath", "createdAt", "updatedAt"],
  properties: {
    id: uuid,
    projectId: uuid,
    name: { type: "string" },
    description: nullable({ type: "string" }),
    tools: { type: "array", items: { type: "object", required: ["id", "version"], properties: { id: { type: "string" }, version: { type: "string" } } } },
    agents: { type: "array", items: { type: "object", required: ["id", "version"], properties: { id: { type: "string" }, version: { type: "string" } } } },
    resolved: {
      type: "object",
      required: ["tools", "agents"],
      properties: { tools: { type: "array", items: resolvedReference }, agents: { type: "array", items: resolvedReference } },
    },
    mcpPath: { type: "string", description: "Where the toolset is served as an MCP server: `/v1/mcp/toolsets/{id}`." },
    createdAt: dateTime,
    updatedAt: dateTime,
  },
} as const;

const rules =
  "Each reference names a tool of the project (or a built-in tool) or an agent of the project, with an npm semver range that must resolve to an active version now; " +
  "a reference that does not, a malformed range, an id listed twice, or two references served under the same MCP tool name (a tool and an agent of the same id) is 400 validation-failed with an issue at `/tools/<i>/id`, `/tools/<i>/version` (or `/agents/<i>/…`). " +
  `At most 200 references in all. The name is unique in the project (409 toolset-name-taken), 1 to 64 characters (${NAME_PATTERN}).`;

export const createToolsetOperation = defineOperation({
  operationId: "createToolset",
  method: "POST",
  path: "/v1/toolsets",
  tag: "Toolsets",
  summary: "Create a toolset: chosen tools and agents of a project, by version range, served as an MCP server",
  description:
    "The project: the key's when it is narrowed, else `projectId`, else the tenant's default project. " +
    rules +
    " The ranges are resolved when the toolset is read or called, never stored resolved: `resolved` shows what each one resolves to now. An agent is offered as a tool whose input is `{message, parameters?, conversationId?}` and whose result is `{answer, conversationId, runId}`.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["name", "tools"],
      additionalProperties: false,
      properties: {
        name: { type: "string", pattern: NAME_PATTERN, description: "Unique in the project." },
        description: { ...nullable({ type: "string", maxLength: 2000 }), description: "What the toolset is for." },
        projectId: { ...uuid, description: "The project (a key narrowed to a project uses that one); default: the tenant's default project." },
        tools: references("tool"),
        agents: references("agent"),
      },
    },
  },
  responses: { 201: { description: "The toolset.", schema: toolset } },
  errors: ["bad-input", "unknown-field", "validation-failed", "permission-denied", "toolset-name-taken"],
});

export const listToolsetsOperation = defineOperation({
  operationId: "listToolsets",
  method: "GET",
  path: "/v1/toolsets",
  tag: "Toolsets",
  summary: "List the toolsets of the caller's projects, newest first",
  auth: "key",
  query: { ...pageQuery, projectId: { ...uuid, description: "Only this project's toolsets." } },
  responses: { 200: { description: "A page of toolsets.", schema: pageOf(toolset) } },
  errors: ["bad-input", "unknown-field"],
});

export const getToolsetOperation = defineOperation({
  operationId: "getToolset",
  method: "GET",
  path: "/v1/toolsets/{toolsetId}",
  tag: "Toolsets",
  summary: "Get a toolset and what its references resolve to now",
  auth: "key",
  params: toolsetParams,
  responses: { 200: { description: "The toolset.", schema: toolset } },
  errors: ["bad-input", "not-found"],
});

export const updateToolsetOperation = defineOperation({
  operationId: "updateToolset",
  method: "PATCH",
  path: "/v1/toolsets/{toolsetId}",
  tag: "Toolsets",
  summary: "Change a toolset's name, description, tools or agents",
  description: `A list given replaces the stored one and is checked as on creation; a list not given is kept as it is. \`description: null\` clears it. ${rules} A viewer → 403.`,
  auth: "key",
  idempotent: true,
  params: toolsetParams,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      additionalProperties: false,
      minProperties: 1,
      properties: {
        name: { type: "string", pattern: NAME_PATTERN, description: "Unique in the project." },
        description: nullable({ type: "string", maxLength: 2000 }),
        tools: references("tool"),
        agents: references("agent"),
      },
    },
  },
  responses: { 200: { description: "The toolset.", schema: toolset } },
  errors: ["bad-input", "unknown-field", "validation-failed", "not-found", "permission-denied", "toolset-name-taken"],
});

export const deleteToolsetOperation = defineOperation({
  operationId: "deleteToolset",
  method: "DELETE",
  path: "/v1/toolsets/{toolsetId}",
  tag: "Toolsets",
  summary: "Delete a toolset: its MCP server answers 404 from then on (runs it started stay)",
  auth: "key",
  idempotent: true,
  params: toolsetParams,
  responses: { 204: { description: "Deleted (no body).", schema: { description: "No content." } } },
  errors: ["bad-input", "not-found", "permission-denied"],
});

export const mcpToolsetServerOperation = defineOperation({
  operationId: "mcpToolsetServer",
  method: "POST",
  path: "/v1/mcp/toolsets/{toolsetId}",
  tag: "MCP",
  summary: "A toolset's tools and agents as an MCP server (Streamable HTTP)",
  description:
    "As POST /v1/mcp, over the toolset's references instead of the project's catalog: `tools/list` shows each reference that resolves now (tools first, then agents, in the toolset's order), a tool at its resolved version (its manifest's description and schemas), an agent as a tool (title: its name; input `{message, parameters?, conversationId?}`; output `{answer, conversationId, runId}`; not read-only). " +
    "`tools/call` runs exactly the resolved version (a newer version outside the range is never called): a tool as a `tool-invocation` run, an agent as a turn whose user message is `message` (a `conversationId` must be pinned to a version the range allows). A name the toolset does not list is the JSON-RPC error -32602. Another tenant's toolset, or one outside a narrowed key's project, is 404.",
  auth: "key",
  sameOriginOnly: true,
  resourceMetadataPath: MCP_RESOURCE_METADATA_PATH,
  params: toolsetParams,
  body: mcpServerOperation.body,
  responses: mcpServerOperation.responses,
  errors: ["bad-input", "host-not-allowed", "origin-not-allowed", "permission-denied", "not-found", "not-acceptable", "unsupported-media-type"],
});

export const mcpToolsetServerStreamOperation = defineOperation({
  operationId: "mcpToolsetServerStream",
  method: "GET",
  path: "/v1/mcp/toolsets/{toolsetId}",
  tag: "MCP",
  summary: "A toolset's MCP server: its stream of notifications (tools/list_changed)",
  description: "As GET /v1/mcp, for the toolset's server.",
  auth: "key",
  sameOriginOnly: true,
  resourceMetadataPath: MCP_RESOURCE_METADATA_PATH,
  params: toolsetParams,
  responses: mcpServerStreamOperation.responses,
  errors: ["bad-input", "host-not-allowed", "origin-not-allowed", "not-found", "not-acceptable"],
});

export const mcpToolsetSessionEndOperation = defineOperation({
  operationId: "mcpToolsetSessionEnd",
  method: "DELETE",
  path: "/v1/mcp/toolsets/{toolsetId}",
  tag: "MCP",
  summary: "A toolset's MCP server: end a session",
  description: "As DELETE /v1/mcp, for the toolset's server.",
  auth: "key",
  sameOriginOnly: true,
  resourceMetadataPath: MCP_RESOURCE_METADATA_PATH,
  params: toolsetParams,
  responses: mcpSessionEndOperation.responses,
  errors: ["bad-input", "host-not-allowed", "origin-not-allowed", "not-found"],
});
