import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { unregisterGuardrailVersionOperation } from "@/lib/api/operations/guardrails";
import { setGuardrailVersionStatus } from "@/lib/services/guardrails";

export const dynamic = "force-dynamic";

// POST /v1/guardrails/{guardrailId}/versions/{version}/unregister – hide a version
export const POST = route(unregisterGuardrailVersionOperation, async ({ actor, params }) => ok(await setGuardrailVersionStatus(actor, params.guardrailId, params.version, "unregistered")));
