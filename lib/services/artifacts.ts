/**
 * Pack handlers shipped as OCI artifacts (`codeArtifactRef.kind = "oci"`), on the tenant's side of the registry:
 * - at registration a tag is resolved to its manifest digest, recorded with the version (CatalogVersion
 *   `artifactDigest`), so that the version always runs the same bytes whatever the tag points to later; an imageRef
 *   that names a digest is recorded as it is, without asking the registry (an air-gapped server);
 * - at a call the bundle of that digest is pulled on first use, every digest verified, unpacked into the
 *   content-addressed read-only cache (lib/tools/oci) and its `modulePath` found there.
 * Registry credentials are the tenant's secret `registry.<host>` (a port's `:` written `_`, e.g.
 * `registry.127.0.0.1_5000`), holding `username:password` as `docker login` takes them. Registries at loopback or
 * private addresses need `KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES=1`; cloud metadata addresses are always refused.
 */
import { existsSync } from "node:fs";
import { getDb } from "@/lib/db";
import { BoundedMap } from "@/lib/services/bounded-map";
import { resolveSecretValue } from "@/lib/services/secrets";
import type { CodeArtifactRef } from "@/lib/tools/manifest-schema";
import { ArtifactError, confirmAccess, defaultArtifactCacheDir, ensureArtifact, parseImageRef, privateRegistriesAllowed, resolveImageRef, resolveModulePath, type ArtifactErrorCode } from "@/lib/tools/oci";

type OciRef = Extract<CodeArtifactRef, { kind: "oci" }>;

/** The tenant secret that holds a registry's credentials. */
export const registrySecretName = (registry: string) => `registry.${registry.replace(/:/g, "_")}`;

/** `username:password` from the tenant's secret for the registry, or null (anonymous) when it has none. */
function credentialsOf(tenantId: string) {
  return async (registry: string): Promise<{ username: string; password: string } | null> => {
    const name = registrySecretName(registry);
    const db = await getDb();
    const exists = await db.secret.findFirst({ where: { tenantId, name, deletedAt: null }, select: { id: true } });
    if (!exists) return null;
    const value = await resolveSecretValue(tenantId, name);
    const colon = value.indexOf(":");
    return colon < 0 ? { username: "", password: value } : { username: value.slice(0, colon), password: value.slice(colon + 1) };
  };
}

/** KINDGI_ARTIFACT_MAX_MB (256 by default): the largest blob, and the largest unpacked bundle. */
const maxBytes = () => (Number(process.env.KINDGI_ARTIFACT_MAX_MB) || 256) * 1024 * 1024;

const optionsFor = (tenantId: string, signal?: AbortSignal) => ({
  cacheDir: defaultArtifactCacheDir(),
  maxBytes: maxBytes(),
  allowPrivate: privateRegistriesAllowed(),
  credentials: credentialsOf(tenantId),
  ...(signal ? { signal } : {}),
});

/**
 * The manifest digest an oci imageRef names (a tag resolved at the registry now), for registration; a problem is a
 * validation issue at `/codeArtifactRef/imageRef` naming its code (artifact-not-found, network-denied, …).
 */
export async function resolveArtifactForRegistration(tenantId: string, ref: OciRef): Promise<{ ok: true; digest: string } | { ok: false; issue: { path: string; message: string } }> {
  try {
    parseImageRef(ref.imageRef);
    const resolved = await resolveImageRef(ref.imageRef, optionsFor(tenantId, AbortSignal.timeout(30_000)));
    return { ok: true, digest: resolved.digest };
  } catch (error) {
    if (error instanceof ArtifactError) return { ok: false, issue: { path: "/codeArtifactRef/imageRef", message: `${error.code}: ${error.message}` } };
    throw error;
  }
}

/**
 * The cache is shared by every tenant of the server (it is named by digests), so a bundle already there is served to a
 * tenant only once its registry confirmed that tenant's credentials can read that manifest: knowing another tenant's
 * private digest is not enough. When the registry cannot be asked (unreachable, or an address the network rules
 * refuse: an air-gapped server whose cache its operator filled), the cache serves.
 */
async function confirmCachedAccess(imageRef: string, digest: string, options: ReturnType<typeof optionsFor>): Promise<void> {
  try {
    await confirmAccess(imageRef, digest, options);
  } catch (error) {
    if (error instanceof ArtifactError && (error.code === "registry-unreachable" || error.code === "network-denied")) return;
    throw error;
  }
}

/** Bundles each tenant of this process used, by tenant, cache folder, digest and module path. */
const prepared = new BoundedMap<string, { ok: true; root: string; modulePath: string }>(2000);

export type PreparedArtifact = { ok: true; root: string; modulePath: string } | { ok: false; code: ArtifactErrorCode | "artifact-unresolved"; message: string };

/**
 * The unpacked bundle of a call's oci artifact and the absolute path of its module (pulled, verified and unpacked on
 * first use; from the cache after). `digest` is what the version recorded at registration.
 */
export async function prepareArtifact(tenantId: string, ref: OciRef, digest: string | undefined, signal: AbortSignal): Promise<PreparedArtifact> {
  if (!digest) return { ok: false, code: "artifact-unresolved", message: `the artifact ${ref.imageRef} has no digest recorded with this tool version; register the version again` };
  const cacheDir = defaultArtifactCacheDir();
  const key = `${tenantId}\n${cacheDir}\n${digest}\n${ref.modulePath}`;
  const known = prepared.get(key);
  // An unpacked bundle never changes (read-only, named by its digest): one this tenant used before is answered again
  // while its module is still there (a cache folder emptied by hand is pulled again).
  if (known && existsSync(known.modulePath)) return known;
  try {
    const options = optionsFor(tenantId, signal);
    const bundle = await ensureArtifact({ imageRef: ref.imageRef, digest }, options);
    if (!bundle.pulled) await confirmCachedAccess(ref.imageRef, digest, options);
    const found = { ok: true as const, root: bundle.root, modulePath: await resolveModulePath(bundle.root, ref.modulePath) };
    prepared.set(key, found);
    return found;
  } catch (error) {
    if (error instanceof ArtifactError) return { ok: false, code: error.code, message: error.message };
    if (signal.aborted) return { ok: false, code: "registry-unreachable", message: "the call was cancelled while its artifact was being pulled" };
    throw error;
  }
}
