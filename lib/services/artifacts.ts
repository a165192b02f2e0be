/**
 * Pack handlers shipped as OCI artifacts (`codeArtifactRef.kind = "oci"`), on the tenant's side of the registry:
 * - at registration a tag is resolved to its manifest digest, recorded with the version (CatalogVersion
 *   `artifactDigest`), so that the version always runs the same bytes whatever the tag points to later; an imageRef
 *   that names a digest is recorded as it is, without asking the registry (an air-gapped server);
 * - at a call the bundle of that digest is pulled on first use, every digest verified, unpacked into the
 *   content-addressed read-only cache and its `modulePath` found there (lib/tools/oci/prepare.ts, which also keeps a
 *   tenant from running a bundle another tenant pulled unless the registry accepts its own credentials).
 * Registry credentials are the tenant's secret `registry.<host>` (a port's `:` written `_`, e.g.
 * `registry.127.0.0.1_5000`), holding `username:password` as `docker login` takes them. Registries at loopback or
 * private addresses need `KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES=1`; cloud metadata addresses are always refused.
 */
import { isAppError } from "@/lib/errors";
import { resolveSecretValue } from "@/lib/services/secrets";
import type { CodeArtifactRef } from "@/lib/tools/manifest-schema";
import { ArtifactError, defaultArtifactCacheDir, parseImageRef, prepareModule, privateRegistriesAllowed, resolveImageRef, type ArtifactErrorCode } from "@/lib/tools/oci";

type OciRef = Extract<CodeArtifactRef, { kind: "oci" }>;

/** The tenant secret that holds a registry's credentials. */
export const registrySecretName = (registry: string) => `registry.${registry.replace(/:/g, "_")}`;

/** `username:password` from the tenant's secret for the registry, or null (anonymous) when it has none. */
function credentialsOf(tenantId: string) {
  return async (registry: string): Promise<{ username: string; password: string } | null> => {
    let value: string;
    try {
      value = await resolveSecretValue(tenantId, registrySecretName(registry));
    } catch (error) {
      if (isAppError(error) && error.code === "secret-not-found") return null;
      throw error;
    }
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

export type PreparedArtifact = { ok: true; root: string; modulePath: string } | { ok: false; code: ArtifactErrorCode | "artifact-unresolved"; message: string };

/**
 * The unpacked bundle of a call's oci artifact and the absolute path of its module (pulled, verified and unpacked on
 * first use; from the cache after). `digest` is what the version recorded at registration.
 */
export async function prepareArtifact(tenantId: string, ref: OciRef, digest: string | undefined, signal: AbortSignal): Promise<PreparedArtifact> {
  if (!digest) return { ok: false, code: "artifact-unresolved", message: `the artifact ${ref.imageRef} has no digest recorded with this tool version; register the version again` };
  try {
    // The tenant is the party: a bundle another tenant pulled runs for this one once the registry accepts its credentials.
    const found = await prepareModule(tenantId, { imageRef: ref.imageRef, digest, modulePath: ref.modulePath }, optionsFor(tenantId, signal));
    return { ok: true, ...found };
  } catch (error) {
    if (error instanceof ArtifactError) return { ok: false, code: error.code, message: error.message };
    if (signal.aborted) return { ok: false, code: "registry-unreachable", message: "the call was cancelled while its artifact was being pulled" };
    throw error;
  }
}
