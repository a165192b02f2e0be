import type { ReactNode } from "react";
import "./globals.css";

export const metadata = {
  title: "Kindgi Console",
  description: "Self-hostable agent runtime: tools, agents, runs and approvals.",
  // public/: the icon as browsers ask for it (/favicon.ico), and as a vector for those that take one.
  icons: { icon: [{ url: "/favicon.ico", sizes: "32x32" }, { url: "/icon.svg", type: "image/svg+xml" }] },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">{children}</body>
    </html>
  );
}
