import { describe, expect, it } from "vitest";
import { API_TOOL_NAME, ModelProviderError, ToolNameMap, costUsd, sanitizeToolName } from "@/lib/models/provider";
import { createModelProvider } from "@/lib/models/providers";

describe("ToolNameMap", () => {
  it("keeps ids that are valid API names and replaces disallowed characters in the others", () => {
    const names = new ToolNameMap(["search", "acme.verify-citation", "mail/send v2"]);
    expect(names.toApi("search")).toBe("search");
    expect(names.toApi("acme.verify-citation")).toBe("acme_verify-citation");
    expect(names.toApi("mail/send v2")).toBe("mail_send_v2");
    for (const id of ["search", "acme.verify-citation", "mail/send v2"]) expect(names.fromApi(names.toApi(id))).toBe(id);
  });

  it("truncates long ids to 64 characters", () => {
    const id = `pack.${"x".repeat(100)}`;
    const names = new ToolNameMap([id]);
    expect(names.toApi(id)).toHaveLength(64);
    expect(names.toApi(id)).toMatch(API_TOOL_NAME);
    expect(names.fromApi(names.toApi(id))).toBe(id);
  });

  it("disambiguates collisions with a short hash, the valid id keeping its own name", () => {
    const ids = ["a.b", "a_b", "a:b"];
    const names = new ToolNameMap(ids);
    expect(names.toApi("a_b")).toBe("a_b");
    expect(names.toApi("a.b")).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(names.toApi("a:b")).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(new Set(ids.map((id) => names.toApi(id))).size).toBe(3);
    for (const id of ids) expect(names.fromApi(names.toApi(id))).toBe(id);
  });

  it("disambiguates long ids that collide after truncation, within 64 characters", () => {
    const ids = [`p.${"y".repeat(70)}.one`, `p.${"y".repeat(70)}.two`];
    const names = new ToolNameMap(ids);
    const api = ids.map((id) => names.toApi(id));
    expect(api[0]).not.toBe(api[1]);
    for (const name of api) expect(name).toMatch(API_TOOL_NAME);
    ids.forEach((id, i) => expect(names.fromApi(api[i])).toBe(id));
  });

  it("re-hashes when a hashed name is itself taken by a valid id", () => {
    const hashed = new ToolNameMap(["a.b", "a:b"]).toApi("a.b");
    const names = new ToolNameMap(["a.b", "a:b", hashed]);
    expect(names.toApi(hashed)).toBe(hashed);
    expect(names.toApi("a.b")).not.toBe(hashed);
    expect(new Set(["a.b", "a:b", hashed].map((id) => names.toApi(id))).size).toBe(3);
  });

  it("is deterministic whatever the order of the ids", () => {
    const ids = ["x.y", "x_y", "x y", "z"];
    const forward = new ToolNameMap(ids);
    const backward = new ToolNameMap([...ids].reverse());
    for (const id of ids) expect(backward.toApi(id)).toBe(forward.toApi(id));
  });

  it("maps names the model invents back to themselves and ids outside the set to their sanitized name", () => {
    const names = new ToolNameMap(["acme.tool"]);
    expect(names.fromApi("made_up")).toBe("made_up");
    expect(names.toApi("gone.tool")).toBe("gone_tool");
  });

  it("sanitizes an empty id to a valid name", () => {
    expect(sanitizeToolName("")).toBe("_");
    expect(new ToolNameMap([""]).toApi("")).toMatch(API_TOOL_NAME);
  });
});

describe("costUsd", () => {
  it("prices input and output tokens per million", () => {
    expect(costUsd({ inputTokens: 1_000, outputTokens: 500 }, { inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 })).toBe(0.0075);
    expect(costUsd({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, { inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6 })).toBe(0.75);
  });

  it("counts an absent price as 0 and drops float noise", () => {
    expect(costUsd({ inputTokens: 123, outputTokens: 456 }, {})).toBe(0);
    expect(costUsd({ inputTokens: 100, outputTokens: 0 }, { inputUsdPerMTok: 3 })).toBe(0.0003);
    expect(costUsd({ inputTokens: 1, outputTokens: 2 }, { inputUsdPerMTok: 0.1, outputUsdPerMTok: 0.1 })).toBe(3e-7);
  });
});

describe("ModelProviderError", () => {
  it("carries code, status and attempts", () => {
    const error = new ModelProviderError("provider-rate-limited", "openai: HTTP 429", { status: 429, attempts: 4 });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "ModelProviderError", code: "provider-rate-limited", status: 429, attempts: 4, message: "openai: HTTP 429" });
  });
});

describe("createModelProvider", () => {
  it("builds each kind, the dev kinds with their fixed ids", () => {
    expect(createModelProvider({ kind: "dev-echo" })).toMatchObject({ id: "dev-echo", kind: "dev-echo" });
    expect(createModelProvider({ kind: "scripted" })).toMatchObject({ id: "scripted", kind: "scripted" });
    expect(createModelProvider({ kind: "openai-compatible", id: "ollama", baseUrl: "http://127.0.0.1:11434/v1", apiKey: "" })).toMatchObject({ id: "ollama", kind: "openai-compatible" });
    expect(createModelProvider({ kind: "anthropic", id: "anthropic", apiKey: "k" })).toMatchObject({ id: "anthropic", kind: "anthropic" });
  });
});
