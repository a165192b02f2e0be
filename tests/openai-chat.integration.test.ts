/**
 * Agents over the OpenAI API, driven by the official `openai` package and nothing else: models as agents,
 * `chat.completions.create` with and without `stream`, history, a call that waits for approval, refused client tools,
 * and an SDK error for an unknown model.
 */
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { call, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { httpTool, registerAgent, registerTool, script } from "./helpers/kernel";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let tenant: TestTenant;
let client: OpenAI;
let agent: { id: string; version: string };
let upstream: RecordingServer;

beforeAll(async () => {
  tenant = await newTenant("openai chat");
  client = new OpenAI({ apiKey: tenant.key, baseURL: `${kindgi().baseUrl}/v1`, maxRetries: 0 });
  agent = await registerAgent(tenant);
  upstream = await startRecordingServer((request, response) => sendJson(response, 200, { saved: true }));
  return () => upstream.close();
});

describe("models", () => {
  it("lists the project's agents as models, and retrieves one by id or id@range", async () => {
    const second = await registerAgent(tenant, { version: "1.2.0" });
    await registerAgent(tenant, { id: second.id, version: "2.0.0" });
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual(expect.arrayContaining([agent.id, second.id]));
    expect(models.find((model) => model.id === agent.id)).toMatchObject({ object: "model", owned_by: "kindgi", created: expect.any(Number) });
    expect((await client.models.retrieve(agent.id)).id).toBe(agent.id);
    expect((await client.models.retrieve(`${second.id}@^1`)).id).toBe(`${second.id}@^1`);
    // The model names the version the turn runs: ^1 is 1.2.0 although 2.0.0 is the latest.
    const pinned = await client.chat.completions.create({ model: `${second.id}@^1`, messages: [{ role: "user", content: script({ text: "pinned" }) }] });
    expect((await call("GET", `/v1/runs/${pinned.id.replace(/^chatcmpl-/, "")}`, { key: tenant.key })).body.agent).toEqual({ id: second.id, version: "1.2.0" });
  });

  it("an unknown model is the SDK's NotFoundError with this API's code", async () => {
    const error = await client.chat.completions.create({ model: "no.such-agent", messages: [{ role: "user", content: "hi" }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model-not-found");
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).param).toBe("model");
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).type).toBe("not_found_error");
  });
});

describe("chat.completions.create", () => {
  it("answers the turn, with the run's usage, and the run is in /v1/runs", async () => {
    const completion = await client.chat.completions.create({ model: agent.id, messages: [{ role: "system", content: "ignored" }, { role: "user", content: script({ text: "Hello from the agent." }) }] });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello from the agent." } });
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
    const runId = completion.id.replace(/^chatcmpl-/, "");
    const run = await call("GET", `/v1/runs/${runId}`, { key: tenant.key });
    expect(run.body).toMatchObject({ status: "completed", output: "Hello from the agent.", agent: { id: agent.id } });
  });

  it("streams the model's words; the chunks put together are the non-streamed answer, and usage comes last", async () => {
    const answer = "Streamed words, one after another, as they are written.";
    const steps = { text: answer, chunkSize: 8, chunkDelayMs: 20, usage: { inputTokens: 12, outputTokens: 9 } };
    const stream = await client.chat.completions.create({ model: agent.id, messages: [{ role: "user", content: script(steps) }], stream: true, stream_options: { include_usage: true } });
    const pieces: string[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      if (choice.delta.content) pieces.push(choice.delta.content);
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    expect(pieces.join("")).toBe(answer);
    expect(pieces.length).toBeGreaterThan(1);
    expect(finish).toBe("stop");
    expect(usage).toEqual({ prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 });
    const plain = await client.chat.completions.create({ model: agent.id, messages: [{ role: "user", content: script(steps) }] });
    expect(plain.choices[0].message.content).toBe(pieces.join(""));
  });

  it("streams every model call's words: those said before a tool call, then the final answer as a paragraph of its own", async () => {
    const clock = await registerAgent(tenant, { preferredProvider: "dev-echo", tools: [{ id: "current-time", version: "^1.0.0" }] });
    const stream = await client.chat.completions.create({ model: clock.id, messages: [{ role: "user", content: "What time is it?" }], stream: true });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    const [before, answer, ...rest] = streamed.split("\n\n");
    expect(rest).toEqual([]);
    expect(before).toContain("calling current-time");
    expect(JSON.parse(answer.replace("[dev-echo: not a real model] ", ""))).toMatchObject({ timezone: "UTC" });
  });

  it("keeps the earlier messages as the turn's history, in a conversation of its own", async () => {
    const completion = await client.chat.completions.create({
      model: agent.id,
      messages: [
        { role: "user", content: "My name is Ada." },
        { role: "assistant", content: "Nice to meet you, Ada." },
        { role: "user", content: script({ text: "You are Ada." }) },
      ],
    });
    const run = await call("GET", `/v1/runs/${completion.id.replace(/^chatcmpl-/, "")}`, { key: tenant.key });
    expect(run.body.conversationId).toEqual(expect.any(String));
    const messages = await call("GET", `/v1/conversations/${run.body.conversationId}/messages`, { key: tenant.key });
    expect(messages.body.data.map((message: { role: string; content: string }) => [message.role, message.content])).toEqual([
      ["user", "My name is Ada."],
      ["assistant", "Nice to meet you, Ada."],
      ["user", script({ text: "You are Ada." })],
      ["assistant", "You are Ada."],
    ]);
  });

  it("ends with the approval's console link when a call waits for a person, streamed or not", async () => {
    const toolId = await registerTool(tenant, httpTool(upstream, { mutating: true, effects: [{ kind: "writes" }] }));
    const asking = await registerAgent(tenant, { tools: [{ id: toolId, version: "^1.0.0" }] });
    const steps = script({ toolCalls: [{ name: toolId, arguments: { word: "save" } }] }, { text: "saved" });
    const completion = await client.chat.completions.create({ model: asking.id, messages: [{ role: "user", content: steps }] });
    const content = completion.choices[0].message.content ?? "";
    const approvalId = /\/approvals\/([0-9a-f-]{36})/.exec(content)?.[1];
    expect(content).toContain(`The call of ${toolId}@1.0.0 waits for a person's approval: ${kindgi().baseUrl}/approvals/${approvalId}`);
    expect((await call("GET", `/v1/approvals/${approvalId}`, { key: tenant.key })).body.status).toBe("pending");

    const stream = await client.chat.completions.create({ model: asking.id, messages: [{ role: "user", content: steps }], stream: true });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed).toMatch(new RegExp(`waits for a person's approval: ${kindgi().baseUrl}/approvals/[0-9a-f-]{36}`));
    expect(upstream.requests).toHaveLength(0);
  });

  it("a turn that fails is the SDK's UnprocessableEntityError with code run-failed and the failure's code in the message", async () => {
    const costly = await registerAgent(tenant, { budget: { maxCostUsd: 0.01 } });
    const failed = await client.chat.completions.create({ model: costly.id, messages: [{ role: "user", content: script({ text: "too expensive", costUsd: 0.03 }) }] }).catch((caught: unknown) => caught);
    expect(failed).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((failed as InstanceType<typeof OpenAI.UnprocessableEntityError>).code).toBe("run-failed");
    expect((failed as Error).message).toContain("budget-exceeded");
  });

  it("refuses a client's tools, a tool message and a last message that is not the user's, with the field as param", async () => {
    const refused = await client.chat.completions
      .create({ model: agent.id, messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }] })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("tools");
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("validation-failed");
    const last = await client.chat.completions.create({ model: agent.id, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "yes" }] }).catch((caught: unknown) => caught);
    expect((last as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages.1.role");
    const unauthenticated = await new OpenAI({ apiKey: "kgi_not-a-key", baseURL: `${kindgi().baseUrl}/v1`, maxRetries: 0 }).models.list().catch((caught: unknown) => caught);
    expect(unauthenticated).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
