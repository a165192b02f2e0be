import { describe, expect, it } from "vitest";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { getBuiltinTool } from "@/lib/tools/native";
import { toolInvocability, toolInvoker } from "./invocability";

const base: ToolManifest = { id: "acme.lookup", description: "Looks a word up", version: "1.0.0", input: { type: "object" }, output: { type: "object" } };
const http: ToolManifest = { ...base, spec: { kind: "http", method: "GET", urlTemplate: "https://dictionary.example/{word}" } };

describe("toolInvocability", () => {
  it("invokes built-in tools natively and HTTP tools through their spec", () => {
    expect(toolInvocability(getBuiltinTool("current-time")!)).toEqual({ invocable: true, invoker: "native" });
    expect(toolInvocability(http)).toEqual({ invocable: true, invoker: "http" });
    expect(toolInvocability({ ...http, transport: "native" })).toEqual({ invocable: true, invoker: "http" });
  });

  it("invokes filesystem pack handlers; an oci artifact is refused with artifact-kind-unsupported", () => {
    expect(toolInvocability({ ...base, codeArtifactRef: { kind: "filesystem", modulePath: "/packs/acme/lookup.mjs" } })).toEqual({ invocable: true, invoker: "handler" });
    expect(toolInvocability({ ...base, codeArtifactRef: { kind: "oci", imageRef: "registry.example/acme:1", modulePath: "dist/lookup.js", artifactVersion: "1.0.0" } })).toEqual({
      invocable: false,
      invoker: "handler",
      reason: '"oci" handler artifacts are not supported by this server (only "filesystem" handlers run)',
      path: "/codeArtifactRef/kind",
      failureReason: "artifact-kind-unsupported",
    });
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
