import { describe, expect, it, vi } from "vitest";
import { addressCategory, checkDestination, pinnedLookup, ToolNetworkError, type HostResolver } from "./network-policy";
import type { NetworkPolicy } from "./manifest-schema";

/** A resolver answering from a fixed table; unknown names fail like DNS does. */
function fakeResolver(table: Record<string, string[]>): HostResolver {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

async function refusal(url: string, policy: NetworkPolicy | undefined, lookup?: HostResolver): Promise<ToolNetworkError> {
  const error = await checkDestination(new URL(url), policy, { lookup }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolNetworkError);
  return error as ToolNetworkError;
}

const PUBLIC = "93.184.215.14";
const unrestricted: NetworkPolicy = { kind: "unrestricted" };

describe("addressCategory", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.100.100.200", "carrier-grade NAT"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["169.254.169.254", "cloud metadata"],
    ["fd00:ec2::254", "cloud metadata"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "cloud metadata"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::10.0.0.1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["192.0.2.1", "documentation"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.10", "documentation"],
    ["2001:db8::1", "documentation"],
    ["2001:db8:ffff:ffff::1", "documentation"],
    ["::ffff:203.0.113.10", "documentation"],
    ["2002:c000:0201::", "documentation"],
    ["100::1", "discard-only"],
    ["100::ffff:ffff:ffff:ffff", "discard-only"],
    ["2001::1", "Teredo"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
  ])("%s is %s", (address, category) => {
    expect(addressCategory(address)).toBe(category);
  });

  it.each(["8.8.8.8", "172.32.0.1", "100.128.0.1", "93.184.215.14", "192.0.3.1", "198.51.101.1", "203.0.114.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2001:db9::1", "2001:1::1", "100:0:0:1::1"])(
    "%s is public",
    (address) => {
      expect(addressCategory(address)).toBeUndefined();
    },
  );
});

describe("checkDestination", () => {
  it("refuses every request under policy none, naming the host but not the path or query", async () => {
    const error = await refusal("https://api.example.com/items?token=abc", { kind: "none" });
    expect(error.code).toBe("network-denied");
    expect(error.message).toContain("api.example.com");
    expect(error.message).toContain('"none"');
    expect(error.message).not.toContain("token");
  });

  it("allows a public address under unrestricted and under an absent policy, returning the address to pin", async () => {
    const lookup = fakeResolver({ "api.example.com": [PUBLIC] });
    for (const policy of [unrestricted, undefined]) {
      await expect(checkDestination(new URL("https://api.example.com/x"), policy, { lookup })).resolves.toEqual({
        hostname: "api.example.com",
        port: 443,
        address: PUBLIC,
        family: 4,
      });
    }
  });

  it("matches allowlist entries by host (any port) or host:port (that port only)", async () => {
    const lookup = fakeResolver({ "api.example.com": [PUBLIC], "other.example.com": [PUBLIC] });
    await expect(checkDestination(new URL("http://API.example.com:8080/"), { kind: "allowlist", hosts: ["api.example.com"] }, { lookup })).resolves.toMatchObject({ port: 8080 });
    await expect(checkDestination(new URL("https://api.example.com/"), { kind: "allowlist", hosts: ["api.example.com:443"] }, { lookup })).resolves.toMatchObject({ port: 443 });
    const wrongPort = await refusal("https://api.example.com:8443/", { kind: "allowlist", hosts: ["api.example.com:443"] }, lookup);
    expect(wrongPort.message).toContain("not in the tool's network allowlist");
    await refusal("https://other.example.com/", { kind: "allowlist", hosts: ["api.example.com"] }, lookup);
  });

  it("refuses loopback, private and link-local addresses under unrestricted and absent policies", async () => {
    for (const url of ["http://127.0.0.1:8080/", "http://[::1]/", "http://10.0.0.8/", "http://169.254.10.10/", "http://[::ffff:127.0.0.1]/", "http://2130706433/", "http://0x7f.1/"]) {
      for (const policy of [unrestricted, undefined]) {
        const error = await refusal(url, policy);
        expect(error.code).toBe("network-denied");
      }
    }
    const error = await refusal("http://localhost:3000/", undefined, fakeResolver({ localhost: ["127.0.0.1"] }));
    expect(error.message).toBe("request to localhost:3000 refused: 127.0.0.1 is a loopback address, reachable only when the tool's network allowlist names this host");
  });

  it("refuses documentation, discard-only and Teredo addresses unless the allowlist names the host", async () => {
    const cases: Array<[string, string]> = [
      ["http://192.0.2.1/", "192.0.2.1 is a documentation address"],
      ["http://198.51.100.20:8080/", "198.51.100.20 is a documentation address"],
      ["https://203.0.113.9/", "203.0.113.9 is a documentation address"],
      ["http://[2001:db8::7]/", "2001:db8::7 is a documentation address"],
      ["http://[100::1]/", "100::1 is a discard-only address"],
      ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "2001:0:4136:e378:8000:63bf:3fff:fdd2 is a Teredo address"],
    ];
    for (const [url, reason] of cases) {
      for (const policy of [unrestricted, undefined]) {
        const error = await refusal(url, policy);
        expect(error.code).toBe("network-denied");
        expect(error.message).toContain(reason);
      }
    }
    const lookup = fakeResolver({ "docs.example.com": ["203.0.113.9"] });
    expect((await refusal("https://docs.example.com/", unrestricted, lookup)).message).toContain("203.0.113.9 is a documentation address");
    await expect(checkDestination(new URL("https://docs.example.com/"), { kind: "allowlist", hosts: ["docs.example.com"] }, { lookup })).resolves.toMatchObject({ address: "203.0.113.9" });
  });

  it("checks every address a name resolves to", async () => {
    const lookup = fakeResolver({ "mixed.example.com": [PUBLIC, "192.168.0.7"] });
    const error = await refusal("https://mixed.example.com/", unrestricted, lookup);
    expect(error.message).toContain("192.168.0.7 is a private address");
  });

  it("allows a non-public address when the allowlist names the host by name or IP (with or without port)", async () => {
    const lookup = fakeResolver({ "billing.internal": ["10.0.0.5"] });
    await expect(checkDestination(new URL("http://billing.internal/"), { kind: "allowlist", hosts: ["billing.internal"] }, { lookup })).resolves.toMatchObject({ address: "10.0.0.5" });
    await expect(checkDestination(new URL("http://127.0.0.1:9000/"), { kind: "allowlist", hosts: ["127.0.0.1:9000"] })).resolves.toMatchObject({ address: "127.0.0.1", port: 9000 });
    await expect(checkDestination(new URL("http://[::1]:9000/"), { kind: "allowlist", hosts: ["[::1]:9000"] })).resolves.toMatchObject({ address: "::1" });
    await expect(checkDestination(new URL("http://[::1]:9000/"), { kind: "allowlist", hosts: ["::1"] })).resolves.toMatchObject({ address: "::1" });
  });

  it("refuses metadata names without resolving them, and opens metadata only to an entry naming the metadata host itself", async () => {
    const lookup = vi.fn(fakeResolver({ "metadata.google.internal": ["169.254.169.254"], "innocent.example.com": ["169.254.169.254"] }));
    await refusal("http://metadata.google.internal/computeMetadata/v1/", unrestricted, lookup);
    expect(lookup).not.toHaveBeenCalled();
    const rebound = await refusal("http://innocent.example.com/", { kind: "allowlist", hosts: ["innocent.example.com"] }, lookup);
    expect(rebound.message).toContain("169.254.169.254 is a cloud metadata address");
    await expect(checkDestination(new URL("http://169.254.169.254/latest/"), { kind: "allowlist", hosts: ["169.254.169.254"] })).resolves.toMatchObject({ address: "169.254.169.254" });
    await expect(checkDestination(new URL("http://metadata.google.internal/"), { kind: "allowlist", hosts: ["metadata.google.internal"] }, { lookup })).resolves.toMatchObject({ address: "169.254.169.254" });
  });

  it("reports a host that does not resolve, and refuses schemes other than http(s)", async () => {
    const unresolvable = await refusal("https://nowhere.example.com/", unrestricted, fakeResolver({}));
    expect(unresolvable.code).toBe("host-unresolvable");
    expect(unresolvable.message).toContain("ENOTFOUND");
    const ftp = await refusal("ftp://files.example.com/", unrestricted);
    expect(ftp.code).toBe("network-denied");
  });
});

describe("pinnedLookup", () => {
  it("connects to the checked address even when DNS answers differently afterwards (rebinding)", async () => {
    const answers = [[PUBLIC], ["127.0.0.1"]];
    const resolver = vi.fn(async () => (answers.shift() ?? []).map((address) => ({ address, family: 4 as const })));
    const destination = await checkDestination(new URL("https://rebind.example.com/"), unrestricted, { lookup: resolver });
    expect(destination.address).toBe(PUBLIC);
    const lookup = pinnedLookup(destination);
    const single = await new Promise((resolve) => lookup("rebind.example.com", {}, (error, address, family) => resolve({ error, address, family })));
    const all = await new Promise((resolve) => lookup("rebind.example.com", { all: true }, (error, address) => resolve({ error, address })));
    expect(single).toEqual({ error: null, address: PUBLIC, family: 4 });
    expect(all).toEqual({ error: null, address: [{ address: PUBLIC, family: 4 }] });
    expect(resolver).toHaveBeenCalledTimes(1);
  });

  it("refuses to resolve any other host name", async () => {
    const lookup = pinnedLookup({ hostname: "a.example.com", port: 443, address: PUBLIC, family: 4 });
    const error = await new Promise((resolve) => lookup("b.example.com", {}, (caught) => resolve(caught)));
    expect(error).toMatchObject({ code: "ENOTFOUND" });
  });
});
