import { route } from "@/lib/api/route";
import { publicOrigin } from "@/lib/api/public-origin";
import { testNotificationEndpointOperation } from "@/lib/api/operations/notifications";
import { testNotificationEndpoint } from "@/lib/services/notifications";

export const dynamic = "force-dynamic";

// POST /v1/notification-endpoints/{endpointId}/test – send a test notification to the endpoint
export const POST = route(testNotificationEndpointOperation, async ({ actor, params, request }) => ({
  status: 202,
  body: await testNotificationEndpoint(actor, params.endpointId, `${publicOrigin(request)}/v1/notification-endpoints/${params.endpointId}`),
}));
