import { inject } from "vitest";

export type ApiResponse<T = any> = { status: number; headers: Headers; text: string; body: T };

export const kindgi = () => inject("kindgi");

/** One HTTP call against the test server; the body is parsed when it is JSON. */
export async function call<T = any>(method: string, path: string, options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; baseUrl?: string } = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.Authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  const response = await fetch(`${options.baseUrl ?? kindgi().baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed as T };
}

export type TestTenant = { tenantId: string; projectId: string; key: string; adminUserId: string };

/** A tenant of the test's own, created through the operator route. */
export function newTenant(name = "test tenant"): Promise<TestTenant> {
  return tenantOn(kindgi().baseUrl, kindgi().operatorToken, name);
}

/** A tenant created through the operator route of the server at `baseUrl` (a server of the test's own). */
export async function tenantOn(baseUrl: string, operatorToken: string, name: string): Promise<TestTenant> {
  const response = await call("POST", "/v1/tenants", { key: operatorToken, body: { name }, baseUrl });
  if (response.status !== 201) throw new Error(`tenant creation failed: ${response.status} ${response.text}`);
  return { tenantId: response.body.tenant.id, projectId: response.body.project.id, key: response.body.apiKey.key, adminUserId: response.body.admin.id };
}

/** Asserts the error envelope and returns it. */
export function expectError(response: ApiResponse, status: number, code: string) {
  const detail = `${response.status} ${response.text.slice(0, 500)}`;
  if (response.status !== status || response.body?.error?.code !== code) throw new Error(`expected ${status} ${code}, got ${detail}`);
  if (typeof response.body.error.requestId !== "string" || response.body.error.requestId !== response.headers.get("x-request-id")) throw new Error(`requestId missing or not echoed: ${detail}`);
  if (typeof response.body.error.message !== "string" || !response.body.error.message) throw new Error(`message missing: ${detail}`);
  return response.body.error as { code: string; message: string; details?: any; requestId: string };
}

let counter = 0;
/** A unique tool manifest for tests: a read-only HTTP tool (this server can invoke it; nothing here calls it). */
export function toolManifest(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    id: `test.tool-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}`,
    description: "Looks up a word in a test dictionary.",
    version: "1.0.0",
    input: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
    output: { type: "object", properties: { definition: { type: "string" } } },
    mutating: false,
    effects: [{ kind: "reads", resource: "dictionary" }],
    spec: { kind: "http", method: "GET", urlTemplate: "https://dictionary.example/define?word={word}" },
    ...overrides,
  };
}
