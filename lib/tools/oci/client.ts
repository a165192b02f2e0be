/**
 * A small client of the OCI Distribution API, enough to resolve a tag and fetch manifests and blobs of one
 * repository: the way handler bundles stored as OCI artifacts reach this server.
 *
 * Every request — to the registry, to its token server, and to each redirect (blob GETs often redirect to object
 * storage) — goes through {@link pinnedFetch} with a destination check, so it is checked against the network rules
 * and connected to the address that was checked (DNS-pinned). The rules: a registry must be at a public address,
 * unless `allowPrivate` is set, which opens loopback and private addresses for the host the request names (cloud
 * metadata stays refused, as for MCP endpoints in lib/tools/mcp/connection.ts). Requests use https; plain http is used
 * — and accepted in a redirect or token realm — only for a loopback host (`localhost`, 127.0.0.0/8, ::1) while
 * `allowPrivate` is set: a registry on this machine, as in development and tests, which no one else can intercept.
 *
 * Authentication follows the distribution token flow: a request goes out anonymously first; on a 401 with a
 * `Bearer` challenge a token is asked from the challenge's realm (HTTP Basic with the registry's credentials when
 * there are some) and cached per registry, scope and credentials until it expires; on a `Basic` challenge the
 * credentials are sent as HTTP Basic. Messages never carry a credential or a token.
 */
import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { addressCategory, checkDestination, isMetadataHostName, ToolNetworkError, type Destination } from "../network-policy";
import { pinnedFetch, type PinnedFetch } from "../pinned-fetch";
import { ArtifactError } from "./errors";
import { parseImageRef } from "./reference";

/** A registry's credentials, used for its token server (Bearer) or directly (Basic). */
export type RegistryCredentials = { username: string; password: string };

/** How the client may reach registries and with which credentials. */
export type RegistryOptions = {
  /** Allow registries (and their token servers and redirects) at loopback and private addresses; see the module comment. */
  allowPrivate: boolean;
  /** The credentials for a registry (`host[:port]`), or null to stay anonymous. Asked at most once per operation. */
  credentials(registry: string): Promise<RegistryCredentials | null>;
  signal?: AbortSignal;
  /** Never touch the network: what is not in the cache is reported missing. */
  offline?: boolean;
};

/** The manifest media types this library reads; registries answer 404 for a manifest of a type not accepted. */
export const OCI_MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json";
export const DOCKER_MANIFEST_MEDIA_TYPE = "application/vnd.docker.distribution.manifest.v2+json";
export const MANIFEST_MEDIA_TYPES: readonly string[] = [OCI_MANIFEST_MEDIA_TYPE, DOCKER_MANIFEST_MEDIA_TYPE];

/** The largest manifest read (the limit containerd and the distribution registry apply). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

const MAX_REDIRECTS = 5;
/** The largest token-server or error answer read. */
const MAX_SMALL_BODY_BYTES = 1024 * 1024;
/** The token lifetime assumed when the token server does not say (the distribution spec's default). */
const DEFAULT_TOKEN_SECONDS = 60;
const SHA256_DIGEST = /^sha256:[a-f0-9]{64}$/;

type CachedToken = { token: string; expiresAt: number };

/** Bearer tokens, per registry, scope and credentials (a different password does not reuse a token). */
const tokenCache = new Map<string, CachedToken>();

/**
 * The manifest digest (and media type) an image reference names. A digest reference answers itself without the
 * network (its media type is then unknown); a tag is resolved with a HEAD of the manifest (`Docker-Content-Digest`),
 * falling back to a GET whose bytes are hashed when the HEAD is refused or names no sha256 digest.
 */
export async function resolveImageRef(ref: string, options: RegistryOptions): Promise<{ digest: string; mediaType?: string }> {
  const parsed = parseImageRef(ref);
  if (parsed.digest) return { digest: parsed.digest };
  const tag = parsed.tag as string;
  if (options.offline) throw new ArtifactError("artifact-not-found", `tag ${ref} cannot be resolved offline`);
  const client = new RegistryClient(parsed.registry, parsed.repository, options);
  try {
    const head = await client.headManifest(tag);
    if (head.digest) return { digest: head.digest, mediaType: head.mediaType };
    const manifest = await client.getManifest(tag);
    const digest = sha256Digest(manifest.bytes);
    if (manifest.digestHeader && manifest.digestHeader !== digest) {
      throw new ArtifactError("artifact-digest-mismatch", `manifest of ${ref} hashes to ${digest}, but the registry names it ${manifest.digestHeader}`);
    }
    return { digest, mediaType: manifest.mediaType };
  } finally {
    client.close();
  }
}

/** `sha256:<hex>` of `bytes`. */
/**
 * Whether the registry lets these credentials read the manifest `digest` of the repository `ref` names (a GET, its
 * bytes checked against the digest). Throws `artifact-unauthorized`, `artifact-not-found`, `network-denied`,
 * `registry-unreachable`, … as a pull would.
 */
export async function confirmAccess(ref: string, digest: string, options: RegistryOptions): Promise<void> {
  const parsed = parseImageRef(ref);
  const client = new RegistryClient(parsed.registry, parsed.repository, options);
  try {
    const manifest = await client.getManifest(digest);
    if (sha256Digest(manifest.bytes) !== digest) throw new ArtifactError("artifact-digest-mismatch", `manifest ${digest} of ${parsed.registry}/${parsed.repository} does not hash to its digest`);
  } finally {
    client.close();
  }
}

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * Whether plain http may be used for `url`'s host: only a loopback host while private registries are allowed (a
 * registry on this machine). Everything else must use https.
 */
function plainHttpAllowed(hostname: string, allowPrivate: boolean): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return allowPrivate && (host === "localhost" || (isIP(host) !== 0 && addressCategory(host) === "loopback"));
}

/** Checks one request's destination against the registry network rules; see the module comment. */
async function checkRegistryUrl(url: URL, allowPrivate: boolean): Promise<Destination> {
  if (url.protocol === "http:" && !plainHttpAllowed(url.hostname, allowPrivate)) {
    throw new ArtifactError("network-denied", `request to ${url.host} refused: plain http is used only for a loopback registry while private registries are allowed`);
  }
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const openPrivate = allowPrivate && !isMetadataHostName(hostname) && addressCategory(hostname) !== "cloud metadata";
  try {
    return await checkDestination(url, openPrivate ? { kind: "allowlist", hosts: [url.hostname] } : { kind: "unrestricted" });
  } catch (error) {
    if (!(error instanceof ToolNetworkError)) throw error;
    if (error.code === "host-unresolvable") throw new ArtifactError("registry-unreachable", `registry ${error.message}`);
    const hint = allowPrivate ? "" : " (a server may allow loopback and private registries with KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES=1)";
    throw new ArtifactError("network-denied", `registry ${error.message}${hint}`);
  }
}

/** Requests to one repository of one registry. Close it to end its kept-alive connections. */
export class RegistryClient {
  private readonly base: URL;
  private readonly scope: string;
  private readonly pinned: PinnedFetch;
  private credentialsAnswer?: Promise<RegistryCredentials | null>;
  /** The Authorization header the last challenge called for (sent to the registry host only). */
  private authorization?: string;

  constructor(
    readonly registry: string,
    readonly repository: string,
    private readonly options: RegistryOptions,
  ) {
    const hostname = new URL(`http://${registry}`).hostname;
    this.base = new URL(`${plainHttpAllowed(hostname, options.allowPrivate) ? "http" : "https"}://${registry}/v2/${repository}/`);
    this.scope = `repository:${repository}:pull`;
    this.pinned = pinnedFetch((url) => checkRegistryUrl(url, options.allowPrivate));
  }

  close(): void {
    this.pinned.close();
  }

  /** HEAD of a manifest: its digest when the registry names a sha256 one, else none (the caller then GETs it). */
  async headManifest(reference: string): Promise<{ digest?: string; mediaType?: string }> {
    const response = await this.send(`manifests/${reference}`, "HEAD", MANIFEST_MEDIA_TYPES.join(", "));
    if (response.status === 404) throw this.statusError(response, `manifest ${reference}`, "");
    if (response.status !== 200) return {};
    const mediaType = this.manifestMediaType(response, reference);
    const digest = response.headers.get("docker-content-digest") ?? undefined;
    return digest && SHA256_DIGEST.test(digest) ? { digest, mediaType } : {};
  }

  /** The bytes of a manifest (by tag or digest), at most {@link MAX_MANIFEST_BYTES}; verifying them is the caller's. */
  async getManifest(reference: string): Promise<{ bytes: Buffer; mediaType: string; digestHeader?: string }> {
    const what = `manifest ${reference} of ${this.registry}/${this.repository}`;
    const response = await this.send(`manifests/${reference}`, "GET", MANIFEST_MEDIA_TYPES.join(", "));
    if (response.status !== 200) throw this.statusError(response, `manifest ${reference}`, await readErrorCodes(response));
    const mediaType = this.manifestMediaType(response, reference);
    const bytes = await readLimited(response, MAX_MANIFEST_BYTES, () => new ArtifactError("artifact-too-large", `${what} is larger than ${MAX_MANIFEST_BYTES} bytes`));
    return { bytes, mediaType, digestHeader: response.headers.get("docker-content-digest") ?? undefined };
  }

  /** The response of a blob GET (redirects followed), status 200; the caller streams and verifies its body. */
  async getBlob(digest: string): Promise<Response> {
    const response = await this.send(`blobs/${digest}`, "GET", "*/*");
    if (response.status !== 200) throw this.statusError(response, `blob ${digest}`, await readErrorCodes(response));
    return response;
  }

  private manifestMediaType(response: Response, reference: string): string {
    const mediaType = (response.headers.get("content-type") ?? "").split(";")[0].trim();
    if (!MANIFEST_MEDIA_TYPES.includes(mediaType)) {
      void response.body?.cancel().catch(() => undefined);
      throw new ArtifactError("artifact-invalid", `manifest ${reference} of ${this.registry}/${this.repository} has media type "${mediaType}", not an OCI or Docker v2 image manifest`);
    }
    return mediaType;
  }

  /** A request to the repository, authenticated as its registry asks; 401/403 after the credentials are tried throw. */
  private async send(path: string, method: "GET" | "HEAD", accept: string): Promise<Response> {
    const url = new URL(path, this.base);
    const cached = await this.cachedToken();
    let response = await this.follow(url, method, accept, this.authorization ?? (cached ? `Bearer ${cached}` : undefined));
    if (response.status === 401) {
      const challenge = response.headers.get("www-authenticate") ?? "";
      await discard(response);
      this.authorization = await this.answerChallenge(challenge);
      response = await this.follow(url, method, accept, this.authorization);
    }
    if (response.status === 401 || response.status === 403) {
      await discard(response);
      const how = (await this.credentials()) ? "with the configured credentials" : "anonymously (no credentials are configured for it)";
      throw new ArtifactError("artifact-unauthorized", `registry ${this.registry} refused access to ${this.repository} (${response.status}) ${how}`);
    }
    return response;
  }

  /** One request and the redirects it leads to, each checked; the Authorization header goes to the registry host only. */
  private async follow(start: URL, method: "GET" | "HEAD", accept: string, authorization: string | undefined, authorizedHost = this.base.host): Promise<Response> {
    let url = start;
    for (let redirects = 0; ; redirects++) {
      const headers: Record<string, string> = { accept };
      if (authorization && url.host === authorizedHost) headers.authorization = authorization;
      const response = await this.fetchOnce(url, { method, headers, redirect: "manual", signal: this.options.signal });
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) return response;
      await discard(response);
      if (redirects === MAX_REDIRECTS) throw new ArtifactError("registry-unreachable", `registry ${this.registry} redirected more than ${MAX_REDIRECTS} times for ${start.pathname}`);
      url = new URL(location, url);
    }
  }

  private async fetchOnce(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await this.pinned.fetch(url, init);
    } catch (error) {
      if (error instanceof ArtifactError || this.options.signal?.aborted) throw error;
      const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
      throw new ArtifactError("registry-unreachable", `could not reach ${url.host} (registry ${this.registry}): ${cause?.code ?? cause?.message ?? (error as Error).message}`, { cause: error });
    }
  }

  private credentials(): Promise<RegistryCredentials | null> {
    this.credentialsAnswer ??= this.options.credentials(this.registry);
    return this.credentialsAnswer;
  }

  private async tokenKey(): Promise<string> {
    const credentials = await this.credentials();
    const identity = credentials ? createHash("sha256").update(`${credentials.username}\0${credentials.password}`).digest("hex") : "anonymous";
    return `${this.registry}\n${this.scope}\n${identity}`;
  }

  private async cachedToken(): Promise<string | undefined> {
    if (this.authorization || tokenCache.size === 0) return undefined;
    const key = await this.tokenKey();
    const cached = tokenCache.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    tokenCache.delete(key);
    return undefined;
  }

  /** The Authorization header that answers a 401's `WWW-Authenticate` challenge. */
  private async answerChallenge(challenge: string): Promise<string> {
    const scheme = challenge.trim().split(/\s+/)[0]?.toLowerCase();
    const credentials = await this.credentials();
    if (scheme === "basic") {
      if (!credentials) throw new ArtifactError("artifact-unauthorized", `registry ${this.registry} asks for credentials for ${this.repository}, and none are configured for it`);
      return basic(credentials);
    }
    if (scheme !== "bearer") throw new ArtifactError("artifact-unauthorized", `registry ${this.registry} answered 401 with an unsupported authentication challenge ("${scheme ?? ""}")`);
    const parameters = challengeParameters(challenge);
    if (!parameters.realm) throw new ArtifactError("artifact-unauthorized", `registry ${this.registry} answered 401 with a Bearer challenge without a realm`);
    const realm = new URL(parameters.realm);
    if (parameters.service) realm.searchParams.set("service", parameters.service);
    realm.searchParams.set("scope", parameters.scope ?? this.scope);
    const response = await this.follow(realm, "GET", "application/json", credentials ? basic(credentials) : undefined, realm.host);
    if (response.status === 401 || response.status === 403) {
      await discard(response);
      const how = credentials ? "the configured credentials" : "an anonymous request (no credentials are configured)";
      throw new ArtifactError("artifact-unauthorized", `the token server of registry ${this.registry} (${realm.host}) refused ${how} for ${this.repository} (${response.status})`);
    }
    if (response.status !== 200) {
      await discard(response);
      throw new ArtifactError("registry-unreachable", `the token server of registry ${this.registry} (${realm.host}) answered ${response.status}`);
    }
    const tooLarge = () => new ArtifactError("registry-unreachable", `the token server of registry ${this.registry} answered more than ${MAX_SMALL_BODY_BYTES} bytes`);
    let body: { token?: unknown; access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse((await readLimited(response, MAX_SMALL_BODY_BYTES, tooLarge)).toString("utf8"));
    } catch (error) {
      if (error instanceof ArtifactError) throw error;
      throw new ArtifactError("registry-unreachable", `the token server of registry ${this.registry} answered something other than JSON`);
    }
    const token = typeof body.token === "string" ? body.token : typeof body.access_token === "string" ? body.access_token : undefined;
    if (!token) throw new ArtifactError("registry-unreachable", `the token server of registry ${this.registry} answered without a token`);
    const seconds = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : DEFAULT_TOKEN_SECONDS;
    // Renew a little early, so a token does not expire between the cache lookup and the registry's check.
    tokenCache.set(await this.tokenKey(), { token, expiresAt: Date.now() + seconds * 1000 - 5_000 });
    return `Bearer ${token}`;
  }

  /** The error for an unexpected status; `codes` are the registry's error codes from the body, if read. */
  private statusError(response: Response, what: string, codes: string): ArtifactError {
    void response.body?.cancel().catch(() => undefined);
    const detail = codes ? ` (${codes})` : "";
    const where = `${this.registry}/${this.repository}`;
    if (response.status === 404 || /NAME_UNKNOWN|MANIFEST_UNKNOWN|BLOB_UNKNOWN/.test(codes)) {
      return new ArtifactError("artifact-not-found", `${what} not found in ${where}${detail}`);
    }
    return new ArtifactError("registry-unreachable", `registry ${this.registry} answered ${response.status} for ${what} of ${this.repository}${detail}`);
  }
}

function basic(credentials: RegistryCredentials): string {
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")}`;
}

/** The `key="value"` (or `key=value`) parameters of a `WWW-Authenticate` challenge. */
function challengeParameters(challenge: string): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const match of challenge.matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    parameters[match[1].toLowerCase()] = match[2] !== undefined ? match[2].replace(/\\(.)/g, "$1") : match[3];
  }
  return parameters;
}

/** The registry's error codes in an error body (`{"errors":[{"code":…}]}`), comma-separated, or "". */
async function readErrorCodes(response: Response): Promise<string> {
  if (response.status === 200) return "";
  try {
    const body = JSON.parse((await readLimited(response, MAX_SMALL_BODY_BYTES, () => new Error("too large"))).toString("utf8")) as { errors?: Array<{ code?: unknown }> };
    return (body.errors ?? []).map((error) => error.code).filter((code) => typeof code === "string").join(", ");
  } catch {
    return "";
  }
}

/** A body read whole, refused (by `tooLarge`) as soon as it passes `limit` bytes, announced or streamed. */
async function readLimited(response: Response, limit: number, tooLarge: () => Error): Promise<Buffer> {
  if (Number(response.headers.get("content-length") ?? 0) > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    // Leaving the loop by a throw cancels the stream.
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
