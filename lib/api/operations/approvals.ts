import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";
import { APPROVAL_ORDERS, APPROVAL_STATUSES, APPROVAL_STATUS_FILTERS } from "@/lib/services/approvals";

const approvalParams = { approvalId: { kind: "uuid", description: "Approval id." } } as const;
const ref = { type: "object", required: ["id", "version"], properties: { id: { type: "string" }, version: { type: "string" } } } as const;

export const approvalSchema = {
  type: "object",
  required: ["id", "kind", "status", "projectId", "runId", "callId", "agent", "conversationId", "tool", "reason", "effects", "arguments", "argumentsHash", "editedArguments", "startedBy", "origin", "requestedAt", "expiresAt", "decidedBy", "decidedAt", "rationale", "grantId", "onExpired"],
  properties: {
    id: uuid,
    kind: { enum: ["tool-call", "session"], description: "`tool-call`: one call the approval gate stopped. `session`: the next turn of a conversation (the agent's conversationPolicy.hitlAfterTurns)." },
    status: { enum: [...APPROVAL_STATUSES] },
    projectId: uuid,
    runId: uuid,
    callId: { type: "string", description: "The kernel's call id (`<model call>.<position>`); `session` for a session approval." },
    agent: nullable(ref),
    conversationId: nullable(uuid),
    tool: nullable({ ...ref, description: "The exact tool version the call was resolved to." }),
    reason: { enum: ["mutating", "unattended", "person-connection", "hitl-after-turns"], description: "mutating: a mutating tool's call with no matching grant; unattended: a tool with needsApprovalWhenUnattended in a run no person started; person-connection: a tool acting with a person's connection in such a run; hitl-after-turns: a session approval." },
    effects: { type: "array", items: { type: "object", additionalProperties: true }, description: "The tool's declared effects." },
    arguments: { description: "The exact arguments of the call (after the input schema's defaults)." },
    argumentsHash: nullable({ type: "string", description: "sha256 (hex) of the arguments as canonical JSON: the approval is bound to it." }),
    editedArguments: { description: "The arguments the reviewer approved instead; null when not edited." },
    startedBy: { ...uuid, description: "The user the run acts for." },
    origin: nullable({ type: "object", additionalProperties: true, description: "What started the run (its origin)." }),
    requestedAt: dateTime,
    expiresAt: dateTime,
    decidedBy: nullable(uuid),
    decidedAt: nullable(dateTime),
    rationale: nullable({ type: "string" }),
    grantId: nullable({ ...uuid, description: "The grant an approve-and-remember created." }),
    onExpired: { enum: ["reject", "fail"], description: "What happens if nobody decides before `expiresAt`, fixed when it was asked: `reject` — the call goes back to the model as a rejection with reason `expired` and the turn continues; `fail` — the turn fails with approval-expired. The agent's `onApprovalExpired` (PATCH /v1/agents/{agentId}), else the deployment's KINDGI_APPROVAL_EXPIRED (default reject). A session approval always fails." },
  },
} as const;

export const grantSchema = {
  type: "object",
  required: ["id", "projectId", "agentId", "toolId", "condition", "approvalId", "createdBy", "createdAt", "revokedAt", "revokedBy"],
  properties: {
    id: uuid,
    projectId: uuid,
    agentId: { type: "string" },
    toolId: { type: "string" },
    condition: { description: "A JSON Schema the call's arguments must match for the grant to apply; null: every call." },
    approvalId: nullable(uuid),
    createdBy: uuid,
    createdAt: dateTime,
    revokedAt: nullable(dateTime),
    revokedBy: nullable(uuid),
  },
} as const;

export const listApprovalsOperation = defineOperation({
  operationId: "listApprovals",
  method: "GET",
  path: "/v1/approvals",
  tag: "Approvals",
  summary: "List approvals, oldest first",
  description: "A list of decided approvals (`status` decided, approved, rejected, expired or withdrawn) is ordered by when they were decided; any other by when they were asked for.",
  auth: "key",
  query: {
    ...pageQuery,
    status: { enum: [...APPROVAL_STATUS_FILTERS], description: "Only approvals in this status; `decided`: approved, rejected, expired or withdrawn." },
    order: { enum: [...APPROVAL_ORDERS], default: "oldest", description: "`oldest` first (the default) or `newest` first." },
    runId: { ...uuid, description: "Only this run's approvals." },
    agentId: { type: "string", minLength: 1, maxLength: 200, description: "Only this agent's approvals." },
    toolId: { type: "string", minLength: 1, maxLength: 200, description: "Only calls of this tool." },
    projectId: { ...uuid, description: "Only this project's approvals." },
  },
  responses: { 200: { description: "A page of approvals.", schema: pageOf(approvalSchema) } },
  errors: ["bad-input", "unknown-field"],
});

export const streamApprovalsOperation = defineOperation({
  operationId: "streamApprovals",
  method: "GET",
  path: "/v1/approvals/stream",
  tag: "Approvals",
  summary: "Stream created and decided approvals as server-sent events",
  description:
    "`text/event-stream`: each event is `id: <seq>` (numbered per tenant), `event: approval.requested` or `approval.decided`, `data: {seq, type, approval, createdAt}`. Resumable: send `Last-Event-ID` (or `since`) to get only later events; without either the stream starts with what comes next.",
  auth: "key",
  query: { since: { type: "integer", minimum: 0, maximum: 2000000000, description: "Start after this sequence number (Last-Event-ID wins when both are given)." } },
  responses: { 200: { description: "The event stream.", schema: { type: "object", required: ["seq", "type", "approval", "createdAt"], properties: { seq: { type: "integer" }, type: { enum: ["approval.requested", "approval.decided"] }, approval: approvalSchema, createdAt: dateTime } }, contentType: "text/event-stream" } },
  errors: ["bad-input", "unknown-field"],
});

export const getApprovalOperation = defineOperation({
  operationId: "getApproval",
  method: "GET",
  path: "/v1/approvals/{approvalId}",
  tag: "Approvals",
  summary: "Get an approval: the call, its exact arguments, the tool's effects, who started the run, its expiry and decision",
  auth: "key",
  params: approvalParams,
  responses: { 200: { description: "The approval.", schema: approvalSchema } },
  errors: ["bad-input", "not-found"],
});

export const completeApprovalOperation = defineOperation({
  operationId: "completeApproval",
  method: "POST",
  path: "/v1/approvals/{approvalId}/complete",
  tag: "Approvals",
  summary: "Decide an approval: approve (optionally edited, optionally remembered), reject or withdraw",
  description:
    "A person decides (a service account's key or a viewer → 403). `approve` runs the call — with `arguments`, the edited ones (validated against the tool's input schema: 400 validation-failed with issues, nothing recorded); `remember: true` (or `{condition: <JSON Schema>}`) also grants later calls of this tool by this agent in the project (those matching the condition). `reject` sends the call's result back to the model with the rationale and the turn continues. `withdraw` ends the run (cancelled). The run resumes at once. The same decision again → 200 with the current state; a different one → 409 approval-already-decided; on a finished run → 409 run-already-terminal.",
  auth: "key",
  idempotent: true,
  params: approvalParams,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["decision"],
      additionalProperties: false,
      properties: {
        decision: { enum: ["approve", "reject", "withdraw"] },
        rationale: { type: "string", maxLength: 4000 },
        remember: { oneOf: [{ type: "boolean" }, { type: "object", required: ["condition"], additionalProperties: false, properties: { condition: { type: ["object", "boolean"], additionalProperties: true, description: "A JSON Schema the arguments of later calls must match." } } }] },
        arguments: { type: "object", additionalProperties: true, description: "Approve these arguments instead of the model's (recorded beside the original)." },
      },
    },
  },
  responses: { 200: { description: "The decided approval.", schema: approvalSchema } },
  errors: ["bad-input", "unknown-field", "validation-failed", "not-found", "permission-denied", "approval-already-decided", "run-already-terminal"],
});

export const listGrantsOperation = defineOperation({
  operationId: "listApprovalGrants",
  method: "GET",
  path: "/v1/approval-grants",
  tag: "Approvals",
  summary: "List remembered approvals (grants), newest first",
  auth: "key",
  query: {
    ...pageQuery,
    agentId: { type: "string", minLength: 1, maxLength: 200, description: "Only this agent's grants." },
    toolId: { type: "string", minLength: 1, maxLength: 200, description: "Only grants of this tool." },
    projectId: { ...uuid, description: "Only this project's grants." },
    revoked: { type: "boolean", description: "true: only revoked grants; false: only live ones." },
  },
  responses: { 200: { description: "A page of grants.", schema: pageOf(grantSchema) } },
  errors: ["bad-input", "unknown-field"],
});

export const revokeGrantOperation = defineOperation({
  operationId: "revokeApprovalGrant",
  method: "POST",
  path: "/v1/approval-grants/{grantId}/revoke",
  tag: "Approvals",
  summary: "Revoke a grant: later calls ask again",
  description: "Revoking a revoked grant answers it as it is.",
  auth: "key",
  idempotent: true,
  params: { grantId: { kind: "uuid", description: "Grant id." } },
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } },
  responses: { 200: { description: "The revoked grant.", schema: grantSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const completeWaitOperation = defineOperation({
  operationId: "completeWait",
  method: "POST",
  path: "/v1/waits/{waitId}/complete",
  tag: "Approvals",
  summary: "Answer a paused tool call (its completion link)",
  description:
    "No API key: the wait token the handler handed over (`context.pause()`) is the credential, in the body. `output` must match the tool's output schema (400 validation-failed, nothing changes); it becomes the call's result and the run resumes. Completing a completed wait answers it as it is. An unknown wait or a wrong token → 404; an expired or withdrawn wait → 409 wait-not-pending.",
  auth: "none",
  params: { waitId: { kind: "uuid", description: "Wait id." } },
  body: {
    validation: "schema",
    schema: { type: "object", required: ["token", "output"], additionalProperties: false, properties: { token: { type: "string", minLength: 1, maxLength: 200 }, output: { description: "The call's result." } } },
  },
  responses: {
    200: {
      description: "The completed wait.",
      schema: { type: "object", required: ["id", "runId", "callId", "toolId", "status", "output", "expiresAt", "completedAt"], properties: { id: uuid, runId: uuid, callId: { type: "string" }, toolId: { type: "string" }, status: { enum: ["completed"] }, output: {}, expiresAt: dateTime, completedAt: nullable(dateTime) } },
    },
  },
  errors: ["bad-input", "unknown-field", "validation-failed", "not-found", "wait-not-pending"],
});
