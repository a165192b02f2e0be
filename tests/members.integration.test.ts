import { describe, expect, it } from "vitest";
import { call, expectError, kindgi, newTenant } from "./helpers/api";

/** Signs in over HTTP as the console's form does; the session cookie, or null when sign-in is refused. */
async function signIn(email: string, password: string): Promise<string | null> {
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
  return response.headers.getSetCookie().map((line) => line.split(";")[0]).find((pair) => pair.startsWith("next-auth.session-token=")) ?? null;
}

const email = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.test`;
const password = "initial password 42";

describe("members", () => {
  it("an admin invites a person who signs in with the initial password, lists, changes the role", async () => {
    const tenant = await newTenant("Members Co");
    const address = email("ada");
    const invited = await call("POST", "/v1/members", { key: tenant.key, body: { email: address.toUpperCase(), name: "Ada", role: "viewer", password } });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: address, name: "Ada", role: "viewer", status: "active" });
    expect(invited.text).not.toContain(password);

    const cookie = await signIn(address, password);
    expect(cookie).toBeTruthy();
    const whoami = await call("GET", "/v1/identity/whoami", { headers: { Cookie: cookie! } });
    expect(whoami.body.user).toMatchObject({ id: invited.body.id, role: "viewer" });
    expect(await signIn(address, "wrong password 123")).toBeNull();

    const list = await call("GET", "/v1/members", { key: tenant.key });
    expect(list.body.data.map((m: { id: string }) => m.id)).toEqual([tenant.adminUserId, invited.body.id]);
    expect((await call("GET", "/v1/members?limit=1", { key: tenant.key })).body).toMatchObject({ data: [{ id: tenant.adminUserId }], hasMore: true });

    const promoted = await call("POST", `/v1/members/${invited.body.id}/role`, { key: tenant.key, body: { role: "member" } });
    expect(promoted.body).toMatchObject({ id: invited.body.id, role: "member" });
    expect((await call("GET", "/v1/identity/whoami", { headers: { Cookie: cookie! } })).body.user.role).toBe("member");

    expectError(await call("POST", "/v1/members", { key: tenant.key, body: { email: address, role: "member", password } }), 409, "member-email-taken");
  });

  it("deactivation ends sign-in, the session and the member's keys; reactivation allows sign-in again", async () => {
    const tenant = await newTenant("Deactivate Co");
    const address = email("bob");
    const invited = await call("POST", "/v1/members", { key: tenant.key, body: { email: address, role: "member", password } });
    const cookie = (await signIn(address, password))!;
    const origin = new URL(kindgi().baseUrl).origin;
    const minted = await call("POST", "/v1/tokens", { headers: { Cookie: cookie, Origin: origin }, body: { name: "bob's key" } });
    expect(minted.status).toBe(201);
    expect((await call("GET", "/v1/identity/whoami", { key: minted.body.key })).status).toBe(200);

    const deactivated = await call("POST", `/v1/members/${invited.body.id}/deactivate`, { key: tenant.key });
    expect(deactivated.body).toMatchObject({ id: invited.body.id, status: "deactivated" });
    expectError(await call("GET", "/v1/identity/whoami", { headers: { Cookie: cookie } }), 401, "auth-invalid");
    expectError(await call("GET", "/v1/identity/whoami", { key: minted.body.key }), 401, "auth-revoked");
    expect(await signIn(address, password)).toBeNull();
    expect((await call("GET", "/v1/members", { key: tenant.key })).body.data.find((m: { id: string }) => m.id === invited.body.id).status).toBe("deactivated");

    expect((await call("POST", `/v1/members/${invited.body.id}/reactivate`, { key: tenant.key })).body.status).toBe("active");
    expect(await signIn(address, password)).toBeTruthy();
    expectError(await call("GET", "/v1/identity/whoami", { key: minted.body.key }), 401, "auth-revoked");
  });

  it("only tenant admins write, nobody changes themselves, other tenants' members are 404, bad input is 400", async () => {
    const tenant = await newTenant("Rules Co");
    const stranger = await newTenant("Stranger Co");
    const invited = await call("POST", "/v1/members", { key: tenant.key, body: { email: email("cy"), role: "admin", password } });
    const member = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "m", serviceAccount: { name: "member-bot", role: "member" } } });
    expectError(await call("POST", "/v1/members", { key: member.body.key, body: { email: email("dee"), role: "member", password } }), 403, "permission-denied");
    expectError(await call("POST", `/v1/members/${invited.body.id}/role`, { key: member.body.key, body: { role: "viewer" } }), 403, "permission-denied");
    expect((await call("GET", "/v1/members", { key: member.body.key })).status).toBe(200);
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "narrow", projectId: tenant.projectId } });
    expectError(await call("GET", "/v1/members", { key: narrowed.body.key }), 403, "permission-denied");

    expectError(await call("POST", `/v1/members/${tenant.adminUserId}/deactivate`, { key: tenant.key }), 403, "permission-denied");
    expectError(await call("POST", `/v1/members/${tenant.adminUserId}/role`, { key: tenant.key, body: { role: "viewer" } }), 403, "permission-denied");
    expectError(await call("POST", `/v1/members/${invited.body.id}/deactivate`, { key: stranger.key }), 404, "not-found");
    expect((await call("GET", "/v1/members", { key: stranger.key })).body.data.map((m: { id: string }) => m.id)).toEqual([stranger.adminUserId]);
    // Service accounts are not members.
    expectError(await call("POST", `/v1/members/${member.body.actsFor.userId}/deactivate`, { key: tenant.key }), 404, "not-found");

    for (const body of [{ email: "not-an-email", role: "member", password }, { email: email("e"), role: "owner", password }, { email: email("f"), role: "member", password: "short" }, { email: email("g"), role: "member" }, { email: email("h"), role: "member", password, extra: 1 }]) {
      expect((await call("POST", "/v1/members", { key: tenant.key, body })).status).toBe(400);
    }
    expectError(await call("POST", "/v1/members/not-a-uuid/deactivate", { key: tenant.key }), 400, "bad-input");
  });
});
