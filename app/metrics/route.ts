import { route } from "@/lib/api/route";
import { metricsOperation } from "@/lib/api/operations/system";
import { AppError } from "@/lib/errors";
import { metricsAccess, renderMetrics } from "@/lib/services/metrics";

export const dynamic = "force-dynamic";

// GET /metrics – Prometheus metrics, only when KINDGI_METRICS_TOKEN is set and sent as the bearer token
export const GET = route(metricsOperation, async ({ request }) => {
  const authorization = request.headers.get("authorization");
  const access = metricsAccess(authorization);
  if (access === "off") throw new AppError("not-found", `no route GET ${new URL(request.url).pathname}`);
  if (access === "denied") throw authorization ? new AppError("auth-invalid", "the metrics token is not valid") : new AppError("auth-missing", "send KINDGI_METRICS_TOKEN as `Authorization: Bearer <token>`");
  const { text, contentType } = await renderMetrics();
  return new Response(text, { status: 200, headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
});
