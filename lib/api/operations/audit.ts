import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";

const entry = {
  type: "object",
  required: ["id", "action", "subjectType", "subjectId", "projectId", "actorId", "data", "createdAt"],
  properties: {
    id: uuid,
    action: { type: "string", description: "What was done, e.g. `api-key.created`, `api-key.revoked`, `connection.created`, `schedule.paused`, `webhook.tools-allowed-unattended-set`, `notification-endpoint.deleted`." },
    subjectType: { type: "string", examples: ["api-key", "connection", "schedule", "webhook", "notification-endpoint", "secret"] },
    subjectId: { type: "string" },
    projectId: nullable(uuid),
    actorId: { ...uuid, description: "The user (person or service account) who did it." },
    data: { ...nullable({ type: "object", additionalProperties: true }), description: "What changed (never a secret or token)." },
    createdAt: dateTime,
  },
} as const;

export const listAuditOperation = defineOperation({
  operationId: "listAudit",
  method: "GET",
  path: "/v1/audit",
  tag: "Audit",
  summary: "List the tenant's audit events, newest first (tenant admins)",
  description: "Every key mint and revocation, connection, secret, trigger (create, pause, resume, unregister, toolsAllowedUnattended) and notification endpoint change, with who and when. A tenant admin's key narrowed to a project sees only that project's entries; anyone else gets 403 permission-denied.",
  auth: "key",
  query: {
    ...pageQuery,
    action: { type: "string", minLength: 1, maxLength: 200, description: "Only this action." },
    subjectType: { type: "string", minLength: 1, maxLength: 100, description: "Only this kind of subject." },
    subjectId: { type: "string", minLength: 1, maxLength: 200, description: "Only this subject." },
    actorId: { ...uuid, description: "Only what this user did." },
    projectId: { ...uuid, description: "Only entries recorded for this project." },
    since: { ...dateTime, description: "Only entries at or after this instant." },
    until: { ...dateTime, description: "Only entries before this instant." },
  },
  responses: { 200: { description: "A page of audit events.", schema: pageOf(entry) } },
  errors: ["bad-input", "unknown-field", "permission-denied"],
});
