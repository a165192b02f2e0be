import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { deleteConnectionOperation, getConnectionOperation } from "@/lib/api/operations/connections";
import { deleteConnection, getConnection } from "@/lib/services/connections";

export const dynamic = "force-dynamic";

// GET /v1/connections/{connectionId} – a connection (never its token)
export const GET = route(getConnectionOperation, async ({ actor, params }) => ok(await getConnection(actor, params.connectionId)));

// DELETE /v1/connections/{connectionId} – remove a connection
export const DELETE = route(deleteConnectionOperation, async ({ actor, params }) => ok(await deleteConnection(actor, params.connectionId)));
