/** Small pieces the providers share: configuration, endpoints, arguments, usage and pricing of the real (HTTP) providers, waits. */
import { costUsd, type ModelResponse, type ProviderModel } from "@/lib/models/provider";
import type { HttpOptions } from "@/lib/models/providers/http";

/** Configuration of a real provider, from the environment or a tenant. */
export type HttpProviderConfig = {
  /** The provider id (`openai`, `anthropic`, or a tenant's id); it labels errors and warnings. */
  id: string;
  /** Where requests go; each kind has its public default. */
  baseUrl?: string;
  /** The API key, resolved by the caller (environment or a stored secret). */
  apiKey: string;
  /** The models it offers, with their prices; a model not listed is called all the same, at an unknown price. */
  models?: ProviderModel[];
  http?: HttpOptions;
};

/** `{baseUrl}{path}` without doubled slashes. */
export const endpoint = (baseUrl: string, path: string): string => `${baseUrl.replace(/\/+$/, "")}${path}`;

/** An answer as read from the wire, before its cost and attempts are added. */
export type ParsedAnswer = Omit<ModelResponse, "costUsd" | "attempts">;

/** The warning for an answer without usage. */
export const NO_USAGE = "the answer reported no usage; counted as 0 tokens";

/** A token count from the wire: a finite non-negative number, else 0. */
export const tokenCount = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);

/**
 * Tool-call arguments sent as a JSON string, parsed: blank means `{}`; not JSON → the raw string, so the kernel
 * reports invalid-arguments.
 */
export function parseArguments(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * The full response: the cost of the answer's usage at the configured price of `model`, the answer's warnings
 * prefixed with the provider id, plus one when the model has no configured price (a missing price counts as 0).
 */
export function withCost(config: HttpProviderConfig, model: string, answer: ParsedAnswer, attempts: number): ModelResponse {
  const info = config.models?.find((candidate) => candidate.name === model);
  const known = info?.inputUsdPerMTok !== undefined && info.outputUsdPerMTok !== undefined;
  const warnings = answer.warnings.map((warning) => `${config.id}: ${warning}`);
  if (!known) warnings.push(`${config.id}: no price is configured for model "${model}"; a missing price counts as 0 USD`);
  return { ...answer, costUsd: costUsd(answer.usage, info ?? {}), warnings, attempts };
}

/** Whether `value` is a plain object (not null, not an array). */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts (at once when it already has). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
