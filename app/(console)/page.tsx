import { ConsoleHome } from "@/components/shell/console-home";

export const metadata = { title: "Home · Kindgi Console" };

// / – where a signed-in person starts
export default function HomePage() {
  return <ConsoleHome />;
}
