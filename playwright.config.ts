import { defineConfig } from "@playwright/test";

/**
 * Browser tests: Debian's Chromium (/usr/bin/chromium, never a downloaded browser) against the product started as
 * `npm start` does, once for the whole run (e2e/global-setup.ts). One worker: the machine is small, and the specs
 * share one server.
 */
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  globalSetup: "./e2e/global-setup.ts",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    browserName: "chromium",
    viewport: { width: 1366, height: 900 },
    colorScheme: "light",
    trace: "off",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.KINDGI_CHROMIUM ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
});
