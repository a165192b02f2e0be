/**
 * A model's words as they are written, over HTTP: `GET /v1/runs/{id}/stream` interleaves ephemeral `model-delta`
 * frames (no `id:` line) with the journaled events; a client joining mid-call first gets a snapshot of the text so
 * far; a stream that broke mid-answer shows as a second attempt; a run cancelled mid-stream stops at once; and
 * `POST /v1/runs` with `Accept: text/event-stream` starts a run and streams it in the same response. The scripted
 * provider streams its answer in pieces with delays (chunkSize, chunkDelayMs, breakAfterChunks); a tenant's
 * OpenAI-compatible and Anthropic providers stream from strict wire servers speaking the real formats, cut byte by byte.
 */
import { describe, expect, it } from "vitest";
import { call, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { journal, registerAgent, script, sleep, startRun } from "./helpers/kernel";
import { assembledText, deltas, journaled, readSse, type SseFrame } from "./helpers/sse";
import { startAnthropicStreamServer, startOpenAIStreamServer, type StreamServer } from "../lib/models/providers/testing/wire-servers";

const openStream = async (tenant: TestTenant, runId: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${kindgi().baseUrl}/v1/runs/${runId}/stream`, { headers: { Authorization: `Bearer ${tenant.key}`, ...headers } });
  expect(response.status).toBe(200);
  return readSse(response);
};
const ended = (frames: SseFrame[]) => frames.some((frame) => ["run-completed", "run-failed", "run-cancelled"].includes(frame.event));
const ANSWER = "Streaming wörds, 日本語 and 🙂 emoji, as they come.";

describe("a run stream relays the model's words", () => {
  it("as model-delta frames without an id, before the journaled answer, assembling to it", async () => {
    const tenant = await newTenant("live words");
    const agent = await registerAgent(tenant);
    const accepted = await startRun(tenant, agent, script({ text: ANSWER, chunkSize: 3, chunkDelayMs: 15 }), { wait: false });
    const stream = await openStream(tenant, accepted.body.id);
    const frames = await stream.waitFor(ended);
    const events = journaled(frames);
    expect(events.map((frame) => frame.event)).toEqual(["run-created", "turn-started", "model-called", "run-completed"]);
    events.forEach((frame, i) => expect(frame.id).toBe(`${accepted.body.id}:${i + 1}`));
    const pieces = deltas(frames);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) {
      expect(piece.id).toBeUndefined();
      expect(piece.data).toMatchObject({ callIndex: 0, attempt: 1 });
    }
    expect(assembledText(frames, 0)).toEqual({ attempt: 1, text: ANSWER });
    const answeredAt = frames.findIndex((frame) => frame.event === "model-called");
    expect(frames.findLastIndex((frame) => frame.event === "model-delta")).toBeLessThan(answeredAt);
    expect(frames[answeredAt].data.data.text).toBe(ANSWER);
    // The journal holds one model-called per call and nothing of the deltas.
    expect((await journal(tenant, accepted.body.id)).map((event) => event.type)).toEqual(["run-created", "turn-started", "model-called", "run-completed"]);
  });

  it("with a tool call's arguments as they form", async () => {
    const tenant = await newTenant("live arguments");
    const agent = await registerAgent(tenant, { tools: [{ id: "current-time", version: "^1.0.0" }] });
    const args = { timezone: "Europe/Berlin" };
    const accepted = await startRun(tenant, agent, script({ toolCalls: [{ name: "current-time", arguments: args }], chunkSize: 4, chunkDelayMs: 5 }, { text: "done" }), { wait: false });
    const frames = await (await openStream(tenant, accepted.body.id)).waitFor(ended);
    const pieces = deltas(frames).filter((frame) => frame.data.callIndex === 0).flatMap((frame) => frame.data.toolCalls ?? []);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces[0]).toMatchObject({ index: 0, name: "current-time" });
    expect(JSON.parse(pieces.map((piece: any) => piece.argumentsDelta).join(""))).toEqual(args);
    expect(journaled(frames).map((frame) => frame.event)).toContain("tool-call-completed");
    expect(assembledText(frames, 1).text).toBe("done");
  });

  it("to a client that joins mid-call: first one snapshot of the text so far, then the rest", async () => {
    const tenant = await newTenant("live snapshot");
    const agent = await registerAgent(tenant);
    const text = Array.from({ length: 30 }, (_, i) => `w${String(i).padStart(2, "0")} `).join("");
    const accepted = await startRun(tenant, agent, script({ text, chunkSize: 4, chunkDelayMs: 60 }), { wait: false });
    await sleep(700);
    const frames = await (await openStream(tenant, accepted.body.id)).waitFor(ended);
    const pieces = deltas(frames);
    expect(pieces[0].data).toMatchObject({ callIndex: 0, attempt: 1, snapshot: true });
    expect(pieces[0].data.text.length).toBeGreaterThan(0);
    expect(pieces[0].data.text.length).toBeLessThan(text.length);
    expect(text.startsWith(pieces[0].data.text)).toBe(true);
    expect(pieces.slice(1).every((frame) => !frame.data.snapshot)).toBe(true);
    expect(assembledText(frames, 0).text).toBe(text);
    // A client resuming after the run ended gets the journal only: deltas are never replayed.
    const resumed = await (await openStream(tenant, accepted.body.id, { "Last-Event-ID": `${accepted.body.id}:1` })).waitFor(ended);
    expect(resumed.map((frame) => frame.event)).toEqual(["turn-started", "model-called", "run-completed"]);
  });

  it("as a second attempt when the provider's stream broke mid-answer", async () => {
    const tenant = await newTenant("live attempts");
    const agent = await registerAgent(tenant);
    // The watch opens before the run starts (a streaming POST), so no piece of the first attempt is folded into a
    // join-mid-call snapshot.
    const response = await fetch(`${kindgi().baseUrl}/v1/runs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tenant.key}`, "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ agent: { id: agent.id }, input: { userMessage: script({ text: ANSWER, chunkSize: 4, chunkDelayMs: 10, breakAfterChunks: 3 }) } }),
    });
    expect(response.status).toBe(202);
    const frames = await readSse(response).waitFor(ended);
    expect(deltas(frames).some((frame) => frame.data.snapshot)).toBe(false);
    const attempts = deltas(frames).map((frame) => frame.data.attempt);
    expect(attempts.slice(0, 3)).toEqual([1, 1, 1]);
    expect(attempts.slice(3).every((attempt) => attempt === 2)).toBe(true);
    expect(assembledText(frames, 0)).toEqual({ attempt: 2, text: ANSWER });
    const answer = journaled(frames).find((frame) => frame.event === "model-called")!.data.data;
    expect(answer).toMatchObject({ text: ANSWER, attempts: 2 });
  });

  it("and a run cancelled mid-stream stops at once, with no answer journaled", async () => {
    const tenant = await newTenant("live cancel");
    const agent = await registerAgent(tenant);
    const accepted = await startRun(tenant, agent, script({ text: "x".repeat(200), chunkSize: 5, chunkDelayMs: 100 }), { wait: false });
    const stream = await openStream(tenant, accepted.body.id);
    await stream.waitFor((frames) => deltas(frames).length >= 3);
    const cancelledAt = performance.now();
    expect((await call("POST", `/v1/runs/${accepted.body.id}/cancel`, { key: tenant.key })).status).toBe(200);
    const frames = await stream.waitFor(ended, 5_000);
    expect(frames.at(-1)!.event).toBe("run-cancelled");
    expect(frames.at(-1)!.at - cancelledAt).toBeLessThan(2_000);
    await stream.ended;
    expect(journaled(frames).map((frame) => frame.event)).toEqual(["run-created", "turn-started", "run-cancelled"]);
    // The model call was aborted: no more words after the cancel (the whole answer would take 4 s).
    expect(assembledText(frames, 0).text.length).toBeLessThan(200);
    await sleep(300);
    expect((await journal(tenant, accepted.body.id)).map((event) => event.type)).toEqual(["run-created", "turn-started", "run-cancelled"]);
  });
});

describe("POST /v1/runs with Accept: text/event-stream", () => {
  it("starts the run and streams it in the same response; a repeat with the same Idempotency-Key answers the stored run as JSON", async () => {
    const tenant = await newTenant("live start");
    const agent = await registerAgent(tenant);
    const body = { agent: { id: agent.id }, input: { userMessage: script({ text: ANSWER, chunkSize: 6, chunkDelayMs: 5 }) } };
    const headers = { Authorization: `Bearer ${tenant.key}`, "Content-Type": "application/json", Accept: "text/event-stream", "Idempotency-Key": `live-${Date.now()}` };
    const response = await fetch(`${kindgi().baseUrl}/v1/runs`, { method: "POST", headers, body: JSON.stringify(body) });
    expect(response.status).toBe(202);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const runId = response.headers.get("location")!.split("/").at(-1)!;
    const frames = await readSse(response).waitFor(ended);
    const events = journaled(frames);
    expect(events.map((frame) => frame.event)).toEqual(["run-created", "turn-started", "model-called", "run-completed"]);
    expect(events[0].id).toBe(`${runId}:1`);
    expect(assembledText(frames, 0).text).toBe(ANSWER);

    const repeat = await call("POST", "/v1/runs", { key: tenant.key, body, headers: { Accept: "text/event-stream", "Idempotency-Key": headers["Idempotency-Key"] } });
    expect(repeat.status).toBe(202);
    expect(repeat.headers.get("x-idempotent-replay")).toBe("true");
    expect(repeat.body.id).toBe(runId);
  });

  it("answers problems found before the run starts, and dry runs, as JSON", async () => {
    const tenant = await newTenant("live start errors");
    const agent = await registerAgent(tenant);
    const missing = await call("POST", "/v1/runs", { key: tenant.key, body: { agent: { id: "no.such-agent" }, input: { userMessage: "hi" } }, headers: { Accept: "text/event-stream" } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("application/json");
    expect(missing.body.error.code).toBe("not-found");
    const dry = await call("POST", "/v1/runs", { key: tenant.key, body: { agent: { id: agent.id }, input: { userMessage: "hi" }, options: { dryRun: true } }, headers: { Accept: "text/event-stream" } });
    expect(dry.status).toBe(200);
    expect(dry.body.dryRun).toBe(true);
  });
});

describe("a tenant's real provider streams through the run stream", () => {
  const cases: [string, () => Promise<StreamServer>][] = [
    ["openai-compatible", () => startOpenAIStreamServer({ apiKey: "sk-wire-test-key", answer: { text: ANSWER, usage: { inputTokens: 11, outputTokens: 7 } }, chunking: "byte", pieceLength: 3 })],
    ["anthropic", () => startAnthropicStreamServer({ apiKey: "sk-wire-test-key", answer: { text: ANSWER, usage: { inputTokens: 11, outputTokens: 7 } }, chunking: "byte", pieceLength: 3 })],
  ];
  it.each(cases)("%s: every piece of the answer, cut byte by byte on the wire, reaches the client as a delta", async (kind, start) => {
    const wire = await start();
    try {
      const tenant = await newTenant(`live ${kind}`);
      expect((await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "wire.key", value: "sk-wire-test-key" } })).status).toBe(201);
      const provider = await call("POST", "/v1/providers", { key: tenant.key, body: { id: "wire", kind, baseUrl: wire.baseUrl, apiKeySecret: "wire.key", models: [{ name: "wire-model" }] } });
      expect(provider.status, provider.text).toBe(201);
      const agent = await registerAgent(tenant, { preferredProvider: "wire", preferredModel: "wire-model" });
      const response = await fetch(`${kindgi().baseUrl}/v1/runs`, { method: "POST", headers: { Authorization: `Bearer ${tenant.key}`, "Content-Type": "application/json", Accept: "text/event-stream" }, body: JSON.stringify({ agent: { id: agent.id }, input: { userMessage: "Say it." } }) });
      expect(response.status).toBe(202);
      const frames = await readSse(response).waitFor(ended);
      expect(journaled(frames).map((frame) => frame.event)).toEqual(["run-created", "turn-started", "model-called", "run-completed"]);
      expect(deltas(frames).length).toBeGreaterThan(5);
      expect(assembledText(frames, 0)).toEqual({ attempt: 1, text: ANSWER });
      expect(journaled(frames)[2].data.data).toMatchObject({ text: ANSWER, usage: { inputTokens: 11, outputTokens: 7 }, finishReason: "stop", attempts: 1 });
      expect(wire.requests).toHaveLength(1);
      expect(wire.requests[0].body).toMatchObject({ stream: true });
    } finally {
      await wire.close();
    }
  });
});
