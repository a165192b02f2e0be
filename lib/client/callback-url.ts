/** A same-site path to return to after sign-in (never another site, never sign-in itself); else `fallback`. */
export function safeCallbackUrl(value: unknown, fallback = "/tools"): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  if (value === "/sign-in" || value.startsWith("/sign-in?") || value.startsWith("/api/")) return fallback;
  return value;
}
