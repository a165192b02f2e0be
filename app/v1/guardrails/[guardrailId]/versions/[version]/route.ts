import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getGuardrailVersionOperation } from "@/lib/api/operations/guardrails";
import { getGuardrailVersion } from "@/lib/services/guardrails";

export const dynamic = "force-dynamic";

// GET /v1/guardrails/{guardrailId}/versions/{version} – one version with its definition as registered
export const GET = route(getGuardrailVersionOperation, async ({ actor, params }) => ok(await getGuardrailVersion(actor, params.guardrailId, params.version)));
