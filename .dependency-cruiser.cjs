/**
 * The import rules of dupscope, checked by `npm run lint:deps` (part of `npm test`). docs/architecture.md draws
 * the layers; this file is what enforces them.
 *
 * A module may import from its own layer and the layers below it, never from one above. The read side runs
 * route (app) → HTTP (lib/api) → read model (lib/views) → data access (lib/queries, lib/store) → diagnosis, and
 * no arrow may run back up. Within a layer any import is allowed as long as it makes no cycle.
 */
const LAYERS = [
  {
    name: "foundation",
    what: "the event model, domain errors, logging, background loops, outbound network rules, headers, the formats of times and durations and the locales they are written in",
    path: "^lib/(events/|errors\\.ts$|log\\.ts$|periodic\\.ts$|net/|security/|generated/|format/|i18n/locale\\.ts$)",
  },
  {
    name: "domain",
    what: "pure parsing and diagnosis: collectors, the diagnosis engine, timelines, group membership, the simulator",
    path: "^(collectors/(?![^/]+/testdata/)|lib/(diagnosis|timeline|groups|simulator)/)",
  },
  {
    name: "data access",
    what: "the store (connections, migrations, writes) and the read side's SQL",
    path: "^lib/(store|queries|redis|live|auth)/",
  },
  {
    name: "services",
    what: "jobs and pipelines built on the store: ingest, diagnosis queue, alerts, metrics, RabbitMQ, demo, business-table probes, retention",
    // lib/probe: reads the application's own database (I/O, like lib/rabbitmq) and hands events to the ingest sinks.
    path: "^lib/(ingest|diagnosis-queue|alerts|metrics|rabbitmq|demo|probe|retention)/",
  },
  {
    name: "read models and words",
    what: "what a page or an API answer shows, and the words it is shown in",
    path: "^lib/(views/|i18n/(?!locale\\.ts$))",
  },
  { name: "http", what: "request guards, bodies, query strings and the error contract", path: "^lib/api/" },
  {
    name: "entry points",
    what: "routes, components, the CLI, scripts, benches, tests",
    path: "^(app/|components/|cli/|bin/|scripts/|bench/|tests/|collectors/[^/]+/testdata/|[^/]+\\.(ts|tsx|mjs)$)",
  },
];

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.name.replace(/\W+/g, "-")}`,
  comment: `${layer.name} (${layer.what}) may not import a higher layer: ${LAYERS.slice(i + 1)
    .map((l) => l.name)
    .join(", ")}`,
  severity: "error",
  from: { path: layer.path },
  to: { path: LAYERS.slice(i + 1).map((l) => l.path) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "An import cycle means two modules are one; split out what both need.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-not-ui",
      comment: "lib/ is imported by the UI, never the other way round.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(app|components)/" },
    },
    {
      name: "diagnosis-pure",
      comment: "The diagnosis engine is pure: it reads normalized events (lib/events) and nothing else, no I/O, no words.",
      severity: "error",
      from: { path: "^lib/diagnosis/" },
      to: { pathNot: "^lib/(diagnosis|events)/" },
    },
    {
      name: "package-standalone",
      comment: "Each folder under packages/ is an npm package of its own (packages/dedup is @dupscope/dedup, installed by applications): it imports only its own files and Node built-ins.",
      severity: "error",
      from: { path: "^packages/([^/]+)/" },
      to: { pathNot: "^packages/$1/", dependencyTypesNot: ["core"] },
    },
    {
      name: "dashboard-not-packages",
      comment: "The dashboard's package does not carry packages/ (.npmignore): only tests may import them, to check them.",
      severity: "error",
      from: { pathNot: "^(tests|packages)/" },
      to: { path: "^packages/" },
    },
    {
      name: "ui-reads-through-views",
      comment:
        "Pages, routes and components read through lib/views (what a page shows), not the SQL under it; they may open the store (lib/store/index.ts) and parse the filter bar (lib/queries/filters.ts).",
      severity: "error",
      from: { path: "^(app|components)/" },
      to: { path: "^lib/(queries|store)/", pathNot: "^lib/(store/index|queries/filters)\\.ts$" },
    },
    {
      name: "every-module-in-a-layer",
      comment: "A new top-level folder under lib/ or collectors/ must be placed in LAYERS in .dependency-cruiser.cjs.",
      severity: "error",
      from: { path: "^(lib|collectors)/", pathNot: LAYERS.map((l) => l.path) },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.next|lib/generated|packages/[^/]+/dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".mjs", ".js"] },
  },
};
