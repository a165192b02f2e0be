import { getDb } from "@/lib/db";
import { databaseConfig } from "@/lib/db/config";
import { AppError, notFound } from "@/lib/errors";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { type Actor, authorizeTenantWide } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { decryptSecret, encryptSecret, loadSecretsKey, secretAad } from "@/lib/secrets/crypto";
import { bumpGeneration } from "@/lib/services/tenant-generation";
import { log } from "@/lib/log";

export type SecretView = { name: string; version: number; createdAt: string };

const cache = globalThis as unknown as { kindgiSecretsKey?: Buffer };

/** The key secrets are encrypted with: KINDGI_SECRETS_KEY, or (embedded database only) a key file beside the data folder. */
function secretsKey(): Buffer {
  if (cache.kindgiSecretsKey) return cache.kindgiSecretsKey;
  const config = databaseConfig();
  try {
    const loaded = loadSecretsKey(process.env, { dataDir: config.kind === "pglite" ? config.dataDir : undefined });
    if (loaded.generated) log.warn("KINDGI_SECRETS_KEY is not set: generated a key file beside the data folder. Back it up with the data.");
    cache.kindgiSecretsKey = loaded.key;
    return loaded.key;
  } catch (error) {
    throw new AppError("secrets-unavailable", `secrets cannot be used: ${(error as Error).message}`);
  }
}

/** Stores a new version of a secret (tenant admins). The value is never returned or logged. */
export async function putSecret(actor: Actor, input: { name: string; value: string }): Promise<SecretView> {
  authorizeTenantWide(actor, "secrets", "write");
  const key = secretsKey();
  const db = await getDb();
  return db.$transaction(async (tx) => {
    // Serialize writers of the same name: the next version number is read under the lock.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${actor.tenantId}:${input.name}`}))`;
    const last = await tx.secret.findFirst({ where: { tenantId: actor.tenantId, name: input.name }, orderBy: { version: "desc" }, select: { version: true } });
    const version = (last?.version ?? 0) + 1;
    const ciphertext = encryptSecret(input.value, key, secretAad({ tenantId: actor.tenantId, name: input.name, version }));
    const row = await tx.secret.create({ data: { tenantId: actor.tenantId, name: input.name, version, ciphertext, createdBy: actor.userId } });
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "secret.written", subjectType: "secret", subjectId: input.name, data: { version } });
    return { name: row.name, version: row.version, createdAt: row.createdAt.toISOString() };
  });
}

/** The tenant's secrets: names and current versions only, ordered by name. */
export async function listSecrets(actor: Actor, page: { limit: number; cursor?: string }): Promise<Page<SecretView>> {
  authorizeTenantWide(actor, "secrets", "read");
  const db = await getDb();
  const after = decodeCursor(page.cursor) as [string] | undefined;
  const rows = await db.secret.findMany({
    where: { tenantId: actor.tenantId, deletedAt: null, ...(after ? { name: { gt: String(after[0]) } } : {}) },
    orderBy: [{ name: "asc" }, { version: "desc" }],
    distinct: ["name"],
    take: page.limit + 1,
    select: { name: true, version: true, createdAt: true },
  });
  return toPage(rows, page.limit, (row) => [row.name], (row) => ({ name: row.name, version: row.version, createdAt: row.createdAt.toISOString() }));
}

/** Deletes every version of a secret (tenant admins); tools that name it fail until it is written again. */
export async function deleteSecret(actor: Actor, name: string): Promise<{ name: string; deleted: true }> {
  authorizeTenantWide(actor, "secrets", "write");
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const { count } = await tx.secret.updateMany({ where: { tenantId: actor.tenantId, name, deletedAt: null }, data: { deletedAt: new Date() } });
    if (count === 0) throw notFound("secret", name);
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "secret.deleted", subjectType: "secret", subjectId: name });
    return { name, deleted: true as const };
  });
}

/**
 * The current value of a secret, for one tool or provider call. Callers keep it in memory only for that call and
 * never write it to events, the journal, logs or error messages.
 */
export async function resolveSecretValue(tenantId: string, name: string): Promise<string> {
  const db = await getDb();
  const row = await db.secret.findFirst({ where: { tenantId, name, deletedAt: null }, orderBy: { version: "desc" } });
  if (!row) throw new AppError("secret-not-found", `no secret named ${JSON.stringify(name)} in this tenant`);
  return decryptSecret(row.ciphertext, secretsKey(), secretAad({ tenantId, name, version: row.version }));
}

/**
 * Seals a credential another row keeps (a connection's access token, a trigger's or endpoint's signing secret) with the
 * secrets key, bound to that row (`binding`, e.g. `connection:<id>`): an envelope copied to another row does not open.
 */
export function sealValue(tenantId: string, binding: string, plaintext: string): string {
  return encryptSecret(plaintext, secretsKey(), secretAad({ tenantId, name: binding, version: 0 }));
}

/** Opens a value sealed by {@link sealValue}; kept in memory for the one use only. */
export function openValue(tenantId: string, binding: string, envelope: string): string {
  return decryptSecret(envelope, secretsKey(), secretAad({ tenantId, name: binding, version: 0 }));
}
