import type { JsonSchema } from "@/lib/api/operation";
import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";
import { agentDefinitionSchema } from "@/lib/agents/agent-schema";

const agentParams = { agentId: { kind: "catalogId", description: "Agent id, e.g. `acme.citation-verifier`." } } as const;
// Agent versions are full semver (prerelease and build allowed): the path form is checked by the service (400 bad-input).
const versionParams = { ...agentParams, version: { kind: "catalogId", description: "Exact version, e.g. `1.2.0` or `2.0.0-beta.1`." } } as const;

const issue = { type: "object", required: ["path", "message"], properties: { path: { type: "string", description: "JSON pointer." }, message: { type: "string" } } } as const;
const issues = { type: "array", items: issue } as const;

const parameterFormSchema = {
  type: "object",
  required: ["fields"],
  properties: {
    fields: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "label", "kind", "type", "required"],
        properties: {
          name: { type: "string" },
          label: { type: "string" },
          kind: { enum: ["text", "number", "checkbox", "date"] },
          type: { enum: ["string", "number", "boolean", "date"] },
          required: { type: "boolean" },
          default: {},
          description: { type: "string" },
          inputMode: { enum: ["text", "decimal"] },
          placeholder: { type: "string" },
        },
      },
    },
  },
} as const;

const { $schema: _dialect, ...definitionSchema } = agentDefinitionSchema;

const projectIdProperty = {
  type: "string",
  format: "uuid",
  description: "Project this belongs to (its content scope). Required: missing, or not a project in the caller's tenant → 400 bad-input.",
} as const;

/** POST /v1/agents body: an agent definition plus `projectId`. */
export const registerAgentBodySchema: JsonSchema = {
  ...definitionSchema,
  title: "RegisterAgentBody",
  required: [...agentDefinitionSchema.required, "projectId"],
  properties: { ...agentDefinitionSchema.properties, projectId: projectIdProperty },
};

/** POST /v1/agents/validate body: a definition, possibly incomplete, and optionally the project to resolve tools in. */
const validateAgentBodySchema: JsonSchema = {
  type: "object",
  title: "ValidateAgentBody",
  description: "An agent definition (possibly incomplete: every problem is reported in the answer) and optionally `projectId`.",
  properties: {
    ...agentDefinitionSchema.properties,
    projectId: { ...projectIdProperty, description: "Project to resolve tool ranges in. Default: the key's project, else the tenant's default project. A foreign project → 400 bad-input." },
  },
};

const versionSummary = {
  type: "object",
  required: ["version", "status", "isLatest", "registeredAt", "statusChangedAt"],
  properties: { version: { type: "string" }, status: { enum: ["active", "unregistered"] }, isLatest: { type: "boolean" }, registeredAt: dateTime, statusChangedAt: nullable(dateTime) },
} as const;

export const agentVersionSchema = {
  type: "object",
  required: ["agentId", "version", "projectId", "status", "isLatest", "registeredAt", "registeredBy", "statusChangedAt", "definition"],
  properties: {
    agentId: { type: "string" },
    version: { type: "string" },
    projectId: uuid,
    status: { enum: ["active", "unregistered"] },
    isLatest: { type: "boolean", description: "This is the highest active version." },
    registeredAt: dateTime,
    registeredBy: uuid,
    statusChangedAt: nullable(dateTime),
    definition: { ...definitionSchema, description: "The definition exactly as registered." },
  },
} as const;

const agentSummary = {
  type: "object",
  required: ["agentId", "projectId", "latestVersion", "name", "description", "tags", "registeredAt"],
  properties: {
    agentId: { type: "string" },
    projectId: uuid,
    latestVersion: { type: "string" },
    name: { type: "string" },
    description: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
    registeredAt: dateTime,
  },
} as const;

const routingSchema = {
  oneOf: [
    {
      type: "object",
      required: ["providerId", "model", "reason"],
      properties: { providerId: { type: "string" }, model: { type: "string" }, reason: { type: "string", description: "Why this provider and model (and whether preferredProvider/preferredModel were honoured)." } },
    },
    { type: "object", required: ["error", "message", "capability"], properties: { error: { const: "no-provider" }, message: { type: "string", description: "What no provider has." }, capability: { type: "integer", minimum: 0, description: "Index in `capabilities` of the `llm-inference` entry no provider can serve (0 when the agent has none: the turn's model is then routed as a bare `llm-inference` entry)." } } },
  ],
} as const;

export const registerAgentOperation = defineOperation({
  operationId: "registerAgent",
  method: "POST",
  path: "/v1/agents",
  tag: "Agents",
  summary: "Register an agent version",
  description:
    "Body is an agent definition (Agent 1.3.0 plus `parallelToolCalls`) plus `projectId`. Validated with validateAgentDefinition: the schema, reserved and duplicate parameter names, defaults of the declared type, npm semver tool ranges, output.schema compiling as Draft 2020-12, every Liquid variable declared. A tool range that resolves to no active version today is accepted and listed in `warnings` at `/tools/<i>/version` (a run would fail with tool-version-unresolvable); one that resolves to a tool this server cannot invoke (an MCP tool, a pack handler, a tool with neither `spec` nor handler) is listed at `/tools/<i>`. A capability entry no configured provider can serve is listed at `/capabilities/<i>`: for an `llm-inference` entry its runs would fail with no-provider; for another kind (e.g. `embedding`) only the calls that need it fail.",
  auth: "key",
  idempotent: true,
  body: { validation: "top-level", schema: registerAgentBodySchema },
  responses: {
    201: {
      description: "Agent version registered.",
      schema: { type: "object", required: ["agentId", "version", "warnings"], properties: { agentId: { type: "string" }, version: { type: "string" }, warnings: issues } },
    },
  },
  errors: ["bad-input", "unknown-field", "validation-failed", "agent-already-registered", "agent-project-mismatch", "permission-denied"],
});

export const listAgentsOperation = defineOperation({
  operationId: "listAgents",
  method: "GET",
  path: "/v1/agents",
  tag: "Agents",
  summary: "List agents (latest active version of each), ordered by id",
  auth: "key",
  query: {
    ...pageQuery,
    projectId: { ...uuid, description: "Only this project's agents." },
    q: { type: "string", minLength: 1, maxLength: 200, description: "Case-insensitive search over id, name, description and tags." },
    tag: { type: "string", minLength: 1, maxLength: 200, description: "Only agents with this tag (exact)." },
  },
  responses: { 200: { description: "A page of agents.", schema: pageOf(agentSummary) } },
  errors: ["bad-input", "unknown-field"],
});

// Named to sort before the `{agentId}` operations: lib/api/method-table.ts takes the first path template that
// matches, in the (alphabetical) order of this module's exports, and `/v1/agents/{agentId}` also matches
// `/v1/agents/validate`.
export const dryRunAgentOperation = defineOperation({
  operationId: "validateAgent",
  method: "POST",
  path: "/v1/agents/validate",
  tag: "Agents",
  summary: "Validate an agent definition without registering it (dry run)",
  description:
    "Answers 200 with every problem (`issues`) and warning (including a tool range that resolves to a tool this server cannot invoke, at `/tools/<i>`), what each tool range resolves to now, and which provider and model would serve the agent. `valid` is false when there is an issue, including when no configured provider can serve one of the agent's `llm-inference` capabilities (an issue at that entry, e.g. `/capabilities/1`), the model the turn needs. A capability entry of another kind (e.g. `embedding`) that no provider serves is a warning at its entry: it fails a turn only if the turn needs it.",
  auth: "key",
  idempotent: true,
  body: { validation: "top-level", schema: validateAgentBodySchema },
  responses: {
    200: {
      description: "The verdict.",
      schema: {
        type: "object",
        required: ["valid", "issues", "warnings", "resolution", "routing", "embeddingRouting"],
        properties: {
          valid: { type: "boolean" },
          issues,
          warnings: issues,
          resolution: {
            type: "array",
            items: {
              type: "object",
              required: ["index", "id", "range", "version", "available"],
              properties: {
                index: { type: "integer", description: "Index in `tools`." },
                id: { type: "string" },
                range: { type: "string" },
                version: nullable({ type: "string" }),
                available: { type: "array", items: { type: "string" }, description: "Active versions of the tool, highest first." },
              },
            },
          },
          routing: routingSchema,
          embeddingRouting: {
            oneOf: [
              routingSchema.oneOf[0],
              { type: "object", required: ["error", "message"], properties: { error: { const: "no-provider" }, message: { type: "string" }, capability: { type: ["integer", "null"], description: "Index in `capabilities` of the `embedding` entry no provider can serve; null for the project's default." } } },
            ],
            description: "The embedding model retrieval by meaning (`semantic`, `both`) would use: the agent's first `embedding` capability entry's route, else the project's default (the first embedding provider configured, else `dev-embed`).",
          },
        },
      },
    },
  },
  errors: ["bad-input", "unknown-field"],
});

/** The part of a definition a preview reads; the rest of a draft may be sent along and is ignored. */
const draftDefinitionSchema = (required: string[]) => ({
  type: "object",
  description: "The definition being edited (it need not be registered, nor complete: only the fields named here are read).",
  required,
  properties: {
    id: { type: "string", maxLength: 200, description: "For `agent.id`. Default empty." },
    name: { type: "string", maxLength: 200, description: "For `agent.name`. Default empty." },
    version: { type: "string", maxLength: 200, description: "For `agent.version`. Default empty." },
    instructions: agentDefinitionSchema.properties.instructions,
    parameters: agentDefinitionSchema.properties.parameters,
  },
});

export const previewAgentRenderOperation = defineOperation({
  operationId: "renderAgentDraft",
  method: "POST",
  path: "/v1/agents/render",
  tag: "Agents",
  summary: "Render the instructions of an unregistered definition with sample parameters (editor live preview)",
  description:
    "Stateless: nothing is read from or written to the registry. Checks the template (syntax, filters, every variable a declared parameter or an auto-var), then the parameters against the declared ones (required, type, unknown names), then renders with them and the auto-vars — the same render a turn does. Problems are 400 validation-failed with `details.issues`: template problems at `/definition/instructions`, each with its 1-based `line` and `column` besides `path` and `message`, parameter problems at `/parameters/<name>`. A registered version is rendered by `POST /v1/agents/{agentId}/versions/{version}/render`.",
  auth: "key",
  body: {
    validation: "schema",
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["definition"],
      properties: {
        definition: draftDefinitionSchema(["instructions"]),
        parameters: { type: "object", additionalProperties: true, description: "Parameter values by name; omitted ones take their default." },
        conversation: {
          type: "object",
          additionalProperties: false,
          description: "The `conversation.*` auto-vars. Default: no conversation (id null), turn 1.",
          properties: { id: { type: ["string", "null"], maxLength: 200 }, turn: { type: "integer", minimum: 1 } },
        },
      },
    },
  },
  responses: {
    200: {
      description: "The rendered instructions.",
      schema: { type: "object", required: ["rendered", "parameters"], properties: { rendered: { type: "string" }, parameters: { type: "object", additionalProperties: true, description: "Every declared parameter's value, defaults applied (null for an omitted optional one)." } } },
    },
  },
  errors: ["bad-input", "unknown-field", "validation-failed"],
});

export const previewAgentFormOperation = defineOperation({
  operationId: "getAgentDraftForm",
  method: "POST",
  path: "/v1/agents/form",
  tag: "Agents",
  summary: "The configuration form the parameters of an unregistered definition describe (editor live preview)",
  description: "Stateless: the same description as `GET /v1/agents/{agentId}/versions/{version}/form`, from the `parameters` of the definition sent.",
  auth: "key",
  body: {
    validation: "schema",
    schema: { type: "object", additionalProperties: false, required: ["definition"], properties: { definition: draftDefinitionSchema([]) } },
  },
  responses: { 200: { description: "One field per declared parameter, in declaration order.", schema: parameterFormSchema } },
  errors: ["bad-input", "unknown-field"],
});

const agentEntrySchema = {
  required: ["agentId", "projectId", "latestVersion", "latest", "versions", "createdAt", "onApprovalExpired", "effectiveOnApprovalExpired"],
  properties: {
    agentId: { type: "string" },
    projectId: uuid,
    latestVersion: nullable({ type: "string" }),
    latest: nullable(agentVersionSchema),
    versions: { type: "array", items: versionSummary },
    createdAt: dateTime,
    onApprovalExpired: { enum: ["reject", "fail", null], description: "The agent's choice of what an expired approval does (PATCH /v1/agents/{agentId}); null: the deployment's default." },
    effectiveOnApprovalExpired: { enum: ["reject", "fail"], description: "What an approval asked now would do on expiry: the agent's choice, else the deployment's KINDGI_APPROVAL_EXPIRED (default reject)." },
  },
};

export const getAgentOperation = defineOperation({
  operationId: "getAgent",
  method: "GET",
  path: "/v1/agents/{agentId}",
  tag: "Agents",
  summary: "Get an agent: its latest active version and the list of its versions",
  auth: "key",
  params: agentParams,
  responses: {
    200: {
      description: "The agent.",
      schema: {
        type: "object",
        required: agentEntrySchema.required,
        properties: agentEntrySchema.properties,
      },
    },
  },
  errors: ["bad-input", "not-found"],
});

export const updateAgentOperation = defineOperation({
  operationId: "updateAgent",
  method: "PATCH",
  path: "/v1/agents/{agentId}",
  tag: "Agents",
  summary: "Change an agent's settings outside its versioned definition (what an expired approval does)",
  description:
    "`onApprovalExpired`: what happens to a call of this agent whose approval nobody decided before it expired — `reject` (the call goes back to the model as a rejection with reason `expired` and the turn continues), `fail` (the turn fails with approval-expired), or null (the deployment's KINDGI_APPROVAL_EXPIRED, `reject` unless set). It applies to every version and to approvals asked from now on (each approval shows its own `onExpired`). A viewer → 403. Recorded in the audit log.",
  auth: "key",
  idempotent: true,
  params: agentParams,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["onApprovalExpired"],
      additionalProperties: false,
      properties: { onApprovalExpired: { enum: ["reject", "fail", null], description: "reject, fail, or null for the deployment's default." } },
    },
  },
  responses: { 200: { description: "The agent, as GET answers it.", schema: { type: "object", required: agentEntrySchema.required, properties: agentEntrySchema.properties } } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const listAgentVersionsOperation = defineOperation({
  operationId: "listAgentVersions",
  method: "GET",
  path: "/v1/agents/{agentId}/versions",
  tag: "Agents",
  summary: "List an agent's versions, newest first",
  auth: "key",
  params: agentParams,
  query: { ...pageQuery },
  responses: { 200: { description: "A page of versions.", schema: pageOf(versionSummary) } },
  errors: ["bad-input", "not-found", "unknown-field"],
});

export const getAgentVersionOperation = defineOperation({
  operationId: "getAgentVersion",
  method: "GET",
  path: "/v1/agents/{agentId}/versions/{version}",
  tag: "Agents",
  summary: "Get one version of an agent, with its definition exactly as registered",
  auth: "key",
  params: versionParams,
  responses: { 200: { description: "The version.", schema: agentVersionSchema } },
  errors: ["bad-input", "not-found"],
});

export const unregisterAgentVersionOperation = defineOperation({
  operationId: "unregisterAgentVersion",
  method: "POST",
  path: "/v1/agents/{agentId}/versions/{version}/unregister",
  tag: "Agents",
  summary: "Hide a version from lists and from being the latest (never deleted)",
  auth: "key",
  idempotent: true,
  params: versionParams,
  responses: { 200: { description: "The version, now unregistered.", schema: agentVersionSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const reinstateAgentVersionOperation = defineOperation({
  operationId: "reinstateAgentVersion",
  method: "POST",
  path: "/v1/agents/{agentId}/versions/{version}/reinstate",
  tag: "Agents",
  summary: "Bring an unregistered version back",
  auth: "key",
  idempotent: true,
  params: versionParams,
  responses: { 200: { description: "The version, active again.", schema: agentVersionSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const getAgentVersionResolutionOperation = defineOperation({
  operationId: "getAgentVersionResolution",
  method: "GET",
  path: "/v1/agents/{agentId}/versions/{version}/resolution",
  tag: "Agents",
  summary: "What each tool range of a version would resolve to now",
  description: "Each range resolves to the highest ACTIVE registered version of the tool that satisfies it (npm semver rules), in the agent's tenant and project — what a run started now would use.",
  auth: "key",
  params: versionParams,
  responses: {
    200: {
      description: "The resolution.",
      schema: {
        type: "object",
        required: ["agentId", "version", "projectId", "resolved", "unresolved"],
        properties: {
          agentId: { type: "string" },
          version: { type: "string" },
          projectId: uuid,
          resolved: { type: "array", items: { type: "object", required: ["id", "range", "version"], properties: { id: { type: "string" }, range: { type: "string" }, version: { type: "string" } } } },
          unresolved: {
            type: "array",
            items: { type: "object", required: ["id", "range", "available"], properties: { id: { type: "string" }, range: { type: "string" }, available: { type: "array", items: { type: "string" }, description: "Active versions that exist, highest first." } } },
          },
        },
      },
    },
  },
  errors: ["bad-input", "not-found"],
});

export const renderAgentVersionOperation = defineOperation({
  operationId: "renderAgentVersion",
  method: "POST",
  path: "/v1/agents/{agentId}/versions/{version}/render",
  tag: "Agents",
  summary: "Render a version's instructions with parameters (editor preview)",
  description:
    "Checks the parameters against the declared ones (required, type, unknown names) and renders the instructions with them and the auto-vars (`today`, `now`, `agent.*`, `conversation.*`) — the same render a turn does. Problems are 400 validation-failed with `details.issues` at `/parameters/<name>` or `/instructions`.",
  auth: "key",
  idempotent: true,
  params: versionParams,
  body: {
    validation: "schema",
    optional: true,
    schema: {
      type: "object",
      additionalProperties: false,
      properties: {
        parameters: { type: "object", additionalProperties: true, description: "Parameter values by name; omitted ones take their default." },
        conversation: {
          type: "object",
          additionalProperties: false,
          description: "The `conversation.*` auto-vars. Default: no conversation (id null), turn 1.",
          properties: { id: { type: ["string", "null"], maxLength: 200 }, turn: { type: "integer", minimum: 1 } },
        },
      },
    },
  },
  responses: {
    200: {
      description: "The rendered instructions.",
      schema: { type: "object", required: ["rendered", "parameters"], properties: { rendered: { type: "string" }, parameters: { type: "object", additionalProperties: true, description: "Every declared parameter's value, defaults applied (null for an omitted optional one)." } } },
    },
  },
  errors: ["bad-input", "unknown-field", "not-found", "validation-failed"],
});

export const getAgentVersionFormOperation = defineOperation({
  operationId: "getAgentVersionForm",
  method: "GET",
  path: "/v1/agents/{agentId}/versions/{version}/form",
  tag: "Agents",
  summary: "The configuration form a version's parameters describe",
  auth: "key",
  params: versionParams,
  responses: {
    200: {
      description: "One field per declared parameter, in declaration order.",
      schema: parameterFormSchema,
    },
  },
  errors: ["bad-input", "not-found"],
});
