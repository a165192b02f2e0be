/**
 * The settings' add-provider form as the API takes it (POST /v1/providers), and a provider's models in words. Only
 * an embedding provider (kind `openai-compatible-embeddings`) has `dimensions`; the API checks every value and
 * answers its problems at their JSON pointers, which the form shows at its fields.
 */
import type { ProviderModel } from "@/lib/client/use-settings";

export const EMBEDDINGS_KIND = "openai-compatible-embeddings";

export type ProviderForm = { id: string; kind: string; baseUrl: string; apiKeySecret: string; model: string; dimensions: string };

export const emptyProviderForm: ProviderForm = { id: "", kind: "openai-compatible", baseUrl: "", apiKeySecret: "", model: "", dimensions: "" };

/**
 * The dimensions field: omitted when empty, a number when it reads as one (the API checks it is a whole number in
 * range), else the text as typed, for the API to refuse at the field.
 */
export function dimensionsValue(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  return /^[+-]?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** The POST /v1/providers body: one model; its dimensions only for an embedding provider. */
export function providerBody(form: ProviderForm) {
  const dimensions = form.kind === EMBEDDINGS_KIND ? dimensionsValue(form.dimensions) : undefined;
  const model = { name: form.model.trim(), ...(dimensions !== undefined && { dimensions }) };
  return { id: form.id.trim(), kind: form.kind, baseUrl: form.baseUrl.trim(), apiKeySecret: form.apiKeySecret, models: [model] };
}

/** A model's vector length (embedding models) and features, in words. */
export function modelDetails(model: Pick<ProviderModel, "features" | "dimensions">): string {
  return [model.dimensions !== undefined ? `${model.dimensions} dimensions` : null, ...model.features].filter(Boolean).join(", ");
}
