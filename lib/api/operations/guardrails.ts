import type { JsonSchema } from "@/lib/api/operation";
import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";
import { guardrailDefinitionSchema } from "@/lib/guardrails/definition";

const guardrailParams = { guardrailId: { kind: "catalogId", description: "Guardrail id, e.g. `acme.no-secrets`." } } as const;
// Guardrail versions are full semver (prerelease and build allowed): the path form is checked by the service (400 bad-input).
const versionParams = { ...guardrailParams, version: { kind: "catalogId", description: "Exact version, e.g. `1.2.0` or `2.0.0-beta.1`." } } as const;

/** POST /v1/guardrails body: a guardrail definition plus, optionally, `projectId`. */
export const registerGuardrailBodySchema: JsonSchema = {
  ...guardrailDefinitionSchema,
  title: "RegisterGuardrailBody",
  properties: {
    ...guardrailDefinitionSchema.properties,
    projectId: {
      type: "string",
      format: "uuid",
      description: "Project this belongs to (its content scope). Default: the key's project, else the tenant's default project. Not a project in the caller's tenant → 400 bad-input.",
    },
  },
};

const versionSummary = {
  type: "object",
  required: ["version", "status", "isLatest", "registeredAt", "statusChangedAt"],
  properties: { version: { type: "string" }, status: { enum: ["active", "unregistered"] }, isLatest: { type: "boolean" }, registeredAt: dateTime, statusChangedAt: nullable(dateTime) },
} as const;

export const guardrailVersionSchema = {
  type: "object",
  required: ["guardrailId", "version", "projectId", "status", "isLatest", "registeredAt", "registeredBy", "statusChangedAt", "definition"],
  properties: {
    guardrailId: { type: "string" },
    version: { type: "string" },
    projectId: uuid,
    status: { enum: ["active", "unregistered"] },
    isLatest: { type: "boolean", description: "This is the highest active version: the one runs use." },
    registeredAt: dateTime,
    registeredBy: uuid,
    statusChangedAt: nullable(dateTime),
    definition: { ...guardrailDefinitionSchema, description: "The definition exactly as registered." },
  },
} as const;

const guardrailSummary = {
  type: "object",
  required: ["guardrailId", "projectId", "latestVersion", "name", "description", "action", "checkKind", "tags", "registeredAt"],
  properties: {
    guardrailId: { type: "string" },
    projectId: uuid,
    latestVersion: { type: "string" },
    name: { type: "string" },
    description: { type: "string" },
    action: { enum: ["halt", "flag"] },
    checkKind: { enum: ["regex", "deny-terms", "max-length", "json-schema"], description: "The latest version's `check.kind`." },
    tags: { type: "array", items: { type: "string" } },
    registeredAt: dateTime,
  },
} as const;

export const registerGuardrailOperation = defineOperation({
  operationId: "registerGuardrail",
  method: "POST",
  path: "/v1/guardrails",
  tag: "Guardrails",
  summary: "Register a guardrail version",
  description:
    "Body is a guardrail definition plus, optionally, `projectId`. Validated with validateGuardrailDefinition: the schema, then a `regex` check's pattern compiles (JavaScript, with the `u` flag and its flags), a `deny-terms` check's terms are distinct, a `json-schema` check's schema compiles as Draft 2020-12 in Ajv strict mode. Each problem is in `details.issues` with its JSON pointer.",
  auth: "key",
  idempotent: true,
  body: { validation: "top-level", schema: registerGuardrailBodySchema },
  responses: { 201: { description: "Guardrail version registered.", schema: { type: "object", required: ["guardrailId", "version"], properties: { guardrailId: { type: "string" }, version: { type: "string" } } } } },
  errors: ["bad-input", "unknown-field", "validation-failed", "guardrail-already-registered", "guardrail-project-mismatch", "permission-denied"],
});

export const listGuardrailsOperation = defineOperation({
  operationId: "listGuardrails",
  method: "GET",
  path: "/v1/guardrails",
  tag: "Guardrails",
  summary: "List guardrails (latest active version of each), ordered by id",
  auth: "key",
  query: {
    ...pageQuery,
    projectId: { ...uuid, description: "Only this project's guardrails." },
    q: { type: "string", minLength: 1, maxLength: 200, description: "Case-insensitive search over id, name, description and tags." },
    tag: { type: "string", minLength: 1, maxLength: 200, description: "Only guardrails with this tag (exact)." },
  },
  responses: { 200: { description: "A page of guardrails.", schema: pageOf(guardrailSummary) } },
  errors: ["bad-input", "unknown-field"],
});

export const getGuardrailOperation = defineOperation({
  operationId: "getGuardrail",
  method: "GET",
  path: "/v1/guardrails/{guardrailId}",
  tag: "Guardrails",
  summary: "Get a guardrail: its latest active version and the list of its versions",
  auth: "key",
  params: guardrailParams,
  responses: {
    200: {
      description: "The guardrail.",
      schema: {
        type: "object",
        required: ["guardrailId", "projectId", "latestVersion", "latest", "versions", "createdAt"],
        properties: { guardrailId: { type: "string" }, projectId: uuid, latestVersion: nullable({ type: "string" }), latest: nullable(guardrailVersionSchema), versions: { type: "array", items: versionSummary }, createdAt: dateTime },
      },
    },
  },
  errors: ["bad-input", "not-found"],
});

export const listGuardrailVersionsOperation = defineOperation({
  operationId: "listGuardrailVersions",
  method: "GET",
  path: "/v1/guardrails/{guardrailId}/versions",
  tag: "Guardrails",
  summary: "List a guardrail's versions, newest first",
  auth: "key",
  params: guardrailParams,
  query: { ...pageQuery },
  responses: { 200: { description: "A page of versions.", schema: pageOf(versionSummary) } },
  errors: ["bad-input", "not-found", "unknown-field"],
});

export const getGuardrailVersionOperation = defineOperation({
  operationId: "getGuardrailVersion",
  method: "GET",
  path: "/v1/guardrails/{guardrailId}/versions/{version}",
  tag: "Guardrails",
  summary: "Get one version of a guardrail, with its definition exactly as registered",
  auth: "key",
  params: versionParams,
  responses: { 200: { description: "The version.", schema: guardrailVersionSchema } },
  errors: ["bad-input", "not-found"],
});

export const unregisterGuardrailVersionOperation = defineOperation({
  operationId: "unregisterGuardrailVersion",
  method: "POST",
  path: "/v1/guardrails/{guardrailId}/versions/{version}/unregister",
  tag: "Guardrails",
  summary: "Hide a version from lists and from resolution (never deleted)",
  description: "Runs resolve an agent's guardrail id to the highest active version; with every version unregistered, the id resolves to nothing.",
  auth: "key",
  idempotent: true,
  params: versionParams,
  responses: { 200: { description: "The version, now unregistered.", schema: guardrailVersionSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const reinstateGuardrailVersionOperation = defineOperation({
  operationId: "reinstateGuardrailVersion",
  method: "POST",
  path: "/v1/guardrails/{guardrailId}/versions/{version}/reinstate",
  tag: "Guardrails",
  summary: "Bring an unregistered version back",
  auth: "key",
  idempotent: true,
  params: versionParams,
  responses: { 200: { description: "The version, active again.", schema: guardrailVersionSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});
