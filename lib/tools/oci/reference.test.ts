import { describe, expect, it } from "vitest";
import { ArtifactError } from "./errors";
import { assertSha256Digest, parseImageRef } from "./reference";

const HEX = "a".repeat(64);

function refusal(ref: string): string {
  try {
    parseImageRef(ref);
  } catch (error) {
    expect(error).toBeInstanceOf(ArtifactError);
    expect((error as ArtifactError).code).toBe("artifact-ref-invalid");
    return (error as ArtifactError).message;
  }
  throw new Error(`${ref} was accepted`);
}

describe("parseImageRef", () => {
  it("reads a digest reference and a tag reference", () => {
    expect(parseImageRef(`registry.example/acme/tools@sha256:${HEX}`)).toEqual({ registry: "registry.example", repository: "acme/tools", digest: `sha256:${HEX}` });
    expect(parseImageRef("127.0.0.1:5000/acme/tools:1.2.0")).toEqual({ registry: "127.0.0.1:5000", repository: "acme/tools", tag: "1.2.0" });
    expect(parseImageRef(`localhost/a.b__c-d/e--f:v_1@sha256:${HEX}`)).toEqual({ registry: "localhost", repository: "a.b__c-d/e--f", tag: "v_1", digest: `sha256:${HEX}` });
    expect(parseImageRef("[::1]:5000/tools:latest")).toEqual({ registry: "[::1]:5000", repository: "tools", tag: "latest" });
  });

  it("refuses a reference without a registry host instead of assuming Docker Hub", () => {
    expect(refusal("acme/tools:1.0")).toMatch(/names no registry host/);
    expect(refusal("tools:1.0")).toMatch(/names no registry host/);
  });

  it("refuses invalid repositories, tags and digests, and names what is wrong", () => {
    expect(refusal("registry.example/Acme/tools:1")).toMatch(/path component "Acme"/);
    expect(refusal("registry.example/acme//tools:1")).toMatch(/path component ""/);
    expect(refusal("registry.example/acme/tools-:1")).toMatch(/path component "tools-"/);
    expect(refusal("registry.example/acme/tools:.hidden")).toMatch(/not a valid tag/);
    expect(refusal(`registry.example/acme/tools:${"t".repeat(129)}`)).toMatch(/not a valid tag/);
    expect(refusal("registry.example/acme/tools")).toMatch(/neither a tag nor a digest/);
    expect(refusal(`registry.example/acme/tools@sha512:${"a".repeat(128)}`)).toMatch(/"sha512" is not supported; only sha256 is/);
    expect(refusal("registry.example/acme/tools@sha256:ABC")).toMatch(/64 lower-case hexadecimal/);
    expect(refusal("-bad.example/acme/tools:1")).toMatch(/not a registry host/);
    expect(refusal(`registry.example/${"a".repeat(256)}:1`)).toMatch(/longer than 255/);
  });
});

describe("assertSha256Digest", () => {
  it("accepts a sha256 digest and refuses anything else", () => {
    expect(() => assertSha256Digest(`sha256:${HEX}`)).not.toThrow();
    expect(() => assertSha256Digest(`sha256:${HEX}0`)).toThrow(/64 lower-case/);
    expect(() => assertSha256Digest("md5:abc")).toThrow(/only sha256/);
  });
});
