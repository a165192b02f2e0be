import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { healthOperation } from "@/lib/api/operations/system";
import { checkHealth } from "@/lib/services/health";

export const dynamic = "force-dynamic";

// GET /health – liveness and the database in use (public)
export const GET = route(healthOperation, async () => ok(await checkHealth()));
