import { ApiKeysPage } from "@/components/settings/api-keys";

export const metadata = { title: "API keys · Settings · Kindgi Console" };

// /settings/api-keys
export default function Page() {
  return <ApiKeysPage />;
}
