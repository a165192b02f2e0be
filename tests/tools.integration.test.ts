import { describe, expect, it } from "vitest";
import { call, expectError, newTenant, toolManifest } from "./helpers/api";

describe("tool registry", () => {
  it("registers a manifest (201 {toolId, version, warnings}) and reads it back exactly as registered", async () => {
    const tenant = await newTenant();
    const manifest = toolManifest({ metadata: { tags: ["dictionary", "words"], "10": "integer-like key", b: 1, a: 2 }, transport: "native" });
    const created = await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ toolId: manifest.id, version: "1.0.0", warnings: [] });
    const version = await call("GET", `/v1/tools/${manifest.id}/versions/1.0.0`, { key: tenant.key });
    expect(version.status).toBe(200);
    expect(version.body).toMatchObject({ toolId: manifest.id, version: "1.0.0", projectId: tenant.projectId, status: "active", isLatest: true });
    expect(version.body.manifest).toEqual(manifest);
    expect(version.text).toContain(JSON.stringify(manifest));
  });

  it("answers 409 tool-already-registered for the same id and version", async () => {
    const tenant = await newTenant();
    const manifest = toolManifest();
    await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } });
    const again = expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, description: "changed", projectId: tenant.projectId } }), 409, "tool-already-registered");
    expect(again.details).toEqual({ toolId: manifest.id, version: "1.0.0" });
  });

  it("answers 409 tool-project-mismatch when the id lives in another project", async () => {
    const tenant = await newTenant();
    const project = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Second" } });
    const manifest = toolManifest();
    await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } });
    expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, version: "2.0.0", projectId: project.body.id } }), 409, "tool-project-mismatch");
    // The same id in another tenant is another tool.
    const other = await newTenant();
    expect((await call("POST", "/v1/tools", { key: other.key, body: { ...manifest, projectId: other.projectId } })).status).toBe(201);
  });

  it("answers 400 bad-input for bad JSON and a missing, malformed or foreign projectId", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const manifest = toolManifest();
    expectError(await call("POST", "/v1/tools", { key: tenant.key, rawBody: '{"id": "x",', headers: { "Content-Type": "application/json" } }), 400, "bad-input");
    for (const projectId of [undefined, "nope", 42, other.projectId, "00000000-0000-4000-8000-000000000000"]) {
      const error = expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId } }), 400, "bad-input");
      expect(error.details.issues[0].path).toBe("/projectId");
    }
    expectError(await call("GET", `/v1/tools/${manifest.id}`, { key: tenant.key }), 404, "not-found");
  });

  it("answers 400 validation-failed with every issue and its JSON pointer", async () => {
    const tenant = await newTenant();
    const response = await call("POST", "/v1/tools", {
      key: tenant.key,
      body: { ...toolManifest({ version: "1.0", effects: [{ kind: "teleports" }], input: { type: "object", properties: { a: { type: "nope" } } } }), projectId: tenant.projectId },
    });
    const error = expectError(response, 400, "validation-failed");
    const paths = error.details.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toContain("/version");
    expect(paths).toContain("/effects/0/kind");
    expect(paths.some((path: string) => path.startsWith("/input"))).toBe(true);
    expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...toolManifest(), handler: "x", projectId: tenant.projectId } }), 400, "unknown-field");
  });

  it("401 without a key; 403 for a viewer", async () => {
    expectError(await call("POST", "/v1/tools", { body: toolManifest() }), 401, "auth-missing");
    const tenant = await newTenant();
    const viewer = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "v", serviceAccount: { name: "viewer", role: "viewer" } } });
    expectError(await call("POST", "/v1/tools", { key: viewer.body.key, body: { ...toolManifest(), projectId: tenant.projectId } }), 403, "permission-denied");
  });

  it("resolves the latest active version by semver; unregister hides and reinstate restores", async () => {
    const tenant = await newTenant();
    const base = toolManifest();
    for (const version of ["1.2.0", "1.10.0", "1.9.3"]) {
      expect((await call("POST", "/v1/tools", { key: tenant.key, body: { ...base, version, description: `v${version}`, projectId: tenant.projectId } })).status).toBe(201);
    }
    const tool = await call("GET", `/v1/tools/${base.id}`, { key: tenant.key });
    expect(tool.body.latestVersion).toBe("1.10.0");
    expect(tool.body.latest.manifest.description).toBe("v1.10.0");
    expect(tool.body.versions.map((v: { version: string }) => v.version)).toEqual(["1.10.0", "1.9.3", "1.2.0"]);

    const unregistered = await call("POST", `/v1/tools/${base.id}/versions/1.10.0/unregister`, { key: tenant.key });
    expect(unregistered.body).toMatchObject({ status: "unregistered", isLatest: false });
    expect((await call("GET", `/v1/tools/${base.id}`, { key: tenant.key })).body.latestVersion).toBe("1.9.3");
    expect((await call("GET", `/v1/tools?q=${base.id}`, { key: tenant.key })).body.data[0].latestVersion).toBe("1.9.3");
    // Still readable by exact version, and a second unregister answers the same state.
    expect((await call("GET", `/v1/tools/${base.id}/versions/1.10.0`, { key: tenant.key })).body.status).toBe("unregistered");
    expect((await call("POST", `/v1/tools/${base.id}/versions/1.10.0/unregister`, { key: tenant.key })).body.status).toBe("unregistered");
    expect((await call("POST", `/v1/tools/${base.id}/versions/1.10.0/reinstate`, { key: tenant.key })).body).toMatchObject({ status: "active", isLatest: true });
    expect((await call("GET", `/v1/tools/${base.id}`, { key: tenant.key })).body.latestVersion).toBe("1.10.0");

    for (const version of ["1.10.0", "1.9.3", "1.2.0"]) await call("POST", `/v1/tools/${base.id}/versions/${version}/unregister`, { key: tenant.key });
    const hidden = await call("GET", `/v1/tools/${base.id}`, { key: tenant.key });
    expect(hidden.body).toMatchObject({ latestVersion: null, latest: null });
    expect((await call("GET", `/v1/tools?q=${base.id}`, { key: tenant.key })).body.data).toHaveLength(0);
    expectError(await call("POST", `/v1/tools/${base.id}/versions/9.9.9/reinstate`, { key: tenant.key }), 404, "not-found");
  });

  it("lists versions newest first, paginated", async () => {
    const tenant = await newTenant();
    const base = toolManifest();
    for (const version of ["0.1.0", "0.2.0", "0.3.0", "1.0.0", "2.0.0"]) await call("POST", "/v1/tools", { key: tenant.key, body: { ...base, version, projectId: tenant.projectId } });
    const first = await call("GET", `/v1/tools/${base.id}/versions?limit=2`, { key: tenant.key });
    expect(first.body.data.map((v: { version: string }) => v.version)).toEqual(["2.0.0", "1.0.0"]);
    const second = await call("GET", `/v1/tools/${base.id}/versions?limit=2&cursor=${first.body.nextCursor}`, { key: tenant.key });
    expect(second.body.data.map((v: { version: string }) => v.version)).toEqual(["0.3.0", "0.2.0"]);
    const third = await call("GET", `/v1/tools/${base.id}/versions?limit=2&cursor=${second.body.nextCursor}`, { key: tenant.key });
    expect(third.body).toMatchObject({ data: [{ version: "0.1.0" }], hasMore: false });
    const forged = Buffer.from(JSON.stringify(["not-a-version"])).toString("base64url");
    expectError(await call("GET", `/v1/tools/${base.id}/versions?cursor=${forged}`, { key: tenant.key }), 400, "bad-input");
  });

  it("filters the list by project, q (id, description, tags), effect, mutating and transport", async () => {
    const tenant = await newTenant();
    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Ops" } });
    const register = (manifest: Record<string, unknown>, projectId = tenant.projectId) => call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId } });
    await register(toolManifest({ id: "f.search", description: "Searches the web", mutating: false, effects: [{ kind: "network" }], metadata: { tags: ["internet"] } }));
    await register(toolManifest({ id: "f.send-mail", description: "Sends a mail", mutating: true, needsApprovalWhenUnattended: true, pauses: true, spec: undefined, codeArtifactRef: { kind: "oci", imageRef: `registry.example.test/mail@sha256:${"a".repeat(64)}`, modulePath: "/app/send-mail.js", artifactVersion: "1.0.0" }, resultIsOutsideData: true, effects: [{ kind: "external-side-effect" }, { kind: "sensitive-data-egress" }] }));
    await register(toolManifest({ id: "f.mcp-files", description: "Lists files", transport: "mcp", mcpEndpoint: "mcp+stdio://files-server --root /tmp", effects: [{ kind: "reads" }], spec: undefined }), second.body.id);
    const ids = async (query: string) => (await call("GET", `/v1/tools?${query}`, { key: tenant.key })).body.data.map((tool: { toolId: string }) => tool.toolId);
    // The built-in tools are listed too, in the id order, filtered like the others; a project filter keeps them.
    expect(await ids("")).toEqual(["current-time", "f.mcp-files", "f.search", "f.send-mail", "recall", "remember"]);
    expect(await ids(`projectId=${second.body.id}`)).toEqual(["current-time", "f.mcp-files", "recall", "remember"]);
    // recall's description says "Searches" and "emails", remember's "email".
    expect(await ids("q=SEARCH")).toEqual(["f.search", "recall"]);
    expect(await ids("q=mail")).toEqual(["f.send-mail", "recall", "remember"]);
    expect(await ids("q=internet")).toEqual(["f.search"]);
    expect(await ids("effect=sensitive-data-egress")).toEqual(["f.send-mail"]);
    expect(await ids("mutating=false")).toEqual(["current-time", "f.mcp-files", "f.search", "recall"]);
    expect(await ids("mutating=true")).toEqual(["f.send-mail", "remember"]);
    expect(await ids("transport=mcp")).toEqual(["f.mcp-files"]);
    expect(await ids("transport=mcp&mutating=true")).toEqual([]);
    expect(await ids("transport=native")).toEqual(["current-time", "recall", "remember"]);
    expect(await ids("transport=native&mutating=true")).toEqual(["remember"]);
    expect(await ids("effect=reads")).toEqual(["f.mcp-files", "recall"]);
    expect(await ids("q=memory")).toEqual(["recall", "remember"]);
    expect(await ids("q=current-TIME")).toEqual(["current-time"]);
    expectError(await call("GET", "/v1/tools?effect=teleports", { key: tenant.key }), 400, "bad-input");
    const summary = (await call("GET", "/v1/tools?q=f.search", { key: tenant.key })).body.data[0];
    expect(summary).toMatchObject({ toolId: "f.search", latestVersion: "1.0.0", description: "Searches the web", mutating: false, transport: "auto", effects: ["network"], tags: ["internet"], needsApprovalWhenUnattended: false, pauses: false, resultIsOutsideData: false });
    const mailer = (await call("GET", "/v1/tools?q=f.send-mail", { key: tenant.key })).body.data[0];
    expect(mailer).toMatchObject({ toolId: "f.send-mail", mutating: true, needsApprovalWhenUnattended: true, pauses: true, resultIsOutsideData: true, builtIn: false, projectId: tenant.projectId });
    const clock = (await call("GET", "/v1/tools?q=current-time", { key: tenant.key })).body.data;
    expect(clock).toEqual([{ toolId: "current-time", projectId: null, latestVersion: "1.0.0", description: expect.any(String), mutating: false, transport: "native", effects: [], tags: ["built-in", "time"], needsApprovalWhenUnattended: false, pauses: false, resultIsOutsideData: false, registeredAt: expect.any(String), builtIn: true }]);
  });

  it("pages through a filtered list without skipping or repeating a tool", async () => {
    const tenant = await newTenant();
    const register = (manifest: Record<string, unknown>) => call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } });
    for (let index = 0; index < 7; index++) await register(toolManifest({ id: `p.tool-${index}`, description: index % 2 ? "Writes a thing" : "Reads a thing", mutating: index % 2 === 1, effects: [{ kind: index % 2 ? "writes" : "reads" }] }));
    const walk = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const response = await call("GET", `/v1/tools?limit=2&${query}${cursor ? `&cursor=${cursor}` : ""}`, { key: tenant.key });
        expect(response.status).toBe(200);
        seen.push(...response.body.data.map((tool: { toolId: string }) => tool.toolId));
        if (!response.body.hasMore) return seen;
        cursor = response.body.nextCursor;
      }
      throw new Error("too many pages");
    };
    expect(await walk("mutating=false")).toEqual(["current-time", "p.tool-0", "p.tool-2", "p.tool-4", "p.tool-6", "recall"]);
    expect(await walk("effect=writes&q=thing")).toEqual(["p.tool-1", "p.tool-3", "p.tool-5"]);
    expect(await walk("effect=writes")).toEqual(["p.tool-1", "p.tool-3", "p.tool-5", "remember"]);
    expect(await walk("q=reads")).toEqual(["p.tool-0", "p.tool-2", "p.tool-4", "p.tool-6"]);
    expect(await walk("")).toEqual(["current-time", "p.tool-0", "p.tool-1", "p.tool-2", "p.tool-3", "p.tool-4", "p.tool-5", "p.tool-6", "recall", "remember"]);
    expect(await walk("transport=native")).toEqual(["current-time", "recall", "remember"]);
  });

  it("another tenant's tools are 404 on every route", async () => {
    const owner = await newTenant();
    const stranger = await newTenant();
    const manifest = toolManifest();
    await call("POST", "/v1/tools", { key: owner.key, body: { ...manifest, projectId: owner.projectId } });
    for (const [method, path] of [
      ["GET", `/v1/tools/${manifest.id}`],
      ["GET", `/v1/tools/${manifest.id}/versions`],
      ["GET", `/v1/tools/${manifest.id}/versions/1.0.0`],
      ["POST", `/v1/tools/${manifest.id}/versions/1.0.0/unregister`],
      ["POST", `/v1/tools/${manifest.id}/versions/1.0.0/reinstate`],
    ]) expectError(await call(method, path, { key: stranger.key }), 404, "not-found");
    const listed = async (path: string) => (await call("GET", path, { key: stranger.key })).body.data.map((tool: { toolId: string }) => tool.toolId);
    expect(await listed("/v1/tools")).toEqual(["current-time", "recall", "remember"]);
    expect(await listed(`/v1/tools?projectId=${owner.projectId}`)).toEqual(["current-time", "recall", "remember"]);
    expectError(await call("POST", "/v1/tools", { key: stranger.key, body: { ...toolManifest(), projectId: owner.projectId } }), 400, "bad-input");
    expect((await call("GET", `/v1/tools/${manifest.id}/versions/1.0.0`, { key: owner.key })).body.status).toBe("active");
  });

  it("a key narrowed to a project does not see other projects' tools", async () => {
    const tenant = await newTenant();
    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Hidden" } });
    const hidden = toolManifest();
    await call("POST", "/v1/tools", { key: tenant.key, body: { ...hidden, projectId: second.body.id } });
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "n", projectId: tenant.projectId } });
    expectError(await call("GET", `/v1/tools/${hidden.id}`, { key: narrowed.body.key }), 404, "not-found");
    const listed = async (path: string) => (await call("GET", path, { key: narrowed.body.key })).body.data.map((tool: { toolId: string }) => tool.toolId);
    expect(await listed("/v1/tools")).toEqual(["current-time", "recall", "remember"]);
    expect(await listed(`/v1/tools?projectId=${second.body.id}`)).toEqual(["current-time", "recall", "remember"]);
  });

  it("ids that register are reachable: the manifest id follows the {toolId} grammar (1 to 200 characters, no control characters)", async () => {
    const tenant = await newTenant();
    const register = (overrides: Record<string, unknown>) => call("POST", "/v1/tools", { key: tenant.key, body: { ...toolManifest(overrides), projectId: tenant.projectId } });
    const stamp = Date.now().toString(36);
    for (const id of [`${stamp}.`.padEnd(200, "x"), `${stamp}.`.padEnd(200, "✓"), `acme/odd id %ü.${stamp}`]) {
      expect((await register({ id })).status).toBe(201);
      for (const path of [`/v1/tools/${encodeURIComponent(id)}`, `/v1/tools/${encodeURIComponent(id)}/versions`, `/v1/tools/${encodeURIComponent(id)}/versions/1.0.0`]) {
        const read = await call("GET", path, { key: tenant.key });
        expect(read.status, `${path}: ${read.text.slice(0, 200)}`).toBe(200);
      }
      expect((await call("GET", `/v1/tools/${encodeURIComponent(id)}`, { key: tenant.key })).body.toolId).toBe(id);
    }
    const tooLong = expectError(await register({ id: `${stamp}.`.padEnd(201, "x") }), 400, "validation-failed");
    expect(tooLong.details.issues).toEqual([{ path: "/id", message: expect.stringContaining("200") }]);
    for (const id of [`acme\ttool.${stamp}`, `acme.tool\n${stamp}`, `acme.\u001b.${stamp}`]) {
      const refused = expectError(await register({ id }), 400, "validation-failed");
      expect(refused.details.issues).toEqual([{ path: "/id", message: "must not contain control characters (U+0000–U+001F)" }]);
    }
    // The path parameter refuses what the manifest refuses, before any lookup.
    expectError(await call("GET", `/v1/tools/${"x".repeat(201)}`, { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", `/v1/tools/${encodeURIComponent("a\tb")}`, { key: tenant.key }), 400, "bad-input");
  });

  it("versions with leading zeros are refused (they would break semver ordering); reads stay 200", async () => {
    const tenant = await newTenant();
    const base = toolManifest();
    expect((await call("POST", "/v1/tools", { key: tenant.key, body: { ...base, projectId: tenant.projectId } })).status).toBe(201);
    for (const version of ["01.0.0", "1.02.0", "1.0.00"]) {
      const refused = expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...base, version, projectId: tenant.projectId } }), 400, "validation-failed");
      expect(refused.details.issues).toEqual([{ path: "/version", message: 'must be a version MAJOR.MINOR.PATCH such as "1.2.3", without leading zeros' }]);
    }
    expect((await call("POST", "/v1/tools", { key: tenant.key, body: { ...base, version: "10.0.0", projectId: tenant.projectId } })).status).toBe(201);
    const tool = await call("GET", `/v1/tools/${base.id}`, { key: tenant.key });
    expect(tool.status).toBe(200);
    expect(tool.body.versions.map((v: { version: string }) => v.version)).toEqual(["10.0.0", "1.0.0"]);
    expect((await call("GET", `/v1/tools/${base.id}/versions`, { key: tenant.key })).status).toBe(200);
    expectError(await call("GET", `/v1/tools/${base.id}/versions/01.0.0`, { key: tenant.key }), 400, "bad-input");
  });

  it("a missing or foreign projectId is 400 bad-input even when the manifest has other problems, reported together", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const broken = toolManifest({ version: "1.0", effects: [{ kind: "teleports" }] });
    for (const [projectId, message] of [
      [undefined, "projectId is required"],
      ["nope", "projectId must be a UUID"],
      [other.projectId, "projectId is not a project of the caller's tenant"],
    ] as const) {
      const error = expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...broken, projectId } }), 400, "bad-input");
      expect(error.details.issues).toEqual([
        { path: "/projectId", message },
        { path: "/version", message: expect.any(String) },
        { path: "/effects/0/kind", message: expect.any(String) },
      ]);
      expect(error.message).toContain(message);
    }
    // A reserved id is a manifest problem too.
    const reserved = expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...toolManifest({ id: "recall" }) } }), 400, "bad-input");
    expect(reserved.details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/projectId", "/id"]);
    // With a good projectId, the manifest's problems alone: validation-failed.
    const invalid = expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...broken, projectId: tenant.projectId } }), 400, "validation-failed");
    expect(invalid.details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/version", "/effects/0/kind"]);
  });

  it("refuses at registration what would fail at call time: runtime headers, timeoutMs beyond a timer, successStatus min > max", async () => {
    const tenant = await newTenant();
    const httpSpec = (spec: Record<string, unknown>) => toolManifest({ spec: { kind: "http", method: "POST", urlTemplate: "https://api.example.com/words/{word}", ...spec } });
    const issuesOf = async (manifest: Record<string, unknown>) => {
      const error = expectError(await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } }), 400, "validation-failed");
      return error.details.issues;
    };
    for (const name of ["Idempotency-Key", "Host", "Content-Length"]) {
      expect(await issuesOf(httpSpec({ headers: [{ name, value: "x" }] }))).toEqual([{ path: "/spec/headers/0/name", message: `${name} is set by the runtime and cannot be declared in the spec` }]);
    }
    const bearer = { kind: "bearer", secretRef: { envName: "TOKEN", name: "api-token" } };
    expect(await issuesOf(httpSpec({ authorization: bearer, headers: [{ name: "Accept", value: "application/json" }, { name: "authorization", value: "Basic eA==" }] }))).toEqual([
      { path: "/spec/headers/1/name", message: "authorization is set by the runtime from the spec's authorization and cannot also be declared as a header" },
    ]);
    expect(await issuesOf(httpSpec({ timeoutMs: 2_147_483_648 }))).toEqual([{ path: "/spec/timeoutMs", message: "must be <= 2147483647" }]);
    expect(await issuesOf(httpSpec({ successStatus: { min: 300, max: 200 } }))).toEqual([{ path: "/spec/successStatus", message: "min (300) must not be greater than max (200)" }]);
    // The limits themselves register.
    const edge = httpSpec({ timeoutMs: 2_147_483_647, successStatus: { min: 200, max: 200 }, headers: [{ name: "Authorization", value: "Basic eA==" }] });
    expect((await call("POST", "/v1/tools", { key: tenant.key, body: { ...edge, projectId: tenant.projectId } })).status).toBe(201);
  });

  it("a filesystem handler's modulePath must be absolute", async () => {
    const tenant = await newTenant();
    const register = (modulePath: string) => call("POST", "/v1/tools", { key: tenant.key, body: { ...toolManifest({ codeArtifactRef: { kind: "filesystem", modulePath } }), projectId: tenant.projectId } });
    for (const modulePath of ["handlers/sign.js", "./sign.js", "../sign.js"]) {
      const relative = expectError(await register(modulePath), 400, "validation-failed");
      expect(relative.details.issues).toContainEqual({ path: "/codeArtifactRef/modulePath", message: `must be an absolute path to the handler file (such as /srv/packs/acme/handler.js), not ${JSON.stringify(modulePath)}` });
    }
  });
});
