import { SecretsPage } from "@/components/settings/secrets";

export const metadata = { title: "Secrets · Settings · Kindgi Console" };

// /settings/secrets
export default function Page() {
  return <SecretsPage />;
}
