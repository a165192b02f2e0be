import { describe, expect, it } from "vitest";
import { defineOperation } from "@/lib/api/operation";
import { ok } from "@/lib/api/respond";
import { route } from "@/lib/api/route";
import { AppError } from "@/lib/errors";

const operation = defineOperation({
  operationId: "probe",
  method: "POST",
  path: "/probe",
  tag: "Test",
  summary: "probe",
  auth: "none",
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: { n: { type: "integer" } } } },
  responses: { 200: { description: "ok", schema: {} } },
  errors: [],
});
const context = { params: Promise.resolve({}) };
const post = (handler: Parameters<typeof route>[1], body = "{}") => route(operation, handler)(new Request("http://x/probe", { method: "POST", body }), context);

describe("route wrapper", () => {
  it("turns an unexpected exception into a JSON 500 without the stack or message", async () => {
    const response = await post(async () => {
      throw new Error("database password is hunter2");
    });
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body.error.code).toBe("internal-server-error");
    expect(body.error.requestId).toBe(response.headers.get("x-request-id"));
    expect(JSON.stringify(body)).not.toContain("hunter2");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("maps an AppError to its status from the one table", async () => {
    const response = await post(async () => {
      throw new AppError("tool-project-mismatch", "elsewhere", { toolId: "a" });
    });
    expect(response.status).toBe(409);
    expect((await response.json()).error).toMatchObject({ code: "tool-project-mismatch", message: "elsewhere", details: { toolId: "a" } });
  });

  it("validates the body before the handler runs", async () => {
    let ran = false;
    const response = await post(async () => {
      ran = true;
      return ok({});
    }, '{"n": "one"}');
    expect(response.status).toBe(400);
    expect(ran).toBe(false);
    expect((await response.json()).error.details.issues).toEqual([{ path: "/n", message: "must be an integer" }]);
  });
});
