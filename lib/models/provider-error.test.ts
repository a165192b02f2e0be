import { describe, expect, it } from "vitest";
import { ModelProviderError } from "@/lib/models/provider";

describe("ModelProviderError", () => {
  it("is recognised whichever copy of the module made it (Next.js bundles the kernel and the routes apart)", () => {
    const own = new ModelProviderError("provider-auth-failed", "no", { attempts: 1, status: 401 });
    expect(own).toBeInstanceOf(ModelProviderError);
    expect(own).toBeInstanceOf(Error);
    // What another bundle's copy of the class makes: the same mark, another constructor.
    const mark = Symbol.for("kindgi.model-provider-error");
    const otherCopy = Object.assign(new Error("no"), { [mark]: true });
    expect(otherCopy).toBeInstanceOf(ModelProviderError);
    expect(new Error("plain")).not.toBeInstanceOf(ModelProviderError);
    expect((null as unknown) instanceof ModelProviderError).toBe(false);
    expect({ code: "provider-auth-failed" } instanceof ModelProviderError).toBe(false);
  });
});
