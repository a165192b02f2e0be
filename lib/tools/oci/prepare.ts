/**
 * A handler's module in its OCI bundle, as each call needs it: the bundle pulled, verified and unpacked on first use
 * (lib/tools/oci/cache.ts), the module found in it, and both remembered for the next call of the same party.
 *
 * The cache is shared by every party of the server (it is named by digests), so a bundle already there is served to a
 * party (a tenant) only once the registry confirmed that party's credentials can read the manifest: knowing another
 * tenant's private digest is not enough. When the registry cannot be asked (unreachable, or an address the network
 * rules refuse: an air-gapped server whose cache its operator filled), the cache serves.
 */
import { existsSync } from "node:fs";
import { ensureArtifact, resolveModulePath, type ArtifactCacheOptions } from "./cache";
import { confirmAccess } from "./client";
import { ArtifactError } from "./errors";

export type PreparedModule = { root: string; modulePath: string };

/** Modules found, by party, cache folder, digest and module path; bounded by clearing. */
const prepared = new Map<string, PreparedModule>();
const MAX_REMEMBERED = 2000;

/**
 * The bundle of manifest `digest` and the absolute path of `modulePath` in it, for `party` (whose credentials
 * `options` carries). Throws {@link ArtifactError}.
 */
export async function prepareModule(party: string, artifact: { imageRef: string; digest: string; modulePath: string }, options: ArtifactCacheOptions): Promise<PreparedModule> {
  const key = `${party}\n${options.cacheDir}\n${artifact.digest}\n${artifact.modulePath}`;
  const known = prepared.get(key);
  // An unpacked bundle never changes (read-only, named by its digest): a module found before is answered again while
  // it is still there (a cache folder emptied by hand is pulled again).
  if (known && existsSync(known.modulePath)) return known;
  const bundle = await ensureArtifact(artifact, options);
  if (!bundle.pulled) await confirmCachedAccess(artifact.imageRef, artifact.digest, options);
  const found = { root: bundle.root, modulePath: await resolveModulePath(bundle.root, artifact.modulePath) };
  if (prepared.size >= MAX_REMEMBERED) prepared.clear();
  prepared.set(key, found);
  return found;
}

async function confirmCachedAccess(imageRef: string, digest: string, options: ArtifactCacheOptions): Promise<void> {
  try {
    await confirmAccess(imageRef, digest, options);
  } catch (error) {
    if (error instanceof ArtifactError && (error.code === "registry-unreachable" || error.code === "network-denied")) return;
    throw error;
  }
}
