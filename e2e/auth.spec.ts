import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./fixtures";

test.describe("without a session", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("signs in with the printed admin and sees the shell", async ({ page, e2e }) => {
    await page.goto("/");
    await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2F$/);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await expect(page.getByLabel("Email")).toBeFocused();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, "sign-in");

    await page.getByLabel("Email").fill(e2e.adminEmail);
    await page.getByLabel("Password").fill(e2e.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(new URL("/", e2e.baseUrl).href);

    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Catalog" })).toHaveAttribute("href", "/tools");
    await expect(nav.getByRole("link", { name: "Agents" })).toHaveAttribute("href", "/agents");
    await expect(nav.getByRole("link", { name: "Playground" })).toHaveAttribute("href", "/playground");
    await expect(nav.getByRole("link", { name: "Runs" })).toHaveAttribute("href", "/runs");
    await expect(nav.getByRole("link", { name: "Settings" })).toHaveAttribute("href", "/settings");
    await expect(nav.getByRole("link", { name: "Approvals" })).toHaveAttribute("href", "/approvals");
    await expect(page.getByRole("heading", { name: "Home", level: 1 })).toBeVisible();
    await expect(page.getByText(e2e.adminEmail).first()).toBeVisible();
    await expect(page.getByRole("combobox", { name: "Project", exact: true })).toHaveValue(e2e.defaultProjectId);
  });

  test("a console URL without a session goes to sign-in and comes back to it afterwards", async ({ page, e2e }) => {
    await page.goto(`/?project=${e2e.defaultProjectId}&from=bookmark`);
    await expect(page).toHaveURL(/\/sign-in\?callbackUrl=/);
    expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe(`/?project=${e2e.defaultProjectId}&from=bookmark`);
    await page.getByLabel("Email").fill(e2e.adminEmail);
    await page.getByLabel("Password").fill(e2e.adminPassword);
    await page.getByLabel("Password").press("Enter");
    await expect(page).toHaveURL(`${e2e.baseUrl}/?project=${e2e.defaultProjectId}&from=bookmark`);
    await expect(page.getByRole("heading", { name: "Home", level: 1 })).toBeVisible();
  });

  test("a wrong password shows an error and signs nobody in", async ({ page, e2e }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(e2e.adminEmail);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "The email or password is wrong." })).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in/);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, "sign-in-wrong-password");
    expect((await page.request.get("/v1/identity/whoami")).status()).toBe(401);
  });

  test("a sign-in link cannot send a person to another site", async ({ page, e2e }) => {
    await page.goto(`/sign-in?callbackUrl=${encodeURIComponent("https://evil.example/")}`);
    await page.getByLabel("Email").fill(e2e.adminEmail);
    await page.getByLabel("Password").fill(e2e.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${e2e.baseUrl}/`);
  });
});

test.describe("signed in", () => {
  test("the project switcher lists the person's projects and remembers the choice", async ({ page, api }) => {
    const name = `Switcher ${Date.now()}`;
    const created = await api.post<{ id: string }>("/v1/projects", { name });
    expect(created.status).toBe(201);
    await page.goto("/");
    const switcher = page.getByRole("combobox", { name: "Project", exact: true });
    await expect(switcher.getByRole("option", { name })).toHaveCount(1);
    await expect(switcher.getByRole("option", { name: "Default (default)" })).toHaveCount(1);
    await switcher.selectOption(created.body.id);
    await expect(page.getByText(created.body.id, { exact: true })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("combobox", { name: "Project", exact: true })).toHaveValue(created.body.id);
    await expect(page.getByText(created.body.id, { exact: true })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, "home");
  });

  test("the browser's own requests pass the Origin rule; a request without Origin is refused", async ({ page }) => {
    await page.goto("/");
    const fromPage = await page.evaluate(async () => {
      const response = await fetch("/v1/projects", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: `From the page ${Date.now()}` }) });
      return response.status;
    });
    expect(fromPage).toBe(201);
    const withoutOrigin = await page.request.post("/v1/projects", { data: { name: "no origin" } });
    expect(withoutOrigin.status()).toBe(403);
    expect((await withoutOrigin.json()).error.code).toBe("csrf-origin-mismatch");
  });

  test("/ focuses the search box and Enter opens the catalog with the text", async ({ page, e2e }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { name: "Home", level: 1 })).toBeVisible();
    await page.locator("body").press("/");
    const search = page.getByRole("searchbox", { name: "Search" });
    await expect(search).toBeFocused();
    await search.fill("weather lookup");
    await search.press("Enter");
    // The catalog keeps its search in the URL and may re-encode it; either spelling of the space is the same query.
    await expect(page).toHaveURL(new RegExp(`^${e2e.baseUrl.replace(/[.:/]/g, "\\$&")}/tools\\?q=weather(\\+|%20)lookup$`));
    await expect(page.getByRole("searchbox", { name: "Search tools" })).toHaveValue("weather lookup");
  });

  test("the Approvals entry leads to the approval inbox", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click();
    await expect(page).toHaveURL(/\/approvals$/);
    await expect(page.getByRole("heading", { name: /^Approvals/, level: 1 })).toBeVisible();
  });

  test("fits a 1280-px laptop screen without sideways scrolling", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/");
    await expect(page.getByRole("heading", { name: "Home", level: 1 })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeInViewport();
    await expect(page.getByRole("button", { name: "Sign out" })).toBeInViewport();
  });

  test("the console follows a dark system theme and stays accessible", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/");
    await expect(page.getByRole("heading", { name: "Home", level: 1 })).toBeVisible();
    await expect(page.getByText("Signed in as")).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, "home-dark");
  });

  test("sign out, then the console and the API refuse the browser", async ({ page, e2e }) => {
    await page.goto("/");
    expect((await page.request.get("/v1/identity/whoami")).status()).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in\?signedOut=1$/);
    await expect(page.getByRole("status").filter({ hasText: "You are signed out." })).toBeVisible();
    const refused = await page.request.get("/v1/identity/whoami");
    expect(refused.status()).toBe(401);
    expect((await refused.json()).error.code).toBe("auth-missing");
    await page.goto("/");
    await expect(page).toHaveURL(`${e2e.baseUrl}/sign-in?callbackUrl=%2F`);
  });
});
