import { describe, expect, it } from "vitest";
import { argumentsHash, asksForSession, decideCall, type GateInput } from "@/lib/kernel/approval-policy";
import { sortedKeysJson } from "@/lib/json";

const base = (overrides: Partial<GateInput> = {}, manifest: Partial<GateInput["manifest"]> = {}): GateInput => ({
  manifest: { id: "acme.pay", ...manifest },
  arguments: { amount: 5 },
  attended: true,
  invocation: false,
  toolsAllowedUnattended: [],
  grants: [],
  ...overrides,
});

describe("decideCall", () => {
  it("passes a read-only call and asks for a mutating one (absent mutating means mutating)", () => {
    expect(decideCall(base({}, { mutating: false }))).toEqual({ kind: "pass" });
    expect(decideCall(base())).toEqual({ kind: "ask", reason: "mutating" });
    expect(decideCall(base({}, { mutating: true }))).toEqual({ kind: "ask", reason: "mutating" });
  });

  it("a matching grant passes a mutating call; a grant whose condition fails does not", () => {
    const grants = [{ id: "g1", matches: (args: unknown) => (args as { amount: number }).amount <= 100 }];
    expect(decideCall(base({ grants }))).toEqual({ kind: "pass", grantId: "g1" });
    expect(decideCall(base({ grants, arguments: { amount: 500 } }))).toEqual({ kind: "ask", reason: "mutating" });
  });

  it("an unattended run asks on every call of a tool needing approval when unattended, whatever the grants, unless its trigger allows the tool", () => {
    const grants = [{ id: "g1", matches: () => true }];
    const input = base({ attended: false, grants }, { needsApprovalWhenUnattended: true, mutating: false });
    expect(decideCall(input)).toEqual({ kind: "ask", reason: "unattended" });
    expect(decideCall({ ...input, toolsAllowedUnattended: ["acme.pay"] })).toEqual({ kind: "pass" });
    expect(decideCall({ ...input, attended: true })).toEqual({ kind: "pass" });
  });

  it("a tool using a person's connection counts as needing approval when unattended, reads included", () => {
    const needsSpec = { connections: { mail: { app: "google", permissions: ["gmail.read"], as: "person" as const } } };
    expect(decideCall(base({ attended: false }, { mutating: false, needsSpec }))).toEqual({ kind: "ask", reason: "person-connection" });
    const company = { connections: { mail: { app: "google", permissions: ["gmail.read"], as: "company" as const } } };
    expect(decideCall(base({ attended: false }, { mutating: false, needsSpec: company }))).toEqual({ kind: "pass" });
  });

  it("an attended tool invocation passes; an unattended one still obeys the unattended rule", () => {
    expect(decideCall(base({ invocation: true }))).toEqual({ kind: "pass" });
    expect(decideCall(base({ invocation: true, attended: false }, { needsApprovalWhenUnattended: true }))).toEqual({ kind: "ask", reason: "unattended" });
  });
});

describe("session approvals and argument hashes", () => {
  it("asks after every N completed turns", () => {
    expect([0, 1, 2, 3, 4].map((turns) => asksForSession(2, turns))).toEqual([false, false, true, false, true]);
    expect(asksForSession(undefined, 4)).toBe(false);
  });

  it("hashes canonical JSON: key order does not matter, values do", () => {
    expect(sortedKeysJson({ b: 1, a: [2, { d: 1, c: null }] })).toBe('{"a":[2,{"c":null,"d":1}],"b":1}');
    expect(argumentsHash({ a: 1, b: 2 })).toBe(argumentsHash({ b: 2, a: 1 }));
    expect(argumentsHash({ a: 1 })).not.toBe(argumentsHash({ a: 2 }));
  });
});
