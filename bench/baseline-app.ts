/**
 * The bare Next.js app the benchmarks compare the product's routes with: the same `next` (node_modules is a symlink to
 * the product's), no app code. `GET /constant` answers a constant JSON; `POST /echo?bytes=N` reads and parses a JSON
 * body, as a `/v1` route does, and answers it back with N bytes of padding, so its answer is as long as the product
 * route's it stands beside.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { freePort, root } from "../tests/helpers/server";

/** Runs `node <args>` to completion; a build blocked by another `next build` in the same folder is retried for up to 5 min. */
export async function runNode(label: string, args: string[], cwd: string) {
  const started = performance.now();
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    const result = spawnSync(process.execPath, args, { cwd, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (result.status === 0) break;
    const output = `${result.stdout}\n${result.stderr}`;
    if (/Another next build process is already running/.test(output) && Date.now() < deadline) {
      console.log(`${label}: another next build is running in ${cwd}, retrying in 5 s…`);
      await new Promise((resolve) => setTimeout(resolve, 5000));
      continue;
    }
    throw new Error(`${label} failed (${result.status ?? result.signal}):\n${output}`);
  }
  console.log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function commonAncestor(a: string, b: string): string {
  const left = a.split(path.sep);
  const right = b.split(path.sep);
  let i = 0;
  while (i < left.length && i < right.length && left[i] === right[i]) i++;
  return left.slice(0, i).join(path.sep) || path.sep;
}

/** Writes the baseline app (`GET /constant`, `POST /echo`) into `dir` and builds it. */
export async function createBaselineApp(dir: string) {
  fs.mkdirSync(path.join(dir, "app/constant"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "kindgi-bench-baseline", private: true, type: "module" }, null, 2) + "\n");
  // node_modules is a symlink to /work/main/node_modules; Turbopack only resolves files inside its root, so the root
  // is the nearest directory holding both (the same for output file tracing, which Next.js wants equal to it).
  const workspaceRoot = commonAncestor(fs.realpathSync(dir), fs.realpathSync(root));
  fs.writeFileSync(
    path.join(dir, "next.config.mjs"),
    `/** @type {import('next').NextConfig} */\nexport default { poweredByHeader: false, compress: false, turbopack: { root: ${JSON.stringify(workspaceRoot)} }, outputFileTracingRoot: ${JSON.stringify(workspaceRoot)} };\n`,
  );
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: { target: "ES2022", lib: ["dom", "dom.iterable", "esnext"], allowJs: true, skipLibCheck: true, strict: true, noEmit: true, esModuleInterop: true, module: "esnext", moduleResolution: "bundler", resolveJsonModule: true, isolatedModules: true, jsx: "react-jsx", incremental: true, plugins: [{ name: "next" }] },
        include: ["next-env.d.ts", "**/*.ts", "**/*.tsx", ".next/types/**/*.ts"],
        exclude: ["node_modules"],
      },
      null,
      2,
    ) + "\n",
  );
  fs.writeFileSync(path.join(dir, "app/layout.tsx"), 'export default function RootLayout({ children }: { children: React.ReactNode }) {\n  return (\n    <html lang="en">\n      <body>{children}</body>\n    </html>\n  );\n}\n');
  fs.writeFileSync(path.join(dir, "app/constant/route.ts"), 'export const dynamic = "force-dynamic";\n\nexport function GET() {\n  return Response.json({ ok: true, items: [1, 2, 3] });\n}\n');
  fs.mkdirSync(path.join(dir, "app/echo"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "app/echo/route.ts"),
    'export const dynamic = "force-dynamic";\n\nexport async function POST(request: Request) {\n  const body: unknown = await request.json();\n  const bytes = Math.min(Math.max(Number(new URL(request.url).searchParams.get("bytes")) || 0, 0), 1 << 20);\n  return Response.json({ ok: true, body, padding: "x".repeat(bytes) }, { status: 201 });\n}\n',
  );
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  await runNode("baseline next build", [path.join(dir, "node_modules/next/dist/bin/next"), "build"], dir);
}

/** `next start` of the baseline app on 127.0.0.1; resolves once GET /constant answers 200. */
export async function startBaseline(dir: string): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(dir, "node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    kill("SIGTERM");
    const timer = setTimeout(() => kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`baseline server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/constant`);
      await response.text();
      if (response.ok) return { baseUrl, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`baseline server did not answer:\n${output}`);
}
