import { encode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { call, expectError, kindgi, newTenant } from "./helpers/api";
import { CONSOLE_PATH_HEADER } from "@/lib/client/console-path";

type SignedIn = { cookie: string; userId: string; tenantId: string };

/** Signs in over HTTP as the console's form does: next-auth's CSRF token, then its credentials callback. */
async function signIn(email: string, password: string): Promise<{ status: number; cookie: string | null; body: any }> {
  const { baseUrl } = kindgi();
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = await csrf.json();
  const csrfCookie = csrf.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
    redirect: "manual",
  });
  const session = response.headers.getSetCookie().map((line) => line.split(";")[0]).find((pair) => pair.startsWith("next-auth.session-token="));
  return { status: response.status, cookie: session ?? null, body: await response.json().catch(() => null) };
}

async function signedInTenant(): Promise<SignedIn & { key: string; projectId: string; email: string }> {
  const email = `person-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.test`;
  const created = await call("POST", "/v1/tenants", { key: kindgi().operatorToken, body: { name: "Session Co", adminEmail: email, adminPassword: "correct horse battery" } });
  expect(created.status).toBe(201);
  const result = await signIn(email, "correct horse battery");
  expect(result.status).toBe(200);
  expect(result.cookie).toBeTruthy();
  return { cookie: result.cookie!, userId: created.body.admin.id, tenantId: created.body.tenant.id, key: created.body.apiKey.key, projectId: created.body.project.id, email };
}

const origin = () => new URL(kindgi().baseUrl).origin;

describe("console sessions on /v1", () => {
  it("signs in with email and password and acts as that user: GET works, the actor is the person", async () => {
    const person = await signedInTenant();
    const whoami = await call("GET", "/v1/identity/whoami", { headers: { Cookie: person.cookie } });
    expect(whoami.status).toBe(200);
    expect(whoami.body).toMatchObject({ tenant: { id: person.tenantId }, user: { id: person.userId, email: person.email, role: "admin", kind: "person" }, apiKey: null });
    const projects = await call("GET", "/v1/projects", { headers: { Cookie: person.cookie } });
    expect(projects.body.data.map((project: { id: string }) => project.id)).toEqual([person.projectId]);
  });

  it("the printed first admin signs in", async () => {
    const whoami = await call("GET", "/v1/identity/whoami", { key: kindgi().bootstrapKey });
    const result = await signIn(whoami.body.user.email, "first-admin-password");
    expect(result.status).toBe(200);
    expect((await call("GET", "/v1/identity/whoami", { headers: { Cookie: result.cookie! } })).body.user.id).toBe(whoami.body.user.id);
  });

  it("an unsafe request with the cookie needs an allowed Origin; API-key requests need none", async () => {
    const person = await signedInTenant();
    const created = await call("POST", "/v1/projects", { headers: { Cookie: person.cookie, Origin: origin() }, body: { name: "from the console" } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe("from the console");
    const missing = expectError(await call("POST", "/v1/projects", { headers: { Cookie: person.cookie }, body: { name: "no origin" } }), 403, "csrf-origin-mismatch");
    expect(missing.message).toMatch(/Origin/);
    expectError(await call("POST", "/v1/projects", { headers: { Cookie: person.cookie, Origin: "https://evil.example" }, body: { name: "foreign" } }), 403, "csrf-origin-mismatch");
    expectError(await call("POST", "/v1/projects", { headers: { Cookie: person.cookie, Origin: "null" }, body: { name: "opaque" } }), 403, "csrf-origin-mismatch");
    // The forged requests changed nothing.
    const names = (await call("GET", "/v1/projects", { key: person.key })).body.data.map((project: { name: string }) => project.name);
    expect(names.sort()).toEqual(["Default", "from the console"]);
    // A key request without Origin, and one carrying a cookie and a foreign Origin too: the key decides.
    expect((await call("POST", "/v1/projects", { key: person.key, body: { name: "by key" } })).status).toBe(201);
    expect((await call("POST", "/v1/projects", { key: person.key, headers: { Cookie: person.cookie, Origin: "https://evil.example" }, body: { name: "by key 2" } })).status).toBe(201);
  });

  it("KINDGI_ALLOWED_ORIGINS and the origin a proxy serves (X-Forwarded-Host, X-Forwarded-Proto) are allowed too", async () => {
    const person = await signedInTenant();
    for (const allowed of ["https://console.example.test", "https://admin.example.test"])
      expect((await call("POST", "/v1/projects", { headers: { Cookie: person.cookie, Origin: allowed }, body: { name: `from ${allowed}` } })).status).toBe(201);
    expectError(await call("POST", "/v1/projects", { headers: { Cookie: person.cookie, Origin: "https://console.example.test.evil.example" }, body: { name: "suffix" } }), 403, "csrf-origin-mismatch");
    const proxied = { Cookie: person.cookie, "X-Forwarded-Host": "kindgi.proxy.example", "X-Forwarded-Proto": "https" };
    expect((await call("POST", "/v1/projects", { headers: { ...proxied, Origin: "https://kindgi.proxy.example" }, body: { name: "via the proxy" } })).status).toBe(201);
    expectError(await call("POST", "/v1/projects", { headers: { ...proxied, Origin: "http://kindgi.proxy.example" }, body: { name: "wrong scheme" } }), 403, "csrf-origin-mismatch");
  });

  it("a request with a key and a cookie of different users acts as the key", async () => {
    const person = await signedInTenant();
    const other = await newTenant("Other");
    const whoami = await call("GET", "/v1/identity/whoami", { key: other.key, headers: { Cookie: person.cookie } });
    expect(whoami.body.tenant.id).toBe(other.tenantId);
  });

  it("the session's tenant rules hold: another tenant's project is not found", async () => {
    const person = await signedInTenant();
    const other = await newTenant("Elsewhere");
    expectError(await call("GET", `/v1/projects/${other.projectId}`, { headers: { Cookie: person.cookie } }), 404, "not-found");
  });

  it("a wrong password or an unknown email is refused and sets no session", async () => {
    const person = await signedInTenant();
    for (const [email, password] of [[person.email, "wrong password"], ["nobody@example.test", "correct horse battery"], [person.email, ""]]) {
      const result = await signIn(email, password);
      expect(result.cookie).toBeNull();
      expect(result.status).toBe(401);
    }
  });

  it("an expired, garbled or foreign-key session cookie is 401, and so is one whose user does not exist", async () => {
    const person = await signedInTenant();
    const { sessionSecret } = kindgi();
    const expired = await encode({ token: { userId: person.userId, tenantId: person.tenantId }, secret: sessionSecret, maxAge: -60 });
    expectError(await call("GET", "/v1/identity/whoami", { headers: { Cookie: `next-auth.session-token=${expired}` } }), 401, "auth-invalid");
    const valid = await encode({ token: { userId: person.userId, tenantId: person.tenantId }, secret: sessionSecret, maxAge: 600 });
    expect((await call("GET", "/v1/identity/whoami", { headers: { Cookie: `next-auth.session-token=${valid}` } })).status).toBe(200);
    expectError(await call("GET", "/v1/identity/whoami", { headers: { Cookie: `next-auth.session-token=${person.cookie.split("=")[1].slice(0, -4)}AAAA` } }), 401, "auth-invalid");
    expectError(await call("GET", "/v1/identity/whoami", { headers: { Cookie: "next-auth.session-token=garbage" } }), 401, "auth-invalid");
    const foreign = await encode({ token: { userId: person.userId, tenantId: person.tenantId }, secret: "another-secret-another-secret-another-secret", maxAge: 600 });
    expectError(await call("GET", "/v1/identity/whoami", { headers: { Cookie: `next-auth.session-token=${foreign}` } }), 401, "auth-invalid");
    const gone = await encode({ token: { userId: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", tenantId: person.tenantId }, secret: sessionSecret, maxAge: 600 });
    const refused = expectError(await call("GET", "/v1/identity/whoami", { headers: { Cookie: `next-auth.session-token=${gone}` } }), 401, "auth-invalid");
    expect(refused.message).toMatch(/no longer exists/);
    const otherTenant = await encode({ token: { userId: person.userId, tenantId: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f" }, secret: sessionSecret, maxAge: 600 });
    expectError(await call("GET", "/v1/identity/whoami", { headers: { Cookie: `next-auth.session-token=${otherTenant}` } }), 401, "auth-invalid");
  });

  it("the session cookie expires with the configured lifetime and a console page without a session redirects to sign-in", async () => {
    const person = await signedInTenant();
    const session = await fetch(`${kindgi().baseUrl}/api/auth/session`, { headers: { Cookie: person.cookie } }).then((response) => response.json());
    const lifetimeMs = new Date(session.expires).getTime() - Date.now();
    expect(lifetimeMs).toBeGreaterThan(11.9 * 3600_000);
    expect(lifetimeMs).toBeLessThanOrEqual(12 * 3600_000);
    const page = await fetch(`${kindgi().baseUrl}/?project=x`, { redirect: "manual" });
    expect(page.status).toBe(307);
    expect(new URL(page.headers.get("location")!, kindgi().baseUrl).pathname + new URL(page.headers.get("location")!, kindgi().baseUrl).search).toBe(`/sign-in?callbackUrl=${encodeURIComponent("/?project=x")}`);
    // The path comes from the request line, whatever a client sends in the header that carries it to the layout.
    const spoofed = await fetch(`${kindgi().baseUrl}/approvals`, { redirect: "manual", headers: { [CONSOLE_PATH_HEADER]: "https://evil.example/" } });
    expect(spoofed.status).toBe(307);
    expect(new URL(spoofed.headers.get("location")!, kindgi().baseUrl).searchParams.get("callbackUrl")).toBe("/approvals");
    const signedInPage = await fetch(`${kindgi().baseUrl}/`, { redirect: "manual", headers: { Cookie: person.cookie } });
    expect(signedInPage.status).toBe(200);
  });

  it("without any credential the error names both ways in", async () => {
    const missing = expectError(await call("GET", "/v1/identity/whoami"), 401, "auth-missing");
    expect(missing.message).toMatch(/API key.*sign in/);
  });
});
