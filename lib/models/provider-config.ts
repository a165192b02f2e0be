/**
 * A tenant's model provider (POST /v1/providers): the schema of its configuration, the rules beyond the schema,
 * and the network rules its base URL obeys.
 *
 * A tenant's base URL is a request the server makes where the tenant says, so it is held to SSRF rules: cloud
 * metadata hosts and addresses, link-local, unspecified, multicast, reserved and carrier-grade NAT addresses are
 * always refused; loopback and private addresses only while the server runs with
 * `KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1` (self-hosters whose Ollama listens on localhost set it). A literal IP host
 * is checked when the provider is configured; on every call the host is resolved and each of its addresses checked,
 * since a name can point anywhere and change at any time.
 */
import { isIP } from "node:net";
import type { Issue } from "@/lib/errors";
import { ModelProviderError } from "@/lib/models/provider";
import { PROVIDER_ID_PATTERN, type ModelInfo } from "@/lib/models/registry";
import { getValidator, isObject } from "@/lib/tools/json-schema";
import { addressCategory, defaultResolver, isMetadataHostName, type AddressCategory, type Destination, type HostResolver, type ResolvedAddress } from "@/lib/tools/network-policy";

/**
 * The kinds a tenant can configure (the dev kinds are built in): two model wire formats and one embeddings wire
 * format, whose provider serves the capability kind `embedding` (lib/models/embedding.ts).
 */
export const TENANT_PROVIDER_KINDS = ["openai-compatible", "anthropic", "openai-compatible-embeddings"] as const;
export type TenantProviderKind = (typeof TENANT_PROVIDER_KINDS)[number];

/** Model features the router understands: the capability schema's feature names, plus `json-output`. */
const MODEL_FEATURES = [
  "tool-use",
  "json-output",
  "structured-output",
  "parallel-tool-use",
  "vision",
  "audio-input",
  "audio-output",
  "thinking",
  "long-context",
  "code-execution",
  "web-search",
  "file-search",
  "streaming",
  "batch",
] as const;

/** The longest vector an embedding model may declare. */
const MAX_DIMENSIONS = 65_536;

/** At most this many models per provider. */
const MAX_PROVIDER_MODELS = 50;

/** The body of POST /v1/providers; the same schema documents the operation and validates the request. */
export const tenantProviderBodySchema = {
  type: "object",
  title: "RegisterProviderBody",
  required: ["id", "kind", "baseUrl", "apiKeySecret", "models"],
  additionalProperties: false,
  properties: {
    id: {
      type: "string",
      pattern: PROVIDER_ID_PATTERN,
      description: "Lower-case letters, digits, `.`, `_` and `-`, at most 63, starting with a letter or digit. Not `dev-echo`, `scripted`, `openai`, `anthropic`, `dev-embed` or `openai-embeddings`.",
    },
    kind: {
      enum: TENANT_PROVIDER_KINDS,
      description:
        "The wire format: OpenAI Chat Completions (OpenAI, Ollama, vLLM, LM Studio…) or Anthropic Messages — model providers, serving capability kind `llm-inference` — or OpenAI embeddings (`POST {baseUrl}/embeddings`, the same servers), an embedding provider serving capability kind `embedding` (the memory store's vectors).",
    },
    baseUrl: {
      type: "string",
      minLength: 1,
      maxLength: 2048,
      description:
        "Absolute http(s) URL without credentials, query or fragment, e.g. `https://api.example.com/v1`. Cloud metadata and link-local hosts are always refused; loopback and private addresses only unless the server runs with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1.",
    },
    apiKeySecret: { type: "string", pattern: "^[A-Za-z0-9_.-]{1,128}$", description: "The name of a stored secret of the tenant (POST /v1/secrets) holding the API key; read on every call." },
    projectIds: {
      type: "array",
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      items: { type: "string", format: "uuid" },
      description: "Limit the provider to the runs of these projects of the tenant. Omitted: it may serve every project's runs.",
    },
    models: {
      type: "array",
      minItems: 1,
      maxItems: MAX_PROVIDER_MODELS,
      description: "The models it offers (distinct names), in the order the router prefers them.",
      items: {
        type: "object",
        required: ["name"],
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 1, maxLength: 200, pattern: "^\\S(?:.*\\S)?$", description: "The model name sent to the API, e.g. `gpt-4o-mini` or `llama3.1:8b`." },
          contextTokens: { type: "integer", minimum: 1, maximum: 100000000 },
          features: { type: "array", maxItems: MODEL_FEATURES.length, uniqueItems: true, items: { enum: MODEL_FEATURES } },
          inputUsdPerMTok: { type: "number", minimum: 0, maximum: 1000000, description: "USD per million input tokens." },
          outputUsdPerMTok: { type: "number", minimum: 0, maximum: 1000000, description: "USD per million output tokens." },
          dimensions: {
            type: "integer",
            minimum: 1,
            maximum: MAX_DIMENSIONS,
            description:
              "Embedding models only (kind `openai-compatible-embeddings`): the length of its vectors. Sent as the request's `dimensions` (OpenAI's text-embedding-3 models shorten their vectors to it) and checked against every answer. Omit it for a server that refuses the parameter; the length is then whatever the model answers.",
          },
        },
      },
    },
  },
} as const;

/** A validated tenant provider configuration. */
export type TenantProviderConfig = { id: string; kind: TenantProviderKind; baseUrl: string; apiKeySecret: string; models: ModelInfo[]; projectIds: string[] | null };

const validateSchema = getValidator(tenantProviderBodySchema);

/** Whether this server lets tenant providers use loopback and private addresses (`KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1`). */
export function allowsPrivateProviderUrls(env: Record<string, string | undefined> = process.env): boolean {
  return env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS === "1";
}

/**
 * Checks a POST /v1/providers body: the schema, distinct model names and the base URL rules. Every problem is
 * reported with its JSON pointer. The URL comes back in its canonical form (lower-case host, IPv4 spelled out).
 */
export function validateTenantProviderConfig(body: unknown, options: { allowPrivateUrls: boolean }): { ok: true; config: TenantProviderConfig } | { ok: false; issues: Issue[] } {
  const result = validateSchema(body);
  const issues = result.ok ? [] : [...result.issues];
  if (isObject(body)) {
    if (typeof body.baseUrl === "string" && !issues.some((issue) => issue.path === "/baseUrl")) {
      const problem = baseUrlProblem(body.baseUrl, options);
      if (problem) issues.push({ path: "/baseUrl", message: problem });
    }
    if (Array.isArray(body.models)) issues.push(...duplicateModelNames(body.models));
    if (Array.isArray(body.models) && body.kind !== "openai-compatible-embeddings") {
      body.models.forEach((model, index) => {
        if (isObject(model) && model.dimensions !== undefined) issues.push({ path: `/models/${index}/dimensions`, message: 'only an embedding model (kind "openai-compatible-embeddings") has dimensions' });
      });
    }
  }
  if (issues.length > 0) return { ok: false, issues };
  const valid = body as Omit<TenantProviderConfig, "models" | "projectIds"> & { models: Array<Omit<ModelInfo, "features"> & { features?: string[] }>; projectIds?: string[] };
  return {
    ok: true,
    config: {
      id: valid.id,
      kind: valid.kind,
      baseUrl: new URL(valid.baseUrl).href,
      apiKeySecret: valid.apiKeySecret,
      models: valid.models.map((model) => ({ ...model, features: [...(model.features ?? [])] })),
      projectIds: valid.projectIds ? valid.projectIds.map((id) => id.toLowerCase()) : null,
    },
  };
}

function duplicateModelNames(models: unknown[]): Issue[] {
  const firstIndex = new Map<string, number>();
  const issues: Issue[] = [];
  models.forEach((model, index) => {
    if (!isObject(model) || typeof model.name !== "string") return;
    const first = firstIndex.get(model.name);
    if (first === undefined) firstIndex.set(model.name, index);
    else issues.push({ path: `/models/${index}/name`, message: `duplicates the name of /models/${first}` });
  });
  return issues;
}

/** Why `text` cannot be a provider's base URL, or undefined when it can. Only a literal IP host is checked here. */
export function baseUrlProblem(text: string, options: { allowPrivateUrls: boolean }): string | undefined {
  if (!/^https?:\/\//i.test(text)) return "must be an absolute http:// or https:// URL";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute http:// or https:// URL";
  }
  if (url.username || url.password) return "must not contain credentials (the key belongs in a secret named by apiKeySecret)";
  if (url.hash || text.includes("#")) return "must not have a fragment";
  if (url.search || text.includes("?")) return "must not have a query (requests go to paths below it)";
  return hostProblem(url.hostname, options.allowPrivateUrls);
}

/**
 * Checks, right before a call, that a tenant provider's URL may be reached: the host is resolved and every address
 * must pass the rules. Returns the address the call connects to (the first one). Throws a `ModelProviderError` (no
 * HTTP attempt made): `provider-request-failed` when the destination is refused, `provider-unavailable` when the host
 * does not resolve.
 */
export async function checkProviderDestination(providerId: string, url: URL, options: { allowPrivateUrls: boolean; lookup?: HostResolver }): Promise<Destination> {
  const host = bareHost(url.hostname);
  const refuse = (reason: string) => new ModelProviderError("provider-request-failed", `${providerId}: request to ${url.host} refused: ${reason}`, { attempts: 0 });
  const problem = hostProblem(host, options.allowPrivateUrls);
  if (problem) throw refuse(problem);
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const literal = isIP(host);
  if (literal !== 0) return { hostname: host, port, address: host, family: literal === 6 ? 6 : 4 };
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.lookup ?? defaultResolver)(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ModelProviderError("provider-unavailable", `${providerId}: could not resolve ${host}${code ? ` (${code})` : ""}`, { attempts: 0 });
  }
  if (addresses.length === 0) throw new ModelProviderError("provider-unavailable", `${providerId}: could not resolve ${host}: no addresses`, { attempts: 0 });
  for (const { address } of addresses) {
    const refused = categoryProblem(`${address} (an address of ${host})`, addressCategory(address), options.allowPrivateUrls);
    if (refused) throw refuse(refused);
  }
  return { hostname: host, port, ...addresses[0] };
}

/** A URL host without IPv6 brackets and a final dot. */
const bareHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");

/** Why a host (a name or a literal address) is refused without resolving it, or undefined. `localhost` names count as loopback. */
function hostProblem(hostname: string, allowPrivateUrls: boolean): string | undefined {
  const host = bareHost(hostname);
  if (isMetadataHostName(host)) return `${host} is a cloud metadata host, which a provider URL may never name`;
  const category = host === "localhost" || host.endsWith(".localhost") ? "loopback" : addressCategory(host);
  return categoryProblem(host, category, allowPrivateUrls);
}

function categoryProblem(subject: string, category: AddressCategory | undefined, allowPrivateUrls: boolean): string | undefined {
  if (category === undefined) return undefined;
  if (category === "loopback" || category === "private") {
    return allowPrivateUrls ? undefined : `${subject} is a ${category} address, allowed only when the server runs with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1`;
  }
  return `${subject} is a ${category} address, which a provider URL may never use`;
}
