/** @type {import('next').NextConfig} */
const nextConfig = {
  // The embedded database and the migration engine load WebAssembly and native files at run time.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/schema-engine-wasm", "pg"],
  poweredByHeader: false,
};

export default nextConfig;
