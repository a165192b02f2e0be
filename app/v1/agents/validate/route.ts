import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { dryRunAgentOperation } from "@/lib/api/operations/agents";
import { validateAgentDraft } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// POST /v1/agents/validate – validate a definition without registering it (dry run)
export const POST = route(dryRunAgentOperation, async ({ actor, body }) => ok(await validateAgentDraft(actor, body)));
