import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import type { HttpToolSpec, NetworkPolicy, ToolManifest } from "../manifest-schema";
import type { HostResolver } from "../network-policy";
import { invokeHttpTool, MAX_RESPONSE_BYTES, type HttpInvokeContext, type HttpInvokeResult } from "./http";
import { sendJson, startRecordingServer, type RecordingHandler, type RecordingServer } from "./testing/recording-server";

const CANARY = "canary-s3cr3t/+value";
const API_KEY = "api-key-0042";
const SECRETS: Record<string, string> = { canary: CANARY, apiKey: API_KEY };

const INPUT_SCHEMA = {
  type: "object",
  properties: {
    id: { type: "string" },
    q: { type: "string" },
    n: { type: "integer", default: 5 },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["id"],
  additionalProperties: false,
};

let server: RecordingServer;
let handler: RecordingHandler;
const servers: RecordingServer[] = [];

async function startServer(answer: RecordingHandler): Promise<RecordingServer> {
  const started = await startRecordingServer(answer);
  servers.push(started);
  return started;
}

beforeEach(async () => {
  handler = (request, response) => sendJson(response, 200, request);
  server = await startServer((request, response) => handler(request, response));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

/** An HTTP tool aimed at the recording server, allowlisted there unless `network` says otherwise. */
function tool(spec: Partial<HttpToolSpec> = {}, extra: Partial<ToolManifest> = {}): ToolManifest {
  return {
    id: "test.http",
    description: "An HTTP tool under test",
    version: "1.0.0",
    input: INPUT_SCHEMA,
    output: {},
    network: { kind: "allowlist", hosts: [server.hostPort] },
    spec: { kind: "http", method: "GET", urlTemplate: `${server.origin}/items/{id}`, ...spec },
    ...extra,
  };
}

function context(extra: Partial<HttpInvokeContext> = {}): HttpInvokeContext {
  return { resolveSecret: async (ref) => SECRETS[ref.name], idempotencyKey: "run-1:call-7", ...extra };
}

function lastRequest() {
  const request = server.requests.at(-1);
  if (!request) throw new Error("the server received no request");
  return request;
}

function failure(result: HttpInvokeResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

describe("invokeHttpTool: request building", () => {
  it("URL-encodes placeholders in the path and the query", async () => {
    const manifest = tool({ urlTemplate: `${server.origin}/items/{id}?q={q}&n={n}` });
    const result = await invokeHttpTool(manifest, { id: "a b/c", q: "x&y=z#?" }, context());
    expect(result.ok).toBe(true);
    expect(lastRequest().url).toBe("/items/a%20b%2Fc?q=x%26y%3Dz%23%3F&n=5");
  });

  it("sends the spec's headers literally and no body or Content-Type on a GET", async () => {
    const manifest = tool({ headers: [{ name: "X-Trace", value: "{id}" }, { name: "Accept", value: "application/json" }] });
    await invokeHttpTool(manifest, { id: "1" }, context());
    const { headers, body, method } = lastRequest();
    expect(method).toBe("GET");
    expect(headers["x-trace"]).toBe("{id}");
    expect(headers.accept).toBe("application/json");
    expect(headers["content-type"]).toBeUndefined();
    expect(headers["idempotency-key"]).toBeUndefined();
    expect(body).toBe("");
  });

  it("sends a bearer secret as Authorization and a header secret under its header name", async () => {
    await invokeHttpTool(tool({ authorization: { kind: "bearer", secretRef: { envName: "TOKEN", name: "canary" } } }), { id: "1" }, context());
    expect(lastRequest().headers.authorization).toBe(`Bearer ${CANARY}`);
    await invokeHttpTool(tool({ authorization: { kind: "header", headerName: "X-Api-Key", secretRef: { envName: "KEY", name: "apiKey" } } }), { id: "1" }, context());
    expect(lastRequest().headers["x-api-key"]).toBe(API_KEY);
    expect(lastRequest().headers.authorization).toBeUndefined();
  });

  it("sends the validated input (defaults filled) as JSON for json-input", async () => {
    await invokeHttpTool(tool({ method: "POST", requestBody: { kind: "json-input" } }), { id: "1" }, context());
    expect(lastRequest().headers["content-type"]).toBe("application/json");
    expect(JSON.parse(lastRequest().body)).toEqual({ id: "1", n: 5 });
  });

  it("sends the input as given (no defaults) for input-passthrough", async () => {
    await invokeHttpTool(tool({ method: "PUT", requestBody: { kind: "input-passthrough" } }), { id: "1" }, context());
    expect(lastRequest().method).toBe("PUT");
    expect(JSON.parse(lastRequest().body)).toEqual({ id: "1" });
  });

  it("fills a text body's placeholders without URL-encoding", async () => {
    const manifest = tool({ method: "PATCH", requestBody: { kind: "text", template: "id={id} n={n} tags={tags}" } });
    await invokeHttpTool(manifest, { id: "a b/c", tags: ["x"] }, context());
    expect(lastRequest().headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(lastRequest().body).toBe('id=a b/c n=5 tags=["x"]');
  });

  it("lets a spec header replace the body's Content-Type but not a header the runtime sets", async () => {
    await invokeHttpTool(tool({ method: "POST", requestBody: { kind: "json-input" }, headers: [{ name: "Content-Type", value: "application/vnd.api+json" }] }), { id: "1" }, context());
    expect(lastRequest().headers["content-type"]).toBe("application/vnd.api+json");
    const result = await invokeHttpTool(tool({ headers: [{ name: "Host", value: "internal" }] }), { id: "1" }, context());
    expect(failure(result)).toEqual({ kind: "tool-error", message: "header Host is set by the runtime and cannot be declared in the spec" });
  });

  it("sends a DELETE without a body unless one is declared, with the Idempotency-Key", async () => {
    await invokeHttpTool(tool({ method: "DELETE" }), { id: "1" }, context());
    expect(lastRequest()).toMatchObject({ method: "DELETE", body: "" });
    expect(lastRequest().headers["idempotency-key"]).toBe("run-1:call-7");
    expect(lastRequest().headers["content-type"]).toBeUndefined();
  });

  it("sends the same Idempotency-Key on every attempt of a call", async () => {
    const manifest = tool({ method: "POST", requestBody: { kind: "json-input" } });
    await invokeHttpTool(manifest, { id: "1" }, context({ idempotencyKey: "run-9:call-2" }));
    await invokeHttpTool(manifest, { id: "1" }, context({ idempotencyKey: "run-9:call-2" }));
    expect(server.requests.map((request) => request.headers["idempotency-key"])).toEqual(["run-9:call-2", "run-9:call-2"]);
  });

  it("sends a resolved connection's access token as the bearer, and keeps it out of error messages", async () => {
    await invokeHttpTool(tool({ authorization: { kind: "connection", connection: "gmail" } }), { id: "1" }, context({ connections: { gmail: { accessToken: "tok-connection-123" } } }));
    expect(lastRequest().headers.authorization).toBe("Bearer tok-connection-123");
  });

  it("fails a connection authorization that was not resolved without sending anything", async () => {
    const result = await invokeHttpTool(tool({ authorization: { kind: "connection", connection: "gmail" } }), { id: "1" }, context());
    expect(failure(result)).toEqual({ kind: "tool-error", message: 'connection "gmail" was not resolved for this call' });
    expect(server.requests).toHaveLength(0);
  });
});

describe("invokeHttpTool: validation", () => {
  it("refuses invalid input with the issues and sends nothing", async () => {
    const result = await invokeHttpTool(tool(), { id: 7, extra: true }, context());
    const error = failure(result);
    expect(error.kind).toBe("invalid-arguments");
    expect(error.message).toContain("/id must be a string");
    expect(error.message).toContain('/extra unknown field "extra"');
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a placeholder whose value is missing or not a scalar", async () => {
    expect(failure(await invokeHttpTool(tool({ urlTemplate: `${server.origin}/items/{q}` }), { id: "1" }, context()))).toEqual({
      kind: "invalid-arguments",
      message: "placeholder {q} has no value in the arguments",
    });
    expect(failure(await invokeHttpTool(tool({ urlTemplate: `${server.origin}/items/{tags}` }), { id: "1", tags: [] }, context())).kind).toBe("invalid-arguments");
  });

  it("validates the output and returns it with defaults filled", async () => {
    handler = (_request, response) => sendJson(response, 200, { name: "widget" });
    const output = { type: "object", properties: { name: { type: "string" }, stock: { type: "integer", default: 0 } }, required: ["name"] };
    expect(await invokeHttpTool(tool({}, { output }), { id: "1" }, context())).toEqual({ ok: true, output: { name: "widget", stock: 0 }, status: 200 });
  });

  it("fails with tool-error when the output does not match the output schema", async () => {
    handler = (_request, response) => sendJson(response, 200, { name: 42 });
    const output = { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] };
    const error = failure(await invokeHttpTool(tool({}, { output }), { id: "1" }, context()));
    expect(error).toEqual({
      kind: "tool-error",
      status: 200,
      message: 'output does not match the tool\'s output schema: /price required field "price" is missing; /name must be a string',
    });
  });
});

describe("invokeHttpTool: responses", () => {
  it("fails outside successStatus with the status and a short excerpt, and accepts a widened range", async () => {
    handler = (_request, response) => response.writeHead(404).end(`not found: ${"x".repeat(2000)}`);
    const error = failure(await invokeHttpTool(tool(), { id: "1" }, context()));
    expect(error.kind).toBe("tool-error");
    expect(error.status).toBe(404);
    expect(error.message.startsWith("the server answered 404: not found: xxx")).toBe(true);
    expect(error.message.length).toBeLessThan(600);
    const accepted = await invokeHttpTool(tool({ successStatus: { min: 200, max: 404 }, parseJson: false }), { id: "1" }, context());
    expect(accepted).toMatchObject({ ok: true, status: 404 });
  });

  it("returns text when parseJson is false and fails on invalid JSON when it is true", async () => {
    handler = (_request, response) => response.writeHead(200, { "content-type": "text/plain" }).end("plain text");
    expect(await invokeHttpTool(tool({ parseJson: false }), { id: "1" }, context())).toEqual({ ok: true, output: "plain text", status: 200 });
    const error = failure(await invokeHttpTool(tool(), { id: "1" }, context()));
    expect(error).toMatchObject({ kind: "tool-error", status: 200 });
    expect(error.message).toContain("not valid JSON");
  });

  it("reads an empty body as null", async () => {
    handler = (_request, response) => response.writeHead(204).end();
    expect(await invokeHttpTool(tool(), { id: "1" }, context())).toEqual({ ok: true, output: null, status: 204 });
  });

  it("times out after timeoutMs", async () => {
    handler = async (_request, response) => {
      await sleep(3000);
      if (!response.destroyed) sendJson(response, 200, {});
    };
    const started = Date.now();
    const error = failure(await invokeHttpTool(tool({ timeoutMs: 200 }), { id: "1" }, context()));
    expect(error).toEqual({ kind: "timeout", message: "the tool did not answer within 200 ms" });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("stops when the caller aborts", async () => {
    handler = async (_request, response) => {
      await sleep(3000);
      if (!response.destroyed) sendJson(response, 200, {});
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = failure(await invokeHttpTool(tool(), { id: "1" }, context({ signal: controller.signal })));
    expect(error).toEqual({ kind: "tool-error", message: "the call was cancelled before the tool answered" });
  });

  it("refuses a response larger than the cap", async () => {
    handler = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(Buffer.alloc(MAX_RESPONSE_BYTES + 1, 0x20));
    };
    const error = failure(await invokeHttpTool(tool(), { id: "1" }, context()));
    expect(error.message).toBe(`the response body is larger than ${MAX_RESPONSE_BYTES} bytes`);
  });
});

describe("invokeHttpTool: network policy", () => {
  it("refuses everything under policy none", async () => {
    const error = failure(await invokeHttpTool(tool({}, { network: { kind: "none" } }), { id: "1" }, context()));
    expect(error.kind).toBe("network-denied");
    expect(error.message).toContain(server.hostPort);
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a documentation address under unrestricted, and reports a host that does not resolve as such", async () => {
    const documentation = failure(await invokeHttpTool(tool({ urlTemplate: "http://192.0.2.10/items/{id}" }, { network: { kind: "unrestricted" } }), { id: "1" }, context()));
    expect(documentation).toEqual({ kind: "network-denied", message: "request to 192.0.2.10 refused: 192.0.2.10 is a documentation address, reachable only when the tool's network allowlist names this host" });
    const lookup: HostResolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const unresolvable = failure(await invokeHttpTool(tool({ urlTemplate: "https://nowhere.example.com/items/{id}" }, { network: { kind: "unrestricted" } }), { id: "1" }, context({ lookup })));
    expect(unresolvable).toEqual({ kind: "host-unresolvable", message: "could not resolve nowhere.example.com (ENOTFOUND)" });
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a host the allowlist does not name", async () => {
    const lookup: HostResolver = async () => [{ address: "93.184.215.14", family: 4 }];
    const manifest = tool({ urlTemplate: "https://other.example.com/items/{id}" }, { network: { kind: "allowlist", hosts: ["api.example.com"] } });
    const error = failure(await invokeHttpTool(manifest, { id: "1" }, context({ lookup })));
    expect(error).toEqual({ kind: "network-denied", message: "request to other.example.com refused: the host is not in the tool's network allowlist" });
  });

  it("refuses loopback by default: under unrestricted and without a policy", async () => {
    for (const network of [{ kind: "unrestricted" }, undefined] as Array<NetworkPolicy | undefined>) {
      const manifest = { ...tool(), network };
      const error = failure(await invokeHttpTool(manifest, { id: "1" }, context()));
      expect(error.kind).toBe("network-denied");
      expect(error.message).toContain("127.0.0.1 is a loopback address");
    }
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a name resolving to the metadata address before resolving secrets or connecting", async () => {
    const lookup = vi.fn<HostResolver>(async () => [{ address: "169.254.169.254", family: 4 }]);
    const resolveSecret = vi.fn(async () => CANARY);
    const manifest = tool(
      { urlTemplate: "http://meta.example.com/latest/{id}", authorization: { kind: "bearer", secretRef: { envName: "T", name: "canary" } } },
      { network: { kind: "unrestricted" } },
    );
    const error = failure(await invokeHttpTool(manifest, { id: "1" }, context({ lookup, resolveSecret })));
    expect(error).toEqual({
      kind: "network-denied",
      message: "request to meta.example.com refused: 169.254.169.254 is a cloud metadata address, reachable only when the tool's network allowlist names this host",
    });
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(resolveSecret).not.toHaveBeenCalled();
  });

  it("connects to the address it checked, however DNS answers later (pinning)", async () => {
    const answers = ["127.0.0.1", "10.66.0.1"];
    const lookup = vi.fn<HostResolver>(async () => [{ address: answers.shift() ?? "10.66.0.2", family: 4 }]);
    const manifest = tool({ urlTemplate: `http://pinned.test:${server.port}/items/{id}` }, { network: { kind: "allowlist", hosts: [`pinned.test:${server.port}`] } });
    const result = await invokeHttpTool(manifest, { id: "1" }, context({ lookup }));
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lastRequest().headers.host).toBe(`pinned.test:${server.port}`);
  });
});

describe("invokeHttpTool: redirects", () => {
  it("refuses a redirect to a loopback port the allowlist does not name, without reaching it", async () => {
    const hidden = await startServer((request, response) => sendJson(response, 200, request));
    handler = (_request, response) => response.writeHead(302, { location: `${hidden.origin}/admin` }).end();
    const error = failure(await invokeHttpTool(tool(), { id: "1" }, context()));
    expect(error.kind).toBe("network-denied");
    expect(error.message).toContain(hidden.hostPort);
    expect(hidden.requests).toHaveLength(0);
  });

  it("follows an allowed GET redirect and drops the authorization when the origin changes", async () => {
    const next = await startServer((request, response) => sendJson(response, 200, { path: request.url }));
    handler = (_request, response) => response.writeHead(301, { location: `${next.origin}/moved` }).end();
    const manifest = tool(
      { authorization: { kind: "bearer", secretRef: { envName: "T", name: "canary" } } },
      { network: { kind: "allowlist", hosts: [server.hostPort, next.hostPort] } },
    );
    expect(await invokeHttpTool(manifest, { id: "1" }, context())).toEqual({ ok: true, output: { path: "/moved" }, status: 200 });
    expect(lastRequest().headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(next.requests[0].headers.authorization).toBeUndefined();
  });

  it("keeps the authorization on a same-origin redirect", async () => {
    handler = (request, response) => (request.url === "/final" ? sendJson(response, 200, request.headers) : response.writeHead(307, { location: "/final" }).end());
    const manifest = tool({ authorization: { kind: "header", headerName: "X-Api-Key", secretRef: { envName: "K", name: "apiKey" } } });
    const result = await invokeHttpTool(manifest, { id: "1" }, context());
    expect(server.requests.map((request) => request.headers["x-api-key"])).toEqual([API_KEY, API_KEY]);
    expect(result.ok).toBe(true);
  });

  it("does not follow a 302 of a POST, and turns a POST into a bodiless GET on 303", async () => {
    handler = (request, response) =>
      request.url === "/done" ? sendJson(response, 200, { method: request.method }) : response.writeHead(request.url.endsWith("303") ? 303 : 302, { location: "/done" }).end();
    const post = (id: string) => invokeHttpTool(tool({ method: "POST", requestBody: { kind: "json-input" } }), { id }, context());
    expect(failure(await post("302"))).toMatchObject({ kind: "tool-error", status: 302 });
    expect(await post("303")).toEqual({ ok: true, output: { method: "GET" }, status: 200 });
    const followUp = lastRequest();
    expect(followUp).toMatchObject({ method: "GET", body: "" });
    expect(followUp.headers["idempotency-key"]).toBeUndefined();
  });

  it("gives up after five redirects", async () => {
    handler = (request, response) => response.writeHead(302, { location: `/loop${server.requests.length}` }).end();
    const error = failure(await invokeHttpTool(tool(), { id: "1" }, context()));
    expect(error).toEqual({ kind: "tool-error", message: "more than 5 redirects" });
    expect(server.requests).toHaveLength(6);
  });
});

describe("invokeHttpTool: secrets", () => {
  const bearer = { kind: "bearer", secretRef: { envName: "TOKEN", name: "canary" } } as const;

  it("never puts a secret in an error message, even when the server echoes it", async () => {
    handler = (request, response) =>
      response.writeHead(500).end(`bad token ${request.headers.authorization} (${encodeURIComponent(CANARY)}) ${JSON.stringify({ t: CANARY })}`);
    const error = failure(await invokeHttpTool(tool({ authorization: bearer }), { id: "1" }, context()));
    expect(error.message).not.toContain(CANARY);
    expect(error.message).not.toContain(encodeURIComponent(CANARY));
    expect(error.message).toContain("bad token Bearer [redacted]");
  });

  it("never puts a secret in an invalid-JSON or output-schema message, nor in the output", async () => {
    handler = (request, response) => response.writeHead(200).end(`{"echo": "${request.headers.authorization}"`);
    expect(JSON.stringify(await invokeHttpTool(tool({ authorization: bearer }), { id: "1" }, context()))).not.toContain(CANARY);
    handler = (request, response) => sendJson(response, 200, { echo: request.headers.authorization, [CANARY]: 1 });
    const output = { type: "object", properties: { echo: { type: "string" } }, additionalProperties: false };
    const rejected = await invokeHttpTool(tool({ authorization: bearer }, { output }), { id: "1" }, context());
    expect(rejected.ok).toBe(false);
    expect(JSON.stringify(rejected)).not.toContain(CANARY);
    const accepted = await invokeHttpTool(tool({ authorization: bearer }), { id: "1" }, context());
    expect(accepted).toEqual({ ok: true, output: { echo: "Bearer [redacted]", "[redacted]": 1 }, status: 200 });
  });

  it("reports a secret that cannot be resolved by name only", async () => {
    const resolveSecret = async () => {
      throw new Error("no secret named canary in this tenant");
    };
    const error = failure(await invokeHttpTool(tool({ authorization: bearer }), { id: "1" }, context({ resolveSecret })));
    expect(error).toEqual({ kind: "tool-error", message: 'secret "canary" could not be resolved: no secret named canary in this tenant' });
    expect(server.requests).toHaveLength(0);
  });
});
