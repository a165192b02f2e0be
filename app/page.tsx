export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-3xl font-semibold">Kindgi Console</h1>
      <p className="mt-4">The agent runtime is running. The REST API is served under <code>/v1</code>.</p>
      <ul className="mt-4 list-disc pl-6">
        <li>
          <a className="text-indigo-700 underline" href="/v1/openapi.json">API reference (OpenAPI 3.1)</a>
        </li>
        <li>
          <a className="text-indigo-700 underline" href="/health">Health</a>
        </li>
      </ul>
    </main>
  );
}
