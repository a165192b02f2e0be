import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { createConnectionOperation, listConnectionsOperation } from "@/lib/api/operations/connections";
import { createConnection, listConnections, type CreateConnectionInput } from "@/lib/services/connections";

export const dynamic = "force-dynamic";

// GET /v1/connections – the caller's connections and the company's
export const GET = route(listConnectionsOperation, async ({ actor, query }) => ok(await listConnections(actor, { app: query.app as string | undefined, owner: query.owner as "person" | "company" | undefined }, pageParams(query))));

// POST /v1/connections – link an account at another app
export const POST = route(createConnectionOperation, async ({ actor, body }) => created(await createConnection(actor, body as CreateConnectionInput)));
