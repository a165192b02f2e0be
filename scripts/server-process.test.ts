import { describe, expect, it } from "vitest";
import { serverNodeArgs } from "./server-process.mjs";

const base = { edgeUrl: "file:///app/scripts/http-edge.mjs", nextBin: "/app/node_modules/next/dist/bin/next", host: "127.0.0.1", port: "3000" };

describe("the server process's Node.js arguments", () => {
  it("give V8 a young generation of 64 MB semi-spaces, then load the HTTP front and run next start", () => {
    expect(serverNodeArgs(base)).toEqual(["--max-semi-space-size=64", "--import", base.edgeUrl, base.nextBin, "start", "-H", "127.0.0.1", "-p", "3000"]);
    expect(serverNodeArgs({ ...base, nodeOptions: "--enable-source-maps" })[0]).toBe("--max-semi-space-size=64");
  });

  it("keep the operator's own --max-semi-space-size from NODE_OPTIONS", () => {
    for (const nodeOptions of ["--max-semi-space-size=8", "--enable-source-maps --max-semi-space-size 32"]) {
      expect(serverNodeArgs({ ...base, nodeOptions })).toEqual(["--import", base.edgeUrl, base.nextBin, "start", "-H", "127.0.0.1", "-p", "3000"]);
    }
    // Another flag that merely starts the same way is not it.
    expect(serverNodeArgs({ ...base, nodeOptions: "--max-semi-space-size-x=1" })[0]).toBe("--max-semi-space-size=64");
  });
});
