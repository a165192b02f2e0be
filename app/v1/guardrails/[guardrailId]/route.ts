import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getGuardrailOperation } from "@/lib/api/operations/guardrails";
import { getGuardrail } from "@/lib/services/guardrails";

export const dynamic = "force-dynamic";

// GET /v1/guardrails/{guardrailId} – the latest active version and the list of versions
export const GET = route(getGuardrailOperation, async ({ actor, params }) => ok(await getGuardrail(actor, params.guardrailId)));
