import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { publicOrigin } from "@/lib/api/public-origin";
import { resumeWebhookOperation } from "@/lib/api/operations/triggers";
import { setWebhookStatus } from "@/lib/services/webhooks";

export const dynamic = "force-dynamic";

// POST /v1/webhooks/{webhookId}/resume – resume a webhook
export const POST = route(resumeWebhookOperation, async ({ actor, params, request }) => ok(await setWebhookStatus(actor, params.webhookId, "resume", publicOrigin(request))));
