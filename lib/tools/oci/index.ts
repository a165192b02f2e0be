/**
 * Handler bundles stored as OCI artifacts (`codeArtifactRef: {kind: "oci", imageRef, modulePath, artifactVersion}`):
 * parse the reference, resolve a tag to its manifest digest, and get the verified, unpacked, read-only bundle of a
 * digest from the local cache or the registry.
 */
export { ArtifactError, type ArtifactErrorCode } from "./errors";
export { parseImageRef, assertSha256Digest, type ImageRef } from "./reference";
export { confirmAccess, resolveImageRef, type RegistryCredentials, type RegistryOptions } from "./client";
export { ensureArtifact, resolveModulePath, DEFAULT_MAX_BYTES, type ArtifactBundle, type ArtifactCacheOptions } from "./cache";
export { defaultArtifactCacheDir, privateRegistriesAllowed } from "./config";
export { prepareModule, type PreparedModule } from "./prepare";
