/**
 * The one error type of the OCI artifact library: every failure to name, fetch, verify or unpack a handler bundle is
 * an {@link ArtifactError} with a code from {@link ArtifactErrorCode}, so the caller maps codes, never messages.
 * Messages name the image reference, registry, repository or digest concerned, never a credential or token.
 */

/**
 * - `artifact-ref-invalid`: the image reference (or a digest) does not follow the OCI distribution grammar, names no
 *   registry host (Docker Hub is not a default), or uses a digest algorithm other than sha256.
 * - `artifact-not-found`: the registry answered 404 (`NAME_UNKNOWN`, `MANIFEST_UNKNOWN`, `BLOB_UNKNOWN`) for the
 *   repository, tag, manifest or blob; or, offline, the cache does not hold it.
 * - `artifact-digest-mismatch`: a manifest or blob whose bytes do not hash to the digest that named it.
 * - `artifact-too-large`: a manifest over 4 MiB, a blob over the byte limit, or a bundle whose unpacked files exceed it.
 * - `artifact-invalid`: not an OCI or Docker v2 image manifest, a layer of an unsupported media type, a tar entry that
 *   is a hard link, device, fifo, absolute path, `..` path or a symlink leaving the bundle; or a module path that is
 *   not a regular file inside the bundle.
 * - `artifact-unauthorized`: the registry (or its token server) answered 401/403 after the credentials were tried.
 * - `network-denied`: the registry's (or token server's, or a redirect's) address is refused by the network rules.
 * - `registry-unreachable`: connection errors, unresolvable hosts, 5xx and other answers that are not about the artifact.
 */
export type ArtifactErrorCode =
  | "artifact-ref-invalid"
  | "artifact-not-found"
  | "artifact-digest-mismatch"
  | "artifact-too-large"
  | "artifact-invalid"
  | "artifact-unauthorized"
  | "network-denied"
  | "registry-unreachable";

/** A failure of the OCI artifact library; `code` says which (see {@link ArtifactErrorCode}). */
export class ArtifactError extends Error {
  readonly code: ArtifactErrorCode;

  constructor(code: ArtifactErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ArtifactError";
    this.code = code;
  }
}
