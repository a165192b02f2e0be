import { describe, expect, it } from "vitest";
import { defineOperation } from "@/lib/api/operation";
import { MAX_BODY_DEPTH, MAX_PARAM_LENGTH, MAX_QUERY_LENGTH } from "@/lib/api/limits";
import { inspectBody, validateParams, validateQuery } from "@/lib/api/request-validation";
import { AppError } from "@/lib/errors";

const nested = (levels: number) => JSON.parse('{"a":'.repeat(levels - 1) + "{}" + "}".repeat(levels - 1));
function failure(run: () => void): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("inspectBody", () => {
  it("accepts bodies nested up to the limit and refuses one level more, naming where", () => {
    expect(() => inspectBody(nested(MAX_BODY_DEPTH))).not.toThrow();
    const error = failure(() => inspectBody(nested(MAX_BODY_DEPTH + 1)));
    expect(error.code).toBe("bad-input");
    expect(error.details?.issues).toEqual([{ path: "/a".repeat(MAX_BODY_DEPTH), message: `nests deeper than ${MAX_BODY_DEPTH} levels` }]);
  });

  it("refuses nesting far deeper than the stack allows with a 400, not a RangeError", () => {
    const deep = JSON.parse("[".repeat(200_000) + "]".repeat(200_000));
    expect(failure(() => inspectBody({ x: deep })).status).toBe(400);
  });

  it("refuses lone surrogates and U+0000 in values and keys, with a JSON pointer", () => {
    expect(failure(() => inspectBody({ a: [1, "ok", "x\ud800y"] })).details?.issues).toEqual([{ path: "/a/2", message: "contains a lone UTF-16 surrogate (not well-formed Unicode)" }]);
    expect(failure(() => inspectBody({ a: { "k\udc00": 1 } })).details?.issues).toEqual([{ path: "/a/k\udc00", message: "its key contains a lone UTF-16 surrogate (not well-formed Unicode)" }]);
    expect(failure(() => inspectBody({ "a/b": "\u0000" })).details?.issues).toEqual([{ path: "/a~1b", message: "contains U+0000" }]);
    expect(failure(() => inspectBody("\udfff")).message).toMatch(/well-formed Unicode/);
  });

  it("accepts well-formed text, including astral characters", () => {
    expect(() => inspectBody({ emoji: "😀 \ud83d\ude00", list: [{ "clé": "ü" }], n: 1, nothing: null })).not.toThrow();
  });
});

const operation = defineOperation({
  operationId: "probe",
  method: "GET",
  path: "/probe/{toolId}/versions/{version}",
  tag: "Test",
  summary: "probe",
  auth: "none",
  params: { toolId: { kind: "catalogId", description: "id" }, version: { kind: "version", description: "version" } },
  query: { q: { type: "string", description: "text" }, cursor: { type: "string", description: "cursor" } },
  responses: { 200: { description: "ok", schema: {} } },
  errors: [],
});

describe("path and query values", () => {
  it("caps path parameters at the id length, whatever their grammar", () => {
    const error = failure(() => validateParams(operation, { toolId: "a", version: `1.0.${"1".repeat(MAX_PARAM_LENGTH)}` }));
    expect(error.code).toBe("bad-input");
    expect(error.details?.issues).toEqual([{ path: "/version", message: `path parameter version is longer than ${MAX_PARAM_LENGTH} characters` }]);
    expect(validateParams(operation, { toolId: "a".repeat(200), version: "1.0.0" })).toEqual({ toolId: "a".repeat(200), version: "1.0.0" });
  });

  it("refuses query values that are too long or hold U+0000 (URLSearchParams has already replaced lone surrogates; the HTTP front refuses their encodings)", () => {
    expect(failure(() => validateQuery(operation, new URLSearchParams({ q: "x".repeat(MAX_QUERY_LENGTH + 1) }))).details?.issues).toEqual([{ path: "/q", message: `query parameter q is longer than ${MAX_QUERY_LENGTH} characters` }]);
    expect(failure(() => validateQuery(operation, new URLSearchParams({ cursor: "a\u0000" }))).details?.issues).toEqual([{ path: "/cursor", message: "query parameter cursor contains U+0000" }]);
    expect(validateQuery(operation, new URLSearchParams({ q: "x".repeat(MAX_QUERY_LENGTH) }))).toEqual({ q: "x".repeat(MAX_QUERY_LENGTH) });
  });
});
