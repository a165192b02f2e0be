import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { createNotificationEndpointOperation, listNotificationEndpointsOperation } from "@/lib/api/operations/notifications";
import { createNotificationEndpoint, listNotificationEndpoints, type NotificationEvent, type NotificationFormat } from "@/lib/services/notifications";

export const dynamic = "force-dynamic";

// GET /v1/notification-endpoints – the notification endpoints of the caller's projects
export const GET = route(listNotificationEndpointsOperation, async ({ actor, query }) => ok(await listNotificationEndpoints(actor, { projectId: query.projectId as string | undefined }, pageParams(query))));

// POST /v1/notification-endpoints – register a notification endpoint; answers its signing secret (once)
export const POST = route(createNotificationEndpointOperation, async ({ actor, body }) =>
  created(await createNotificationEndpoint(actor, body as { projectId?: string; url: string; format: NotificationFormat; events?: NotificationEvent[] }), { containsSecret: true }),
);
