import { describe, expect, it } from "vitest";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { getBuiltinTool } from "@/lib/tools/native";
import { ineffectiveDeclarations, toolInvocability, toolInvoker } from "./invocability";

const base: ToolManifest = { id: "acme.lookup", description: "Looks a word up", version: "1.0.0", input: { type: "object" }, output: { type: "object" } };
const http: ToolManifest = { ...base, spec: { kind: "http", method: "GET", urlTemplate: "https://dictionary.example/{word}" } };

describe("toolInvocability", () => {
  it("invokes built-in tools natively and HTTP tools through their spec", () => {
    expect(toolInvocability(getBuiltinTool("current-time")!)).toEqual({ invocable: true, invoker: "native" });
    expect(toolInvocability(http)).toEqual({ invocable: true, invoker: "http" });
    expect(toolInvocability({ ...http, transport: "native" })).toEqual({ invocable: true, invoker: "http" });
  });

  it("invokes pack handlers from a folder and from an OCI artifact", () => {
    expect(toolInvocability({ ...base, codeArtifactRef: { kind: "filesystem", modulePath: "/packs/acme/lookup.mjs" } })).toEqual({ invocable: true, invoker: "handler" });
    expect(toolInvocability({ ...base, codeArtifactRef: { kind: "oci", imageRef: "registry.example/acme:1", modulePath: "dist/lookup.js", artifactVersion: "1.0.0" } })).toEqual({ invocable: true, invoker: "handler" });
  });

  it("invokes MCP tools over URLs always, and over stdio only when KINDGI_MCP_STDIO=allow", () => {
    expect(toolInvocability({ ...base, mcpEndpoint: "mcp+http://mcp.example/" })).toEqual({ invocable: true, invoker: "mcp" });
    const previous = process.env.KINDGI_MCP_STDIO;
    try {
      delete process.env.KINDGI_MCP_STDIO;
      expect(toolInvocability({ ...base, transport: "mcp", mcpEndpoint: "mcp+stdio://server" })).toEqual({ invocable: false, invoker: "mcp", reason: expect.stringContaining("KINDGI_MCP_STDIO=allow"), path: "/mcpEndpoint" });
      process.env.KINDGI_MCP_STDIO = "allow";
      expect(toolInvocability({ ...base, transport: "mcp", mcpEndpoint: "mcp+stdio://server" })).toEqual({ invocable: true, invoker: "mcp" });
    } finally {
      if (previous === undefined) delete process.env.KINDGI_MCP_STDIO;
      else process.env.KINDGI_MCP_STDIO = previous;
    }
  });

  it("cannot invoke a tool with neither spec nor handler, and says why at the field concerned", () => {
    expect(toolInvocability(base)).toEqual({ invocable: false, invoker: "none", reason: expect.stringContaining("neither an HTTP `spec` nor a handler"), path: "/spec" });
    // A registered tool that claims the native transport under an id that is not built in has nothing to run.
    expect(toolInvoker({ ...base, transport: "native" })).toBe("none");
  });
});

describe("toolInvoker follows transport", () => {
  const fsHandler = { kind: "filesystem", modulePath: "/packs/acme/lookup.mjs" } as const;
  const ociHandler = { kind: "oci", imageRef: "registry.example/acme:1", modulePath: "dist/lookup.js", artifactVersion: "1.0.0" } as const;
  const endpoint = "mcp+http://mcp.example/mcp";

  it('"auto" prefers running in this server over MCP: a handler or a spec wins over an mcpEndpoint', () => {
    expect(toolInvoker({ ...base, codeArtifactRef: fsHandler, mcpEndpoint: endpoint })).toBe("handler");
    expect(toolInvoker({ ...base, transport: "auto", codeArtifactRef: fsHandler, mcpEndpoint: endpoint })).toBe("handler");
    expect(toolInvoker({ ...http, mcpEndpoint: endpoint })).toBe("http");
    expect(toolInvoker({ ...base, mcpEndpoint: endpoint })).toBe("mcp");
  });

  it('"auto" prefers an oci handler, which runs in this server, over the MCP endpoint', () => {
    expect(toolInvoker({ ...base, codeArtifactRef: ociHandler, mcpEndpoint: endpoint })).toBe("handler");
    expect(toolInvoker({ ...base, codeArtifactRef: ociHandler })).toBe("handler");
  });

  it('"mcp" runs on the MCP server whatever else the manifest declares; "native" never does', () => {
    expect(toolInvoker({ ...http, transport: "mcp", mcpEndpoint: endpoint })).toBe("mcp");
    expect(toolInvoker({ ...base, transport: "mcp", codeArtifactRef: fsHandler, mcpEndpoint: endpoint })).toBe("mcp");
    expect(toolInvoker({ ...base, transport: "native", codeArtifactRef: fsHandler })).toBe("handler");
    expect(toolInvoker({ ...base, transport: "native", mcpEndpoint: endpoint })).toBe("none");
  });
});

describe("ineffectiveDeclarations", () => {
  const handlerFields: Partial<ToolManifest> = {
    sandbox: "strict",
    limits: { memMB: 64, cpuMs: 100 },
    needs: [{ name: "tenant" }],
    needsSpec: { env: { REGION: { value: "eu" } }, config: { size: { default: 1 } }, secrets: { TOKEN: { name: "t" } } },
  };
  const paths = (manifest: ToolManifest) => ineffectiveDeclarations(manifest).map((issue) => issue.path);

  it("names each handler-only field of an HTTP-spec tool, saying why it has no effect", () => {
    expect(paths({ ...http, ...handlerFields, network: { kind: "none" } })).toEqual(["/sandbox", "/limits", "/needs", "/needsSpec/env", "/needsSpec/config", "/needsSpec/secrets"]);
    expect(ineffectiveDeclarations({ ...http, limits: { memMB: 64, cpuMs: 100 } })).toEqual([
      { path: "/limits", message: "has no effect: limits cap a pack handler's sandbox, and this tool runs its HTTP `spec` and no handler" },
    ]);
  });

  it("names them and network on an MCP tool reached by URL, the handler-only fields on a stdio one, none on a handler", () => {
    for (const mcpEndpoint of ["mcp+http://mcp.example/mcp", "mcp+sse://mcp.example/sse"]) {
      expect(paths({ ...base, ...handlerFields, mcpEndpoint, network: { kind: "none" } })).toEqual(["/sandbox", "/limits", "/needs", "/needsSpec/env", "/needsSpec/config", "/needsSpec/secrets", "/network"]);
    }
    expect(ineffectiveDeclarations({ ...base, sandbox: "none", mcpEndpoint: "mcp+http://mcp.example/mcp" })[0].message).toBe(
      "has no effect: sandbox sets the isolation of a pack handler, and this tool runs on an MCP server reached by URL, not in a handler",
    );
    // A stdio server's tool keeps its network policy (the server runs behind it), but nothing of a handler's.
    expect(paths({ ...base, ...handlerFields, mcpEndpoint: "mcp+stdio://server", network: { kind: "none" } })).toEqual(["/sandbox", "/limits", "/needs", "/needsSpec/env", "/needsSpec/config", "/needsSpec/secrets"]);
    expect(ineffectiveDeclarations({ ...base, sandbox: "strict", mcpEndpoint: "mcp+stdio://server" })[0].message).toContain("runs on a stdio MCP server, which always runs under bubblewrap");
    expect(paths({ ...base, ...handlerFields, codeArtifactRef: { kind: "filesystem", modulePath: "/packs/x.mjs" }, mcpEndpoint: "mcp+http://mcp.example/mcp" })).toEqual([]);
  });

  it("says nothing about empty declarations or connections (an MCP tool receives those)", () => {
    expect(paths({ ...http, needs: [], needsSpec: { env: {}, connections: { mail: { app: "google", permissions: [], as: "person" } } } })).toEqual([]);
  });
});
