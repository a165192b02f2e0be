/**
 * The one interface every model provider implements (dev-echo, scripted, OpenAI-compatible, Anthropic), plus
 * the helpers they share: the tool-name mapping between our tool ids and the names model APIs accept, and the
 * price helper that turns token usage into USD. Free of HTTP frameworks and React; the kernel depends on this
 * file only, never on a provider's wire format.
 */
import { sha256Hex } from "@/lib/hash";

/** A tool call the model asked for. `name` is our tool id (already mapped back from the API's name). */
export type ToolCall = {
  id: string;
  name: string;
  /** Parsed JSON arguments; a string when the model sent arguments that are not valid JSON (the kernel reports invalid-arguments). */
  arguments: unknown;
};

/** A tool offered to the model. `name` is our tool id; providers map it to an API-safe name and back. */
export type ToolSpec = { name: string; description: string; inputSchema: Record<string, unknown> };

/** One message of the conversation the model sees. */
export type ModelMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; toolName: string; content: string };

/** Ask for a JSON answer, optionally matching a JSON Schema (`name` labels it for APIs that want one). */
export type ResponseFormat = { type: "json"; schema?: Record<string, unknown>; name?: string };

/** One model call. */
export type ModelRequest = {
  model: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  responseFormat?: ResponseFormat;
  /** Aborts the call, including retries and backoff waits; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** 0-based index of this model call within the turn. */
  callIndex: number;
  /**
   * Hears the answer as it is written (every provider streams). Called synchronously, in order; never journaled.
   * The deltas of one attempt assemble to the response `complete` resolves with.
   */
  onDelta?: (delta: ModelDelta) => void;
};

/** A tool call's piece in a delta: `index` is its position in the answer's tool calls; `name` is our tool id. */
export type ToolCallDelta = { index: number; id?: string; name?: string; argumentsDelta: string };

/**
 * A piece of a model call's answer as it is written. `attempt` is 1-based: a delta with a larger attempt than the
 * ones before means the provider started the call over (a stream broke after its first byte), and the text of
 * earlier attempts is void.
 */
export type ModelDelta = { attempt: number; text?: string; toolCalls?: ToolCallDelta[] };

/** Tokens a call consumed, as the provider reported them (or estimated them, for dev providers). */
export type ModelUsage = { inputTokens: number; outputTokens: number };

/** Why the model stopped: `tool-calls` whenever the answer carries tool calls. */
export type FinishReason = "stop" | "tool-calls" | "length" | "other";

/** What a model call answered. */
export type ModelResponse = {
  text: string | null;
  toolCalls: ToolCall[];
  usage: ModelUsage;
  costUsd: number;
  /** Things the caller should know (a dev provider, an unknown price, missing usage); never secrets. */
  warnings: string[];
  /** HTTP attempts made, retries included (0 for providers that make no HTTP call). */
  attempts: number;
  finishReason: FinishReason;
};

/** A model provider: one `complete` call per model step of a turn. */
export interface ModelProvider {
  readonly id: string;
  readonly kind: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** The stable failure codes of a model call. */
export type ModelProviderErrorCode =
  /** The provider could not be reached, timed out, or kept answering 5xx after the retries. */
  | "provider-unavailable"
  /** The provider kept answering 429 after the retries. */
  | "provider-rate-limited"
  /** The provider refused the credentials (401/403); never retried. */
  | "provider-auth-failed"
  /** The provider answered 2xx with a body that is not the expected wire format. */
  | "provider-bad-response"
  /** The provider rejected the request (another 4xx); never retried. */
  | "provider-request-failed";

/** A failed model call. The message names the provider and summarizes its answer; it never contains the API key. */
/** Marks every ModelProviderError, whichever copy of this module made it (see below). */
const PROVIDER_ERROR = Symbol.for("kindgi.model-provider-error");

export class ModelProviderError extends Error {
  /**
   * Next.js bundles the instrumentation hook (where the kernel worker starts) and the route handlers (where a run's
   * first provider may be built) separately, so two copies of this class can meet: `instanceof` checks the mark.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PROVIDER_ERROR] === true;
  }

  readonly [PROVIDER_ERROR] = true;
  readonly code: ModelProviderErrorCode;
  /** The last HTTP status, when there was one. */
  readonly status?: number;
  /** HTTP attempts made, retries included. */
  readonly attempts: number;

  constructor(code: ModelProviderErrorCode, message: string, options: { status?: number; attempts: number }) {
    super(message);
    this.name = "ModelProviderError";
    this.code = code;
    this.status = options.status;
    this.attempts = options.attempts;
  }
}

/** A model a provider offers, as configured (environment or tenant). Prices are USD per million tokens. */
export type ProviderModel = {
  name: string;
  contextTokens?: number;
  features?: string[];
  inputUsdPerMTok?: number;
  outputUsdPerMTok?: number;
};

/** The prices `costUsd` reads; an absent price counts as 0. */
export type ModelPrice = Pick<ProviderModel, "inputUsdPerMTok" | "outputUsdPerMTok">;

/** The USD cost of `usage` at `price` (per million tokens), rounded to 1e-12 to drop float noise. */
export function costUsd(usage: ModelUsage, price: ModelPrice): number {
  const raw = (usage.inputTokens * (price.inputUsdPerMTok ?? 0) + usage.outputTokens * (price.outputUsdPerMTok ?? 0)) / 1_000_000;
  return Math.round(raw * 1e12) / 1e12;
}

/** What an API accepts as a tool name (OpenAI's rule; Anthropic's is the same). */
export const API_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_NAME = 64;
const HASH_LENGTH = 8;

/** `text` with every character an API refuses replaced by `_`, truncated to 64 characters (`_` when empty). */
export function sanitizeToolName(text: string): string {
  const replaced = text.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_NAME);
  return replaced === "" ? "_" : replaced;
}

const shortHash = (text: string): string => sha256Hex(text).slice(0, HASH_LENGTH);

/** `base` cut so that `_<hash of seed>` fits in 64 characters. */
const withHash = (base: string, seed: string): string => `${base.slice(0, MAX_NAME - HASH_LENGTH - 1)}_${shortHash(seed)}`;

/**
 * The two-way mapping between our tool ids and API tool names for one request.
 *
 * The rule, deterministic for the same set of ids whatever their order:
 * 1. an id that is already a valid API name keeps it;
 * 2. any other id becomes `sanitizeToolName(id)` when no other id claims that name;
 * 3. when names collide, each id that is not itself the valid name gets `<sanitized, cut>_<8 hex of sha256(id)>`
 *    (re-hashed with a counter in the astronomically unlikely case that name is taken too).
 * A name the model invents maps back to itself, so the kernel reports it as an unknown tool; an id outside the
 * set (a tool called in an earlier step that is no longer offered) maps to its sanitized name.
 */
export class ToolNameMap {
  private readonly toApiName = new Map<string, string>();
  private readonly toId = new Map<string, string>();

  /** Builds the mapping for these tool ids (duplicates are counted once). */
  constructor(ids: Iterable<string>) {
    const unique = [...new Set(ids)].sort();
    const valid = unique.filter((id) => API_TOOL_NAME.test(id));
    valid.forEach((id) => this.assign(id, id));
    const others = unique.filter((id) => !API_TOOL_NAME.test(id));
    const claims = countBy([...valid, ...others.map(sanitizeToolName)]);
    for (const id of others) {
      const base = sanitizeToolName(id);
      const taken = (claims.get(base) ?? 0) > 1 || this.toId.has(base);
      this.assign(id, taken ? this.freeHashedName(base, id) : base);
    }
  }

  /** The API name for one of our tool ids. */
  toApi(id: string): string {
    return this.toApiName.get(id) ?? sanitizeToolName(id);
  }

  /** Our tool id for an API name; an unknown name maps back to itself. */
  fromApi(name: string): string {
    return this.toId.get(name) ?? name;
  }

  private assign(id: string, name: string): void {
    this.toApiName.set(id, name);
    this.toId.set(name, id);
  }

  private freeHashedName(base: string, id: string): string {
    let name = withHash(base, id);
    for (let n = 1; this.toId.has(name); n++) name = withHash(base, `${id}#${n}`);
    return name;
  }
}

function countBy(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
