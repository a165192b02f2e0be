import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { publicOrigin } from "@/lib/api/public-origin";
import { pauseWebhookOperation } from "@/lib/api/operations/triggers";
import { setWebhookStatus } from "@/lib/services/webhooks";

export const dynamic = "force-dynamic";

// POST /v1/webhooks/{webhookId}/pause – pause a webhook
export const POST = route(pauseWebhookOperation, async ({ actor, params, request }) => ok(await setWebhookStatus(actor, params.webhookId, "pause", publicOrigin(request))));
