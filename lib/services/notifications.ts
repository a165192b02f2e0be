/**
 * Notification endpoints of a project (POST /v1/notification-endpoints) and the deliveries to them.
 *
 * `enqueueNotification(tx, …)` writes one delivery row per matching endpoint in the caller's transaction (an approval
 * asked or decided); the dispatcher of each server process claims due rows (`FOR UPDATE SKIP LOCKED`, so replicas
 * share the work), sends each signed with Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`,
 * the endpoint's own secret), and retries a network error or a non-2xx answer with exponential backoff, a bounded
 * number of times. A payload carries the event's type, its data and a link, never a call's arguments or any secret.
 * Outbound URLs follow the network rules of HTTP tools: loopback, private and link-local addresses are refused unless
 * KINDGI_NOTIFICATIONS_ALLOW_PRIVATE_URLS=1; cloud metadata addresses always.
 */
import { startBackgroundLoop, type BackgroundLoop } from "@/lib/services/background-loop";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { randomUUID } from "node:crypto";
import { Webhook as StandardWebhook } from "standardwebhooks";
import type { NotificationDelivery, NotificationEndpoint, Prisma } from "@/lib/generated/prisma/client";
import { getDb, type DbTx } from "@/lib/db";
import { AppError, notFound } from "@/lib/errors";
import { type Page } from "@/lib/pagination";
import { type Actor, projectFilter, requireNotificationWrite, resolveWritableProject } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { openValue, sealValue } from "@/lib/services/secrets";
import { newestFirstPage, newestFirstWhere } from "@/lib/services/triggers";
import { newSigningSecret } from "@/lib/services/webhooks";
import { addressCategory, checkDestination, isMetadataHostName, pinnedLookup, ToolNetworkError, type Destination } from "@/lib/tools/network-policy";
import { log } from "@/lib/log";

export const NOTIFICATION_EVENTS = ["approval.requested", "approval.decided"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];
export type NotificationType = NotificationEvent | "notification.test";
export type NotificationFormat = "standard-webhooks" | "slack";

export type NotificationEndpointView = {
  id: string;
  projectId: string;
  url: string;
  format: NotificationFormat;
  /** The events delivered; empty: every event. */
  events: NotificationEvent[];
  createdBy: string;
  createdAt: string;
};

export type NotificationDeliveryView = {
  id: string;
  endpointId: string;
  type: NotificationType;
  /** The webhook-id sent, the same on every attempt. */
  messageId: string;
  /** pending (not yet delivered, more attempts due), delivered, or failed (every attempt failed). */
  outcome: "pending" | "delivered" | "failed";
  attempts: number;
  /** The HTTP status of each attempt, 0 when there was no answer. */
  statusCodes: number[];
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
};

const binding = (id: string) => `notification-endpoint:${id}`;

const maxAttempts = () => Math.max(1, Math.min(20, Number(process.env.KINDGI_NOTIFICATION_MAX_ATTEMPTS) || 6));
const retryBaseMs = () => Math.max(100, Number(process.env.KINDGI_NOTIFICATION_RETRY_BASE_MS) || 2_000);
const MAX_BACKOFF_MS = 60 * 60 * 1000;
const SEND_TIMEOUT_MS = 10_000;
/** How long a claimed delivery stays invisible to other dispatchers while its attempt is in flight. */
const CLAIM_MS = 60_000;
const privateUrlsAllowed = () => process.env.KINDGI_NOTIFICATIONS_ALLOW_PRIVATE_URLS === "1";

function view(row: NotificationEndpoint): NotificationEndpointView {
  return { id: row.id, projectId: row.projectId, url: row.url, format: row.format as NotificationFormat, events: row.events as NotificationEvent[], createdBy: row.createdBy, createdAt: row.createdAt.toISOString() };
}

function deliveryView(row: NotificationDelivery): NotificationDeliveryView {
  return {
    id: row.id,
    endpointId: row.endpointId,
    type: row.type as NotificationType,
    messageId: row.messageId,
    outcome: row.status as NotificationDeliveryView["outcome"],
    attempts: row.attempts,
    statusCodes: row.statusCodes,
    lastError: row.lastError,
    nextAttemptAt: row.status === "pending" ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The address a notification may be sent to, under the network rules of HTTP tools; throws ToolNetworkError. */
async function checkedDestination(url: URL): Promise<Destination> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const allowPrivate = privateUrlsAllowed() && !isMetadataHostName(hostname) && addressCategory(hostname) !== "cloud metadata";
  return checkDestination(url, allowPrivate ? { kind: "allowlist", hosts: [url.hostname] } : { kind: "unrestricted" });
}

/** POST /v1/notification-endpoints: the endpoint and its signing secret (shown this once). */
export async function createNotificationEndpoint(actor: Actor, input: { projectId?: string; url: string; format: NotificationFormat; events?: NotificationEvent[] }): Promise<NotificationEndpointView & { secret: string }> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new AppError("bad-input", "url is not an absolute URL", { issues: [{ path: "/url", message: "is not an absolute http(s) URL" }] });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("bad-input", "url must be http or https", { issues: [{ path: "/url", message: "must be http or https" }] });
  if (url.username || url.password) throw new AppError("bad-input", "url must not carry credentials", { issues: [{ path: "/url", message: "must not carry a user name or password" }] });
  try {
    await checkedDestination(url);
  } catch (error) {
    if (error instanceof ToolNetworkError) {
      const hint = error.code === "network-denied" && !privateUrlsAllowed() ? " (a server may allow loopback and private endpoints with KINDGI_NOTIFICATIONS_ALLOW_PRIVATE_URLS=1)" : "";
      throw new AppError("notification-endpoint-refused", `notification ${error.message}${hint}`, { issues: [{ path: "/url", message: "is refused by the network rules" }] });
    }
    throw error;
  }
  const db = await getDb();
  const projectId = await defaultProject(actor, input.projectId);
  requireNotificationWrite(actor, projectId);
  const secret = newSigningSecret();
  return db.$transaction(async (tx) => {
    const id = randomUUID();
    const row = await tx.notificationEndpoint.create({
      data: { id, tenantId: actor.tenantId, projectId, url: url.toString(), format: input.format, events: [...new Set(input.events ?? [])], secretCiphertext: sealValue(actor.tenantId, binding(id), secret), createdBy: actor.userId },
    });
    await audit(tx, actor, { action: "notification-endpoint.created", subjectType: "notification-endpoint", subjectId: row.id, projectId, data: { url: row.url, format: row.format, events: row.events } });
    return { ...view(row), secret };
  });
}

async function defaultProject(actor: Actor, projectId: string | undefined): Promise<string> {
  const db = await getDb();
  if (projectId !== undefined) return resolveWritableProject(db, actor, projectId);
  if (actor.projectId) return actor.projectId;
  const tenant = await db.tenant.findUnique({ where: { id: actor.tenantId }, select: { defaultProjectId: true } });
  if (!tenant?.defaultProjectId) throw new AppError("bad-input", "the tenant has no default project; pass projectId", { issues: [{ path: "/projectId", message: "is required" }] });
  return tenant.defaultProjectId;
}

export async function listNotificationEndpoints(actor: Actor, filters: { projectId?: string }, page: { limit: number; cursor?: string }): Promise<Page<NotificationEndpointView>> {
  const db = await getDb();
  const rows = await db.notificationEndpoint.findMany({
    where: { tenantId: actor.tenantId, deletedAt: null, ...projectFilter(actor, filters.projectId?.toLowerCase()), ...newestFirstWhere(page.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return newestFirstPage(rows, page.limit, view);
}

async function findEndpoint(actor: Actor, endpointId: string): Promise<NotificationEndpoint> {
  const db = await getDb();
  const row = await db.notificationEndpoint.findFirst({ where: { id: endpointId, tenantId: actor.tenantId, deletedAt: null, ...projectFilter(actor) } });
  if (!row) throw notFound("notification endpoint", endpointId);
  return row;
}

export async function getNotificationEndpoint(actor: Actor, endpointId: string): Promise<NotificationEndpointView> {
  return view(await findEndpoint(actor, endpointId));
}

/** DELETE /v1/notification-endpoints/{id}: nothing more is sent to it (pending deliveries are dropped as failed). */
export async function deleteNotificationEndpoint(actor: Actor, endpointId: string): Promise<NotificationEndpointView & { deleted: true }> {
  const row = await findEndpoint(actor, endpointId);
  requireNotificationWrite(actor, row.projectId);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const { count } = await tx.notificationEndpoint.updateMany({ where: { id: row.id, deletedAt: null }, data: { deletedAt: new Date() } });
    if (count === 0) throw notFound("notification endpoint", endpointId);
    await tx.notificationDelivery.updateMany({ where: { endpointId: row.id, status: "pending" }, data: { status: "failed", lastError: "the endpoint was deleted" } });
    await audit(tx, actor, { action: "notification-endpoint.deleted", subjectType: "notification-endpoint", subjectId: row.id, projectId: row.projectId, data: { url: row.url } });
    return { ...view(row), deleted: true as const };
  });
}

/** GET /v1/notification-endpoints/{id}/deliveries, newest first. */
export async function listNotificationDeliveries(actor: Actor, endpointId: string, page: { limit: number; cursor?: string }): Promise<Page<NotificationDeliveryView>> {
  const endpoint = await findEndpoint(actor, endpointId);
  const db = await getDb();
  const rows = await db.notificationDelivery.findMany({ where: { endpointId: endpoint.id, ...newestFirstWhere(page.cursor) }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: page.limit + 1 });
  return newestFirstPage(rows, page.limit, deliveryView);
}

/** POST /v1/notification-endpoints/{id}/test: enqueues a `notification.test` event to this endpoint only. */
export async function testNotificationEndpoint(actor: Actor, endpointId: string, link: string): Promise<NotificationDeliveryView> {
  const endpoint = await findEndpoint(actor, endpointId);
  requireNotificationWrite(actor, endpoint.projectId);
  const db = await getDb();
  const [delivery] = await db.$transaction((tx) => enqueueNotification(tx, { tenantId: actor.tenantId, projectId: endpoint.projectId, type: "notification.test", data: { message: "A test notification from Kindgi." }, link, endpointId: endpoint.id }));
  wakeDispatcher();
  return deliveryView(delivery);
}

/** Keys never sent in a notification, at any depth: a call's arguments and anything that could be a credential. */
const WITHHELD_KEYS = /^(arguments|args|input|editedArguments|secret|secrets|token|accessToken|apiKey|password|authorization)$/i;

function withoutWithheld(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutWithheld);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).filter(([key]) => !WITHHELD_KEYS.test(key)).map(([key, item]) => [key, withoutWithheld(item)]));
  return value;
}

/**
 * Writes one delivery per endpoint of the project that takes `type` (an endpoint with no `events` takes every event;
 * `notification.test` goes to the endpoint named by `endpointId` only), in the caller's transaction. The dispatcher
 * sends them once the transaction has committed. `data` never reaches the endpoint with arguments or secrets: keys
 * such as `arguments`, `secret` or `token` are dropped at any depth.
 */
export async function enqueueNotification(
  tx: DbTx,
  input: { tenantId: string; projectId: string; type: NotificationType; data: Record<string, unknown>; link: string; endpointId?: string },
): Promise<NotificationDelivery[]> {
  const endpoints = await tx.notificationEndpoint.findMany({ where: { tenantId: input.tenantId, projectId: input.projectId, deletedAt: null, ...(input.endpointId ? { id: input.endpointId } : {}) }, select: { id: true, events: true } });
  const matching = endpoints.filter((endpoint) => input.type === "notification.test" ? Boolean(input.endpointId) : endpoint.events.length === 0 || endpoint.events.includes(input.type));
  const now = new Date();
  const payload = { type: input.type, timestamp: now.toISOString(), data: { ...(withoutWithheld(input.data) as Record<string, unknown>), link: input.link } };
  const rows: NotificationDelivery[] = [];
  for (const endpoint of matching) {
    rows.push(await tx.notificationDelivery.create({ data: { tenantId: input.tenantId, projectId: input.projectId, endpointId: endpoint.id, type: input.type, messageId: `msg_${randomUUID()}`, payload: payload as Prisma.InputJsonValue, status: "pending", nextAttemptAt: now } }));
  }
  if (rows.length) setTimeout(wakeDispatcher, 20).unref();
  return rows;
}

type Payload = { type: NotificationType; timestamp: string; data: Record<string, unknown> & { link: string } };

const TITLES: Record<NotificationType, string> = { "approval.requested": "Approval requested", "approval.decided": "Approval decided", "notification.test": "Test notification" };

/** The body an endpoint receives: the event itself, or a Slack-compatible message ({text, blocks}). */
export function notificationBody(format: NotificationFormat, payload: Payload): string {
  if (format !== "slack") return JSON.stringify(payload);
  const details = Object.entries(payload.data)
    .filter(([key, value]) => key !== "link" && (typeof value === "string" || typeof value === "number" || typeof value === "boolean"))
    .map(([key, value]) => `*${key}*: ${String(value)}`)
    .join("\n");
  const text = `${TITLES[payload.type]}: ${payload.data.link}`;
  const blocks = [
    { type: "section", text: { type: "mrkdwn", text: `*${TITLES[payload.type]}*${details ? `\n${details}` : ""}` } },
    { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in Kindgi" }, url: payload.data.link }] },
  ];
  return JSON.stringify({ text, blocks });
}

/** One attempt: the status code (0: no answer) and why it failed, if it did. */
async function attempt(endpoint: NotificationEndpoint, delivery: NotificationDelivery): Promise<{ status: number; error: string | null }> {
  const body = notificationBody(endpoint.format as NotificationFormat, delivery.payload as Payload);
  let url: URL;
  let destination: Destination;
  try {
    url = new URL(endpoint.url);
    destination = await checkedDestination(url);
  } catch (error) {
    return { status: 0, error: error instanceof Error ? error.message : "the URL is refused" };
  }
  const now = new Date();
  const signature = new StandardWebhook(openValue(endpoint.tenantId, binding(endpoint.id), endpoint.secretCiphertext)).sign(delivery.messageId, now, body);
  const headers = { "content-type": "application/json", "user-agent": "Kindgi-Notifications/1", "webhook-id": delivery.messageId, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": signature };
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const request = transport.request(url, { method: "POST", headers, lookup: pinnedLookup(destination), agent: false, timeout: SEND_TIMEOUT_MS }, (response: IncomingMessage) => {
      response.resume();
      response.on("end", () => {
        const status = response.statusCode ?? 0;
        resolve({ status, error: status >= 200 && status < 300 ? null : `the endpoint answered ${status}` });
      });
      response.on("error", () => resolve({ status: response.statusCode ?? 0, error: "the answer was cut off" }));
    });
    request.on("timeout", () => request.destroy(new Error(`no answer within ${SEND_TIMEOUT_MS} ms`)));
    request.on("error", (error) => resolve({ status: 0, error: error.message }));
    request.end(body);
  });
}

async function deliver(id: string): Promise<void> {
  const db = await getDb();
  const delivery = await db.notificationDelivery.findUnique({ where: { id } });
  if (!delivery || delivery.status !== "pending") return;
  const endpoint = await db.notificationEndpoint.findUnique({ where: { id: delivery.endpointId } });
  if (!endpoint || endpoint.deletedAt) {
    await db.notificationDelivery.update({ where: { id }, data: { status: "failed", lastError: "the endpoint was deleted" } });
    return;
  }
  const result = await attempt(endpoint, delivery);
  const attempts = delivery.attempts + 1;
  const statusCodes = [...delivery.statusCodes, result.status];
  if (!result.error) {
    await db.notificationDelivery.update({ where: { id }, data: { status: "delivered", attempts, statusCodes, lastError: null, deliveredAt: new Date(), nextAttemptAt: null } });
    return;
  }
  const exhausted = attempts >= maxAttempts();
  const backoff = Math.min(MAX_BACKOFF_MS, retryBaseMs() * 2 ** (attempts - 1));
  await db.notificationDelivery.update({ where: { id }, data: { status: exhausted ? "failed" : "pending", attempts, statusCodes, lastError: result.error, nextAttemptAt: exhausted ? null : new Date(Date.now() + backoff) } });
}

/** Claims the due deliveries (other dispatchers skip them while the claim lasts) and sends each once. */
export async function dispatchDueNotifications(): Promise<number> {
  const db = await getDb();
  const claimed = await db.$queryRaw<{ id: string }[]>`
    UPDATE "NotificationDelivery" SET "nextAttemptAt" = now() + make_interval(secs => ${CLAIM_MS / 1000})
    WHERE id IN (
      SELECT id FROM "NotificationDelivery" WHERE status = 'pending' AND "nextAttemptAt" <= now()
      ORDER BY "nextAttemptAt" LIMIT 20 FOR UPDATE SKIP LOCKED
    )
    RETURNING id`;
  await Promise.all(claimed.map(({ id }) => deliver(id).catch((error) => log.error("a notification could not be sent", { deliveryId: id, err: error }))));
  return claimed.length;
}

const holder = globalThis as unknown as { kindgiDispatcher?: BackgroundLoop };

/** Runs a dispatcher pass soon (after an enqueue in this process) instead of at the next poll. */
function wakeDispatcher(): void {
  holder.kindgiDispatcher?.wake();
}

/** Starts the dispatcher loop of this process (every KINDGI_NOTIFICATION_POLL_MS, default 1000 ms, and at once after an enqueue in this process). */
export function startNotificationDispatcher(): void {
  if (holder.kindgiDispatcher) return;
  const pollMs = Math.max(50, Number(process.env.KINDGI_NOTIFICATION_POLL_MS) || 1000);
  holder.kindgiDispatcher = startBackgroundLoop("notification dispatcher", pollMs, async () => {
    await dispatchDueNotifications();
    return null;
  });
}
