import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { publicOrigin } from "@/lib/api/public-origin";
import { getWebhookOperation } from "@/lib/api/operations/triggers";
import { getWebhook } from "@/lib/services/webhooks";

export const dynamic = "force-dynamic";

// GET /v1/webhooks/{webhookId} – a webhook (never its secret)
export const GET = route(getWebhookOperation, async ({ actor, params, request }) => ok(await getWebhook(actor, params.webhookId, publicOrigin(request))));
