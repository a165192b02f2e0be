import { route } from "@/lib/api/route";
import { receiveWebhookOperation } from "@/lib/api/operations/triggers";
import { receiveWebhook } from "@/lib/services/webhooks";

export const dynamic = "force-dynamic";

// POST /v1/hooks/{webhookId} – a signed delivery that starts an unattended run (no API key: the signature is the credential)
export const POST = route(receiveWebhookOperation, async ({ params, rawBody, request }) => ({ status: 202, body: await receiveWebhook(params.webhookId, rawBody ?? "", request.headers) }));
