// The layer rules of ARCHITECTURE.md ("Billing is the core, payments the adapter", the dependency
// rule between the portal, the contract and the server). `npm run lint` runs dependency-cruiser
// with this file over every module; each rule says why it holds. dependency-cruiser cannot parse
// .astro files (it reads them as JavaScript and loses imports), so src/astro-dependency-rule.test.ts
// checks their frontmatter against this file's portal rule.
//
// Layers of server/:
// - the core: domain/ (pure rules), billing/ (with its ports in billing/ports/), api-access/, audit/,
//   usage/, accounts/, alerts/;
// - adapters: payments/ (implements billing's ports), mail/, db/;
// - the HTTP edge: http/, routes/, site/;
// - composition: main.ts (starts the process), app.ts (the Hono app), select-payments.ts (picks the
//   payment provider), and testing/ (builds apps for tests).
// Test files (*.test.ts) are composition too: they build what they test, so the layer rules apply
// to the code they test, not to them.
const TEST_FILE = "\\.test\\.tsx?$";
const CORE = "^server/(domain|billing|api-access|usage|accounts|alerts|audit|operations|csv)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "portal-reaches-only-portal-and-contract",
      comment:
        "The portal is a static site any CDN serves: it reaches the server only over HTTP, and shares " +
        "only contract/ with it (ARCHITECTURE.md: what both sides share lives in a module both import).",
      severity: "error",
      from: { path: "^src/" },
      to: { dependencyTypes: ["local"], pathNot: "^(src|contract)/" },
    },
    {
      name: "contract-reaches-only-contract",
      comment: "contract/ is imported by both sides, so it imports neither.",
      severity: "error",
      from: { path: "^contract/" },
      to: { dependencyTypes: ["local"], pathNot: "^contract/" },
    },
    {
      name: "domain-imports-nothing-of-server",
      comment: "domain/ holds the pure rules: nothing of the server (database, HTTP, billing) reaches in.",
      severity: "error",
      from: { path: "^server/domain/", pathNot: TEST_FILE },
      to: { path: "^server/", pathNot: "^server/domain/" },
    },
    {
      name: "core-knows-no-http-nor-composition",
      comment:
        "The core never knows about HTTP: its errors are its own and the routes map them to answers; " +
        "nor does it reach the app or the process that assemble it.",
      severity: "error",
      from: { path: CORE, pathNot: TEST_FILE },
      to: { path: "^server/(routes/|http/|site/|testing/|app\\.ts$|main\\.ts$|select-payments\\.ts$)" },
    },
    {
      name: "core-never-imports-payments",
      comment:
        "Billing is the core and payments the adapter: billing defines what it needs (billing/ports/) " +
        "and payments/ implements it. Imports point from payments to billing, never back.",
      severity: "error",
      from: { path: CORE, pathNot: TEST_FILE },
      to: { path: "^server/payments/" },
    },
    {
      name: "payments-reach-only-billing-ports",
      comment:
        "A payment adapter sees billing only through its ports (billing/ports/): the events billing " +
        "understands, the provider it must be, the store of customer ids it is given.",
      severity: "error",
      from: { path: "^server/payments/", pathNot: TEST_FILE },
      to: { path: "^server/(billing/(?!ports/)|api-access/|usage/|accounts/|alerts/)" },
    },
    {
      name: "adapters-know-no-http-nor-composition",
      comment:
        "Adapters (payments, mail, db) are given to the app; they do not reach the HTTP edge or the app.",
      severity: "error",
      from: { path: "^server/(payments|mail|db)/", pathNot: TEST_FILE },
      to: { path: "^server/(routes/|http/|testing/|app\\.ts$|main\\.ts$|select-payments\\.ts$)" },
    },
    {
      name: "only-composition-imports-routes-and-app",
      comment:
        "routes/, app.ts and main.ts are the outermost layer: only main.ts (which serves the app), app.ts " +
        "(which mounts the routes), the routes themselves, testing/ and tests import them, and " +
        "scripts/start.ts, npm start's entry, which runs main.ts.",
      severity: "error",
      from: {
        pathNot: `^server/(main\\.ts|app\\.ts|routes/|testing/)|${TEST_FILE}|^tests/|^bench/|^scripts/start\\.ts$`,
      },
      to: { path: "^server/(routes/|app\\.ts$|main\\.ts$)" },
    },
    {
      name: "no-circular",
      comment: "A cycle makes two modules one: neither can be read, tested or moved without the other.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.astro|\\.stryker-tmp|reports)/" },
    // Type-only imports count: a type from the wrong layer ties the layers as much as a value does.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json", ".astro"],
    },
    moduleSystems: ["es6", "cjs"],
  },
};
