/**
 * Server settings of the OCI artifact library, read from the environment like the database's (lib/db/config.ts).
 */
import path from "node:path";

/**
 * The artifact cache directory: `KINDGI_ARTIFACT_CACHE`, else `./data/artifacts` under the working directory, beside
 * the embedded database's `./data/pgdata`, so bundles survive restarts as the data does.
 */
export function defaultArtifactCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(/*turbopackIgnore: true*/ env.KINDGI_ARTIFACT_CACHE ?? "./data/artifacts");
}

/** Whether registries at loopback and private addresses are allowed: `KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES=1`. */
export function privateRegistriesAllowed(env: Record<string, string | undefined> = process.env): boolean {
  return env.KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES === "1";
}
