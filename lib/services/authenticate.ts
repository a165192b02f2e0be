import { getDb } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { Actor } from "@/lib/services/actor";
import { hashApiKey, isWellFormedApiKey } from "@/lib/services/api-keys";

const LAST_USED_RESOLUTION_MS = 60_000;

/** Resolves a bearer API key to its actor; a revoked key is refused on the very next request. */
export async function authenticateApiKey(key: string): Promise<Actor> {
  if (!isWellFormedApiKey(key)) throw new AppError("auth-invalid", "the bearer token is not a Kindgi API key");
  const db = await getDb();
  const row = await db.apiKey.findUnique({
    where: { hash: hashApiKey(key) },
    select: { id: true, tenantId: true, projectId: true, revokedAt: true, lastUsedAt: true, user: { select: { id: true, role: true, kind: true } } },
  });
  if (!row) throw new AppError("auth-invalid", "unknown API key");
  if (row.revokedAt) throw new AppError("auth-revoked", "this API key was revoked");
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Best effort and off the request's path: a lost update only makes lastUsedAt a little older.
    db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => {});
  }
  return {
    tenantId: row.tenantId,
    userId: row.user.id,
    apiKeyId: row.id,
    projectId: row.projectId,
    role: row.user.role as Actor["role"],
    isService: row.user.kind === "service",
    callerId: `key:${row.id}`,
  };
}
