import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listTokensOperation, mintTokenOperation } from "@/lib/api/operations/identity";
import { listTokens, mintToken, type MintTokenInput } from "@/lib/services/tokens";

export const dynamic = "force-dynamic";

// POST /v1/tokens – mint an API key (shown once)
export const POST = route(mintTokenOperation, async ({ actor, body }) => created(await mintToken(actor, body as MintTokenInput), { containsSecret: true }));

// GET /v1/tokens – list API keys
export const GET = route(listTokensOperation, async ({ actor, query }) => ok(await listTokens(actor, { ...pageParams(query), includeRevoked: query.includeRevoked as boolean | undefined })));
