import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, request as playwrightRequest, type Page } from "@playwright/test";
import { E2E_STATE_VARIABLE, type E2eState } from "./state";

export { expect };

export function e2eState(): E2eState {
  const file = process.env[E2E_STATE_VARIABLE];
  if (!file) throw new Error(`${E2E_STATE_VARIABLE} is not set: run the specs with \`npx playwright test\` (its global setup starts the server)`);
  return JSON.parse(fs.readFileSync(file, "utf8")) as E2eState;
}

export type ApiResponse<T = unknown> = { status: number; body: T; headers: Headers };

/** /v1 with the bootstrap admin key (to arrange data for a page, or to check what a page did). */
export type ApiClient = {
  request<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  get<T = unknown>(path: string): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown): Promise<ApiResponse<T>>;
};

function apiClient(state: E2eState): ApiClient {
  const request = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> => {
    const response = await fetch(`${state.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${state.bootstrapKey}`, ...(body !== undefined ? { "Content-Type": "application/json" } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
  };
  return { request, get: (path) => request("GET", path), post: (path, body) => request("POST", path, body ?? {}) };
}

/** Signs in over HTTP as next-auth's form does (CSRF token, then the credentials callback); returns the browser state. */
export async function signInState(state: E2eState, email = state.adminEmail, password = state.adminPassword) {
  const context = await playwrightRequest.newContext({ baseURL: state.baseUrl });
  try {
    const { csrfToken } = (await (await context.get("/api/auth/csrf")).json()) as { csrfToken: string };
    const response = await context.post("/api/auth/callback/credentials", { form: { csrfToken, email, password, json: "true" } });
    if (!response.ok()) throw new Error(`sign-in failed: HTTP ${response.status()}`);
    const storage = await context.storageState();
    if (!storage.cookies.some((cookie) => cookie.name.endsWith("next-auth.session-token"))) throw new Error("sign-in set no session cookie");
    return storage;
  } finally {
    await context.dispose();
  }
}

type WorkerFixtures = { e2e: E2eState; adminStorageState: Awaited<ReturnType<typeof signInState>> };
type TestFixtures = { api: ApiClient };

/**
 * `page` is signed in as the admin the server was started with; a spec that needs a visitor without a session uses
 * `test.use({ storageState: { cookies: [], origins: [] } })`. `api` calls /v1 with the bootstrap key.
 */
export const test = base.extend<TestFixtures, WorkerFixtures>({
  e2e: [async ({}, use) => use(e2eState()), { scope: "worker" }],
  adminStorageState: [async ({ e2e }, use) => use(await signInState(e2e)), { scope: "worker" }],
  baseURL: async ({ e2e }, use) => use(e2e.baseUrl),
  storageState: async ({ adminStorageState }, use) => use(adminStorageState),
  api: async ({ e2e }, use) => use(apiClient(e2e)),
});

/** axe-core (WCAG 2.0-2.2 A and AA rules) on the page as it is now; fails on any serious or critical violation. */
export async function expectNoSeriousA11yViolations(page: Page, options: { exclude?: string[] } = {}) {
  // Next streams a page's generated metadata: after a client-side navigation the <title> lands a moment later.
  await expect(page).toHaveTitle(/\S/);
  let builder = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]);
  for (const selector of options.exclude ?? []) builder = builder.exclude(selector);
  const results = await builder.analyze();
  const serious = results.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  const report = serious.map((violation) => `${violation.impact} ${violation.id}: ${violation.help}\n${violation.nodes.map((node) => `  ${node.target.join(" ")} — ${node.failureSummary?.split("\n").join(" ")}`).join("\n")}`);
  expect(report, `axe found serious or critical violations on ${page.url()}`).toEqual([]);
}

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, "screenshots");

/** Saves `e2e/screenshots/<name>.png` at 1366×900 (the viewport the config sets). */
export async function screenshot(page: Page, name: string) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const viewport = page.viewportSize();
  if (!viewport || viewport.width !== 1366 || viewport.height !== 900) await page.setViewportSize({ width: 1366, height: 900 });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}
