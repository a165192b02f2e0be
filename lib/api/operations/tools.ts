import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";
import { runSchema } from "@/lib/api/operations/runs";
import { EFFECT_KINDS, registerToolBodySchema, toolManifestSchema } from "@/lib/tools/manifest-schema";

const toolParams = { toolId: { kind: "catalogId", description: "Tool id, e.g. `acme.verify-citation`." } } as const;
const versionParams = { ...toolParams, version: { kind: "version", description: "Exact version, e.g. `1.2.0`." } } as const;

const versionSummary = {
  type: "object",
  required: ["version", "status", "isLatest", "registeredAt", "statusChangedAt"],
  properties: { version: { type: "string" }, status: { enum: ["active", "unregistered"] }, isLatest: { type: "boolean" }, registeredAt: dateTime, statusChangedAt: nullable(dateTime) },
} as const;

export const toolVersionSchema = {
  type: "object",
  required: ["toolId", "version", "projectId", "status", "isLatest", "registeredAt", "registeredBy", "statusChangedAt", "manifest", "builtIn", "artifact"],
  properties: {
    toolId: { type: "string" },
    version: { type: "string" },
    projectId: { ...nullable(uuid), description: "The project the tool is registered in; null for a built-in tool." },
    status: { enum: ["active", "unregistered"] },
    isLatest: { type: "boolean", description: "This is the highest active version." },
    registeredAt: { ...dateTime, description: "When the version was registered (for a built-in tool: when it shipped)." },
    registeredBy: { ...nullable(uuid), description: "Who registered the version; null for a built-in tool." },
    statusChangedAt: nullable(dateTime),
    manifest: { ...toolManifestSchema, description: "The manifest exactly as registered (a built-in tool's own manifest)." },
    builtIn: { type: "boolean", description: "A tool built into Kindgi (`transport: \"native\"`, bare id): it needs no registration and resolves in every project." },
    artifact: {
      type: ["object", "null"],
      required: ["imageRef", "digest", "artifactVersion"],
      properties: { imageRef: { type: "string" }, digest: { type: "string", pattern: "^sha256:[a-f0-9]{64}$" }, artifactVersion: { type: "string" } },
      description: "An `oci` handler's artifact: the manifest digest its `imageRef` resolved to when the version was registered. The version always runs these bytes, whatever the tag points to later. Null for other tools.",
    },
  },
} as const;

const toolSummary = {
  type: "object",
  required: ["toolId", "projectId", "latestVersion", "description", "mutating", "transport", "effects", "tags", "needsApprovalWhenUnattended", "pauses", "resultIsOutsideData", "registeredAt", "builtIn"],
  properties: {
    toolId: { type: "string" },
    projectId: { ...nullable(uuid), description: "The project the tool is registered in; null for a built-in tool." },
    latestVersion: { type: "string" },
    description: { type: "string" },
    mutating: { type: "boolean" },
    transport: { enum: ["auto", "native", "mcp"] },
    effects: { type: "array", items: { enum: [...EFFECT_KINDS] } },
    tags: { type: "array", items: { type: "string" }, description: "From `metadata.tags`." },
    needsApprovalWhenUnattended: { type: "boolean", description: "From the manifest (false when absent): an unattended call asks for approval every time." },
    pauses: { type: "boolean", description: "From the manifest (false when absent): the tool pauses the run until it is resumed." },
    resultIsOutsideData: { type: "boolean", description: "From the manifest (false when absent): the result is treated as outside data, not instructions." },
    registeredAt: { ...dateTime, description: "When the latest version was registered (for a built-in tool: when it shipped)." },
    builtIn: { type: "boolean", description: "A tool built into Kindgi (`transport: \"native\"`, bare id): it needs no registration and resolves in every project." },
  },
} as const;

export const registerToolOperation = defineOperation({
  operationId: "registerTool",
  method: "POST",
  path: "/v1/tools",
  tag: "Tools",
  summary: "Register a tool manifest",
  description:
    "Body is a ToolManifest (Tool 1.3.0 minus its runtime handler) plus `projectId`. Validated with validateToolManifest: the schema, then `input`/`output` compile as Draft 2020-12 (MCP tools: their declared dialect), endpoint forms, URL template placeholders only in path and query, `transport` (`\"native\"` refuses an `mcpEndpoint` and a handler at a `sandbox` other than `none`; `\"mcp\"` requires an `mcpEndpoint` and refuses a `spec` or handler beside it). Metadata only: the handler is not uploaded. The ids of the tools built into Kindgi (`current-time`, `remember`, `recall`) are reserved: `validation-failed` at `/id`.",
  auth: "key",
  idempotent: true,
  body: { validation: "top-level", schema: registerToolBodySchema },
  responses: {
    201: {
      description: "Tool registered.",
      schema: {
        type: "object",
        required: ["toolId", "version", "warnings"],
        properties: {
          toolId: { type: "string" },
          version: { type: "string" },
          warnings: {
            type: "array",
            description:
              "Problems that do not stop the registration: a tool this server cannot invoke (an MCP tool, a pack handler, a tool with neither `spec` nor handler) is registered with a warning at the field concerned, since every run that calls it gets a tool error; and a declaration that cannot apply to how the tool runs gets one at its pointer saying why — `/sandbox`, `/limits`, `/needs`, `/needsSpec/env`, `/needsSpec/config`, `/needsSpec/secrets` on a tool run by its HTTP `spec` or on an MCP server reached by URL (only a pack handler honours them), and `/network` on the latter.",
            items: { type: "object", required: ["path", "message"], properties: { path: { type: "string", description: "JSON pointer." }, message: { type: "string" } } },
          },
        },
      },
    },
  },
  errors: ["bad-input", "unknown-field", "validation-failed", "tool-already-registered", "tool-project-mismatch", "permission-denied"],
});

export const listToolsOperation = defineOperation({
  operationId: "listTools",
  method: "GET",
  path: "/v1/tools",
  tag: "Tools",
  summary: "List tools (latest active version of each), ordered by id",
  description: "Includes the tools built into Kindgi (`current-time`, `remember`, `recall`: latest version, `builtIn: true`, `projectId: null`) in the id order, filtered like registered tools; `projectId` does not exclude them, as they resolve in every project. A tool the tenant registered under a built-in id before the id was reserved is listed instead of the built-in.",
  auth: "key",
  query: {
    ...pageQuery,
    projectId: { ...uuid, description: "Only this project's tools (and the built-in tools)." },
    q: { type: "string", minLength: 1, maxLength: 200, description: "Case-insensitive search over id, description and tags." },
    effect: { enum: [...EFFECT_KINDS], description: "Only tools declaring this effect kind." },
    mutating: { type: "boolean", description: "Only mutating (true) or read-only (false) tools." },
    transport: { enum: ["auto", "native", "mcp"], description: "Only tools with this transport." },
  },
  responses: { 200: { description: "A page of tools.", schema: pageOf(toolSummary) } },
  errors: ["bad-input", "unknown-field"],
});

export const getToolOperation = defineOperation({
  operationId: "getTool",
  method: "GET",
  path: "/v1/tools/{toolId}",
  tag: "Tools",
  summary: "Get a tool: its latest active version and the list of its versions",
  description: "Also answers for the tools built into Kindgi (`current-time`, `remember`, `recall`), with `builtIn: true` and no project, unless the tenant registered a tool of that id before the id was reserved.",
  auth: "key",
  params: toolParams,
  responses: {
    200: {
      description: "The tool.",
      schema: {
        type: "object",
        required: ["toolId", "projectId", "latestVersion", "latest", "versions", "createdAt", "builtIn"],
        properties: {
          toolId: { type: "string" },
          projectId: { ...nullable(uuid), description: "The project the tool is registered in; null for a built-in tool." },
          latestVersion: nullable({ type: "string" }),
          latest: nullable(toolVersionSchema),
          versions: { type: "array", items: versionSummary },
          createdAt: dateTime,
          builtIn: { type: "boolean", description: "A tool built into Kindgi: it needs no registration and resolves in every project." },
        },
      },
    },
  },
  errors: ["bad-input", "not-found"],
});

export const listToolVersionsOperation = defineOperation({
  operationId: "listToolVersions",
  method: "GET",
  path: "/v1/tools/{toolId}/versions",
  tag: "Tools",
  summary: "List a tool's versions, newest first",
  auth: "key",
  params: toolParams,
  query: { ...pageQuery },
  responses: { 200: { description: "A page of versions.", schema: pageOf(versionSummary) } },
  errors: ["bad-input", "not-found", "unknown-field"],
});

export const getToolVersionOperation = defineOperation({
  operationId: "getToolVersion",
  method: "GET",
  path: "/v1/tools/{toolId}/versions/{version}",
  tag: "Tools",
  summary: "Get one version of a tool, with its manifest exactly as registered",
  description: "A built-in tool's version answers with its own manifest and `builtIn: true`.",
  auth: "key",
  params: versionParams,
  responses: { 200: { description: "The version.", schema: toolVersionSchema } },
  errors: ["bad-input", "not-found"],
});

export const unregisterToolVersionOperation = defineOperation({
  operationId: "unregisterToolVersion",
  method: "POST",
  path: "/v1/tools/{toolId}/versions/{version}/unregister",
  tag: "Tools",
  summary: "Hide a version from resolution and lists (never deleted)",
  auth: "key",
  idempotent: true,
  params: versionParams,
  responses: { 200: { description: "The version, now unregistered.", schema: toolVersionSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const reinstateToolVersionOperation = defineOperation({
  operationId: "reinstateToolVersion",
  method: "POST",
  path: "/v1/tools/{toolId}/versions/{version}/reinstate",
  tag: "Tools",
  summary: "Bring an unregistered version back",
  auth: "key",
  idempotent: true,
  params: versionParams,
  responses: { 200: { description: "The version, active again.", schema: toolVersionSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

const invokeBody = {
  type: "object",
  required: ["arguments"],
  additionalProperties: false,
  properties: {
    projectId: { ...uuid, description: "The project of the run. A registered tool's run lives in the tool's project (another one → 409 tool-project-mismatch); a built-in tool's in this project, else the key's, else the tenant's default project." },
    arguments: { type: "object", additionalProperties: true, description: "The tool's input, validated against its input schema (problems → 400 validation-failed, `details.issues` pointing into the body, e.g. `/arguments/address/city`); defaults are filled before the call." },
    options: { type: "object", additionalProperties: false, properties: { wait: { type: "boolean", default: true, description: "Answer once the run is settled (201); false: at once (202)." } } },
  },
} as const;

const invokeDescription =
  "A tool invocation is a run (kind `tool-invocation`, no agent, no model): listed by GET /v1/runs, with a journal (run-created, invocation-started, tool-call-started, tool-call-completed, run-completed or run-failed) and a stream. It takes the same path as an agent's call: input validation with defaults, the scheduler, output validation, the wall-clock budget (maxWallMs default 120000), the call's idempotency key. The run's `output` is the JSON value the tool returned; a failed call fails the run (`tool-invocation-failed`, with `details.kind` and `details.reason`, e.g. network-denied). With `wait` (default true) the answer is 201 once the run is settled, else 202 at once. An unregistered version → 409 tool-version-unregistered; a viewer → 403.";

const invokeResponses = {
  201: { description: "The settled run; `output` is the tool's result, or `failure` says why the call failed.", schema: runSchema },
  202: { description: "The run, accepted and running.", schema: runSchema },
} as const;

const invokeErrors = ["bad-input", "unknown-field", "validation-failed", "not-found", "permission-denied", "tool-project-mismatch", "tool-version-unregistered"] as const;

export const invokeToolVersionOperation = defineOperation({
  operationId: "invokeToolVersion",
  method: "POST",
  path: "/v1/tools/{toolId}/versions/{version}/invoke",
  tag: "Tools",
  summary: "Invoke one tool version directly, as a run",
  description: invokeDescription,
  auth: "key",
  idempotent: true,
  params: versionParams,
  body: { validation: "schema", schema: invokeBody },
  responses: invokeResponses,
  errors: [...invokeErrors],
});

export const invokeToolOperation = defineOperation({
  operationId: "invokeTool",
  method: "POST",
  path: "/v1/tools/{toolId}/invoke",
  tag: "Tools",
  summary: "Invoke a tool's latest active version directly, as a run",
  description: `The same as POST /v1/tools/{toolId}/versions/{version}/invoke with the highest active version (the run records which). ${invokeDescription}`,
  auth: "key",
  idempotent: true,
  params: toolParams,
  body: { validation: "schema", schema: invokeBody },
  responses: invokeResponses,
  errors: [...invokeErrors],
});
