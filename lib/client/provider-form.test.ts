import { describe, expect, it } from "vitest";
import { dimensionsValue, emptyProviderForm, modelDetails, providerBody } from "./provider-form";

describe("the add-provider form's body", () => {
  it("sends a model provider's single model without dimensions, whatever the hidden field holds", () => {
    expect(providerBody({ ...emptyProviderForm, id: " acme ", baseUrl: " https://api.example.com/v1 ", apiKeySecret: "acme-key", model: " gpt-4o-mini ", dimensions: "1536" })).toEqual({
      id: "acme",
      kind: "openai-compatible",
      baseUrl: "https://api.example.com/v1",
      apiKeySecret: "acme-key",
      models: [{ name: "gpt-4o-mini" }],
    });
  });

  it("sends an embedding model's dimensions when given, and leaves them out when empty", () => {
    const form = { ...emptyProviderForm, id: "embed", kind: "openai-compatible-embeddings", baseUrl: "https://api.example.com/v1", apiKeySecret: "k", model: "text-embedding-3-small" };
    expect(providerBody({ ...form, dimensions: " 1536 " }).models).toEqual([{ name: "text-embedding-3-small", dimensions: 1536 }]);
    expect(providerBody({ ...form, dimensions: "  " }).models).toEqual([{ name: "text-embedding-3-small" }]);
  });

  it("passes what is not a number on as typed, for the API to refuse at the field", () => {
    expect(dimensionsValue("0")).toBe(0);
    expect(dimensionsValue("-3")).toBe(-3);
    expect(dimensionsValue("1.5")).toBe(1.5);
    expect(dimensionsValue("lots")).toBe("lots");
    expect(dimensionsValue("")).toBeUndefined();
  });
});

describe("a model in words", () => {
  it("says an embedding model's vector length, then the features", () => {
    expect(modelDetails({ features: [], dimensions: 512 })).toBe("512 dimensions");
    expect(modelDetails({ features: ["tool-use", "json-output"] })).toBe("tool-use, json-output");
    expect(modelDetails({ features: [] })).toBe("");
  });
});
