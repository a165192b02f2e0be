import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";

const project = {
  type: "object",
  required: ["id", "name", "isDefault", "createdAt"],
  properties: { id: uuid, name: { type: "string" }, isDefault: { type: "boolean" }, createdAt: dateTime },
} as const;

const token = {
  type: "object",
  required: ["id", "name", "prefix", "projectId", "actsFor", "createdAt", "lastUsedAt", "revokedAt"],
  properties: {
    id: uuid,
    name: { type: "string" },
    prefix: { type: "string", description: "The key's first characters, to tell keys apart." },
    projectId: nullable(uuid),
    actsFor: { type: "object", required: ["userId", "kind", "name"], properties: { userId: uuid, kind: { enum: ["person", "service"] }, name: { type: "string" } } },
    createdAt: dateTime,
    lastUsedAt: nullable(dateTime),
    revokedAt: nullable(dateTime),
  },
} as const;

const createdTenant = {
  type: "object",
  required: ["tenant", "project", "admin", "apiKey"],
  properties: {
    tenant: { type: "object", properties: { id: uuid, name: { type: "string" }, createdAt: dateTime } },
    project: project,
    admin: { type: "object", properties: { id: uuid, email: { type: "string" }, password: { type: "string", description: "Only when generated; shown once." } } },
    apiKey: { type: "object", properties: { id: uuid, key: { type: "string", description: "Shown once." }, prefix: { type: "string" } } },
  },
} as const;

export const createTenantOperation = defineOperation({
  operationId: "createTenant",
  method: "POST",
  path: "/v1/tenants",
  tag: "Tenancy",
  summary: "Create a tenant (operators only)",
  description: "Exists only when KINDGI_OPERATOR_TOKEN is set, and is authorized by that token alone. Creates the tenant, its default project, an admin user and an admin API key (shown once).",
  auth: "operator",
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["name"],
      additionalProperties: false,
      properties: {
        name: { type: "string", minLength: 1, maxLength: 200 },
        adminEmail: { type: "string", format: "email" },
        adminPassword: { type: "string", minLength: 8, maxLength: 200 },
      },
    },
  },
  responses: { 201: { description: "Tenant created; the API key and a generated password are in this response only.", schema: createdTenant } },
  errors: ["bad-input", "unknown-field", "auth-missing", "auth-invalid"],
});

export const listProjectsOperation = defineOperation({
  operationId: "listProjects",
  method: "GET",
  path: "/v1/projects",
  tag: "Tenancy",
  summary: "List the caller's projects",
  auth: "key",
  query: { ...pageQuery },
  responses: { 200: { description: "A page of projects, oldest first.", schema: pageOf(project) } },
  errors: ["bad-input", "unknown-field"],
});

export const getProjectOperation = defineOperation({
  operationId: "getProject",
  method: "GET",
  path: "/v1/projects/{projectId}",
  tag: "Tenancy",
  summary: "Get a project",
  auth: "key",
  params: { projectId: { kind: "uuid", description: "Project id." } },
  responses: { 200: { description: "The project.", schema: project } },
  errors: ["bad-input", "not-found"],
});

export const createProjectOperation = defineOperation({
  operationId: "createProject",
  method: "POST",
  path: "/v1/projects",
  tag: "Tenancy",
  summary: "Create a project (tenant admins)",
  auth: "key",
  idempotent: true,
  body: { validation: "schema", schema: { type: "object", required: ["name"], additionalProperties: false, properties: { name: { type: "string", minLength: 1, maxLength: 200 } } } },
  responses: { 201: { description: "The new project.", schema: project } },
  errors: ["bad-input", "unknown-field", "permission-denied", "project-name-taken"],
});

export const mintTokenOperation = defineOperation({
  operationId: "mintToken",
  method: "POST",
  path: "/v1/tokens",
  tag: "Tenancy",
  summary: "Mint an API key",
  description: "The key acts for the caller, or (tenant admins) for a new service account. It is in this response only; a replay of the same Idempotency-Key is refused with idempotency-key-replay-withheld.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["name"],
      additionalProperties: false,
      properties: {
        name: { type: "string", minLength: 1, maxLength: 200 },
        projectId: { ...uuid, description: "Narrow the key to this project." },
        serviceAccount: {
          type: "object",
          required: ["name"],
          additionalProperties: false,
          properties: { name: { type: "string", minLength: 1, maxLength: 200 }, role: { enum: ["admin", "member", "viewer"] } },
        },
      },
    },
  },
  responses: { 201: { description: "The key, shown once.", schema: { ...token, required: [...token.required, "key"], properties: { ...token.properties, key: { type: "string" } } } } },
  errors: ["bad-input", "unknown-field", "permission-denied"],
});

export const listTokensOperation = defineOperation({
  operationId: "listTokens",
  method: "GET",
  path: "/v1/tokens",
  tag: "Tenancy",
  summary: "List API keys (all of the tenant for admins, one's own otherwise)",
  auth: "key",
  query: { ...pageQuery, includeRevoked: { type: "boolean", default: true, description: "false hides revoked keys." } },
  responses: { 200: { description: "A page of keys, newest first (never the keys themselves).", schema: pageOf(token) } },
  errors: ["bad-input", "unknown-field"],
});

export const revokeTokenOperation = defineOperation({
  operationId: "revokeToken",
  method: "POST",
  path: "/v1/tokens/{tokenId}/revoke",
  tag: "Tenancy",
  summary: "Revoke an API key",
  description: "Effective on the key's next request. Revoking a revoked key answers it unchanged.",
  auth: "key",
  idempotent: true,
  params: { tokenId: { kind: "uuid", description: "API key id." } },
  responses: { 200: { description: "The revoked key.", schema: token } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const whoamiOperation = defineOperation({
  operationId: "whoami",
  method: "GET",
  path: "/v1/identity/whoami",
  tag: "Tenancy",
  summary: "Who the credential acts for",
  auth: "key",
  responses: {
    200: {
      description: "The tenant, the user and the key.",
      schema: {
        type: "object",
        required: ["tenant", "user", "apiKey"],
        properties: {
          tenant: { type: "object", properties: { id: uuid, name: { type: "string" }, defaultProjectId: nullable(uuid) } },
          user: { type: "object", properties: { id: uuid, kind: { type: "string" }, name: { type: "string" }, email: nullable({ type: "string" }), role: { type: "string" }, reviewerLevel: nullable({ type: "string" }) } },
          apiKey: nullable({ type: "object", properties: { id: uuid, prefix: { type: "string" }, projectId: nullable(uuid) } }),
        },
      },
    },
  },
  errors: [],
});
