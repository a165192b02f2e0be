import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { publicOrigin } from "@/lib/api/public-origin";
import { pageParams } from "@/lib/api/operations/common";
import { createWebhookOperation, listWebhooksOperation } from "@/lib/api/operations/triggers";
import { createWebhook, listWebhooks, type CreateWebhookInput } from "@/lib/services/webhooks";
import type { TriggerStatus } from "@/lib/services/triggers";

export const dynamic = "force-dynamic";

// GET /v1/webhooks – the webhooks of the caller's projects
export const GET = route(listWebhooksOperation, async ({ actor, query, request }) => ok(await listWebhooks(actor, { projectId: query.projectId as string | undefined, status: query.status as TriggerStatus | undefined }, pageParams(query), publicOrigin(request))));

// POST /v1/webhooks – create a webhook; answers its receiver URL and signing secret (once)
export const POST = route(createWebhookOperation, async ({ actor, body, request }) => created(await createWebhook(actor, body as CreateWebhookInput, publicOrigin(request)), { containsSecret: true }));
