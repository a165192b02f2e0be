/**
 * Webhooks: a receiver (`POST /v1/hooks/{webhookId}`) that another system calls, signed with Standard Webhooks, to
 * start an unattended run of an agent with an input mapped from the payload (POST /v1/webhooks).
 *
 * A delivery is accepted when its signature verifies with the webhook's secret and its timestamp is within the
 * library's replay window (5 minutes either side); its `webhook-id` is recorded with a unique index, so a replay is
 * refused (409 webhook-replayed) and starts nothing. The user message is a Liquid template with `payload` in scope;
 * each parameter is a JSON pointer into the payload (a pointer that finds nothing leaves the parameter out).
 */
import { randomBytes } from "node:crypto";
import { Liquid } from "liquidjs";
import { Webhook as StandardWebhook, WebhookVerificationError } from "standardwebhooks";
import type { Prisma, Webhook, WebhookDelivery } from "@/lib/generated/prisma/client";
import { getDb, type DbTx } from "@/lib/db";
import { AppError, notFound } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { type Page } from "@/lib/pagination";
import { type Actor, projectFilter, requireTriggerWrite } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { createRun } from "@/lib/services/runs";
import { openValue, sealValue } from "@/lib/services/secrets";
import { failureOf, newestFirstPage, newestFirstWhere, nextTriggerStatus, resolveTriggerAgent, runStatuses, triggerOwnerActor, type TriggerStatus } from "@/lib/services/triggers";

export type CreateWebhookInput = {
  projectId?: string;
  name: string;
  agent: { id: string; version?: string };
  /** `userMessage`: a Liquid template (`payload` in scope); `parameters`: {name: JSON pointer into the payload}. */
  input: { userMessage: string; parameters?: Record<string, string> };
  toolsAllowedUnattended?: string[];
};

export type WebhookView = {
  id: string;
  projectId: string;
  name: string;
  agent: { id: string; version: string | null };
  input: { userMessage: string; parameters: Record<string, string> };
  toolsAllowedUnattended: string[];
  status: TriggerStatus;
  /** The receiver's path; `receiverUrl` is its absolute form. */
  receiverPath: string;
  receiverUrl: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
};

export type WebhookDeliveryView = {
  id: string;
  webhookId: string;
  /** The sender's webhook-id. */
  messageId: string;
  outcome: "pending" | "started" | "failed";
  runId: string | null;
  run: { id: string; status: string } | null;
  error: { code: string; message: string } | null;
  receivedAt: string;
};

const engine = new Liquid({ strictFilters: true, ownPropertyOnly: true, parseLimit: 100_000, renderLimit: 1_000, memoryLimit: 10_000_000 });
const binding = (id: string) => `webhook:${id}`;
export const receiverPath = (id: string) => `/v1/hooks/${id}`;

function view(row: Webhook, origin: string): WebhookView {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    agent: { id: row.agentId, version: row.agentVersion },
    input: { userMessage: row.userMessageTemplate, parameters: (row.parameterMappings ?? {}) as Record<string, string> },
    toolsAllowedUnattended: row.toolsAllowedUnattended,
    status: row.status as TriggerStatus,
    receiverPath: receiverPath(row.id),
    receiverUrl: `${origin}${receiverPath(row.id)}`,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function deliveryView(row: WebhookDelivery, statuses: Map<string, string>): WebhookDeliveryView {
  const status = row.runId ? statuses.get(row.runId) : undefined;
  return {
    id: row.id,
    webhookId: row.webhookId,
    messageId: row.messageId,
    outcome: row.outcome as WebhookDeliveryView["outcome"],
    runId: row.runId,
    run: row.runId && status ? { id: row.runId, status } : null,
    error: (row.error as WebhookDeliveryView["error"]) ?? null,
    receivedAt: row.createdAt.toISOString(),
  };
}

/** A new Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

/** RFC 6901: the value at `pointer` in `document`, or undefined when nothing is there. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (pointer === "") return document;
  let value: unknown = document;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(token)) value = value[Number(token)];
    else if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, token)) value = (value as Record<string, unknown>)[token];
    else return undefined;
  }
  return value;
}

function checkMapping(input: CreateWebhookInput["input"]): void {
  const issues: { path: string; message: string }[] = [];
  try {
    engine.parse(input.userMessage);
  } catch (error) {
    issues.push({ path: "/input/userMessage", message: `not a valid Liquid template: ${(error as Error).message.split("\n")[0]}` });
  }
  for (const [name, pointer] of Object.entries(input.parameters ?? {})) {
    if (pointer !== "" && (!pointer.startsWith("/") || /~[^01]|~$/.test(pointer))) issues.push({ path: `/input/parameters/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`, message: `${JSON.stringify(pointer)} is not a JSON pointer (RFC 6901), e.g. "/order/id"` });
  }
  if (issues.length) throw new AppError("validation-failed", issues.map((issue) => `${issue.path} ${issue.message}`).join("; "), { issues });
}

/** POST /v1/webhooks: the webhook, its receiver URL, and its signing secret (shown this once). */
export async function createWebhook(actor: Actor, input: CreateWebhookInput, origin: string): Promise<WebhookView & { secret: string }> {
  checkMapping(input.input);
  const db = await getDb();
  const secret = newSigningSecret();
  return db.$transaction(async (tx) => {
    const resolved = await resolveTriggerAgent(tx, actor, { projectId: input.projectId, agent: input.agent, toolsAllowedUnattended: input.toolsAllowedUnattended });
    const id = crypto.randomUUID();
    const row = await tx.webhook.create({
      data: {
        id,
        tenantId: actor.tenantId,
        projectId: resolved.projectId,
        name: input.name,
        agentId: input.agent.id,
        agentVersion: input.agent.version ?? null,
        userMessageTemplate: input.input.userMessage,
        parameterMappings: (input.input.parameters ?? {}) as Prisma.InputJsonValue,
        toolsAllowedUnattended: input.toolsAllowedUnattended ?? [],
        status: "active",
        secretCiphertext: sealValue(actor.tenantId, binding(id), secret),
        createdBy: actor.userId,
      },
    });
    await audit(tx, actor, { action: "webhook.created", subjectType: "webhook", subjectId: row.id, projectId: row.projectId, data: { name: row.name, agentId: row.agentId, toolsAllowedUnattended: row.toolsAllowedUnattended } });
    if (row.toolsAllowedUnattended.length) await audit(tx, actor, { action: "webhook.tools-allowed-unattended-set", subjectType: "webhook", subjectId: row.id, projectId: row.projectId, data: { toolsAllowedUnattended: row.toolsAllowedUnattended } });
    return { ...view(row, origin), secret };
  });
}

export async function listWebhooks(actor: Actor, filters: { projectId?: string; status?: TriggerStatus }, page: { limit: number; cursor?: string }, origin: string): Promise<Page<WebhookView>> {
  const db = await getDb();
  const rows = await db.webhook.findMany({
    where: { tenantId: actor.tenantId, ...projectFilter(actor, filters.projectId?.toLowerCase()), ...(filters.status ? { status: filters.status } : { status: { not: "unregistered" } }), ...newestFirstWhere(page.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return newestFirstPage(rows, page.limit, (row) => view(row, origin));
}

async function findWebhook(tx: DbTx, actor: Actor, webhookId: string): Promise<Webhook> {
  const row = await tx.webhook.findFirst({ where: { id: webhookId, tenantId: actor.tenantId, ...projectFilter(actor) } });
  if (!row) throw notFound("webhook", webhookId);
  return row;
}

export async function getWebhook(actor: Actor, webhookId: string, origin: string): Promise<WebhookView> {
  return view(await findWebhook(await getDb(), actor, webhookId), origin);
}

/** POST /v1/webhooks/{id}/pause | resume | unregister. A paused webhook refuses deliveries (409 webhook-paused). */
export async function setWebhookStatus(actor: Actor, webhookId: string, action: "pause" | "resume" | "unregister", origin: string): Promise<WebhookView> {
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await findWebhook(tx, actor, webhookId);
    requireTriggerWrite(actor, row.projectId, { setsToolsAllowedUnattended: false });
    const status = nextTriggerStatus(row.status, action, "webhook", row.id);
    if (status === row.status) return view(row, origin);
    const updated = await tx.webhook.update({ where: { id: row.id }, data: { status } });
    await audit(tx, actor, { action: `webhook.${action === "pause" ? "paused" : action === "resume" ? "resumed" : "unregistered"}`, subjectType: "webhook", subjectId: row.id, projectId: row.projectId });
    return view(updated, origin);
  });
}

/** GET /v1/webhooks/{id}/deliveries, newest first. */
export async function listWebhookDeliveries(actor: Actor, webhookId: string, page: { limit: number; cursor?: string }): Promise<Page<WebhookDeliveryView>> {
  const db = await getDb();
  const webhook = await findWebhook(db, actor, webhookId);
  const rows = await db.webhookDelivery.findMany({ where: { webhookId: webhook.id, ...newestFirstWhere(page.cursor) }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: page.limit + 1 });
  const statuses = await runStatuses(db, actor.tenantId, rows.map((row) => row.runId));
  return newestFirstPage(rows, page.limit, (row) => deliveryView(row, statuses));
}

/**
 * POST /v1/hooks/{webhookId}: verifies the delivery (signature, replay window, webhook-id not seen before), records
 * it, maps the payload into the run input and starts the run as the webhook's owner, unattended. No API key: the
 * signature is the credential. An unknown or unregistered webhook is 404.
 */
export async function receiveWebhook(webhookId: string, rawBody: string, headers: Headers): Promise<WebhookDeliveryView> {
  const db = await getDb();
  const row = isUuid(webhookId) ? await db.webhook.findUnique({ where: { id: webhookId.toLowerCase() } }) : null;
  if (!row || row.status === "unregistered") throw notFound("webhook", webhookId);
  const signed = { "webhook-id": headers.get("webhook-id") ?? "", "webhook-timestamp": headers.get("webhook-timestamp") ?? "", "webhook-signature": headers.get("webhook-signature") ?? "" };
  let payload: unknown;
  try {
    payload = new StandardWebhook(openValue(row.tenantId, binding(row.id), row.secretCiphertext)).verify(rawBody, signed);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    if (/timestamp too (old|new)/i.test(error.message)) throw new AppError("webhook-timestamp-out-of-window", "the delivery's webhook-timestamp is more than 5 minutes away from the server's clock", { webhookId: row.id });
    throw new AppError("webhook-signature-invalid", `the delivery is not signed with this webhook's secret: ${error.message}`, { webhookId: row.id });
  }
  if (row.status === "paused") throw new AppError("webhook-paused", `webhook ${row.id} is paused; resume it to accept deliveries`, { webhookId: row.id });
  const messageId = signed["webhook-id"];
  let delivery: WebhookDelivery;
  try {
    delivery = await db.webhookDelivery.create({ data: { tenantId: row.tenantId, webhookId: row.id, messageId, outcome: "pending" } });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new AppError("webhook-replayed", `a delivery with webhook-id ${JSON.stringify(messageId)} was accepted before; nothing was started`, { webhookId: row.id, messageId });
    throw error;
  }
  let updated: WebhookDelivery;
  try {
    const userMessage = await renderUserMessage(row.userMessageTemplate, payload);
    const parameters: Record<string, unknown> = {};
    for (const [name, pointer] of Object.entries((row.parameterMappings ?? {}) as Record<string, string>)) {
      const value = resolvePointer(payload, pointer);
      if (value !== undefined) parameters[name] = value;
    }
    const actor = await triggerOwnerActor(db, row, "webhook");
    const result = await createRun(
      actor,
      { agent: { id: row.agentId, ...(row.agentVersion ? { version: row.agentVersion } : {}) }, input: { userMessage, parameters }, options: { wait: false } },
      { origin: { kind: "webhook", userId: actor.userId, webhookId: row.id, deliveryId: delivery.id }, toolsAllowedUnattended: row.toolsAllowedUnattended },
    );
    updated = await db.webhookDelivery.update({ where: { id: delivery.id }, data: { outcome: "started", runId: "id" in result.body ? result.body.id : null } });
  } catch (error) {
    updated = await db.webhookDelivery.update({ where: { id: delivery.id }, data: { outcome: "failed", error: failureOf(error) } });
  }
  const statuses = await runStatuses(db, row.tenantId, [updated.runId]);
  return deliveryView(updated, statuses);
}

async function renderUserMessage(template: string, payload: unknown): Promise<string> {
  try {
    return String(await engine.parseAndRender(template, { payload }));
  } catch (error) {
    throw new AppError("validation-failed", `the user message template could not be rendered with this payload: ${(error as Error).message.split("\n")[0]}`, { issues: [{ path: "/input/userMessage", message: "could not be rendered" }] });
  }
}
