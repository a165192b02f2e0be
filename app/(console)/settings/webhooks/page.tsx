import { WebhooksPage } from "@/components/settings/webhooks";

export const metadata = { title: "Webhooks · Settings · Kindgi Console" };

// /settings/webhooks
export default function Page() {
  return <WebhooksPage />;
}
