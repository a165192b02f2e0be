/**
 * Parsing of OCI image references (`registry.example/acme/tools@sha256:…`, `127.0.0.1:5000/acme/tools:1.2.0`) after
 * the grammar of the OCI distribution spec and Docker's reference package. Unlike Docker, a reference must name its
 * registry host: a reference without one is refused rather than sent to Docker Hub. Only sha256 digests are supported.
 */
import { ArtifactError } from "./errors";

/** A parsed image reference. `tag` and `digest` may both be present (`host/repo:tag@sha256:…`); the digest wins. */
export type ImageRef = { registry: string; repository: string; tag?: string; digest?: string };

const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const REGISTRY = new RegExp(`^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?$`);
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const SHA256_DIGEST = /^sha256:[a-f0-9]{64}$/;
/** Docker's limit on the length of a repository name. */
const MAX_REPOSITORY_LENGTH = 255;

/** Parses `ref`; throws an {@link ArtifactError} `artifact-ref-invalid` saying what is wrong with it. */
export function parseImageRef(ref: string): ImageRef {
  const invalid = (reason: string): never => {
    throw new ArtifactError("artifact-ref-invalid", `image reference "${ref}" is invalid: ${reason}`);
  };
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    checkDigest(digest, invalid);
  }
  const slash = rest.indexOf("/");
  const first = slash === -1 ? rest : rest.slice(0, slash);
  // Docker's rule: the first component is a registry host when it has a dot or a port, or is "localhost".
  if (slash === -1 || !(first.includes(".") || first.includes(":") || first === "localhost" || first.startsWith("["))) {
    invalid("it names no registry host (write host[:port]/repository; Docker Hub is not assumed)");
  }
  if (!REGISTRY.test(first)) invalid(`"${first}" is not a registry host[:port]`);
  let path = rest.slice(slash + 1);
  let tag: string | undefined;
  const colon = path.lastIndexOf(":");
  if (colon !== -1) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) invalid(`"${tag}" is not a valid tag (letters, digits, "_", "." and "-", at most 128, not starting with "." or "-")`);
  }
  if (!tag && !digest) invalid("it names neither a tag nor a digest");
  if (path.length > MAX_REPOSITORY_LENGTH) invalid(`the repository name is longer than ${MAX_REPOSITORY_LENGTH} characters`);
  for (const component of path.split("/")) {
    if (!PATH_COMPONENT.test(component)) invalid(`repository path component "${component}" is invalid (lower-case letters and digits, separated by ".", "_", "__" or dashes)`);
  }
  return { registry: first, repository: path, ...(tag === undefined ? {} : { tag }), ...(digest === undefined ? {} : { digest }) };
}

/** Throws `artifact-ref-invalid` unless `digest` is a well-formed sha256 digest (`sha256:` and 64 lower-case hex). */
export function assertSha256Digest(digest: string): void {
  checkDigest(digest, (reason) => {
    throw new ArtifactError("artifact-ref-invalid", `digest "${digest}" is invalid: ${reason}`);
  });
}

function checkDigest(digest: string, invalid: (reason: string) => never): void {
  if (!DIGEST.test(digest)) invalid(`"${digest}" is not a digest (algorithm:encoded)`);
  if (!digest.startsWith("sha256:")) invalid(`digest algorithm "${digest.split(":")[0]}" is not supported; only sha256 is`);
  if (!SHA256_DIGEST.test(digest)) invalid("a sha256 digest is 64 lower-case hexadecimal characters");
}
