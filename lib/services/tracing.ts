/**
 * OpenTelemetry traces of runs, through the official SDK's OTLP exporter. Off unless `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not `true`): then no provider, no exporter
 * and no span is made, and the API's no-op tracer answers every call.
 *
 * The spans of a run (GenAI semantic conventions where they name one):
 * - `run <kind>`: the whole run, from its creation to its end, on whichever replica ends it; the child of the request
 *   that created it (Next.js's own HTTP server spans) when there was one;
 * - `invoke_agent <agent>`: the turn of an agent turn (a run is one turn), the child of the run span;
 * - `chat <model>`: each model call (`gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.model`,
 *   `gen_ai.usage.input_tokens`/`output_tokens`, `gen_ai.response.finish_reasons`), a child of the turn;
 * - `execute_tool <tool>`: each tool call (`gen_ai.tool.name`, `gen_ai.tool.call.id`, `kindgi.tool.version`,
 *   `kindgi.tool.transport`, `kindgi.tool.outcome`), a child of the turn (of the run, for a tool invocation);
 * - `await_approval <tool>` and `pause <tool>`: each approval wait and each pause, from the journaled request to the
 *   journaled decision or answer, emitted when that is journaled.
 *
 * Durable runs outlive processes, so the run's trace is kept with the run (`Run.traceContext`: its trace id and the
 * ids the run and turn spans will have); every process that executes the run puts its spans under those ids, and the
 * run and turn spans themselves are emitted with them when the run ends (their ids are forced through the provider's
 * id generator). A run resumed on another replica, after a restart, continues the same trace.
 *
 * Prompts, answers, tool arguments and results are exported only with
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` (the setting OpenTelemetry's GenAI instrumentations read);
 * secrets never are (a secret is resolved inside the tool call and never becomes an attribute).
 */
import { randomBytes } from "node:crypto";
import { context, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span, type Tracer } from "@opentelemetry/api";
import { getDb } from "@/lib/db";
import { log } from "@/lib/log";
import type { ModelRequest, ModelResponse } from "@/lib/models/provider";
import type { NewEvent } from "@/lib/kernel/types";

/** The trace a run keeps (`Run.traceContext`). */
export type RunTrace = { traceId: string; runSpanId: string; turnSpanId: string | null; parentSpanId: string | null; sampled: boolean };

/** What the end of a run's trace needs of its row, kept in the process that created it (no read back). */
type KnownRun = { trace: RunTrace; createdAt: Date; kind: string; agentId: string | null; agentVersion: string | null; toolId: string | null; toolVersion: string | null; origin: unknown; conversationId: string | null };
/** The run row's columns a run's end reads. */
type EndRow = { status: string; providerId: string | null; model: string | null; inputTokens: number; outputTokens: number; costUsd: number; modelCalls: number; toolCalls: number; failure: unknown; startedAt: Date | null; finishedAt: Date | null };

type TracingState = {
  tracer: Tracer | null;
  /** Runs created here, while they run (bounded). */
  known: Map<string, KnownRun>;
  captureContent: boolean;
  /** Ids the next span started must have (the run and turn spans, emitted when the run ends). */
  forced: { traceId?: string; spanId?: string } | null;
  provider: { forceFlush(): Promise<void>; shutdown(): Promise<void> } | null;
};

const state: TracingState = ((globalThis as { [key: symbol]: TracingState | undefined })[Symbol.for("kindgi.tracing")] ??= { tracer: null, known: new Map(), captureContent: false, forced: null, provider: null });

/** What the environment asks for: traces off (and why), or on with a protocol. */
export type TracingConfig = { enabled: false; reason: string } | { enabled: true; protocol: "http/protobuf" | "http/json"; endpoint: string; captureContent: boolean };

/** Reads the standard OTEL_* variables. Throws (the server does not start) on a protocol or exporter it cannot honour. */
export function tracingConfig(env: NodeJS.ProcessEnv = process.env): TracingConfig {
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return { enabled: false, reason: "OTEL_SDK_DISABLED=true" };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (exporters.includes("none")) return { enabled: false, reason: "OTEL_TRACES_EXPORTER=none" };
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || "").trim();
  if (!endpoint) return { enabled: false, reason: "OTEL_EXPORTER_OTLP_ENDPOINT is not set" };
  const unsupported = exporters.filter((name) => name !== "otlp");
  if (unsupported.length) throw new Error(`OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: only "otlp" (or "none") is supported`);
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf").trim().toLowerCase();
  if (protocol !== "http/protobuf" && protocol !== "http/json") throw new Error(`OTLP protocol ${JSON.stringify(protocol)} is not supported: use http/protobuf (the default) or http/json`);
  return { enabled: true, protocol, endpoint, captureContent: (env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? "").trim().toLowerCase() === "true" };
}

const randomHex = (bytes: number) => randomBytes(bytes).toString("hex");

/**
 * Starts exporting traces when the environment asks for it (called once, at server start, before any request).
 * Answers what the start log says.
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const config = tracingConfig(env);
  if (!config.enabled) return `traces: off (${config.reason})`;
  if (state.tracer) return "traces: on";
  const [{ NodeTracerProvider, BatchSpanProcessor, RandomIdGenerator }, resources, exporterModule] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/resources"),
    config.protocol === "http/json" ? import("@opentelemetry/exporter-trace-otlp-http") : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  const random = new RandomIdGenerator();
  // The run and turn spans are made with the ids kept with the run; every other id is random.
  const idGenerator = {
    generateTraceId: () => {
      const forced = state.forced?.traceId;
      if (forced && state.forced) state.forced.traceId = undefined;
      return forced ?? random.generateTraceId();
    },
    generateSpanId: () => {
      const forced = state.forced?.spanId;
      if (forced && state.forced) state.forced.spanId = undefined;
      return forced ?? random.generateSpanId();
    },
  };
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": "kindgi-console" }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  // The exporter reads the endpoint, headers, timeout and compression from the standard variables itself.
  const exporter = new exporterModule.OTLPTraceExporter();
  const provider = new NodeTracerProvider({ resource, idGenerator, spanProcessors: [new BatchSpanProcessor(exporter)] });
  // The global provider, the AsyncLocalStorage context manager and the W3C trace-context propagator: Next.js's HTTP
  // server spans (and a `traceparent` a client sends) use them too.
  provider.register();
  state.provider = provider;
  state.captureContent = config.captureContent;
  state.tracer = trace.getTracer("kindgi-console");
  // What is buffered goes out while Next.js closes the server on SIGTERM/SIGINT (its handler ends the process; a
  // listener of ours alone would keep it alive, so there is none without one of Next's).
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    if (process.listenerCount(signal) > 0) process.once(signal, () => void provider.forceFlush().catch(() => {}));
  }
  return `traces: exported to ${config.endpoint} (${config.protocol}${config.captureContent ? ", with message content" : ""})`;
}

/** Whether traces are exported by this process. */
export const tracingEnabled = (): boolean => state.tracer !== null;

/** Exports what is buffered (tests, shutdown). */
export async function flushTraces(): Promise<void> {
  await state.provider?.forceFlush();
}

/**
 * The trace a new run keeps: the trace of the request that creates it (its span the run span's parent), else a new
 * one. Null when traces are off.
 */
export function newRunTrace(kind: "agent-turn" | "tool-invocation"): RunTrace | null {
  if (!state.tracer) return null;
  const parent = trace.getSpanContext(context.active());
  const inRequest = parent !== undefined && isSpanContextValid(parent);
  return {
    traceId: inRequest ? parent.traceId : randomHex(16),
    runSpanId: randomHex(8),
    turnSpanId: kind === "agent-turn" ? randomHex(8) : null,
    parentSpanId: inRequest ? parent.spanId : null,
    sampled: inRequest ? (parent.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED : true,
  };
}

/** The most runs created here whose trace this process keeps in memory until they end. */
const MAX_KNOWN = 10_000;

/** Keeps what the end of a new run's trace needs (the run was created by this process). */
export function rememberRun(runId: string, run: KnownRun): void {
  if (!state.tracer) return;
  if (state.known.size >= MAX_KNOWN) state.known.delete(state.known.keys().next().value!);
  state.known.set(runId, run);
}

const isRunTrace = (value: unknown): value is RunTrace => {
  const candidate = value as Partial<RunTrace> | null;
  return typeof candidate?.traceId === "string" && typeof candidate.runSpanId === "string";
};

/** The context of the run's turn span (of its run span, when it has no turn: a tool invocation). */
function runContext(run: RunTrace, span: "turn" | "run" | "parent"): Context | null {
  const spanId = span === "turn" ? (run.turnSpanId ?? run.runSpanId) : span === "run" ? run.runSpanId : run.parentSpanId;
  if (!spanId) return null;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: run.traceId, spanId, traceFlags: run.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true });
}

async function loadRunTrace(runId: string): Promise<RunTrace | null> {
  const db = await getDb();
  const row = await db.run.findUnique({ where: { id: runId }, select: { traceContext: true } });
  return isRunTrace(row?.traceContext) ? row.traceContext : null;
}

/** Runs `fn` (the execution of a run) in its turn's trace context: the model and tool calls it makes are its children. */
export async function withRunTrace<T>(runId: string, fn: () => Promise<T>): Promise<T> {
  if (!state.tracer) return fn();
  const run = state.known.get(runId)?.trace ?? (await loadRunTrace(runId).catch(() => null));
  const turn = run && runContext(run, "turn");
  return turn ? context.with(turn, fn) : fn();
}

/** The GenAI conventions' provider name of one of our provider kinds. */
function providerName(kind: string): string {
  if (kind.startsWith("anthropic")) return "anthropic";
  if (kind.startsWith("openai")) return "openai";
  return kind;
}

const endWithError = (span: Span, error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute("error.type", typeof code === "string" ? code : error instanceof Error ? error.name : "error");
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
};

/** A model call as a `chat` span, when traces are on and the call is part of a traced run. */
export async function traceModelCall(provider: { id: string; kind: string }, request: ModelRequest, call: () => Promise<ModelResponse>): Promise<ModelResponse> {
  const tracer = state.tracer;
  if (!tracer || !trace.getSpanContext(context.active())) return call();
  const attributes: Attributes = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": providerName(provider.kind),
    "gen_ai.request.model": request.model,
    "kindgi.provider.id": provider.id,
    "kindgi.model_call.index": request.callIndex,
  };
  if (state.captureContent) attributes["gen_ai.input.messages"] = JSON.stringify(request.messages);
  return tracer.startActiveSpan(`chat ${request.model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const response = await call();
      span.setAttributes({
        "gen_ai.response.model": request.model,
        "gen_ai.usage.input_tokens": response.usage.inputTokens,
        "gen_ai.usage.output_tokens": response.usage.outputTokens,
        "gen_ai.response.finish_reasons": [response.finishReason],
        "kindgi.cost_usd": response.costUsd,
        "kindgi.attempts": response.attempts,
      });
      if (state.captureContent) span.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", content: response.text, toolCalls: response.toolCalls }]));
      return response;
    } catch (error) {
      endWithError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** What became of a tool call, as its span says. */
type ToolOutcome = { ok: true } | { ok: false; kind: string; reason?: string } | { paused: true };

/** A tool call as an `execute_tool` span, when traces are on and the call is part of a traced run. */
export async function traceToolCall<T>(call: { toolId: string; version: string; callId: string; transport: string; input: unknown }, run: () => Promise<T>, outcomeOf: (result: T) => ToolOutcome): Promise<T> {
  const tracer = state.tracer;
  if (!tracer || !trace.getSpanContext(context.active())) return run();
  const attributes: Attributes = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.toolId,
    "gen_ai.tool.call.id": call.callId,
    "gen_ai.tool.type": "function",
    "kindgi.tool.version": call.version,
    "kindgi.tool.transport": call.transport,
  };
  if (state.captureContent) attributes["gen_ai.tool.call.arguments"] = JSON.stringify(call.input ?? null);
  return tracer.startActiveSpan(`execute_tool ${call.toolId}`, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const result = await run();
      const outcome = outcomeOf(result);
      if ("paused" in outcome) span.setAttribute("kindgi.tool.outcome", "paused");
      else if (outcome.ok) span.setAttribute("kindgi.tool.outcome", "completed");
      else {
        span.setAttributes({ "kindgi.tool.outcome": "failed", "error.type": outcome.reason ?? outcome.kind });
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason ?? outcome.kind });
      }
      if (state.captureContent && "ok" in outcome) span.setAttribute("gen_ai.tool.call.result", JSON.stringify((result as { output?: unknown }).output ?? null));
      return result;
    } catch (error) {
      span.setAttribute("kindgi.tool.outcome", "failed");
      endWithError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span made after the fact (its start and end known), under `parent`, with the forced ids when given. */
function emitSpan(tracer: Tracer, options: { name: string; parent: Context | null; traceId?: string; spanId?: string; start: Date; end: Date; attributes: Attributes; kind?: SpanKind; error?: string }): void {
  state.forced = { traceId: options.traceId, spanId: options.spanId };
  let span: Span;
  try {
    span = tracer.startSpan(options.name, { kind: options.kind ?? SpanKind.INTERNAL, startTime: options.start, attributes: options.attributes }, options.parent ?? ROOT_CONTEXT);
  } finally {
    state.forced = null;
  }
  if (options.error) span.setStatus({ code: SpanStatusCode.ERROR, message: options.error });
  span.end(options.end < options.start ? options.start : options.end);
}

/**
 * Spans of what a commit of the run journaled: an approval decided or a pause answered (the wait, from its request),
 * the run's end (its turn and run spans). After the commit; never fails the run.
 */
export function traceJournaled(runId: string, events: readonly NewEvent[], at: Date, row?: unknown): void {
  if (!state.tracer) return;
  const waits = events.filter((event) => event.type === "approval-decided" || event.type === "wait-completed");
  const ended = events.some((event) => event.type === "run-completed" || event.type === "run-failed" || event.type === "run-cancelled");
  if (!waits.length && !ended) return;
  const known = state.known.get(runId);
  // A run created here that ends in a commit answering its row: its spans need no read.
  if (!waits.length && known && isEndRow(row)) {
    state.known.delete(runId);
    emitRunEnd(state.tracer, runId, known, row, at);
    return;
  }
  if (ended) state.known.delete(runId);
  void traceWaitsAndEnd(runId, waits, ended, at).catch((error) => log.warn("a run's trace could not be exported", { runId, err: error }));
}

/** The run span and turn span of a run that ended outside the kernel's commits (cancelled by a person). */
export function traceRunEnded(runId: string): void {
  if (!state.tracer) return;
  void traceWaitsAndEnd(runId, [], true, new Date()).catch(() => {});
}

async function traceWaitsAndEnd(runId: string, waits: readonly NewEvent[], ended: boolean, at: Date): Promise<void> {
  const tracer = state.tracer;
  if (!tracer) return;
  const db = await getDb();
  const run = await db.run.findUnique({
    where: { id: runId },
    select: { kind: true, agentId: true, agentVersion: true, toolId: true, toolVersion: true, status: true, origin: true, providerId: true, model: true, inputTokens: true, outputTokens: true, costUsd: true, modelCalls: true, toolCalls: true, failure: true, createdAt: true, startedAt: true, finishedAt: true, traceContext: true, conversationId: true },
  });
  if (!run || !isRunTrace(run.traceContext)) return;
  const runTrace = run.traceContext;
  const turnContext = runContext(runTrace, "turn");
  if (waits.length) {
    // When each wait began: its journaled request.
    const requested = await db.runEvent.findMany({ where: { runId, type: { in: ["approval-requested", "wait-started"] } }, select: { type: true, data: true, createdAt: true } });
    for (const event of waits) {
      if (event.type === "approval-decided") {
        const request = requested.find((row) => row.type === "approval-requested" && (row.data as { approvalId?: string }).approvalId === event.data.approvalId);
        if (!request) continue;
        const data = request.data as { kind?: string; toolId?: string | null; version?: string | null; callId?: string };
        emitSpan(tracer, {
          name: `await_approval ${data.toolId ?? "session"}`,
          parent: turnContext,
          start: request.createdAt,
          end: at,
          attributes: {
            "kindgi.approval.id": event.data.approvalId,
            "kindgi.approval.kind": data.kind ?? "tool-call",
            "kindgi.approval.decision": event.data.decision,
            "kindgi.approval.edited": event.data.edited === true,
            ...(data.toolId ? { "gen_ai.tool.name": data.toolId, "kindgi.tool.version": data.version ?? "", "gen_ai.tool.call.id": event.data.callId } : {}),
          },
        });
      } else if (event.type === "wait-completed") {
        const request = requested.find((row) => row.type === "wait-started" && (row.data as { waitId?: string }).waitId === event.data.waitId);
        if (!request) continue;
        const data = request.data as { toolId?: string; callId?: string };
        emitSpan(tracer, {
          name: `pause ${data.toolId ?? "tool"}`,
          parent: turnContext,
          start: request.createdAt,
          end: at,
          attributes: { "kindgi.wait.id": event.data.waitId, "kindgi.wait.outcome": event.data.outcome, "gen_ai.tool.name": data.toolId ?? "", "gen_ai.tool.call.id": event.data.callId },
          ...(event.data.outcome === "expired" ? { error: "the wait expired" } : {}),
        });
      }
    }
  }
  if (!ended) return;
  emitRunEnd(tracer, runId, { ...run, trace: runTrace }, run, at);
}

const isEndRow = (row: unknown): row is EndRow => typeof (row as Partial<EndRow> | null)?.status === "string" && typeof (row as Partial<EndRow>).inputTokens === "number";

/** The turn span and the run span of a run that ended. */
function emitRunEnd(tracer: Tracer, runId: string, known: KnownRun, row: EndRow, at: Date): void {
  const runTrace = known.trace;
  const run = { ...known, ...row };
  const end = run.finishedAt ? new Date(run.finishedAt) : at;
  const failure = run.failure as { code?: string; message?: string } | null;
  const error = run.status === "failed" ? (failure?.code ?? "failed") : undefined;
  const origin = (run.origin as { kind?: string } | null)?.kind ?? "unknown";
  const common: Attributes = { "kindgi.run.id": runId, "kindgi.run.kind": run.kind, "kindgi.run.status": run.status, "kindgi.run.origin": origin, ...(error ? { "error.type": error } : {}) };
  if (runTrace.turnSpanId && run.agentId) {
    emitSpan(tracer, {
      name: `invoke_agent ${run.agentId}`,
      parent: runContext(runTrace, "run"),
      spanId: runTrace.turnSpanId,
      start: new Date(run.startedAt ?? run.createdAt),
      end,
      attributes: {
        ...common,
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.id": run.agentId,
        "gen_ai.agent.name": run.agentId,
        "kindgi.agent.version": run.agentVersion ?? "",
        ...(run.providerId ? { "gen_ai.provider.name": run.providerId, "gen_ai.request.model": run.model ?? "" } : {}),
        ...(run.conversationId ? { "gen_ai.conversation.id": run.conversationId } : {}),
        "gen_ai.usage.input_tokens": run.inputTokens,
        "gen_ai.usage.output_tokens": run.outputTokens,
        "kindgi.cost_usd": run.costUsd,
        "kindgi.model_calls": run.modelCalls,
        "kindgi.tool_calls": run.toolCalls,
      },
      error,
    });
  }
  emitSpan(tracer, {
    name: `run ${run.kind}`,
    parent: runContext(runTrace, "parent"),
    traceId: runTrace.traceId,
    spanId: runTrace.runSpanId,
    start: new Date(run.createdAt),
    end,
    attributes: { ...common, ...(run.agentId ? { "gen_ai.agent.id": run.agentId } : {}), ...(run.toolId ? { "gen_ai.tool.name": run.toolId, "kindgi.tool.version": run.toolVersion ?? "" } : {}) },
    error,
  });
}
