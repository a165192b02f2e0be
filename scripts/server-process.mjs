// How scripts/start.mjs runs the server: the Node.js arguments of the `next start` process.

/**
 * V8's young generation, in MB per semi-space (V8's own default is 16). Under load a request's objects that are still
 * in flight when the young generation fills are copied, and promoted after a second copy; a larger one fills less
 * often, so a request costs less (README, "The young generation"). V8's young generation is three semi-spaces, so it
 * can hold up to 3 × (64 − 16) = 144 MB more memory (Node.js documents the factor under --max-semi-space-size).
 */
export const SEMI_SPACE_MB = 64;

/**
 * `node <these> …`: the young generation's size (unless NODE_OPTIONS sets one: the operator's choice is kept), the
 * HTTP front (`--import`), then `next start` on `host`:`port`.
 */
export function serverNodeArgs({ nodeOptions = "", edgeUrl, nextBin, host, port }) {
  const heap = /(^|\s)--max-semi-space-size[=\s]/.test(nodeOptions) ? [] : [`--max-semi-space-size=${SEMI_SPACE_MB}`];
  return [...heap, "--import", edgeUrl, nextBin, "start", "-H", host, "-p", port];
}
