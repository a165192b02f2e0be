import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "./helpers/api";

/** A draft as the editor sends it: incomplete, never registered. */
const draft = {
  id: "acme.draft-bot",
  name: "Draft Bot",
  version: "0.1.0",
  instructions: "Hello {{ client | upcase }}, I am {{ agent.name }}.\n{% for i in (1..maxItems) %}[{{ i }}]{% endfor %}",
  parameters: [
    { name: "client", type: "string", description: "Client name" },
    { name: "maxItems", type: "number", default: 2 },
  ],
  tools: [],
};

describe("draft render (POST /v1/agents/render)", () => {
  it("renders an unregistered definition with sample parameters, defaults applied, without registering it", async () => {
    const tenant = await newTenant();
    const response = await call("POST", "/v1/agents/render", { key: tenant.key, body: { definition: draft, parameters: { client: "Ada" } } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ rendered: "Hello ADA, I am Draft Bot.\n[1][2]", parameters: { client: "Ada", maxItems: 2 } });
    const conversation = await call("POST", "/v1/agents/render", {
      key: tenant.key,
      body: { definition: { instructions: "{{ agent.id }}|{{ conversation.id }}|{{ conversation.turn }}|{{ today }}" }, conversation: { id: "c-1", turn: 3 } },
    });
    expect(conversation.body.rendered).toMatch(/^\|c-1\|3\|\d{4}-\d{2}-\d{2}$/);
    expectError(await call("GET", `/v1/agents/${draft.id}`, { key: tenant.key }), 404, "not-found");
  });

  it("answers a Liquid problem at /definition/instructions with its line and column", async () => {
    const tenant = await newTenant();
    const syntax = expectError(
      await call("POST", "/v1/agents/render", { key: tenant.key, body: { definition: { ...draft, instructions: "First line\nsecond {% if client %}open" }, parameters: { client: "a" } } }),
      400,
      "validation-failed",
    );
    expect(syntax.details.issues).toHaveLength(1);
    expect(syntax.details.issues[0]).toMatchObject({ path: "/definition/instructions", line: 2, column: 8 });
    expect(syntax.details.issues[0].message).toMatch(/^line 2, column 8: /);

    const render = (instructions: string) => call("POST", "/v1/agents/render", { key: tenant.key, body: { definition: { ...draft, instructions }, parameters: { client: "a" } } });
    const variable = expectError(await render("Hi {{ client }}\n  {{ nope }}"), 400, "validation-failed");
    expect(variable.details.issues).toEqual([{ path: "/definition/instructions", line: 2, column: 6, message: expect.stringMatching(/^line 2, column 6: unknown variable "nope"/) }]);
    const filter = expectError(await render("Hi {{ client }}\n  {{ client | shout }}"), 400, "validation-failed");
    expect(filter.details.issues).toEqual([{ path: "/definition/instructions", line: 2, column: 3, message: 'line 2, column 3: unknown filter "shout"' }]);
  });

  it("answers parameter problems at /parameters/<name>, and a malformed request with bad-input or unknown-field", async () => {
    const tenant = await newTenant();
    const missing = expectError(await call("POST", "/v1/agents/render", { key: tenant.key, body: { definition: draft } }), 400, "validation-failed");
    expect(missing.details.issues).toEqual([{ path: "/parameters/client", message: "missing required parameter" }]);
    const wrong = expectError(await call("POST", "/v1/agents/render", { key: tenant.key, body: { definition: draft, parameters: { client: 1, maxItems: "2", extra: true } } }), 400, "validation-failed");
    expect(wrong.details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/parameters/client", "/parameters/maxItems", "/parameters/extra"]);

    expectError(await call("POST", "/v1/agents/render", { key: tenant.key, body: {} }), 400, "bad-input");
    expectError(await call("POST", "/v1/agents/render", { key: tenant.key, body: { definition: { parameters: [] } } }), 400, "bad-input");
    expectError(await call("POST", "/v1/agents/render", { key: tenant.key, body: { definition: { instructions: "x", parameters: [{ name: "a", type: "text" }] } } }), 400, "bad-input");
    expectError(await call("POST", "/v1/agents/render", { key: tenant.key, body: { definition: draft, sample: {} } }), 400, "unknown-field");
    expectError(await call("POST", "/v1/agents/render", { key: tenant.key, rawBody: "{nope" }), 400, "bad-input");
    expectError(await call("POST", "/v1/agents/render", { body: { definition: draft } }), 401, "auth-missing");
  });
});

describe("draft parameter form (POST /v1/agents/form)", () => {
  it("describes the form of an unregistered definition's parameters, as the per-version form does", async () => {
    const tenant = await newTenant();
    const form = await call("POST", "/v1/agents/form", { key: tenant.key, body: { definition: draft } });
    expect(form.status).toBe(200);
    expect(form.body).toEqual({
      fields: [
        { name: "client", label: "Client", type: "string", kind: "text", inputMode: "text", required: true, description: "Client name" },
        { name: "maxItems", label: "Max items", type: "number", kind: "number", inputMode: "decimal", required: true, default: 2 },
      ],
    });
    expect((await call("POST", "/v1/agents/form", { key: tenant.key, body: { definition: {} } })).body).toEqual({ fields: [] });

    // The same definition, registered, answers the same form from its version route.
    const registered = { ...draft, id: `acme.form-${Date.now().toString(36)}`, version: "1.0.0", capabilities: [{}], retrieval: [], guardrails: [], projectId: tenant.projectId };
    expect((await call("POST", "/v1/agents", { key: tenant.key, body: registered })).status).toBe(201);
    expect((await call("GET", `/v1/agents/${registered.id}/versions/1.0.0/form`, { key: tenant.key })).body).toEqual(form.body);

    expectError(await call("POST", "/v1/agents/form", { key: tenant.key, body: { definition: { parameters: [{ name: "1bad", type: "string" }] } } }), 400, "bad-input");
    expectError(await call("POST", "/v1/agents/form", { key: tenant.key, body: { parameters: [] } }), 400, "unknown-field");
    expectError(await call("GET", "/v1/agents/form", { key: tenant.key }), 405, "method-not-allowed");
  });
});
