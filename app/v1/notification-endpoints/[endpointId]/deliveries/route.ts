import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listNotificationDeliveriesOperation } from "@/lib/api/operations/notifications";
import { listNotificationDeliveries } from "@/lib/services/notifications";

export const dynamic = "force-dynamic";

// GET /v1/notification-endpoints/{endpointId}/deliveries – the endpoint's deliveries and their outcome
export const GET = route(listNotificationDeliveriesOperation, async ({ actor, params, query }) => ok(await listNotificationDeliveries(actor, params.endpointId, pageParams(query))));
