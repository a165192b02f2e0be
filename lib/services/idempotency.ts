import { sha256Hex } from "@/lib/hash";
import { getDb } from "@/lib/db";
import { AppError } from "@/lib/errors";

const RETENTION_MS = 24 * 60 * 60 * 1000;
/** An in-flight record older than this belongs to a request whose process died: it is taken over. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

export type IdempotencyScope = { tenantId: string; callerId: string; method: string; path: string; key: string };
export type StoredResponse = { status: number; body: string };

export function validateIdempotencyKey(key: string | null): string | null {
  if (key === null) return null;
  if (key.length < 1 || key.length > 255 || /[^\x20-\x7e]/.test(key))
    throw new AppError("bad-input", "Idempotency-Key must be 1 to 255 printable ASCII characters", { issues: [{ path: "/headers/Idempotency-Key", message: "malformed" }] });
  return key;
}

export const hashRequest = (canonicalBody: string) => sha256Hex(canonicalBody);

/**
 * Claims the key for this request. Returns `{ replay }` when a completed response with the same body exists,
 * `{ claimed: true }` when this request should run; throws the 409s of the conventions otherwise.
 */
export async function claimIdempotencyKey(scope: IdempotencyScope, requestHash: string): Promise<{ replay: StoredResponse } | { claimed: true }> {
  const db = await getDb();
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = new Date();
    const inserted = await db.idempotencyRecord.createMany({
      data: [{ ...scope, requestHash, state: "in-flight", expiresAt: new Date(now.getTime() + RETENTION_MS) }],
      skipDuplicates: true,
    });
    if (inserted.count === 1) return { claimed: true };
    const existing = await db.idempotencyRecord.findUnique({
      where: { tenantId_callerId_method_path_key: scope },
    });
    if (!existing) continue; // released between our insert and read
    const abandoned = existing.state === "in-flight" && now.getTime() - existing.createdAt.getTime() > ABANDONED_AFTER_MS;
    if (existing.expiresAt <= now || abandoned) {
      await db.idempotencyRecord.deleteMany({ where: { id: existing.id, state: existing.state } });
      continue;
    }
    if (existing.requestHash !== requestHash)
      throw new AppError("idempotency-key-body-mismatch", "this Idempotency-Key was used with a different request body");
    if (existing.state === "in-flight")
      throw new AppError("idempotency-key-in-flight", "a request with this Idempotency-Key is still running", undefined, { "Retry-After": "1" });
    if (existing.withheld)
      throw new AppError("idempotency-key-replay-withheld", "the first response carried a secret that is shown only once; it is not replayed");
    return { replay: { status: existing.responseStatus!, body: existing.responseBody! } };
  }
  throw new AppError("idempotency-key-in-flight", "the Idempotency-Key is contended; retry", undefined, { "Retry-After": "1" });
}

/** Stores a success response for replay (or only the fact of it, when it carried a secret). */
export async function completeIdempotencyKey(scope: IdempotencyScope, response: StoredResponse, withheld: boolean): Promise<void> {
  const db = await getDb();
  await db.idempotencyRecord.update({
    where: { tenantId_callerId_method_path_key: scope },
    data: { state: "done", responseStatus: response.status, responseBody: withheld ? null : response.body, withheld },
  });
}

/** Forgets the key after an error response: errors are not stored, so the client may retry with the same key. */
export async function releaseIdempotencyKey(scope: IdempotencyScope): Promise<void> {
  const db = await getDb();
  await db.idempotencyRecord.deleteMany({ where: { ...scope, state: "in-flight" } });
}

/** Removes expired records; called from time to time, never on a request's path. */
export async function purgeExpiredIdempotencyRecords(): Promise<number> {
  const db = await getDb();
  const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  return count;
}
