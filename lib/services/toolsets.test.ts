import { describe, expect, it } from "vitest";
import { agentArgumentIssues } from "@/lib/services/toolsets";
import { jsonResponse, noContent, serialize } from "@/lib/api/respond";

describe("an agent's arguments as a toolset's tool", () => {
  it("takes a message, and optionally parameters and a conversation id", () => {
    expect(agentArgumentIssues({ message: "hello" })).toEqual([]);
    expect(agentArgumentIssues({ message: "hello", parameters: { city: "Oslo" }, conversationId: "0b6c1e2a-3f4d-4e5f-8a9b-0c1d2e3f4a5b" })).toEqual([]);
  });

  it("names each problem at its argument", () => {
    expect(agentArgumentIssues({}).map((issue) => issue.path)).toEqual(["/arguments/message"]);
    expect(agentArgumentIssues({ message: "" }).map((issue) => issue.path)).toEqual(["/arguments/message"]);
    expect(agentArgumentIssues({ message: "x", parameters: [1], conversationId: "not-a-uuid", "a/b": 1 }).map((issue) => issue.path)).toEqual(["/arguments/a~1b", "/arguments/parameters", "/arguments/conversationId"]);
    expect(agentArgumentIssues({ message: 3, parameters: null }).map((issue) => issue.path)).toEqual(["/arguments/message", "/arguments/parameters"]);
  });
});

describe("204 No Content", () => {
  it("has no body, also when replayed from its stored text", async () => {
    const result = noContent();
    const response = jsonResponse(result.status, serialize(result), "request-1");
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("x-request-id")).toBe("request-1");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-type")).toBeNull();
  });
});
