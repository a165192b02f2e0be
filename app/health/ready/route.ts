import { route } from "@/lib/api/route";
import { jsonResponse } from "@/lib/api/respond";
import { readinessOperation } from "@/lib/api/operations/system";
import { checkReadiness } from "@/lib/services/health";

export const dynamic = "force-dynamic";

// GET /health/ready – readiness: 200 when this replica can serve, else 503 saying which check failed (public)
export const GET = route(readinessOperation, async ({ requestId }) => {
  const readiness = await checkReadiness();
  return jsonResponse(readiness.status === "ready" ? 200 : 503, JSON.stringify(readiness), requestId);
});
