/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its .wasm/.data files relative to its own module; bundling it breaks that in server components.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "pino"],
  poweredByHeader: false,
  // For every path, static files included; the Content-Security-Policy, which needs a nonce per request, is set in
  // proxy.ts (lib/security/headers.ts).
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          // Key pages have business keys in their paths: other sites are not told which.
          { key: "Referrer-Policy", value: "same-origin" },
          // For browsers that predate CSP's frame-ancestors.
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default nextConfig;
