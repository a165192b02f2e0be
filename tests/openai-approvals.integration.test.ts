/**
 * Approvals as Responses items, driven by the official `openai` package: a mutating call arrives as an
 * mcp_approval_request, an mcp_approval_response in the next request decides it as the key's person and that response
 * carries the rest of the turn (streamed or not); rejected with a reason; approved with edited arguments and with a
 * grant (this server's extensions); a service account's key is refused; the inbox and the Responses API race, and
 * whichever decides first wins.
 */
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { call, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { httpTool, registerAgent, registerTool, script, unique } from "./helpers/kernel";
import { readSse } from "./helpers/sse";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

type ApprovalRequest = OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
type McpCall = OpenAI.Responses.ResponseOutputItem.McpCall;

let tenant: TestTenant;
let client: OpenAI;
let upstream: RecordingServer;

beforeAll(async () => {
  tenant = await newTenant("openai approvals");
  client = new OpenAI({ apiKey: tenant.key, baseURL: `${kindgi().baseUrl}/v1`, maxRetries: 0 });
  upstream = await startRecordingServer((request, response) => sendJson(response, 200, { saved: JSON.parse(request.body || "{}").word ?? null }));
  return () => upstream.close();
});

/** The calls the upstream saw for `word` (the tool's side effect). */
const sawWord = (word: string) => upstream.requests.filter((request) => JSON.parse(request.body || "{}").word === word).length;

/** A mutating tool that asks a person, an agent using it, and a first response that ends with its approval request. */
async function askFirst(word: string, after = "saved") {
  const toolId = await registerTool(tenant, httpTool(upstream, { mutating: true, effects: [{ kind: "writes" }] }));
  const agent = await registerAgent(tenant, { tools: [{ id: toolId, version: "^1.0.0" }] });
  const first = await client.responses.create({ model: agent.id, input: script({ toolCalls: [{ name: toolId, arguments: { word } }] }, { text: after }) });
  expect(first.status).toBe("completed");
  expect(first.output.map((item) => item.type)).toEqual(["mcp_approval_request"]);
  const request = first.output[0] as ApprovalRequest;
  expect(request).toMatchObject({ server_label: "kindgi", name: toolId, arguments: JSON.stringify({ word }) });
  return { toolId, agent, first, request, runId: (first.metadata as Record<string, string>).runId };
}

const answer = (request: ApprovalRequest, fields: Record<string, unknown>) => [{ type: "mcp_approval_response", approval_request_id: request.id, ...fields }] as unknown as OpenAI.Responses.ResponseInput;

describe("an approval answered through the Responses API", () => {
  it("approved: the next response runs the call once and carries the rest of the turn; the chain goes on", async () => {
    const word = unique("approve");
    const { agent, first, request, runId, toolId } = await askFirst(word, "It is saved.");
    expect(sawWord(word)).toBe(0);
    const next = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: answer(request, { approve: true }) });
    expect(next.id).toMatch(new RegExp(`^resp_${runId}_\\d+$`));
    expect(next.previous_response_id).toBe(first.id);
    expect(next.status).toBe("completed");
    expect(next.output.map((item) => item.type)).toEqual(["mcp_call", "message"]);
    expect(next.output[0]).toMatchObject({ type: "mcp_call", server_label: "kindgi", name: toolId, arguments: JSON.stringify({ word }), output: JSON.stringify({ saved: word }), error: null });
    expect(next.output_text).toBe("It is saved.");
    expect(sawWord(word)).toBe(1);
    const approval = (await call("GET", `/v1/approvals/${request.id}`, { key: tenant.key })).body;
    expect(approval).toMatchObject({ status: "approved", decidedBy: tenant.adminUserId });
    expect((await call("GET", `/v1/runs/${runId}`, { key: tenant.key })).body.status).toBe("completed");

    // Both responses are stored as they were answered; the first still ends with its request.
    expect((await client.responses.retrieve(first.id)).output).toEqual(first.output);
    const stored = await client.responses.retrieve(next.id);
    expect(stored.output).toEqual(next.output);
    expect(stored.previous_response_id).toBe(first.id);

    // Answering again changes nothing: the same response, the call not run twice.
    const again = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: answer(request, { approve: true }) });
    expect(again.id).toBe(next.id);
    expect(sawWord(word)).toBe(1);

    // The conversation goes on from the last response.
    const third = await client.responses.create({ model: agent.id, previous_response_id: next.id, input: script({ text: "still here" }) });
    expect(third.output_text).toBe("still here");
    const thirdRun = (await call("GET", `/v1/runs/${(third.metadata as Record<string, string>).runId}`, { key: tenant.key })).body;
    expect(thirdRun.conversationId).toBe((await call("GET", `/v1/runs/${runId}`, { key: tenant.key })).body.conversationId);
    expect((await client.responses.retrieve(third.id)).previous_response_id).toBe(next.id);
  });

  it("approved in a streamed request: the rest of the turn arrives as the standard events, words as they are written", async () => {
    const word = unique("stream");
    const words = "Saved it, and here is what I did, word by word.";
    const toolId = await registerTool(tenant, httpTool(upstream, { mutating: true, effects: [{ kind: "writes" }] }));
    const agent = await registerAgent(tenant, { tools: [{ id: toolId, version: "^1.0.0" }] });
    const first = await client.responses.create({ model: agent.id, input: script({ toolCalls: [{ name: toolId, arguments: { word } }] }, { text: words, chunkSize: 5, chunkDelayMs: 10 }) });
    const request = first.output[0] as ApprovalRequest;
    const response = await fetch(`${kindgi().baseUrl}/v1/responses`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tenant.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: agent.id, previous_response_id: first.id, stream: true, input: answer(request, { approve: true }) }),
    });
    expect(response.status).toBe(200);
    const reader = readSse(response);
    await reader.ended;
    const types = reader.frames.map((frame) => frame.event);
    expect(types[0]).toBe("response.created");
    expect(types[types.length - 1]).toBe("response.completed");
    const order = ["response.output_item.added", "response.mcp_call.in_progress", "response.mcp_call.completed", "response.output_text.delta", "response.output_text.done", "response.completed"];
    const positions = order.map((type) => types.indexOf(type));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(reader.frames.map((frame) => frame.data.sequence_number)).toEqual(reader.frames.map((_, index) => index));
    const deltas = reader.frames.filter((frame) => frame.event === "response.output_text.delta").map((frame) => frame.data.delta as string);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(words);
    const final = reader.frames[reader.frames.length - 1].data.response;
    expect(final).toMatchObject({ status: "completed", output_text: words, previous_response_id: first.id });
    expect(final.output.map((item: { type: string }) => item.type)).toEqual(["mcp_call", "message"]);
    expect(sawWord(word)).toBe(1);
    expect((await client.responses.retrieve(final.id)).output).toEqual(final.output);
  });

  it("rejected with a reason: the call does not run and the response says why", async () => {
    const word = unique("reject");
    const { agent, first, request, toolId } = await askFirst(word, "Understood, not saved.");
    const next = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: answer(request, { approve: false, reason: "not on a Sunday" }) });
    expect(next.output.map((item) => item.type)).toEqual(["mcp_call", "message"]);
    const failed = next.output[0] as McpCall;
    expect(failed).toMatchObject({ name: toolId, arguments: JSON.stringify({ word }), output: null });
    expect(failed.error).toContain("not on a Sunday");
    expect(next.output_text).toBe("Understood, not saved.");
    expect(sawWord(word)).toBe(0);
    expect((await call("GET", `/v1/approvals/${request.id}`, { key: tenant.key })).body).toMatchObject({ status: "rejected", rationale: "not on a Sunday" });
  });

  it("approved with edited arguments (an extension), validated as in the inbox; `remember` makes a grant", async () => {
    const word = unique("original");
    const edited = unique("edited");
    const { agent, first, request, toolId } = await askFirst(word);
    // Arguments that break the tool's input schema: 400 at the field, nothing decided.
    const refused = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: answer(request, { approve: true, arguments: { word: 5 } }) }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("validation-failed");
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("input.0.arguments.word");
    expect((await call("GET", `/v1/approvals/${request.id}`, { key: tenant.key })).body.status).toBe("pending");

    const next = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: answer(request, { approve: true, arguments: JSON.stringify({ word: edited }), remember: true }) });
    expect(next.output[0]).toMatchObject({ type: "mcp_call", arguments: JSON.stringify({ word: edited }), output: JSON.stringify({ saved: edited }) });
    expect(sawWord(edited)).toBe(1);
    expect(sawWord(word)).toBe(0);
    const approval = (await call("GET", `/v1/approvals/${request.id}`, { key: tenant.key })).body;
    expect(approval).toMatchObject({ status: "approved", editedArguments: { word: edited } });
    expect(approval.grantId).toEqual(expect.any(String));
    const grants = (await call("GET", `/v1/approval-grants?agentId=${agent.id}`, { key: tenant.key })).body.data;
    expect(grants).toEqual([expect.objectContaining({ id: approval.grantId, toolId })]);
  });

  it("a service account's key cannot decide: the SDK's PermissionDeniedError, and the approval stays pending", async () => {
    const { agent, first, request } = await askFirst(unique("robot"));
    const minted = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: unique("svc"), serviceAccount: { name: unique("robot"), role: "member" } } });
    expect(minted.status, minted.text).toBe(201);
    const robot = new OpenAI({ apiKey: minted.body.key, baseURL: `${kindgi().baseUrl}/v1`, maxRetries: 0 });
    const refused = await robot.responses.create({ model: agent.id, previous_response_id: first.id, input: answer(request, { approve: true }) }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((await call("GET", `/v1/approvals/${request.id}`, { key: tenant.key })).body.status).toBe("pending");
  });

  it("an answer that names no request of the previous response, or comes without one, is refused at its field", async () => {
    const { agent, first, request } = await askFirst(unique("stray"));
    const stray = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: [{ type: "mcp_approval_response", approval_request_id: "00000000-0000-4000-8000-000000000000", approve: true }] }).catch((caught: unknown) => caught);
    expect(stray).toBeInstanceOf(OpenAI.BadRequestError);
    expect((stray as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("input.0.approval_request_id");
    const alone = await client.responses.create({ model: agent.id, input: answer(request, { approve: true }) }).catch((caught: unknown) => caught);
    expect(alone).toBeInstanceOf(OpenAI.BadRequestError);
    expect((alone as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("previous_response_id");
    const mixed = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: [...(answer(request, { approve: true }) as unknown[]), { role: "user", content: "and also" }] as OpenAI.Responses.ResponseInput }).catch((caught: unknown) => caught);
    expect(mixed).toBeInstanceOf(OpenAI.BadRequestError);
    expect((mixed as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("input.1");
    expect((await call("GET", `/v1/approvals/${request.id}`, { key: tenant.key })).body.status).toBe("pending");
  });
});

describe("the inbox and the Responses API on one approval", () => {
  it("the inbox decides first: the later answer is no error and shows what became of the call", async () => {
    const word = unique("inbox-first");
    const { agent, first, request } = await askFirst(word, "done after the inbox");
    const decided = await call("POST", `/v1/approvals/${request.id}/complete`, { key: tenant.key, body: { decision: "approve" } });
    expect(decided.status, decided.text).toBe(200);
    // The client answers "no" after the inbox said yes: the inbox's decision stands, and the response shows the call ran.
    const next = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: answer(request, { approve: false, reason: "too late" }) });
    expect(next.status).toBe("completed");
    expect(next.output[0]).toMatchObject({ type: "mcp_call", output: JSON.stringify({ saved: word }), error: null });
    expect(next.output_text).toBe("done after the inbox");
    expect(sawWord(word)).toBe(1);
    expect((await call("GET", `/v1/approvals/${request.id}`, { key: tenant.key })).body).toMatchObject({ status: "approved" });
  });

  it("the Responses API decides first: the inbox's later, different decision is the API's 409", async () => {
    const word = unique("responses-first");
    const { agent, first, request } = await askFirst(word);
    await client.responses.create({ model: agent.id, previous_response_id: first.id, input: answer(request, { approve: true }) });
    const late = await call("POST", `/v1/approvals/${request.id}/complete`, { key: tenant.key, body: { decision: "reject", rationale: "late" } });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toMatch(/approval-already-decided|run-already-terminal/);
    expect(sawWord(word)).toBe(1);
  });
});
