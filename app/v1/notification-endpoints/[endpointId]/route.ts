import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { deleteNotificationEndpointOperation, getNotificationEndpointOperation } from "@/lib/api/operations/notifications";
import { deleteNotificationEndpoint, getNotificationEndpoint } from "@/lib/services/notifications";

export const dynamic = "force-dynamic";

// GET /v1/notification-endpoints/{endpointId} – a notification endpoint (never its secret)
export const GET = route(getNotificationEndpointOperation, async ({ actor, params }) => ok(await getNotificationEndpoint(actor, params.endpointId)));

// DELETE /v1/notification-endpoints/{endpointId} – stop delivering to an endpoint
export const DELETE = route(deleteNotificationEndpointOperation, async ({ actor, params }) => ok(await deleteNotificationEndpoint(actor, params.endpointId)));
