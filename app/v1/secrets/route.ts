import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listSecretsOperation, putSecretOperation } from "@/lib/api/operations/secrets";
import { listSecrets, putSecret } from "@/lib/services/secrets";

export const dynamic = "force-dynamic";

// POST /v1/secrets – store a secret (a new version)
export const POST = route(putSecretOperation, async ({ actor, body }) => created(await putSecret(actor, { name: body.name as string, value: body.value as string })));

// GET /v1/secrets – names and versions only
export const GET = route(listSecretsOperation, async ({ actor, query }) => ok(await listSecrets(actor, pageParams(query))));
