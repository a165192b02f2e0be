/**
 * The documentation's relative links lead somewhere: every link and image in README.md, docs/*.md and bench/README.md
 * that is not a URL names a file of the repository, and a `#anchor` names a heading of the page it points to (GitHub's
 * slugs: lower case, punctuation other than hyphens and underscores removed, spaces become hyphens, a repeated
 * heading gets -1, -2, …). Links inside code blocks and code spans are text, not links.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

/** The Markdown files checked, relative to the repository's root. */
function pages(): string[] {
  const docs = fs.readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`);
  return ["README.md", "bench/README.md", ...docs.sort()];
}

/** The text of a page outside fenced code blocks and HTML comments, line by line (code spans blanked). */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.replace(/<!--[\s\S]*?-->/g, "").split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      lines.push("");
      continue;
    }
    lines.push(fence === undefined ? line.replace(/(`+)[^`]*?\1/g, (span) => " ".repeat(span.length)) : "");
  }
  return lines;
}

/** GitHub's anchor of a heading's text. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a page offers: its headings' slugs, a repeated one numbered as GitHub numbers it. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fence: string | undefined;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) fence = fence === undefined ? marker : undefined;
    if (fence !== undefined || marker) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** A Markdown link or image: `[text](target)`, `![alt](target "title")`. */
const LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;

type Link = { page: string; line: number; target: string };

/** The relative links and images of a page (URLs with a scheme, and mail addresses, left out). */
function relativeLinks(page: string): Link[] {
  const links: Link[] = [];
  proseLines(fs.readFileSync(path.join(root, page), "utf8")).forEach((text, index) => {
    for (const match of text.matchAll(LINK)) {
      const target = match[1];
      if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ page, line: index + 1, target });
    }
  });
  return links;
}

/** What is wrong with a link, or undefined when it leads where it says. */
function problem(link: Link): string | undefined {
  const [pathPart, anchor] = link.target.split("#", 2) as [string, string | undefined];
  const file = pathPart === "" ? path.join(root, link.page) : path.resolve(path.join(root, path.dirname(link.page)), decodeURIComponent(pathPart));
  if (!file.startsWith(root + path.sep)) return "points outside the repository";
  if (!fs.existsSync(file)) return `${path.relative(root, file)} does not exist`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith(".md")) return `has an anchor on ${path.relative(root, file)}, which is not a Markdown page`;
  if (!anchors(file).has(decodeURIComponent(anchor))) return `${path.relative(root, file)} has no heading #${anchor}`;
  return undefined;
}

describe("the documentation's links", () => {
  it("slugs headings as GitHub does", () => {
    expect(slug("Deploying behind nginx")).toBe("deploying-behind-nginx");
    expect(slug("The catalog as an MCP server (`/v1/mcp`)")).toBe("the-catalog-as-an-mcp-server-v1mcp");
    expect(slug("Approvals, grants, pauses and triggers")).toBe("approvals-grants-pauses-and-triggers");
    expect(slug("Where `whoami`'s gap and the POST's slowest requests come from")).toBe("where-whoamis-gap-and-the-posts-slowest-requests-come-from");
    expect(slug("Toolsets: chosen tools and agents as an MCP server (`/v1/mcp/toolsets/{id}`)")).toBe("toolsets-chosen-tools-and-agents-as-an-mcp-server-v1mcptoolsetsid");
  });

  it("reads links, skipping code and URLs", () => {
    const lines = proseLines("see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d](https://example.com) ![e](e.png \"title\")");
    const found = lines.flatMap((text) => [...text.matchAll(LINK)].map((match) => match[1]));
    expect(found).toEqual(["a.md", "https://example.com", "e.png"]);
  });

  it("has a page per area, each linked from the README and from docs/README.md", () => {
    const readme = relativeLinks("README.md").map((link) => link.target);
    const index = relativeLinks("docs/README.md").map((link) => `docs/${link.target}`);
    for (const page of pages().filter((page) => page.startsWith("docs/") && page !== "docs/README.md")) {
      expect(readme, page).toContain(page);
      expect(index, page).toContain(page);
    }
  });

  it("point to files that exist, and to headings those pages have", () => {
    const links = pages().flatMap(relativeLinks);
    expect(links.length).toBeGreaterThan(30);
    expect(links.filter((link) => link.target.includes("#")).length).toBeGreaterThan(5);
    const broken = links.flatMap((link) => {
      const why = problem(link);
      return why ? [`${link.page}:${link.line}: ${link.target}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });
});
