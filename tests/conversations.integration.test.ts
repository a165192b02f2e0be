import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "./helpers/api";
import { journal, registerAgent, runTurn, script, sleep, startRun } from "./helpers/kernel";

describe("conversations", () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await newTenant("conversations");
  });

  const open = (agent: { id: string; version?: string }, extra: Record<string, unknown> = {}) => call("POST", "/v1/conversations", { key: tenant.key, body: { agent, ...extra } });

  it("opens pinned to the latest active version; turns append user and assistant messages, oldest first", async () => {
    const agent = await registerAgent(tenant);
    await call("POST", "/v1/agents", { key: tenant.key, body: { ...(await call("GET", `/v1/agents/${agent.id}/versions/1.0.0`, { key: tenant.key })).body.definition, version: "1.1.0", projectId: tenant.projectId } });
    const opened = await open({ id: agent.id }, { title: "Support" });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ agent: { id: agent.id, version: "1.1.0" }, title: "Support", status: "open", closeReason: null, messageCount: 0 });
    const conversationId = opened.body.id;

    const first = await runTurn(tenant, { id: agent.id }, script({ text: "first answer" }), { conversationId });
    expect(first).toMatchObject({ status: "completed", conversationId, agent: { version: "1.1.0" } });
    const second = await runTurn(tenant, { id: agent.id, version: "1.1.0" }, script({ text: "second answer" }), { conversationId });
    expect(second.status).toBe("completed");

    const messages = await call("GET", `/v1/conversations/${conversationId}/messages`, { key: tenant.key });
    expect(messages.body.data.map((m: any) => [m.seq, m.role, m.content, m.runId])).toEqual([
      [1, "user", script({ text: "first answer" }), first.id],
      [2, "assistant", "first answer", first.id],
      [3, "user", script({ text: "second answer" }), second.id],
      [4, "assistant", "second answer", second.id],
    ]);
    const page = await call("GET", `/v1/conversations/${conversationId}/messages?limit=3`, { key: tenant.key });
    expect(page.body.hasMore).toBe(true);
    const rest = await call("GET", `/v1/conversations/${conversationId}/messages?cursor=${page.body.nextCursor}`, { key: tenant.key });
    expect(rest.body.data.map((m: any) => m.seq)).toEqual([4]);
    expect((await call("GET", `/v1/conversations/${conversationId}`, { key: tenant.key })).body.messageCount).toBe(4);

    // The second turn was sent the first turn's messages as history.
    const started = (await journal(tenant, second.id)).find((event) => event.type === "turn-started");
    expect(started.data.history).toEqual([
      { role: "user", content: script({ text: "first answer" }) },
      { role: "assistant", content: "first answer" },
    ]);
    const runs = await call("GET", `/v1/runs?conversationId=${conversationId}`, { key: tenant.key });
    expect(runs.body.data.map((run: any) => run.id)).toEqual([second.id, first.id]);
  });

  it("a failed turn adds no messages", async () => {
    const agent = await registerAgent(tenant);
    const conversationId = (await open(agent)).body.id;
    const failed = await runTurn(tenant, agent, script({ toolCalls: [{ name: "x", arguments: {} }] }, { toolCalls: [{ name: "x", arguments: {} }] }), { conversationId });
    expect(failed.status).toBe("failed");
    expect((await call("GET", `/v1/conversations/${conversationId}/messages`, { key: tenant.key })).body.data).toEqual([]);
  });

  it("historyLimit caps the history sent with a turn; conversation.turn counts turns", async () => {
    const agent = await registerAgent(tenant, { conversationPolicy: { historyLimit: 2 }, instructions: "Turn {{ conversation.turn }}." });
    const conversationId = (await open(agent)).body.id;
    expect((await call("GET", `/v1/conversations/${conversationId}`, { key: tenant.key })).body.historyLimit).toBe(2);
    for (const text of ["one", "two"]) await runTurn(tenant, agent, script({ text }), { conversationId });
    const third = await runTurn(tenant, agent, script({ text: "three" }), { conversationId });
    const started = (await journal(tenant, third.id)).find((event) => event.type === "turn-started");
    expect(started.data.history).toEqual([
      { role: "user", content: script({ text: "two" }) },
      { role: "assistant", content: "two" },
    ]);
    expect(started.data.instructions).toBe("Turn 3.");
  });

  it("another agent version → 409 agent-version-mismatch; a closed conversation → 409 conversation-closed", async () => {
    const agent = await registerAgent(tenant);
    const other = await registerAgent(tenant);
    await call("POST", "/v1/agents", { key: tenant.key, body: { ...(await call("GET", `/v1/agents/${agent.id}/versions/1.0.0`, { key: tenant.key })).body.definition, version: "2.0.0", projectId: tenant.projectId } });
    const conversationId = (await open({ id: agent.id, version: "1.0.0" })).body.id;
    const mismatch = expectError(await startRun(tenant, { id: agent.id, version: "2.0.0" }, "x", { conversationId }), 409, "agent-version-mismatch");
    expect(mismatch.details).toMatchObject({ pinned: { id: agent.id, version: "1.0.0" }, requested: { id: agent.id, version: "2.0.0" } });
    expectError(await startRun(tenant, other, "x", { conversationId }), 409, "agent-version-mismatch");
    // Without a version the pinned one is used, not the latest.
    expect((await runTurn(tenant, { id: agent.id }, script({ text: "pinned" }), { conversationId })).agent.version).toBe("1.0.0");

    const closed = await call("POST", `/v1/conversations/${conversationId}/close`, { key: tenant.key });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: "closed", closeReason: "requested" });
    expect((await call("POST", `/v1/conversations/${conversationId}/close`, { key: tenant.key })).body.closedAt).toBe(closed.body.closedAt);
    expectError(await startRun(tenant, { id: agent.id }, "x", { conversationId }), 409, "conversation-closed");
    expect((await call("GET", `/v1/runs?conversationId=${conversationId}`, { key: tenant.key })).body.data).toHaveLength(1);
  });

  it("autoCloseAfterInactiveSeconds closes an idle conversation", async () => {
    const agent = await registerAgent(tenant, { conversationPolicy: { autoCloseAfterInactiveSeconds: 1 } });
    const conversationId = (await open(agent)).body.id;
    await runTurn(tenant, agent, script({ text: "quick" }), { conversationId });
    await sleep(1300);
    const error = expectError(await startRun(tenant, agent, "too late", { conversationId }), 409, "conversation-closed");
    expect(error.details.closeReason).toBe("inactive");
    expect((await call("GET", `/v1/conversations/${conversationId}`, { key: tenant.key })).body).toMatchObject({ status: "closed", closeReason: "inactive" });
    const idle = (await open(agent)).body.id;
    await sleep(1300);
    const closedList = await call("GET", `/v1/conversations?agentId=${agent.id}&status=closed`, { key: tenant.key });
    expect(closedList.body.data.map((c: any) => c.id).sort()).toEqual([conversationId, idle].sort());
    expect((await call("GET", `/v1/conversations?agentId=${agent.id}&status=open`, { key: tenant.key })).body.data).toEqual([]);
  });

  it("errors: unknown agent or version 404, bad input 400, cross-tenant 404, viewer 403", async () => {
    const agent = await registerAgent(tenant);
    expectError(await open({ id: "no.such-agent" }), 404, "not-found");
    expectError(await open({ id: agent.id, version: "3.0.0" }), 404, "not-found");
    expectError(await call("POST", "/v1/conversations", { key: tenant.key, body: { agent: { id: agent.id }, colour: "red" } }), 400, "unknown-field");
    expectError(await call("POST", "/v1/conversations", { key: tenant.key, body: {} }), 400, "bad-input");
    expectError(await call("GET", "/v1/conversations/123", { key: tenant.key }), 400, "bad-input");
    const conversationId = (await open(agent)).body.id;
    const other = await newTenant("conversations other");
    for (const path of [`/v1/conversations/${conversationId}`, `/v1/conversations/${conversationId}/messages`]) expectError(await call("GET", path, { key: other.key }), 404, "not-found");
    expectError(await call("POST", `/v1/conversations/${conversationId}/close`, { key: other.key }), 404, "not-found");
    expectError(await call("POST", "/v1/conversations", { key: other.key, body: { agent: { id: agent.id } } }), 404, "not-found");
    expect((await call("GET", "/v1/conversations", { key: other.key })).body.data).toEqual([]);
    const viewer = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "v", serviceAccount: { name: "viewer", role: "viewer" } } });
    expectError(await call("POST", "/v1/conversations", { key: viewer.body.key, body: { agent: { id: agent.id } } }), 403, "permission-denied");
    expectError(await call("POST", `/v1/conversations/${conversationId}/close`, { key: viewer.body.key }), 403, "permission-denied");
    expect((await call("GET", `/v1/conversations/${conversationId}`, { key: tenant.key })).body.status).toBe("open");
  });
});
