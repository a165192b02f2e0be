import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { deleteFactOperation, getFactOperation } from "@/lib/api/operations/memory";
import { deleteFact, getFact } from "@/lib/services/memory";

export const dynamic = "force-dynamic";

// GET /v1/memory/facts/{factId} – one fact
export const GET = route(getFactOperation, async ({ actor, params }) => ok(await getFact(actor, params.factId)));

// DELETE /v1/memory/facts/{factId} – forget a fact for good
export const DELETE = route(deleteFactOperation, async ({ actor, params }) => ok(await deleteFact(actor, params.factId)));
