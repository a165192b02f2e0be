/**
 * `context.fetch` on the server side: the tool's `network` policy is checked for the URL (and each redirect), and
 * the connection goes to the checked address only (no second DNS answer can point it elsewhere).
 */
import http from "node:http";
import https from "node:https";
import { checkDestination, pinnedLookup } from "@/lib/tools/network-policy";
import type { NetworkPolicy } from "@/lib/tools/manifest-schema";

export type FetchRequest = { url: string; method: string; headers: Record<string, string>; body?: string };
export type FetchAnswer = { status: number; headers: Record<string, string>; body: string };

const MAX_BODY_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export async function policyFetch(request: FetchRequest, policy: NetworkPolicy | undefined, signal: AbortSignal): Promise<FetchAnswer> {
  let url = new URL(request.url);
  let { method, body } = request;
  let headers = { ...request.headers };
  for (let hop = 0; ; hop += 1) {
    const destination = await checkDestination(url, policy);
    const answer = await send(url, { method, headers, body }, pinnedLookup(destination), signal);
    const location = answer.headers.location;
    if (answer.status < 300 || answer.status > 399 || !location || hop >= MAX_REDIRECTS) return answer;
    const next = new URL(location, url);
    if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !["authorization", "cookie"].includes(name.toLowerCase())));
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
    url = next;
  }
}

function send(url: URL, init: { method: string; headers: Record<string, string>; body?: string }, lookup: ReturnType<typeof pinnedLookup>, signal: AbortSignal): Promise<FetchAnswer> {
  return new Promise((resolve, reject) => {
    const library = url.protocol === "https:" ? https : http;
    const req = library.request(url, { method: init.method, headers: init.headers, lookup, signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          req.destroy(new Error(`the response is larger than ${MAX_BODY_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}
