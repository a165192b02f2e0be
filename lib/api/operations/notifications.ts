import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";

const endpointParams = { endpointId: { kind: "uuid", description: "The notification endpoint's id." } } as const;
const events = { enum: ["approval.requested", "approval.decided"] } as const;

const endpoint = {
  type: "object",
  required: ["id", "projectId", "url", "format", "events", "createdBy", "createdAt"],
  properties: {
    id: uuid,
    projectId: uuid,
    url: { type: "string" },
    format: { enum: ["standard-webhooks", "slack"] },
    events: { type: "array", items: events, description: "The events delivered; empty: every event." },
    secret: { type: "string", description: "Only in the answer of the creation: the signing secret (`whsec_…`), shown this once." },
    createdBy: uuid,
    createdAt: dateTime,
  },
} as const;

const delivery = {
  type: "object",
  required: ["id", "endpointId", "type", "messageId", "outcome", "attempts", "statusCodes", "lastError", "nextAttemptAt", "deliveredAt", "createdAt"],
  properties: {
    id: uuid,
    endpointId: uuid,
    type: { enum: ["approval.requested", "approval.decided", "notification.test"] },
    messageId: { type: "string", description: "The webhook-id sent, the same on every attempt." },
    outcome: { enum: ["pending", "delivered", "failed"], description: "`pending`: not delivered yet, another attempt is due at `nextAttemptAt`; `failed`: every attempt failed." },
    attempts: { type: "integer", minimum: 0 },
    statusCodes: { type: "array", items: { type: "integer" }, description: "The HTTP status of each attempt (0: no answer)." },
    lastError: nullable({ type: "string" }),
    nextAttemptAt: nullable(dateTime),
    deliveredAt: nullable(dateTime),
    createdAt: dateTime,
  },
} as const;

export const createNotificationEndpointOperation = defineOperation({
  operationId: "createNotificationEndpoint",
  method: "POST",
  path: "/v1/notification-endpoints",
  tag: "Notifications",
  summary: "Register where a project's approval notifications are delivered, signed (project admins)",
  description:
    "Each event is POSTed with the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`, signed with the secret answered here once). " +
    "`format: standard-webhooks` sends `{type, timestamp, data: {…, link}}`; `slack` sends a Slack-compatible `{text, blocks}` message (an incoming-webhook URL). A payload has a link to the approval, never the call's arguments or any secret. " +
    "A network error or non-2xx answer is retried with exponential backoff (KINDGI_NOTIFICATION_RETRY_BASE_MS, default 2000 ms, doubling) up to KINDGI_NOTIFICATION_MAX_ATTEMPTS attempts (default 6). " +
    "The URL follows the network rules of HTTP tools: loopback, private and link-local addresses are refused (403 notification-endpoint-refused) unless the server runs with KINDGI_NOTIFICATIONS_ALLOW_PRIVATE_URLS=1; cloud metadata addresses always.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["url", "format"],
      additionalProperties: false,
      properties: {
        projectId: { ...uuid, description: "Default: the key's project, else the tenant's default project." },
        url: { type: "string", minLength: 1, maxLength: 2048 },
        format: { enum: ["standard-webhooks", "slack"] },
        events: { type: "array", items: events, uniqueItems: true, description: "Default: every event." },
      },
    },
  },
  responses: { 201: { description: "The endpoint, with `secret` this once.", schema: endpoint } },
  errors: ["bad-input", "unknown-field", "permission-denied", "notification-endpoint-refused", "secrets-unavailable"],
});

export const listNotificationEndpointsOperation = defineOperation({
  operationId: "listNotificationEndpoints",
  method: "GET",
  path: "/v1/notification-endpoints",
  tag: "Notifications",
  summary: "List the notification endpoints of the caller's projects, newest first",
  auth: "key",
  query: { ...pageQuery, projectId: { ...uuid, description: "Only this project's endpoints." } },
  responses: { 200: { description: "A page of endpoints (never their secrets).", schema: pageOf(endpoint) } },
  errors: ["bad-input", "unknown-field"],
});

export const getNotificationEndpointOperation = defineOperation({
  operationId: "getNotificationEndpoint",
  method: "GET",
  path: "/v1/notification-endpoints/{endpointId}",
  tag: "Notifications",
  summary: "Get a notification endpoint (never its secret)",
  auth: "key",
  params: endpointParams,
  responses: { 200: { description: "The endpoint.", schema: endpoint } },
  errors: ["bad-input", "not-found"],
});

export const deleteNotificationEndpointOperation = defineOperation({
  operationId: "deleteNotificationEndpoint",
  method: "DELETE",
  path: "/v1/notification-endpoints/{endpointId}",
  tag: "Notifications",
  summary: "Delete a notification endpoint: nothing more is sent to it",
  auth: "key",
  idempotent: true,
  params: endpointParams,
  responses: { 200: { description: "The deleted endpoint.", schema: { ...endpoint, required: [...endpoint.required, "deleted"], properties: { ...endpoint.properties, deleted: { const: true } } } } },
  errors: ["bad-input", "not-found", "permission-denied"],
});

export const listNotificationDeliveriesOperation = defineOperation({
  operationId: "listNotificationDeliveries",
  method: "GET",
  path: "/v1/notification-endpoints/{endpointId}/deliveries",
  tag: "Notifications",
  summary: "List an endpoint's deliveries with their outcome, attempts and status codes, newest first",
  auth: "key",
  params: endpointParams,
  query: { ...pageQuery },
  responses: { 200: { description: "A page of deliveries.", schema: pageOf(delivery) } },
  errors: ["bad-input", "unknown-field", "not-found"],
});

export const testNotificationEndpointOperation = defineOperation({
  operationId: "testNotificationEndpoint",
  method: "POST",
  path: "/v1/notification-endpoints/{endpointId}/test",
  tag: "Notifications",
  summary: "Send a `notification.test` event to this endpoint (delivered and retried like any other)",
  auth: "key",
  params: endpointParams,
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } },
  responses: { 202: { description: "The delivery, pending.", schema: delivery } },
  errors: ["bad-input", "not-found", "permission-denied"],
});
