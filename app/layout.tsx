import type { ReactNode } from "react";
import "./globals.css";

export const metadata = { title: "Kindgi Console", description: "Self-hostable agent runtime: tools, agents, runs and approvals." };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">{children}</body>
    </html>
  );
}
