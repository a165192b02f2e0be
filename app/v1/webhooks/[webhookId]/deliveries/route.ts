import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listWebhookDeliveriesOperation } from "@/lib/api/operations/triggers";
import { listWebhookDeliveries } from "@/lib/services/webhooks";

export const dynamic = "force-dynamic";

// GET /v1/webhooks/{webhookId}/deliveries – the webhook's deliveries and their runs
export const GET = route(listWebhookDeliveriesOperation, async ({ actor, params, query }) => ok(await listWebhookDeliveries(actor, params.webhookId, pageParams(query))));
