import { describe, expect, it } from "vitest";
import { ModelProviderError } from "@/lib/models/provider";
import { allowsPrivateProviderUrls, baseUrlProblem, checkProviderDestination, validateTenantProviderConfig } from "@/lib/models/provider-config";
import type { HostResolver } from "@/lib/tools/network-policy";

const body = (overrides: Record<string, unknown> = {}) => ({
  id: "acme-llm",
  kind: "openai-compatible",
  baseUrl: "https://llm.example.com/v1",
  apiKeySecret: "acme.llm-key",
  models: [{ name: "acme-large", contextTokens: 32000, features: ["tool-use", "json-output"], inputUsdPerMTok: 1, outputUsdPerMTok: 2 }, { name: "acme-small" }],
  ...overrides,
});

const strict = { allowPrivateUrls: false };
const lenient = { allowPrivateUrls: true };

function issuesOf(input: unknown, options = strict) {
  const result = validateTenantProviderConfig(input, options);
  if (result.ok) throw new Error("expected issues");
  return result.issues;
}

describe("validateTenantProviderConfig", () => {
  it("accepts a complete body; lists features on every model and canonicalizes the URL", () => {
    const result = validateTenantProviderConfig(body({ baseUrl: "HTTPS://LLM.Example.com/v1/" }), strict);
    expect(result).toEqual({
      ok: true,
      config: {
        id: "acme-llm",
        kind: "openai-compatible",
        baseUrl: "https://llm.example.com/v1/",
        apiKeySecret: "acme.llm-key",
        models: [
          { name: "acme-large", contextTokens: 32000, features: ["tool-use", "json-output"], inputUsdPerMTok: 1, outputUsdPerMTok: 2 },
          { name: "acme-small", features: [] },
        ],
        projectIds: null,
      },
    });
  });

  it("keeps a project limit, lower-cased, and refuses an empty or malformed one", () => {
    const limited = validateTenantProviderConfig(body({ projectIds: ["6CCB7CBD-0000-4000-8000-000000000001"] }), strict);
    expect(limited.ok && limited.config.projectIds).toEqual(["6ccb7cbd-0000-4000-8000-000000000001"]);
    expect(issuesOf(body({ projectIds: [] })).map((issue) => issue.path)).toEqual(["/projectIds"]);
    expect(issuesOf(body({ projectIds: ["nope"] })).map((issue) => issue.path)).toEqual(["/projectIds/0"]);
  });

  it("reports every problem with its JSON pointer", () => {
    const issues = issuesOf({
      id: "Bad Id",
      kind: "dev-echo",
      baseUrl: "ftp://llm.example.com",
      apiKeySecret: "has space",
      models: [{ name: "a", contextTokens: 0, features: ["telepathy"], inputUsdPerMTok: -1 }, { name: " padded" }, { name: "a", extra: true }],
    });
    expect(issues.map((issue) => issue.path).sort()).toEqual(
      ["/id", "/kind", "/baseUrl", "/apiKeySecret", "/models/0/contextTokens", "/models/0/features/0", "/models/0/inputUsdPerMTok", "/models/1/name", "/models/2/extra", "/models/2/name"].sort(),
    );
    expect(issues.find((issue) => issue.path === "/models/2/name")?.message).toBe("duplicates the name of /models/0");
    expect(issues.find((issue) => issue.path === "/baseUrl")?.message).toMatch(/http/);
  });

  it("needs every required field, at least one model and at most 50", () => {
    expect(issuesOf({}).map((issue) => issue.path).sort()).toEqual(["/apiKeySecret", "/baseUrl", "/id", "/kind", "/models"]);
    expect(issuesOf(body({ models: [] })).map((issue) => issue.path)).toEqual(["/models"]);
    const many = Array.from({ length: 51 }, (_, i) => ({ name: `m${i}` }));
    expect(issuesOf(body({ models: many })).map((issue) => issue.path)).toEqual(["/models"]);
    expect(validateTenantProviderConfig(body({ models: many.slice(0, 50) }), strict).ok).toBe(true);
  });

  it("configures an embedding provider: kind openai-compatible-embeddings, models with dimensions (only there)", () => {
    const embedding = validateTenantProviderConfig(
      body({ id: "ollama-embed", kind: "openai-compatible-embeddings", baseUrl: "https://embed.example.com/v1", models: [{ name: "nomic-embed-text", dimensions: 768 }, { name: "bge-m3", inputUsdPerMTok: 0.01 }] }),
      strict,
    );
    expect(embedding).toEqual({
      ok: true,
      config: expect.objectContaining({ kind: "openai-compatible-embeddings", models: [{ name: "nomic-embed-text", dimensions: 768, features: [] }, { name: "bge-m3", inputUsdPerMTok: 0.01, features: [] }] }),
    });
    expect(issuesOf(body({ kind: "openai-compatible-embeddings", models: [{ name: "e", dimensions: 0 }, { name: "f", dimensions: 1.5 }, { name: "g", dimensions: 70_000 }] })).map((issue) => issue.path)).toEqual([
      "/models/0/dimensions",
      "/models/1/dimensions",
      "/models/2/dimensions",
    ]);
    const chat = issuesOf(body({ models: [{ name: "gpt-4o", dimensions: 8 }] }));
    expect(chat).toEqual([{ path: "/models/0/dimensions", message: 'only an embedding model (kind "openai-compatible-embeddings") has dimensions' }]);
  });

  it("takes ids of up to 63 lower-case letters, digits, '.', '_' and '-'", () => {
    for (const id of ["a", "0", "ollama.local_1-x", "a".repeat(63)]) expect(validateTenantProviderConfig(body({ id }), strict).ok).toBe(true);
    for (const id of ["", "-a", ".a", "A", "a b", "a/b", "a".repeat(64), "é"]) expect(issuesOf(body({ id })).map((issue) => issue.path)).toEqual(["/id"]);
  });
});

describe("baseUrlProblem", () => {
  it("wants an absolute http(s) URL without credentials, query or fragment", () => {
    expect(baseUrlProblem("https://api.example.com/v1", strict)).toBeUndefined();
    expect(baseUrlProblem("http://api.example.com:8080", strict)).toBeUndefined();
    expect(baseUrlProblem("/v1", strict)).toMatch(/absolute/);
    expect(baseUrlProblem("http:api.example.com", strict)).toMatch(/absolute/);
    expect(baseUrlProblem("ftp://api.example.com", strict)).toMatch(/absolute/);
    expect(baseUrlProblem("http://", strict)).toMatch(/absolute/);
    expect(baseUrlProblem("https://user:pass@api.example.com/v1", strict)).toMatch(/credentials/);
    expect(baseUrlProblem("https://user@api.example.com/v1", strict)).toMatch(/credentials/);
    expect(baseUrlProblem("https://api.example.com/v1#x", strict)).toMatch(/fragment/);
    expect(baseUrlProblem("https://api.example.com/v1#", strict)).toMatch(/fragment/);
    expect(baseUrlProblem("https://api.example.com/v1?version=1", strict)).toMatch(/query/);
  });

  it("refuses loopback and private literal addresses (and localhost) while the flag is off", () => {
    for (const url of ["http://127.0.0.1:11434/v1", "http://127.1/", "http://2130706433/", "http://10.1.2.3/", "http://172.16.0.1/", "http://192.168.1.10/", "http://[::1]:8080/", "http://[fd12::1]/", "http://[::ffff:127.0.0.1]/", "http://localhost:11434", "http://ollama.localhost/"]) {
      expect(baseUrlProblem(url, strict), url).toMatch(/(loopback|private) address, allowed only when the server runs with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1/);
      expect(baseUrlProblem(url, lenient), url).toBeUndefined();
    }
  });

  it("always refuses cloud metadata and link-local, unspecified, multicast, reserved and carrier-grade NAT addresses", () => {
    for (const url of ["http://169.254.169.254/latest/meta-data", "http://[fd00:ec2::254]/", "http://metadata.google.internal/", "http://METADATA.GOOGLE.INTERNAL./", "http://metadata/", "http://169.254.1.1/", "http://[fe80::1]/", "http://[::ffff:169.254.169.254]/", "http://0.0.0.0:11434/", "http://224.0.0.1/", "http://240.0.0.1/", "http://100.64.0.1/"]) {
      for (const options of [strict, lenient]) expect(baseUrlProblem(url, options), url).toMatch(/may never/);
    }
  });

  it("leaves public addresses and host names (checked at call time) alone", () => {
    expect(baseUrlProblem("https://8.8.8.8/v1", strict)).toBeUndefined();
    expect(baseUrlProblem("https://[2606:4700::1111]/v1", strict)).toBeUndefined();
    expect(baseUrlProblem("https://internal.corp.example/v1", strict)).toBeUndefined();
  });
});

const resolvingTo = (...addresses: string[]): HostResolver & { calls: string[] } => {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(lookup, { calls });
};

async function refusal(promise: Promise<unknown>): Promise<ModelProviderError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ModelProviderError);
  return error as ModelProviderError;
}

describe("checkProviderDestination", () => {
  const url = new URL("https://llm.example.test/v1");

  it("resolves the host and passes when every address is public", async () => {
    const lookup = resolvingTo("93.184.216.34", "2606:2800:220:1::248");
    await checkProviderDestination("acme", url, { ...strict, lookup });
    expect(lookup.calls).toEqual(["llm.example.test"]);
  });

  it("refuses a name with any private or loopback address unless private URLs are allowed", async () => {
    for (const addresses of [["10.0.0.7"], ["93.184.216.34", "127.0.0.1"], ["::1"], ["fd00::5"]]) {
      const error = await refusal(checkProviderDestination("acme", url, { ...strict, lookup: resolvingTo(...addresses) }));
      expect(error).toMatchObject({ code: "provider-request-failed", attempts: 0 });
      expect(error.message).toMatch(/^acme: request to llm\.example\.test refused: .* \(an address of llm\.example\.test\) is a (private|loopback) address, allowed only when the server runs with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1$/);
      await checkProviderDestination("acme", url, { ...lenient, lookup: resolvingTo(...addresses) });
    }
  });

  it("refuses a name that resolves to a metadata or link-local address even when private URLs are allowed", async () => {
    for (const address of ["169.254.169.254", "fd00:ec2::254", "169.254.10.1", "fe80::1", "::ffff:169.254.169.254"]) {
      const error = await refusal(checkProviderDestination("acme", url, { ...lenient, lookup: resolvingTo("10.0.0.1", address) }));
      expect(error.code).toBe("provider-request-failed");
      expect(error.message).toContain("may never use");
    }
  });

  it("checks a literal address and metadata names without resolving", async () => {
    const lookup = resolvingTo("8.8.8.8");
    await checkProviderDestination("acme", new URL("http://8.8.8.8/v1"), { ...strict, lookup });
    expect((await refusal(checkProviderDestination("acme", new URL("http://127.0.0.1:1/"), { ...strict, lookup }))).code).toBe("provider-request-failed");
    expect((await refusal(checkProviderDestination("acme", new URL("http://metadata.google.internal/"), { ...lenient, lookup }))).message).toContain("cloud metadata host");
    expect(lookup.calls).toEqual([]);
  });

  it("reports a host that does not resolve as provider-unavailable", async () => {
    const failing: HostResolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await refusal(checkProviderDestination("acme", url, { ...strict, lookup: failing }))).toMatchObject({ code: "provider-unavailable", attempts: 0, message: "acme: could not resolve llm.example.test (ENOTFOUND)" });
    expect((await refusal(checkProviderDestination("acme", url, { ...strict, lookup: resolvingTo() }))).code).toBe("provider-unavailable");
  });
});

describe("allowsPrivateProviderUrls", () => {
  it("is on only with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1", () => {
    expect(allowsPrivateProviderUrls({ KINDGI_ALLOW_PRIVATE_PROVIDER_URLS: "1" })).toBe(true);
    for (const value of [undefined, "", "0", "true", "yes"]) expect(allowsPrivateProviderUrls({ KINDGI_ALLOW_PRIVATE_PROVIDER_URLS: value })).toBe(false);
  });
});
