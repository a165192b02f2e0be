/** @type {import('next').NextConfig} */
const nextConfig = {
  // The embedded database and the migration engine load WebAssembly and native files at run time.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/schema-engine-wasm",
    "pg",
    // One copy of the OpenTelemetry API for the server and Next.js's own spans; the SDK loads only when traces are on.
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/resources",
    "@opentelemetry/exporter-trace-otlp-proto",
    "@opentelemetry/exporter-trace-otlp-http",
  ],
  poweredByHeader: false,
  // Responses are not gzipped by Node unless KINDGI_COMPRESS=1: compression belongs to the reverse proxy in front (gzip
  // on every response cost about 45 % of an authenticated read's throughput, and it can hold back server-sent events).
  compress: process.env.KINDGI_COMPRESS === "1",
};

export default nextConfig;
