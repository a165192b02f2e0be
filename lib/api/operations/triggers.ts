import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";

const scheduleParams = { scheduleId: { kind: "uuid", description: "The schedule's id." } } as const;
const webhookParams = { webhookId: { kind: "uuid", description: "The webhook's id." } } as const;
const emptyBody = { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } } as const;
const triggerStatus = { enum: ["active", "paused", "unregistered"] } as const;
const agentRef = {
  type: "object",
  required: ["id"],
  additionalProperties: false,
  properties: { id: { type: "string", minLength: 1, maxLength: 200 }, version: { type: "string", minLength: 1, maxLength: 100, description: "Exact version; absent: the highest active version at each fire or delivery." } },
} as const;
const toolsAllowedUnattended = {
  type: "array",
  maxItems: 100,
  uniqueItems: true,
  items: { type: "string", minLength: 1, maxLength: 200 },
  description: "Tools this trigger's runs may call without a person's approval even when they declare `needsApprovalWhenUnattended`. Setting it needs a project admin (today: a tenant admin; 403 permission-denied otherwise).",
} as const;
const failure = nullable({ type: "object", required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } } });
const runRef = nullable({ type: "object", required: ["id", "status"], properties: { id: uuid, status: { type: "string" } } });
const statusQuery = { status: { ...triggerStatus, description: "Only triggers in this state (default: active and paused)." } };

const schedule = {
  type: "object",
  required: ["id", "projectId", "name", "cron", "timezone", "agent", "input", "toolsAllowedUnattended", "status", "nextFireAt", "createdBy", "createdAt", "updatedAt"],
  properties: {
    id: uuid,
    projectId: uuid,
    name: { type: "string" },
    cron: { type: "string" },
    timezone: { type: "string" },
    agent: { type: "object", required: ["id", "version"], properties: { id: { type: "string" }, version: nullable({ type: "string" }) } },
    input: { type: "object", required: ["userMessage", "parameters"], properties: { userMessage: { type: "string" }, parameters: { type: "object", additionalProperties: true } } },
    toolsAllowedUnattended: { type: "array", items: { type: "string" } },
    status: triggerStatus,
    nextFireAt: { ...nullable(dateTime), description: "The next tick; null unless active." },
    createdBy: uuid,
    createdAt: dateTime,
    updatedAt: dateTime,
  },
} as const;

const fire = {
  type: "object",
  required: ["id", "scheduleId", "tick", "missed", "outcome", "runId", "run", "error", "firedAt"],
  properties: {
    id: uuid,
    scheduleId: uuid,
    tick: { ...dateTime, description: "The tick fired for." },
    missed: { type: "boolean", description: "The tick passed while no server ran; it fired once, late, when a server started (later missed ticks did not fire)." },
    outcome: { enum: ["pending", "started", "failed"] },
    runId: nullable(uuid),
    run: runRef,
    error: failure,
    firedAt: dateTime,
  },
} as const;

export const createScheduleOperation = defineOperation({
  operationId: "createSchedule",
  method: "POST",
  path: "/v1/schedules",
  tag: "Triggers",
  summary: "Create a schedule: a cron pattern in a time zone that starts unattended runs of an agent",
  description:
    "`cron` is a croner pattern: five fields (minute hour day-of-month month day-of-week) or six with seconds first; `timezone` an IANA zone. Both are checked here (400 validation-failed at `/cron` or `/timezone`). " +
    "Each fire starts a run as the schedule's owner (the caller), unattended, with origin `{kind: \"schedule\", scheduleId, fireId}`. Two replicas never fire the same tick; ticks missed while no server ran fire once when a server starts, not once each.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["name", "cron", "timezone", "agent", "input"],
      additionalProperties: false,
      properties: {
        projectId: { ...uuid, description: "The agent's project (default: the agent's, found in the caller's projects)." },
        name: { type: "string", minLength: 1, maxLength: 200 },
        cron: { type: "string", minLength: 1, maxLength: 200, examples: ["0 9 * * 1-5", "*/30 * * * * *"] },
        timezone: { type: "string", minLength: 1, maxLength: 100, examples: ["Europe/Berlin", "UTC"] },
        agent: agentRef,
        input: {
          type: "object",
          required: ["userMessage"],
          additionalProperties: false,
          properties: { userMessage: { type: "string", maxLength: 100_000 }, parameters: { type: "object", additionalProperties: true, description: "The agent's parameters, checked against its definition." } },
        },
        toolsAllowedUnattended,
      },
    },
  },
  responses: { 201: { description: "The schedule, active, with its next tick.", schema: schedule } },
  errors: ["bad-input", "unknown-field", "validation-failed", "permission-denied", "not-found"],
});

export const listSchedulesOperation = defineOperation({
  operationId: "listSchedules",
  method: "GET",
  path: "/v1/schedules",
  tag: "Triggers",
  summary: "List the schedules of the caller's projects, newest first",
  auth: "key",
  query: { ...pageQuery, projectId: { ...uuid, description: "Only this project's schedules." }, ...statusQuery },
  responses: { 200: { description: "A page of schedules.", schema: pageOf(schedule) } },
  errors: ["bad-input", "unknown-field"],
});

export const getScheduleOperation = defineOperation({
  operationId: "getSchedule",
  method: "GET",
  path: "/v1/schedules/{scheduleId}",
  tag: "Triggers",
  summary: "Get a schedule",
  auth: "key",
  params: scheduleParams,
  responses: { 200: { description: "The schedule.", schema: schedule } },
  errors: ["bad-input", "not-found"],
});

function scheduleAction(action: "pause" | "resume" | "unregister", summary: string, description: string) {
  return defineOperation({
    operationId: `${action}Schedule`,
    method: "POST",
    path: `/v1/schedules/{scheduleId}/${action}`,
    tag: "Triggers",
    summary,
    description,
    auth: "key",
    idempotent: true,
    params: scheduleParams,
    body: emptyBody,
    responses: { 200: { description: "The schedule after the change (the same when it was already so).", schema: schedule } },
    errors: ["bad-input", "not-found", "permission-denied", "trigger-unregistered"],
  });
}

export const pauseScheduleOperation = scheduleAction("pause", "Pause a schedule: it fires no more until resumed", "A paused schedule's ticks are not fired later: resuming starts from the next tick after the resume.");
export const resumeScheduleOperation = scheduleAction("resume", "Resume a paused schedule", "The next fire is the first tick after now.");
export const unregisterScheduleOperation = scheduleAction("unregister", "Unregister a schedule: it never fires again", "Its fires and their runs stay readable. An unregistered schedule cannot be paused or resumed (409 trigger-unregistered).");

export const listScheduleFiresOperation = defineOperation({
  operationId: "listScheduleFires",
  method: "GET",
  path: "/v1/schedules/{scheduleId}/fires",
  tag: "Triggers",
  summary: "List a schedule's fires with the run each started, newest first",
  auth: "key",
  params: scheduleParams,
  query: { ...pageQuery },
  responses: { 200: { description: "A page of fires.", schema: pageOf(fire) } },
  errors: ["bad-input", "unknown-field", "not-found"],
});

const webhook = {
  type: "object",
  required: ["id", "projectId", "name", "agent", "input", "toolsAllowedUnattended", "status", "receiverPath", "receiverUrl", "createdBy", "createdAt", "updatedAt"],
  properties: {
    id: uuid,
    projectId: uuid,
    name: { type: "string" },
    agent: { type: "object", required: ["id", "version"], properties: { id: { type: "string" }, version: nullable({ type: "string" }) } },
    input: { type: "object", required: ["userMessage", "parameters"], properties: { userMessage: { type: "string", description: "The Liquid template." }, parameters: { type: "object", additionalProperties: { type: "string" } } } },
    toolsAllowedUnattended: { type: "array", items: { type: "string" } },
    status: triggerStatus,
    receiverPath: { type: "string", examples: ["/v1/hooks/0f8e…"] },
    receiverUrl: { type: "string", description: "The receiver as the caller reached this server (KINDGI_PUBLIC_URL when set)." },
    secret: { type: "string", description: "Only in the answer of the creation: the Standard Webhooks signing secret (`whsec_…`), shown this once." },
    createdBy: uuid,
    createdAt: dateTime,
    updatedAt: dateTime,
  },
} as const;

const delivery = {
  type: "object",
  required: ["id", "webhookId", "messageId", "outcome", "runId", "run", "error", "receivedAt"],
  properties: {
    id: uuid,
    webhookId: uuid,
    messageId: { type: "string", description: "The sender's webhook-id." },
    outcome: { enum: ["pending", "started", "failed"], description: "`failed`: the delivery was accepted but no run could be started (see `error`)." },
    runId: nullable(uuid),
    run: runRef,
    error: failure,
    receivedAt: dateTime,
  },
} as const;

export const createWebhookOperation = defineOperation({
  operationId: "createWebhook",
  method: "POST",
  path: "/v1/webhooks",
  tag: "Triggers",
  summary: "Create a webhook: a signed receiver URL whose deliveries start unattended runs of an agent",
  description:
    "Answers the receiver (`POST /v1/hooks/{webhookId}`) and its Standard Webhooks signing secret (`whsec_…`), shown this once (an Idempotency-Key repeat is 409 idempotency-key-replay-withheld). " +
    "`input.userMessage` is a Liquid template with the delivery's JSON body as `payload` (e.g. `New order {{ payload.order.id }}`); `input.parameters` maps agent parameters to JSON pointers into the payload (a pointer that finds nothing leaves the parameter out).",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["name", "agent", "input"],
      additionalProperties: false,
      properties: {
        projectId: { ...uuid, description: "The agent's project (default: the agent's)." },
        name: { type: "string", minLength: 1, maxLength: 200 },
        agent: agentRef,
        input: {
          type: "object",
          required: ["userMessage"],
          additionalProperties: false,
          properties: {
            userMessage: { type: "string", minLength: 1, maxLength: 100_000, description: "Liquid template; `payload` in scope." },
            parameters: { type: "object", maxProperties: 100, additionalProperties: { type: "string", maxLength: 1000 }, description: "{parameterName: JSON pointer (RFC 6901) into the payload}." },
          },
        },
        toolsAllowedUnattended,
      },
    },
  },
  responses: { 201: { description: "The webhook, with `secret` this once.", schema: webhook } },
  errors: ["bad-input", "unknown-field", "validation-failed", "permission-denied", "not-found", "secrets-unavailable"],
});

export const listWebhooksOperation = defineOperation({
  operationId: "listWebhooks",
  method: "GET",
  path: "/v1/webhooks",
  tag: "Triggers",
  summary: "List the webhooks of the caller's projects, newest first",
  auth: "key",
  query: { ...pageQuery, projectId: { ...uuid, description: "Only this project's webhooks." }, ...statusQuery },
  responses: { 200: { description: "A page of webhooks (never their secrets).", schema: pageOf(webhook) } },
  errors: ["bad-input", "unknown-field"],
});

export const getWebhookOperation = defineOperation({
  operationId: "getWebhook",
  method: "GET",
  path: "/v1/webhooks/{webhookId}",
  tag: "Triggers",
  summary: "Get a webhook (never its secret)",
  auth: "key",
  params: webhookParams,
  responses: { 200: { description: "The webhook.", schema: webhook } },
  errors: ["bad-input", "not-found"],
});

function webhookAction(action: "pause" | "resume" | "unregister", summary: string) {
  return defineOperation({
    operationId: `${action}Webhook`,
    method: "POST",
    path: `/v1/webhooks/{webhookId}/${action}`,
    tag: "Triggers",
    summary,
    auth: "key",
    idempotent: true,
    params: webhookParams,
    body: emptyBody,
    responses: { 200: { description: "The webhook after the change (the same when it was already so).", schema: webhook } },
    errors: ["bad-input", "not-found", "permission-denied", "trigger-unregistered"],
  });
}

export const pauseWebhookOperation = webhookAction("pause", "Pause a webhook: deliveries are refused (409 webhook-paused) until resumed");
export const resumeWebhookOperation = webhookAction("resume", "Resume a paused webhook");
export const unregisterWebhookOperation = webhookAction("unregister", "Unregister a webhook: its receiver answers 404 from now on");

export const listWebhookDeliveriesOperation = defineOperation({
  operationId: "listWebhookDeliveries",
  method: "GET",
  path: "/v1/webhooks/{webhookId}/deliveries",
  tag: "Triggers",
  summary: "List a webhook's accepted deliveries with the run each started, newest first",
  auth: "key",
  params: webhookParams,
  query: { ...pageQuery },
  responses: { 200: { description: "A page of deliveries.", schema: pageOf(delivery) } },
  errors: ["bad-input", "unknown-field", "not-found"],
});

export const receiveWebhookOperation = defineOperation({
  operationId: "receiveWebhook",
  method: "POST",
  path: "/v1/hooks/{webhookId}",
  tag: "Triggers",
  summary: "A webhook's receiver: a Standard Webhooks delivery starts an unattended run",
  description:
    "No API key: the delivery is signed with the webhook's secret (headers `webhook-id`, `webhook-timestamp`, `webhook-signature`, verified with the `standardwebhooks` library on the exact body bytes). " +
    "A bad or missing signature is 401 webhook-signature-invalid; a timestamp more than 5 minutes from the server's clock is 401 webhook-timestamp-out-of-window; a `webhook-id` accepted before is 409 webhook-replayed; a paused webhook is 409 webhook-paused — none of them starts anything. " +
    "An accepted delivery is recorded and answered 202 with the run it started (or, when the mapping or the run failed, `outcome: failed` and why).",
  auth: "none",
  params: webhookParams,
  body: { validation: "any-object", schema: { type: "object", additionalProperties: true, description: "Any JSON object: the payload, in the template's scope as `payload`." } },
  responses: { 202: { description: "The recorded delivery.", schema: delivery } },
  errors: ["bad-input", "not-found", "webhook-signature-invalid", "webhook-timestamp-out-of-window", "webhook-replayed", "webhook-paused"],
});
