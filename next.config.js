/** @type {import('next').NextConfig} */
const nextConfig = {
  // The embedded database and the migration engine load WebAssembly and native files at run time.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/schema-engine-wasm", "pg"],
  poweredByHeader: false,
  // Responses are not gzipped by Node unless KINDGI_COMPRESS=1: compression belongs to the reverse proxy in front (gzip
  // on every response cost about 45 % of an authenticated read's throughput, and it can hold back server-sent events).
  compress: process.env.KINDGI_COMPRESS === "1",
};

export default nextConfig;
