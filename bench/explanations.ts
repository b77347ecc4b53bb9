// Words for the report that figures cannot say: what holds back a budget when it fails and what
// meeting it would take (by budget id; printed only for budgets that failed in that run), and what
// was done to meet the budgets (printed always). Measured on the benchmark machine, 2026-11-23.

export const EXPLANATIONS: Readonly<Record<string, string>> = {
  "api-auto-top-up-consume-rate":
    "With auto top-up on, the spend batch's query that reads the organisation also joins its settings " +
    "by primary key (a join it makes for every organisation), and nothing is queued above the threshold. On a " +
    "loaded machine each round's ratio swings far wider than 10 % from round to round: " +
    "on 2026-11-28 (load average 12 to 16 on 2 cores) the rounds' ratios were 0.65, 1.01, 0.84 in one run " +
    "and 1.40, 0.43, 1.17, 0.86, 0.91 in another (median -9.2 %, within). Rerun on a quiet machine, with " +
    "more rounds (`--rounds=10`), before reading a failure here as auto top-up's.",
  "api-auto-top-up-consume-p99":
    "See the requests/s budget above: the same rounds. On 2026-11-28 the p99 with auto top-up on was " +
    "lower than without it in both runs (-21.1 % and -24.3 %): outside ±10 % on the side of noise, not of " +
    'a cost. The budget reads the contract\'s "unchanged" both ways.',
  "js-gzip":
    "React 19's client and Astro's island runtime are about 71 KB of every page (the floor); the portal's " +
    "own code has the rest. The public pages (82 KB) are the signed-out ones; pages behind the sign-in " +
    "(/profile…, /admin…) have 100 KB. Further room: fewer small shared chunks (each costs its own gzip " +
    "stream and import glue), and the session store's sign-in steps out of the shell that every page loads.",
  "signed-in-js-gzip":
    "The account pages carry their dialogs, tables and forms on top of the shell; the heaviest are " +
    "/profile/security (two-factor, passkeys, sessions, data) and the console's customer page.",
  "css-gzip": "The stylesheet is Tailwind's and daisyUI's classes in use plus react-toastify's 2.7 KB.",
  "lh-performance":
    "The score follows TBT and LCP (below). TBT is the main thread's observed work times Lighthouse's 4× CPU " +
    "slowdown, so it rises with whatever else the machine runs: on a quiet machine (load average under 2) " +
    "the public pages measured 0 to 40 ms and scored 100. Rerun on a quiet machine before reading a failure " +
    "here as the portal's.",
  "lh-tbt":
    "The long tasks Lighthouse lists on /plans are the document's own (parsing, style and layout of the " +
    "page's 120 KB Tailwind and daisyUI stylesheet over its tables: 100 to 200 ms after the 4× CPU " +
    "slowdown) and tasks Chromium attributes to no script; each island's chunk runs as a task of its own " +
    "(65 to 99 ms). Hydrating the islands one per task made no measurable difference (decision 008). TBT " +
    "follows the machine's load: on 2026-11-23 the home page, unchanged since, measured 172 to 1382 ms " +
    "in the same runs. Compare a change side by side: " +
    "`npm run bench -- --only=lighthouse --pages=/plans --dist=<older build>`. What would lower it: less " +
    "CSS for the browser to match (the stylesheet is 120 KB raw), and fewer islands on /plans (one per " +
    "card instead of a price and a button).",
  "lh-lcp":
    "/profile logged in: its LCP element is the static line under 'My Account', painted with the page; the " +
    "account values follow from GET /v1/users/me, which now starts when the island's code runs, before React " +
    "hydrates (it was 2.0 to 2.4 s when the account card was the largest element). A run above 1 s on a " +
    "public page had an island's JavaScript fetched before the first paint, or a busy machine: their LCP " +
    "element is text in the first HTML, painted once the one render-blocking stylesheet (16 KB brotli) has " +
    "loaded: 0.90 to 0.92 s on a quiet machine, the one-island floor's 0.9 s.",
  "lh-cls":
    "A part of the page moved after the first paint; `npm run bench -- --only=lighthouse --lhr-dir=/tmp/lhr` " +
    "keeps each run's full result, whose layout-shifts audit names the element.",
  "lh-usage-js":
    "/profile/usage loads the page's islands (about 83 KB gzip), the contract schemas, zod and ofetch for its " +
    "API calls, and Chart.js's bar chart (about 49 KB gzip with only the bar controller, two scales and the " +
    "tooltip registered; the legend is HTML). What would lower it: a smaller charting library with stacked " +
    "bars, or drawing the bars as SVG from the table's numbers.",
  "api-usage-p99":
    "GET /v1/usage reads the daily sums the spends keep (usage_daily, decision 013): for 90 days at most " +
    "one row per day, feature and key, whatever the number of charges. Summing the 100,000 charges per " +
    "call instead measured p99 783 ms. A failure here is the machine's load: the call is one indexed read.",
  "api-consume-floor":
    "Consume sends a batch's writes and COMMIT with the next batch's reads, as the floor does (decision " +
    "036); what separates them is the server's CPU per request, which lengthens each batch's round. Measured " +
    "on 2026-11-29 at full load: the project's main thread spent about 220 µs a charge against the floor's " +
    "125-150 µs, while neither the machine (about 140 % of its 200 %) nor PostgreSQL was saturated; both ran " +
    "batches of about 8 and a round of 2.4-2.8 ms against 2.2 ms. The extra CPU is the request's own work, " +
    "spread thin: routing and middleware, the fixed headers written with the answer, zod's check of the body, " +
    "the request log, the key checks. PostgreSQL's cost is about 1.3 ms a batch whatever its size (two " +
    "batches in flight on two connections doubled it per charge), so what passes the floor is doing less " +
    "per batch: credit leases (decision 051, on by default) write most charges in one statement without " +
    "the lock. A failure here with CREDIT_LEASES=false is expected; with them on, see whether leases are " +
    "taken (credit_leases rows) during the run.",
  "api-consume-p99":
    "Compare it with the floor's p99 in the floor table, measured in the same rounds: the floor runs the " +
    "minimal transaction of each batch, so a p99 above 20 ms there is the machine's. On 2026-12-02 two " +
    "runs measured consume's p99 at 11-14 ms on a quiet machine; three on another measured 21-25 ms, its " +
    "floor 22-27 ms (at 1,600-2,000 charges a second, where issue 35 measured 6,366). A charge waits " +
    "for the write in flight and its own: most go through a credit lease (decision 051), one statement for " +
    "a batch of them; the charges that take a lease, and those decided under the lock, make the tail.",
  "api-consume-org-floor":
    "The same batch as the personal keys' consume (see above), with the member's cap read and counted; its " +
    "floor does the same reads and writes.",
  "api-introspect-floor":
    "Each instance keeps an API key's active answer up to 1 s (decision 034), so the 20 keys the load asks " +
    "about in turn are read once a second each and answered from memory otherwise: 137.5 % and 154.6 % of " +
    "the floor on 2026-11-28. A read costs what issue 35 measured (177 µs of CPU against the floor's 96 µs), " +
    "so a failure means the answers are not being kept: the server could not LISTEN (nothing is kept until " +
    "it does), or something notified portal_introspection all the time (migration 0019's triggers fire on " +
    "revocations, disables, removals and cap changes only).",
  "api-products": "GET /v1/subscription/products answers a JSON string built once at start-up.",
  "api-org-consume-p99":
    "A charge through an organisation's key does what a personal key's does (the key, the organisation's " +
    "lock, its grants, the key's monthly counter, the spend, the day's usage row) plus the creator's member " +
    "row (the cap, read in the same statement as the key) and the member's monthly counter (member_credit_usage: " +
    "read with the batch's other state, upserted with its spends). Twenty organisations take turns, so the lock is rarely " +
    "waited on. A failure here beside a passing personal consume would be those two rows; a failure of both " +
    "is the machine: PostgreSQL, autocannon and the server share two cores.",
  "api-org-consume-rate":
    "The same comparison as above, as a rate: the organisation's charge reads and writes one row more than a " +
    "personal key's. The share is taken round by round (the two routes run one after the other in every " +
    "round), so a busy minute hits both; a share below 90 % that does not repeat in a second run is noise.",
  "api-org-me-p99":
    "GET /v1/users/me with X-Organization reads the caller's membership (organization_members' primary key, " +
    "joined with the organisation) before the users/me statement, which then reads the organisation's grants " +
    "and subscription instead of the personal ones. It runs at the same 10 connections as users/me.",
  "api-membership-check":
    "Measured one request at a time, so queueing behind other connections does not multiply it: the extra " +
    "read is one primary-key lookup, a round trip to PostgreSQL on the same machine. A difference near 1 ms " +
    "would mean the read waits for a connection from the pool or the machine is busy; rerun on a quiet one.",
  "api-me":
    "GET /v1/users/me reads the user, the grants and the subscription in one prepared statement, checks " +
    "a token's signature once per process, and no longer builds a request body for a GET (decision 009): " +
    "it was 6 to 7% of the baseline before, about 30% after, on a quiet machine. What is left beyond the " +
    "baseline's work: the database round trip and the mapping of its rows, and the /v1 middleware (CORS, " +
    "no-store). On this machine PostgreSQL and autocannon share the server's two cores; a failure on a " +
    "busy machine is that contention.",
  "api-me-under-logins":
    "Password hashing and WebCrypto share libuv's thread pool, and hashing shares the cores with the event " +
    "loop; hashing is now limited to min(cores − 1, pool size − 1) at once (server/auth/concurrency.ts, " +
    "decision 009), which took users/me's p99 under 20 concurrent logins from 139–173 ms to 9–18 ms on a " +
    "quiet machine. A failure here on a busy machine is CPU contention: two cores run the hashes, the " +
    "server's main thread, PostgreSQL and autocannon.",
};

/** What was changed to meet the budgets, for the report's readers (the files say why, in detail). */
export const MEASURES: readonly string[] = [
  "JavaScript (issue 31): the parts every form shares (fields, validation, their error texts) are one " +
    "`form-parts` chunk, and the token pages' waiting and invalid-link states one `token-page-parts` chunk, " +
    "instead of six files of a few hundred bytes; /confirm-email reads its words and the API's two answers " +
    "from small modules of their own instead of the security page's texts and the whole message table " +
    "(84.8 to 80.5 KB); the code step gets the passkey button from the login form, so it is no chunk of its " +
    "own (/login 82.6 to 81.8 KB, /reset-password 82.4 to 81.7 KB).",
  "JavaScript: React, its renderer and the three islands on every page are one `shell` chunk instead of " +
    "16 small files (src/integrations/island-chunks.ts), about 2.7 KB gzip less on every page.",
  "JavaScript: dynamic imports are plain `import()`: Vite's 3.4 KB preload helper is replaced (the chunks " +
    "loaded on demand need no preloading), about 0.7 KB gzip less on every page; react-toastify's CSS moved " +
    "into the page's stylesheet, where Astro had already put it, so no lazy chunk needs CSS.",
  "Transfer: the build writes brotli and gzip copies of every text file (src/integrations/precompress.ts); " +
    "the server sends them to browsers that take them, pages included (server/site). Before, everything went " +
    "uncompressed: 256 KB of JavaScript and 121 KB of CSS on /login, LCP 1.8 s.",
  "Hydration: the islands hydrate after the first contentful paint, when the browser is idle " +
    "(`client:afterpaint`, src/integrations/after-paint.ts), so no island's JavaScript is fetched before " +
    "the page is seen; with client:idle and client:load it often was, and Lighthouse's LCP on /login and " +
    "/register ranged from 0.9 to 1.7 s instead of 0.9 s.",
  "Layout: /profile keeps a screen's height for the account while it loads, so the footer no longer jumps " +
    "(CLS 0.31 before).",
  "/plans: the live price and the subscribe button load the catalogue store (@nanostores/query, 3 KB gzip) " +
    "after hydration (React.lazy and a dynamic import), as the API client does: the page's first load went " +
    "from 82.7 to 79.8 KB.",
  "/profile: a static line under the heading is painted with the page, and GET /v1/users/me starts when " +
    "the island's module runs rather than after hydration.",
  "API (decision 009): the hot queries are prepared once per database handle (server/db/prepared.ts); " +
    "users/me reads user, grants and subscription in one statement; a token's signature is checked once " +
    "per process, not on every call; a GET's absent body is no longer built to be measured; password " +
    "hashing leaves a core to the event loop and a thread-pool thread free.",
];
