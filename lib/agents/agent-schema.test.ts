import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { SEMVER_VERSION_PATTERN, agentDefinitionSchema } from "./agent-schema";

type Node = Record<string, unknown>;

/** Every object schema with `properties`, with its JSON pointer inside the agent schema. */
function objectSchemas(node: Node, at = ""): Array<[string, Node]> {
  const own: Array<[string, Node]> = node.properties ? [[at, node]] : [];
  const props = Object.entries((node.properties ?? {}) as Record<string, Node>).flatMap(([key, child]) =>
    objectSchemas(child, `${at}/properties/${key}`),
  );
  const items = node.items ? objectSchemas(node.items as Node, `${at}/items`) : [];
  return [...own, ...props, ...items];
}

describe("agentDefinitionSchema", () => {
  it("compiles as draft 2020-12 in Ajv strict mode", () => {
    expect(() => new Ajv2020({ strict: true }).compile(agentDefinitionSchema)).not.toThrow();
  });

  it("requires the seed's required fields", () => {
    expect([...agentDefinitionSchema.required].sort()).toEqual(
      ["capabilities", "guardrails", "id", "instructions", "name", "retrieval", "tools", "version"].sort(),
    );
  });

  it("closes every fixed-field object; only a capability stays open for its kind's fields", () => {
    const open = objectSchemas(agentDefinitionSchema as unknown as Node)
      .filter(([, schema]) => schema.additionalProperties !== false)
      .map(([at]) => at);
    expect(open).toEqual(["/properties/capabilities/items"]);
  });

  it("describes every property (API docs)", () => {
    const undescribed = objectSchemas(agentDefinitionSchema as unknown as Node).flatMap(([at, schema]) =>
      Object.entries(schema.properties as Record<string, Node>)
        .filter(([, child]) => !child.description)
        .map(([key]) => `${at}/properties/${key}`),
    );
    expect(undescribed).toEqual([]);
  });

  it.each([
    ["1.2.3", true],
    ["0.0.0", true],
    ["1.2.3-alpha.1", true],
    ["1.2.3+build.7", true],
    ["1.2.3-rc.1+sha.5114f85", true],
    ["1.2", false],
    ["v1.2.3", false],
    ["01.2.3", false],
    ["1.2.3-01", false],
    ["1.2.3-", false],
  ])("version pattern: %s → %s", (version, ok) => {
    expect(new RegExp(SEMVER_VERSION_PATTERN, "u").test(version)).toBe(ok);
  });
});
