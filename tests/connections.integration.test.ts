/**
 * Connections over HTTP: an HTTP tool that authorizes with a connection sends the linked account's token as its
 * bearer; a missing or under-permitted connection fails the call before anything is sent (a local recording server
 * proves it); the company's connections need a tenant admin; the token never appears in any response or journal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "./helpers/api";
import { httpTool, journal, registerAgent, registerTool, runTurn, script } from "./helpers/kernel";
import { startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let tenant: TestTenant;
let receiver: RecordingServer;
let memberKey: string;
const TOKEN = `ya29.person-${crypto.randomUUID()}`;
const COMPANY_TOKEN = `ghp_company${crypto.randomUUID().replace(/-/g, "")}`;

beforeAll(async () => {
  tenant = await newTenant("connections");
  receiver = await startRecordingServer();
  const member = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "member", serviceAccount: { name: "member-bot", role: "member" } } });
  memberKey = member.body.key;
});
afterAll(async () => receiver.close());

async function connectedTool(as: "person" | "company", app: string, permissions: string[]) {
  const manifest = httpTool(receiver, { needsSpec: { connections: { mail: { app, permissions, as } } } }, { authorization: { kind: "connection", connection: "mail" } });
  await registerTool(tenant, manifest);
  const agent = await registerAgent(tenant, { tools: [{ id: manifest.id, version: "^1.0.0" }] });
  return { toolId: manifest.id as string, agent };
}

async function callTool(tool: { toolId: string; agent: { id: string } }, word: string) {
  const run = await runTurn(tenant, tool.agent, script({ toolCalls: [{ name: tool.toolId, arguments: { word } }] }, { text: "done" }));
  const events = await journal(tenant, run.id);
  const completed = events.find((event) => event.type === "tool-call-completed").data;
  return { run, events, completed };
}

const sentFor = (word: string) => receiver.requests.filter((request) => request.body.includes(word));

describe("connections", () => {
  it("a missing connection fails the call with connection-missing and sends nothing", async () => {
    const tool = await connectedTool("person", "google", ["gmail.send"]);
    const { completed } = await callTool(tool, "missing-1");
    expect(completed).toMatchObject({ ok: false, error: { kind: "tool-error", reason: "connection-missing" } });
    expect(completed.error.message).toContain("google");
    expect(sentFor("missing-1")).toHaveLength(0);
  });

  it("an under-permitted connection fails with connection-permission-missing and sends nothing; a fitting one sends its bearer", async () => {
    const tool = await connectedTool("person", "google", ["gmail.send"]);
    const weak = await call("POST", "/v1/connections", { key: tenant.key, body: { app: "google", permissions: ["gmail.readonly"], token: `${TOKEN}-weak`, owner: "person", name: "read only" } });
    expect(weak.status).toBe(201);
    const under = await callTool(tool, "under-1");
    expect(under.completed).toMatchObject({ ok: false, error: { kind: "tool-error", reason: "connection-permission-missing" } });
    expect(under.completed.error.message).toContain("gmail.send");
    expect(sentFor("under-1")).toHaveLength(0);

    const created = await call("POST", "/v1/connections", { key: tenant.key, body: { app: "google", permissions: ["gmail.send", "gmail.readonly"], token: TOKEN, owner: "person" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ app: "google", owner: "person", userId: tenant.adminUserId, permissions: ["gmail.send", "gmail.readonly"], name: null });
    const ok = await callTool(tool, "ok-1");
    expect(ok.completed).toMatchObject({ ok: true });
    const sent = sentFor("ok-1");
    expect(sent).toHaveLength(1);
    expect(sent[0].headers.authorization).toBe(`Bearer ${TOKEN}`);

    // The token appears in no answer and no journal.
    const answers = [created.text, weak.text, (await call("GET", "/v1/connections", { key: tenant.key })).text, (await call("GET", `/v1/connections/${created.body.id}`, { key: tenant.key })).text, JSON.stringify(ok.run), JSON.stringify(ok.events), JSON.stringify(under.events)];
    for (const text of answers) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain("ya29.person");
    }
    expect((await call("GET", "/v1/connections", { key: tenant.key })).body.data.every((connection: any) => !("token" in connection))).toBe(true);

    // Deleted, the call fails again before sending.
    const deleted = await call("DELETE", `/v1/connections/${created.body.id}`, { key: tenant.key });
    expect(deleted.body).toMatchObject({ id: created.body.id, deleted: true });
    await call("DELETE", `/v1/connections/${weak.body.id}`, { key: tenant.key });
    expectError(await call("GET", `/v1/connections/${created.body.id}`, { key: tenant.key }), 404, "not-found");
    const after = await callTool(tool, "after-1");
    expect(after.completed).toMatchObject({ ok: false, error: { reason: "connection-missing" } });
    expect(sentFor("after-1")).toHaveLength(0);
  });

  it("the company's connection needs a tenant admin, and serves as: company", async () => {
    expectError(await call("POST", "/v1/connections", { key: memberKey, body: { app: "github", permissions: ["repo"], token: COMPANY_TOKEN, owner: "company" } }), 403, "permission-denied");
    const own = await call("POST", "/v1/connections", { key: memberKey, body: { app: "github", permissions: ["repo"], token: "member-token-1", owner: "person" } });
    expect(own.status).toBe(201);
    const company = await call("POST", "/v1/connections", { key: tenant.key, body: { app: "github", permissions: ["repo"], token: COMPANY_TOKEN, owner: "company", name: "org bot" } });
    expect(company.status).toBe(201);
    expect(company.body).toMatchObject({ owner: "company", userId: null });
    // A member sees its own and the company's, not the admin's person connections; the admin sees all.
    const seenByMember = (await call("GET", "/v1/connections?app=github", { key: memberKey })).body.data.map((c: any) => c.id).sort();
    expect(seenByMember).toEqual([own.body.id, company.body.id].sort());
    expectError(await call("DELETE", `/v1/connections/${company.body.id}`, { key: memberKey }), 403, "permission-denied");

    const tool = await connectedTool("company", "github", ["repo"]);
    const { completed } = await callTool(tool, "company-1");
    expect(completed.ok).toBe(true);
    expect(sentFor("company-1")[0].headers.authorization).toBe(`Bearer ${COMPANY_TOKEN}`);
  });

  it("refuses bad bodies at the field, and another tenant's connection is 404", async () => {
    expectError(await call("POST", "/v1/connections", { key: tenant.key, body: { app: "google", permissions: ["x"], owner: "team", token: "t" } }), 400, "bad-input");
    expectError(await call("POST", "/v1/connections", { key: tenant.key, body: { app: "google", permissions: ["x"], owner: "person" } }), 400, "bad-input");
    expectError(await call("POST", "/v1/connections", { key: tenant.key, body: { app: "google", permissions: ["x"], owner: "person", token: "t", scopes: [] } }), 400, "unknown-field");
    const mine = await call("POST", "/v1/connections", { key: tenant.key, body: { app: "slack", permissions: ["chat:write"], owner: "person", token: "xoxb-1" } });
    const other = await newTenant("connections other");
    expectError(await call("GET", `/v1/connections/${mine.body.id}`, { key: other.key }), 404, "not-found");
    expectError(await call("DELETE", `/v1/connections/${mine.body.id}`, { key: other.key }), 404, "not-found");
  });
});
