import type { ReactNode } from "react";
import "./globals.css";

export const metadata = { title: "Kindgi Console", description: "Self-hostable agent runtime: tools, agents, runs and approvals." };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
