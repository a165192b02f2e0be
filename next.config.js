/** @type {import('next').NextConfig} */
const nextConfig = {
  // The embedded database and the migration engine load WebAssembly and native files at run time.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/schema-engine-wasm", "pg"],
  poweredByHeader: false,
  experimental: {
    // Next.js buffers a request body for the proxy (proxy.ts) up to this size and silently cuts the rest. Twice the
    // API's 1 MiB limit: memory per request stays small, and a body past the limit still arrives past it (so 413).
    proxyClientMaxBodySize: 2 * 1024 * 1024,
  },
};

export default nextConfig;
