/**
 * Enforcement of a tool's `network` policy on what the runtime sends for it.
 *
 * - `none` refuses every request; `allowlist` refuses a host it does not name (`host` matches any port,
 *   `host:port` only that port); `unrestricted` allows public addresses.
 * - An absent policy is read as `unrestricted`: the field is an optional additive one in Tool 1.3.0, and tools
 *   written before it existed must keep working. Non-public addresses stay refused either way.
 * - Whatever the policy, a host that resolves to a loopback, private, link-local, carrier-grade NAT, unspecified,
 *   multicast, reserved, documentation (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32), discard-only
 *   (100::/64), Teredo (2001::/32) or cloud-metadata address is refused unless the allowlist names that host. A metadata
 *   address is stricter still: only an allowlist entry naming the metadata host itself (its IP or a metadata host
 *   name) opens it, never an ordinary name that happens to resolve there.
 * - The host is resolved once, every address it resolves to is checked, and the caller connects to the returned
 *   address only ({@link pinnedLookup}), so a second DNS answer cannot move the connection elsewhere (DNS rebinding).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import type { NetworkPolicy } from "./manifest-schema";

/** One address a host name resolves to. */
export type ResolvedAddress = { address: string; family: 4 | 6 };

/** Resolves a host name to all its addresses (the default is `dns.lookup` with `all: true`). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** A checked destination: the host as the URL names it and the one address the request must connect to. */
export type Destination = { hostname: string; port: number; address: string; family: 4 | 6 };

/** Why a destination was refused: the policy forbids it, or its host does not resolve. */
export type NetworkErrorCode = "network-denied" | "host-unresolvable";

/** A refused destination. The message names the host and port, never a path, query or header. */
export class ToolNetworkError extends Error {
  readonly code: NetworkErrorCode;

  constructor(code: NetworkErrorCode, message: string) {
    super(message);
    this.name = "ToolNetworkError";
    this.code = code;
  }
}

/** Why an address is not public. */
export type AddressCategory =
  | "loopback"
  | "private"
  | "link-local"
  | "carrier-grade NAT"
  | "unspecified"
  | "multicast"
  | "reserved"
  | "documentation"
  | "discard-only"
  | "Teredo"
  | "cloud metadata";

type Range = { family: 4 | 6; network: bigint; prefix: number; category: AddressCategory };

/** Non-public ranges, most specific first (the first match names the category). */
const RESTRICTED_RANGES: Range[] = [
  ["169.254.169.254/32", "cloud metadata"],
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrier-grade NAT"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"],
  ["192.0.2.0/24", "documentation"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "reserved"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["fd00:ec2::254/128", "cloud metadata"],
  ["100::/64", "discard-only"],
  ["2001:db8::/32", "documentation"],
  ["2001::/32", "Teredo"],
  ["fc00::/7", "private"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "private"],
  ["ff00::/8", "multicast"],
].map(([cidr, category]) => parseRange(cidr, category as AddressCategory));

/** IPv6 ranges that carry an IPv4 address: mapped, compatible, NAT64 (low 32 bits) and 6to4 (bits 16–47). */
const IPV4_CARRIERS: Array<{ range: Range; shift: bigint }> = [
  { range: parseRange("::ffff:0:0/96", "reserved"), shift: 0n },
  { range: parseRange("::/96", "reserved"), shift: 0n },
  { range: parseRange("64:ff9b::/96", "reserved"), shift: 0n },
  { range: parseRange("2002::/16", "reserved"), shift: 80n },
];

/** Host names of cloud metadata services. */
const METADATA_HOST_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);

/**
 * Checks that a request to `url` is allowed by `policy` (absent = `unrestricted`) and returns the address to connect
 * to. Throws a {@link ToolNetworkError}: `network-denied` when refused, `host-unresolvable` when the host has no address.
 */
export async function checkDestination(
  url: URL,
  policy: NetworkPolicy | undefined,
  options: { lookup?: HostResolver } = {},
): Promise<Destination> {
  const hostname = normalizeHost(url.hostname) ?? url.hostname;
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const where = `${url.host}`;
  if (url.protocol !== "http:" && url.protocol !== "https:") deny(where, `only http and https are allowed, not ${url.protocol}`);
  if (policy?.kind === "none") deny(where, 'the tool\'s network policy is "none"');
  const listed = policy?.kind === "allowlist" && policy.hosts.some((entry) => entryNames(entry, hostname, port));
  if (policy?.kind === "allowlist" && !listed) deny(where, "the host is not in the tool's network allowlist");
  if (!listed && METADATA_HOST_NAMES.has(hostname)) deny(where, `${hostname} is a cloud metadata host`);
  const addresses = await resolve(hostname, where, options.lookup ?? defaultResolver);
  for (const { address } of addresses) {
    const category = addressCategory(address);
    if (category && !(listed && (category !== "cloud metadata" || isMetadataHost(hostname)))) {
      deny(where, `${address} is a ${category} address, reachable only when the tool's network allowlist names this host`);
    }
  }
  return { hostname, port, ...addresses[0] };
}

/**
 * A `lookup` for `http.request` / `net.connect` that answers with the checked address only, so the connection goes
 * to exactly the address {@link checkDestination} allowed while the Host header and TLS SNI keep the host name.
 */
export function pinnedLookup(destination: Destination): LookupFunction {
  return (hostname, options, callback) => {
    if ((normalizeHost(hostname) ?? hostname) !== destination.hostname) {
      const error: NodeJS.ErrnoException = new Error(`connection is pinned to ${destination.hostname}, not ${hostname}`);
      error.code = "ENOTFOUND";
      callback(error, "", 0);
    } else if (options.all) {
      callback(null, [{ address: destination.address, family: destination.family }]);
    } else {
      callback(null, destination.address, destination.family);
    }
  };
}

/** The category of a non-public address, or undefined for a public one (or text that is not an IP address). */
export function addressCategory(address: string): AddressCategory | undefined {
  const parsed = parseIp(address);
  if (!parsed) return undefined;
  const direct = RESTRICTED_RANGES.find((range) => inRange(parsed, range))?.category;
  if (direct || parsed.family === 4) return direct;
  const carrier = IPV4_CARRIERS.find(({ range }) => inRange(parsed, range));
  return carrier ? ipv4Category((parsed.value >> carrier.shift) & 0xffffffffn) : undefined;
}

/** Whether `hostname` (lower case, without a final dot) is the host name of a cloud metadata service. */
export function isMetadataHostName(hostname: string): boolean {
  return METADATA_HOST_NAMES.has(hostname);
}

function ipv4Category(value: bigint): AddressCategory | undefined {
  return RESTRICTED_RANGES.find((range) => inRange({ family: 4, value }, range))?.category;
}

function deny(where: string, reason: string): never {
  throw new ToolNetworkError("network-denied", `request to ${where} refused: ${reason}`);
}

/** The system resolver (`dns.lookup`, every address, in the order the system gives them): the default {@link HostResolver}. */
export async function defaultResolver(hostname: string): Promise<ResolvedAddress[]> {
  const results = await dnsLookup(hostname, { all: true, verbatim: true });
  return results.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** An IP literal as itself; a name through `lookup`. */
async function resolve(hostname: string, where: string, lookup: HostResolver): Promise<ResolvedAddress[]> {
  const family = isIP(hostname);
  if (family === 4 || family === 6) return [{ address: hostname, family }];
  let addresses: ResolvedAddress[];
  try {
    addresses = await lookup(hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ToolNetworkError("host-unresolvable", `could not resolve ${where}${code ? ` (${code})` : ""}`);
  }
  if (addresses.length === 0) throw new ToolNetworkError("host-unresolvable", `could not resolve ${where}: no addresses`);
  return addresses;
}

/** True when an allowlist entry (`host`, `host:port`, `[v6]:port` or a bare IPv6 address) names this host and port. */
function entryNames(entry: string, hostname: string, port: number): boolean {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? /^([^:]+)(?::(\d+))?$/.exec(entry);
  const [host, entryPort] = match ? [match[1], match[2]] : [entry, undefined];
  return normalizeHost(host) === hostname && (entryPort === undefined || Number(entryPort) === port);
}

/** A host as the WHATWG URL parser spells it (lower case, IDN in punycode, IPv4 canonical), brackets and final dot removed. */
function normalizeHost(host: string): string | undefined {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  try {
    const parsed = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}`).hostname;
    return parsed.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

function isMetadataHost(hostname: string): boolean {
  return METADATA_HOST_NAMES.has(hostname) || addressCategory(hostname) === "cloud metadata";
}

function inRange(ip: { family: 4 | 6; value: bigint }, range: Range): boolean {
  const bits = BigInt(ip.family === 4 ? 32 : 128);
  const shift = bits - BigInt(range.prefix);
  return ip.family === range.family && ip.value >> shift === range.network >> shift;
}

function parseRange(cidr: string, category: AddressCategory): Range {
  const [address, prefix] = cidr.split("/");
  const parsed = parseIp(address);
  if (!parsed) throw new Error(`bad range ${cidr}`);
  return { family: parsed.family, network: parsed.value, prefix: Number(prefix), category };
}

/** An IPv4 or IPv6 address (a zone id is ignored) as its family and numeric value. */
function parseIp(address: string): { family: 4 | 6; value: bigint } | undefined {
  const bare = address.split("%")[0];
  const family = isIP(bare);
  if (family === 4) return { family, value: bare.split(".").reduce((value, octet) => (value << 8n) | BigInt(octet), 0n) };
  if (family !== 6) return undefined;
  const groups = ipv6Groups(bare);
  return { family, value: groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n) };
}

/** The eight 16-bit groups of an IPv6 address (the URL parser first turns an embedded dotted quad into hex). */
function ipv6Groups(address: string): number[] {
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [left, right] = canonical.split("::");
  const parse = (part: string | undefined) => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const head = parse(left);
  const tail = parse(right);
  return right === undefined ? head : [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}
