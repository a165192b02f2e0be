/**
 * Agents over the OpenAI Responses API, driven by the official `openai` package (and a raw SSE read for the event
 * order): a response and its mcp_call items, streamed events whose text deltas make the final text, a
 * previous_response_id chain that keeps the conversation, a stored response retrieved, and a call waiting for a
 * person ending the response with an mcp_approval_request.
 */
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { call, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { httpTool, registerAgent, registerTool, script } from "./helpers/kernel";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let tenant: TestTenant;
let client: OpenAI;
let upstream: RecordingServer;

beforeAll(async () => {
  tenant = await newTenant("openai responses");
  client = new OpenAI({ apiKey: tenant.key, baseURL: `${kindgi().baseUrl}/v1`, maxRetries: 0 });
  upstream = await startRecordingServer((request, response) => sendJson(response, 200, { looked: JSON.parse(request.body || "{}").word ?? null }));
  return () => upstream.close();
});

/** Server-sent events as they come: `event:` and parsed `data:`. */
async function rawEvents(body: Record<string, unknown>): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const response = await fetch(`${kindgi().baseUrl}/v1/responses`, { method: "POST", headers: { Authorization: `Bearer ${tenant.key}`, "Content-Type": "application/json" }, body: JSON.stringify({ ...body, stream: true }) });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((frame) => frame.trim())
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "null");
      return { event, data };
    });
}

describe("responses.create", () => {
  it("answers a Response with each tool call as an mcp_call item, the answer as a message, usage and the run in metadata", async () => {
    const toolId = await registerTool(tenant, httpTool(upstream));
    const agent = await registerAgent(tenant, { tools: [{ id: toolId, version: "^1.0.0" }] });
    const response = await client.responses.create({ model: agent.id, input: script({ toolCalls: [{ name: toolId, arguments: { word: "kindgi" } }], usage: { inputTokens: 10, outputTokens: 4 } }, { text: "Found it.", usage: { inputTokens: 20, outputTokens: 3 } }) });
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Found it.");
    expect(response.output.map((item) => item.type)).toEqual(["mcp_call", "message"]);
    expect(response.output[0]).toMatchObject({ type: "mcp_call", server_label: "kindgi", name: toolId, arguments: JSON.stringify({ word: "kindgi" }), output: JSON.stringify({ looked: "kindgi" }), error: null });
    expect(response.usage).toMatchObject({ input_tokens: 30, output_tokens: 7, total_tokens: 37 });
    const runId = (response.metadata as Record<string, string>).runId;
    expect(response.id).toBe(`resp_${runId}`);
    expect((await call("GET", `/v1/runs/${runId}`, { key: tenant.key })).body).toMatchObject({ status: "completed", output: "Found it." });
    // Stored: retrieved as it was answered.
    const stored = await client.responses.retrieve(response.id);
    expect(stored.output).toEqual(response.output);
    expect(stored.output_text).toBe("Found it.");
  });

  it("streams the standard events in order; the text deltas put together are the final text", async () => {
    const agent = await registerAgent(tenant);
    const answer = "Words as they are written, in small pieces.";
    const events = await rawEvents({ model: agent.id, input: script({ text: answer, chunkSize: 6, chunkDelayMs: 10 }) });
    const types = events.map((event) => event.event);
    expect(types[0]).toBe("response.created");
    expect(types[1]).toBe("response.in_progress");
    expect(types[types.length - 1]).toBe("response.completed");
    const order = ["response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"];
    const positions = order.map((type) => types.indexOf(type));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(events.map((event) => event.data.type)).toEqual(types);
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_, index) => index));
    const deltas = events.filter((event) => event.event === "response.output_text.delta").map((event) => event.data.delta as string);
    expect(deltas.length).toBeGreaterThan(1);
    const completed = events[events.length - 1].data.response as { output_text: string; status: string };
    expect(deltas.join("")).toBe(answer);
    expect(completed).toMatchObject({ status: "completed", output_text: answer });

    // The SDK's stream reads the same events.
    const stream = await client.responses.create({ model: agent.id, input: script({ text: answer, chunkSize: 6 }), stream: true });
    let text = "";
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") final = event.response;
    }
    expect(text).toBe(answer);
    expect(final?.output_text).toBe(answer);
  });

  it("keeps the conversation across a previous_response_id chain", async () => {
    const agent = await registerAgent(tenant);
    const first = await client.responses.create({ model: agent.id, input: script({ text: "first answer" }) });
    const second = await client.responses.create({ model: agent.id, previous_response_id: first.id, input: script({ text: "second answer" }) });
    expect(second.previous_response_id).toBe(first.id);
    const firstRun = (await call("GET", `/v1/runs/${(first.metadata as Record<string, string>).runId}`, { key: tenant.key })).body;
    const secondRun = (await call("GET", `/v1/runs/${(second.metadata as Record<string, string>).runId}`, { key: tenant.key })).body;
    expect(secondRun.conversationId).toBe(firstRun.conversationId);
    const messages = await call("GET", `/v1/conversations/${firstRun.conversationId}/messages`, { key: tenant.key });
    expect(messages.body.data.map((message: { role: string; content: string }) => message.content)).toEqual([script({ text: "first answer" }), "first answer", script({ text: "second answer" }), "second answer"]);
    expect((await client.responses.retrieve(second.id)).previous_response_id).toBe(first.id);
  });

  it("ends with an mcp_approval_request item when a call waits for a person, streamed or not", async () => {
    const toolId = await registerTool(tenant, httpTool(upstream, { mutating: true, effects: [{ kind: "writes" }] }));
    const agent = await registerAgent(tenant, { tools: [{ id: toolId, version: "^1.0.0" }] });
    const steps = script({ toolCalls: [{ name: toolId, arguments: { word: "save" } }] }, { text: "saved" });
    const before = upstream.requests.length;
    const response = await client.responses.create({ model: agent.id, input: steps });
    expect(response.status).toBe("completed");
    const request = response.output.find((item) => item.type === "mcp_approval_request") as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    expect(request).toMatchObject({ server_label: "kindgi", name: toolId, arguments: JSON.stringify({ word: "save" }) });
    expect((await call("GET", `/v1/approvals/${request.id}`, { key: tenant.key })).body.status).toBe("pending");

    const events = await rawEvents({ model: agent.id, input: steps });
    const added = events.filter((event) => event.event === "response.output_item.added").map((event) => (event.data.item as { type: string }).type);
    expect(added).toContain("mcp_approval_request");
    expect(events[events.length - 1].event).toBe("response.completed");
    expect(upstream.requests.length).toBe(before);
  });

  it("a turn that fails answers a failed response with the failure as its error, streamed as response.failed", async () => {
    const costly = await registerAgent(tenant, { budget: { maxCostUsd: 0.01 } });
    const failed = await client.responses.create({ model: costly.id, input: script({ text: "too expensive", costUsd: 0.03 }) });
    expect(failed).toMatchObject({ status: "failed", error: { code: "budget-exceeded", message: expect.any(String) } });
    const events = await rawEvents({ model: costly.id, input: script({ text: "too expensive", costUsd: 0.03 }) });
    expect(events[events.length - 1]).toMatchObject({ event: "response.failed", data: { response: { status: "failed", error: { code: "budget-exceeded" } } } });
  });

  it("refuses client tools with the field as param; an unknown response is the SDK's NotFoundError", async () => {
    const agent = await registerAgent(tenant);
    const refused = await client.responses.create({ model: agent.id, input: "hi", tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: false }] }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("tools");
    const missing = await client.responses.retrieve("resp_00000000-0000-4000-8000-000000000000").catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    const unknownModel = await client.responses.create({ model: "no.such-agent", input: "hi" }).catch((caught: unknown) => caught);
    expect(unknownModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknownModel as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model-not-found");
  });
});

/** Polls a response until `done` holds for it. */
async function pollResponse(id: string, done: (response: OpenAI.Responses.Response) => boolean, timeoutMs = 20_000): Promise<OpenAI.Responses.Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.responses.retrieve(id);
    if (done(response) || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("background responses and store", () => {
  it("background answers at once; retrieve polls it to the end", async () => {
    const agent = await registerAgent(tenant);
    const answer = "A slow answer, written a few letters at a time.";
    const started = Date.now();
    const response = await client.responses.create({ model: agent.id, input: script({ text: answer, chunkSize: 4, chunkDelayMs: 60 }), background: true });
    expect(Date.now() - started).toBeLessThan(600);
    expect(["queued", "in_progress"]).toContain(response.status);
    expect(response.background).toBe(true);
    expect(response.output_text).not.toBe(answer);
    const done = await pollResponse(response.id, (polled) => polled.status === "completed");
    expect(done).toMatchObject({ status: "completed", output_text: answer, background: true, store: true });
  });

  it("cancel stops a background response's run; a response not started in the background cannot be cancelled", async () => {
    const agent = await registerAgent(tenant);
    const response = await client.responses.create({ model: agent.id, input: script({ text: "x".repeat(200), chunkSize: 2, chunkDelayMs: 100 }), background: true });
    const runId = (response.metadata as Record<string, string>).runId;
    await pollResponse(response.id, (polled) => polled.status === "in_progress");
    const cancelled = await client.responses.cancel(response.id);
    expect(cancelled.status).toBe("cancelled");
    expect((await client.responses.retrieve(response.id)).status).toBe("cancelled");
    expect((await call("GET", `/v1/runs/${runId}`, { key: tenant.key })).body.status).toBe("cancelled");
    // Cancelling again answers the finished response.
    expect((await client.responses.cancel(response.id)).status).toBe("cancelled");

    const foreground = await client.responses.create({ model: agent.id, input: script({ text: "done" }) });
    const refused = await client.responses.cancel(foreground.id).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("store: false answers the response and serves it no more; background needs store", async () => {
    const agent = await registerAgent(tenant);
    const response = await client.responses.create({ model: agent.id, input: script({ text: "not kept" }), store: false });
    expect(response).toMatchObject({ status: "completed", output_text: "not kept", store: false });
    expect(await client.responses.retrieve(response.id).catch((caught: unknown) => caught)).toBeInstanceOf(OpenAI.NotFoundError);
    const chained = await client.responses.create({ model: agent.id, previous_response_id: response.id, input: "more" }).catch((caught: unknown) => caught);
    expect(chained).toBeInstanceOf(OpenAI.NotFoundError);
    expect((chained as InstanceType<typeof OpenAI.NotFoundError>).param).toBe("previous_response_id");
    const both = await client.responses.create({ model: agent.id, input: "hi", background: true, store: false }).catch((caught: unknown) => caught);
    expect(both).toBeInstanceOf(OpenAI.BadRequestError);
    expect((both as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("store");
    // Stored by default.
    expect(await client.responses.create({ model: agent.id, input: script({ text: "kept" }) })).toMatchObject({ store: true });
  });
});
