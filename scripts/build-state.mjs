// Whether `.next` is older than the sources it was built from (used by `npm start` and the browser tests).
import fs from "node:fs";
import path from "node:path";

function newestSourceTime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "generated" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceTime(full));
    else newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** True when there is no build, or a file under app/, components/, lib/, public/ or a config file is newer than it. */
export function buildIsStale(root) {
  const buildId = path.join(root, ".next/BUILD_ID");
  if (!fs.existsSync(buildId)) return true;
  const built = fs.statSync(buildId).mtimeMs;
  const sources = ["app", "components", "lib", "public"].map((dir) => path.join(root, dir)).filter((dir) => fs.existsSync(dir));
  const files = ["next.config.js", "package.json", "instrumentation.ts", "postcss.config.mjs", "tsconfig.json"].map((file) => path.join(root, file)).filter((file) => fs.existsSync(file));
  const newest = Math.max(...sources.map(newestSourceTime), ...files.map((file) => fs.statSync(file).mtimeMs));
  return newest > built;
}
