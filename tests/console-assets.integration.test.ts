/**
 * The console's static assets from public/: the icon every page asks for (`/favicon.ico`, also linked from the
 * pages with the vector `/icon.svg`) is served to anyone, signed in or not.
 */
import { describe, expect, it } from "vitest";
import { kindgi } from "./helpers/api";

describe("the console's icon", () => {
  it("GET /favicon.ico and /icon.svg answer the icon without a session; the sign-in page links them", async () => {
    const ico = await fetch(`${kindgi().baseUrl}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get("content-type")).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    const bytes = new Uint8Array(await ico.arrayBuffer());
    // An ICO file: reserved 0, type 1 (icon), one image of 32 × 32.
    expect([...bytes.slice(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 32, 32]);
    const svg = await fetch(`${kindgi().baseUrl}/icon.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get("content-type")).toContain("image/svg+xml");
    const page = await (await fetch(`${kindgi().baseUrl}/sign-in`)).text();
    expect(page).toContain('rel="icon" href="/favicon.ico"');
    expect(page).toContain('href="/icon.svg"');
  });
});
