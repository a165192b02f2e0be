import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getRunJournalOperation } from "@/lib/api/operations/runs";
import { getJournal } from "@/lib/services/runs";

export const dynamic = "force-dynamic";

// GET /v1/runs/{runId}/journal – the numbered events after `since`
export const GET = route(getRunJournalOperation, async ({ actor, params, query }) => ok(await getJournal(actor, params.runId, (query.since as number | undefined) ?? 0, (query.limit as number | undefined) ?? 100)));
