/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its .wasm/.data files relative to its own module; bundling it breaks that in server components.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "pino"],
  poweredByHeader: false,
};

export default nextConfig;
