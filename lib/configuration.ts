/**
 * The settings a server cannot start with when they are malformed, checked before anything else runs (`npm start`
 * before it builds, the server before it opens the database): a bad value stops the start with every problem on
 * stderr and a non-zero exit, instead of a server whose every request fails. Messages name the variable, never its value.
 *
 * Relative imports only, and only modules without dependencies: `scripts/start.mjs` loads this file through tsx.
 */
import { isWellFormedApiKey } from "./services/api-keys";
import { parseSecretsKey } from "./secrets/crypto";

/** Integer settings: the variable, its least value, what it is. */
const INTEGERS: Array<[name: string, min: number, max: number, what: string]> = [
  ["PORT", 1, 65_535, "the port to listen on"],
  ["KINDGI_DB_POOL_SIZE", 1, 10_000, "PostgreSQL connections per server process"],
  ["KINDGI_RUN_LEASE_MS", 1_000, Number.MAX_SAFE_INTEGER, "a run lease in milliseconds"],
  ["KINDGI_RUN_POLL_MS", 50, Number.MAX_SAFE_INTEGER, "the run poll interval in milliseconds"],
  ["KINDGI_RUN_CONCURRENCY", 1, 100_000, "runs one server executes at once"],
  ["KINDGI_ARTIFACT_MAX_MB", 1, 65_536, "the largest handler artifact in MiB (each blob, and unpacked)"],
];

/** Every problem of the configuration in `env`, one sentence each; empty when the server can start. */
export function configurationProblems(env: Record<string, string | undefined> = process.env): string[] {
  const problems: string[] = [];
  const bootstrapKey = env.KINDGI_BOOTSTRAP_API_KEY;
  if (bootstrapKey !== undefined && !isWellFormedApiKey(bootstrapKey)) problems.push("KINDGI_BOOTSTRAP_API_KEY must look like kgi_ followed by 20 to 200 letters and digits");
  const secretsKey = env.KINDGI_SECRETS_KEY;
  if (secretsKey !== undefined && secretsKey.trim() !== "") {
    try {
      parseSecretsKey(secretsKey, "KINDGI_SECRETS_KEY");
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  const privateRegistries = env.KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES;
  if (privateRegistries !== undefined && privateRegistries !== "" && privateRegistries !== "0" && privateRegistries !== "1") problems.push("KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES must be 1 (pull handler artifacts from loopback and private registries) or 0");
  const compress = env.KINDGI_COMPRESS;
  if (compress !== undefined && compress !== "" && compress !== "0" && compress !== "1") problems.push("KINDGI_COMPRESS must be 1 (gzip responses) or 0 (leave compression to the reverse proxy)");
  const expired = env.KINDGI_APPROVAL_EXPIRED;
  if (expired !== undefined && expired !== "" && expired !== "reject" && expired !== "fail") problems.push("KINDGI_APPROVAL_EXPIRED must be reject (an expired approval goes back to the model) or fail (the turn fails)");
  const logFormat = env.KINDGI_LOG_FORMAT?.trim().toLowerCase();
  if (logFormat && logFormat !== "json" && logFormat !== "pretty") problems.push("KINDGI_LOG_FORMAT must be json (one JSON line per event, the default) or pretty (lines for people at a terminal)");
  const logLevel = env.KINDGI_LOG_LEVEL?.trim().toLowerCase();
  if (logLevel && !["debug", "info", "warn", "error"].includes(logLevel)) problems.push("KINDGI_LOG_LEVEL must be debug, info, warn or error");
  for (const [name, min, max, what] of INTEGERS) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || parsed < min || parsed > max) problems.push(`${name} (${what}) must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}`);
  }
  return problems;
}

/** A configuration the server cannot start with. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`the configuration is not valid:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigurationError";
  }
}

/** Throws a {@link ConfigurationError} listing every problem, if there is one. */
export function assertConfiguration(env: Record<string, string | undefined> = process.env): void {
  const problems = configurationProblems(env);
  if (problems.length) throw new ConfigurationError(problems);
}
