// What an attacker tries first against the account calls: guessing one account's password from
// many addresses, trying one password on many accounts from one address, and telling registered
// addresses from unknown ones by the reset and resend answers (their body, status, headers, time)
// or by their limits.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { auditLog } from "../../db/schema/index.ts";
import { createRateLimiter } from "../../http/rate-limit.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import {
  fromIp,
  GOOD_PASSWORD,
  login,
  postForm,
  postJson,
  register,
  verifiedUser,
} from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { CONTRACT_LIMITS, createTestApp } from "../../testing/test-app.ts";

const guess = (i: number) => `Guess${i}a!x`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timed(
  call: () => Response | Promise<Response>,
): Promise<{ ms: number; res: Response; body: string }> {
  const start = performance.now();
  const res = await call();
  const body = await res.text();
  return { ms: performance.now() - start, res, body };
}

/** The headers an answer is compared on (Date and the request id naturally differ). */
function comparableHeaders(res: Response): Record<string, string> {
  return Object.fromEntries([...res.headers].filter(([name]) => !["date", "x-request-id"].includes(name)));
}

describe.each(TEST_DATABASES)("abuse of the account calls (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("an attacker's failures from one address never refuse the owner's right password from another", async () => {
    const victim = await verifiedUser(ctx.t, "victim");
    // A fresh limiter: the logins that set the account up do not count.
    const t = createTestApp(ctx.database.db, { trustProxy: true });
    const attacker = fromIp("203.0.113.66");
    const owner = fromIp("198.51.100.7");
    const statuses: number[] = [];
    const ownerStatuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await postForm(t.app, "/v1/token", { username: "victim", password: guess(i) }, attacker);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await res.json()).toEqual({ detail: DETAIL.tooManyRequests });
      }
      if (i % 5 === 0) {
        ownerStatuses.push(
          (await postForm(t.app, "/v1/token", { username: "victim", password: GOOD_PASSWORD }, owner)).status,
        );
      }
    }
    const pair = CONTRACT_LIMITS.loginPairFailuresPerMinute;
    expect(statuses).toEqual([...Array(pair).fill(400), ...Array(30 - pair).fill(429)]);
    expect(ownerStatuses).toEqual(Array(ownerStatuses.length).fill(200));
    // From the attacker's address the right password is refused the same way: the limit is no oracle,
    // and the username's case does not open a second pair.
    for (const username of ["victim", "VICTIM"]) {
      expect(
        (await postForm(t.app, "/v1/token", { username, password: GOOD_PASSWORD }, attacker)).status,
      ).toBe(429);
    }
    // The log: each failure with the attacker's address, one throttling, the owner's sign-ins.
    const rows = await auditRowsAbout(t, victim.id, true);
    const failed = rows.filter((r) => r.action === "login.failed");
    expect(failed).toHaveLength(pair);
    expect(new Set(failed.map((r) => r.ip))).toEqual(new Set(["203.0.113.66"]));
    expect(rows.filter((r) => r.action === "login.succeeded").map((r) => r.ip)).toContain("198.51.100.7");
    const throttled = await t.deps.db.select().from(auditLog).where(eq(auditLog.action, "login.throttled"));
    expect(throttled.map((r) => [r.ip, r.subjectUserId])).toEqual([["203.0.113.66", null]]);
    await t.tasks.idle();
  });

  it("limits each address of a botnet on its own, and never the account", async () => {
    await verifiedUser(ctx.t, "victim");
    const t = createTestApp(ctx.database.db);
    const pair = CONTRACT_LIMITS.loginPairFailuresPerMinute;
    for (let bot = 0; bot < 4; bot++) {
      const from = fromIp();
      const statuses: number[] = [];
      for (let i = 0; i <= pair; i++) {
        statuses.push(
          (await postForm(t.app, "/v1/token", { username: "victim", password: guess(i) }, from)).status,
        );
      }
      expect(statuses).toEqual([...Array(pair).fill(400), 429]);
    }
    expect((await login(t, "victim")).status).toBe(200);
    await t.tasks.idle();
  });

  it("counts the addresses of one IPv6 /64 as one address, and an IPv4-mapped one as its IPv4", async () => {
    await verifiedUser(ctx.t, "victim");
    const t = createTestApp(ctx.database.db);
    const pair = CONTRACT_LIMITS.loginPairFailuresPerMinute;
    const statuses: number[] = [];
    // A fresh address of the same /64 for every guess: still one (username, network) pair.
    for (let i = 0; i <= pair; i++) {
      const from = fromIp(`2001:db8:77:1:${(i + 1).toString(16)}::${i + 1}`);
      statuses.push(
        (await postForm(t.app, "/v1/token", { username: "victim", password: guess(i) }, from)).status,
      );
    }
    expect(statuses).toEqual([...Array(pair).fill(400), 429]);
    // The neighbouring /64 is another client.
    const next = fromIp("2001:db8:77:2::1");
    expect(
      (await postForm(t.app, "/v1/token", { username: "victim", password: guess(0) }, next)).status,
    ).toBe(400);
    // One mailbox's reset requests from the IPv4 address and its mapped form share the per-IP count.
    const ipv4 = CONTRACT_LIMITS.emailIpPerMinute;
    const mailStatuses: number[] = [];
    for (let i = 0; i <= ipv4; i++) {
      const from = fromIp(i % 2 ? "::ffff:192.0.2.44" : "192.0.2.44");
      mailStatuses.push(
        (await postJson(t.app, "/v1/user/password-reset-request", { email: `m${i}@example.com` }, from))
          .status,
      );
    }
    expect(mailStatuses).toEqual([...Array(ipv4).fill(200), 429]);
    await t.tasks.idle();
  });

  it("a sign-in with the right password clears its pair's failures", async () => {
    await verifiedUser(ctx.t, "ann");
    const t = createTestApp(ctx.database.db);
    const from = fromIp();
    const attempt = (password: string) => postForm(t.app, "/v1/token", { username: "ann", password }, from);
    const pair = CONTRACT_LIMITS.loginPairFailuresPerMinute;
    for (let i = 0; i < pair - 1; i++) expect((await attempt(guess(i))).status).toBe(400);
    expect((await attempt(GOOD_PASSWORD)).status).toBe(200);
    for (let i = 0; i < pair; i++) expect((await attempt(guess(i))).status).toBe(400);
    expect((await attempt(guess(99))).status).toBe(429);
    await t.tasks.idle();
  });

  it("bounds parallel guesses as tightly as a sequence of them", async () => {
    await verifiedUser(ctx.t, "ann");
    const t = createTestApp(ctx.database.db);
    const from = fromIp();
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        Promise.resolve(postForm(t.app, "/v1/token", { username: "ann", password: guess(i) }, from)).then(
          (r) => r.status,
        ),
      ),
    );
    expect(statuses.filter((s) => s === 400)).toHaveLength(CONTRACT_LIMITS.loginPairFailuresPerMinute);
    await t.tasks.idle();
  });

  it("stops one address trying a password on many accounts, while other addresses still log in", async () => {
    await verifiedUser(ctx.t, "bob");
    const attacker = fromIp();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await postForm(
        ctx.t.app,
        "/v1/token",
        { username: `user${i}`, password: GOOD_PASSWORD },
        attacker,
      );
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 400)).toHaveLength(CONTRACT_LIMITS.tokenPerMinute);
    expect(statuses.slice(CONTRACT_LIMITS.tokenPerMinute)).toEqual(
      Array(30 - CONTRACT_LIMITS.tokenPerMinute).fill(429),
    );
    expect((await login(ctx.t, "bob")).status).toBe(200);
  });

  it("lets the account owner in again from the same address once the window has passed", async () => {
    await verifiedUser(ctx.t, "victim");
    // A short window and a small limit, so the test waits seconds rather than a minute; two
    // guesses take well under the window even on a busy machine.
    const limiter = createRateLimiter({
      limits: { ...CONTRACT_LIMITS, loginPairFailuresPerMinute: 2 },
      windowSeconds: 3,
    });
    const t = createTestApp(ctx.database.db, { limiter });
    const from = fromIp();
    for (let i = 0; i < 2; i++) {
      expect(
        (await postForm(t.app, "/v1/token", { username: "victim", password: guess(i) }, from)).status,
      ).toBe(400);
    }
    expect(
      (await postForm(t.app, "/v1/token", { username: "victim", password: GOOD_PASSWORD }, from)).status,
    ).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 3100));
    expect(
      (await postForm(t.app, "/v1/token", { username: "victim", password: GOOD_PASSWORD }, from)).status,
    ).toBe(200);
    await t.tasks.idle();
  });

  it("spends about as long on an unknown user as on a wrong password (no timing oracle for usernames)", async () => {
    await verifiedUser(ctx.t, "ann");
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 10; i++) {
      wrong.push((await timed(() => login(ctx.t, "ann", guess(i)))).ms);
      unknown.push((await timed(() => login(ctx.t, `nobody${i}`, guess(i)))).ms);
    }
    // Both run a full argon2id verification (tens of milliseconds); without the dummy one an
    // unknown user would answer in about a millisecond. Compared by the fastest of each: a busy
    // machine (the other test files run beside this one) only adds time to a call, so the
    // fastest is each path's own cost, where a median of eight once let a few slowed calls
    // of one kind pass for a difference (38.5 against 15.1 ms in a CI run).
    expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...wrong) * 0.5);
    expect(Math.min(...unknown)).toBeLessThan(Math.min(...wrong) * 2);
  });

  describe.each([["/v1/user/password-reset-request"], ["/v1/user/resend-email-verification"]])(
    "%s",
    (path) => {
      it("answers a registered, an unverified and an unknown address alike: status, body, headers and time", async () => {
        await verifiedUser(ctx.t, "known");
        await register(ctx.t, "pending");
        const addresses = {
          known: "known@example.com",
          pending: "pending@example.com",
          unknown: "nobody@example.com",
        };
        const times: Record<string, number[]> = { known: [], pending: [], unknown: [] };
        const answers: Record<string, { status: number; body: string; headers: Record<string, string> }[]> = {
          known: [],
          pending: [],
          unknown: [],
        };
        // Interleaved, each from its own client address and with a fresh per-address limit (a fresh
        // app), so each call does the full work and background mail from one call overlaps the
        // next call of either kind alike.
        for (let i = 0; i < 12; i++) {
          for (const who of ["known", "unknown", "pending"] as const) {
            const t = createTestApp(ctx.database.db, { limits: { emailPerMinute: 1000 } });
            const { ms, res, body } = await timed(() =>
              postJson(t.app, path, { email: addresses[who] }, fromIp()),
            );
            times[who]?.push(ms);
            answers[who]?.push({ status: res.status, body, headers: comparableHeaders(res) });
            await t.tasks.idle();
          }
        }
        const first = answers.known?.[0];
        expect(first?.status).toBe(200);
        for (const who of ["known", "pending", "unknown"]) {
          for (const answer of answers[who] ?? []) expect(answer).toEqual(first);
        }
        // Close in time: the mail is sent after the answer, so both paths do the same work before it.
        const known = median(times.known ?? []);
        const unknown = median(times.unknown ?? []);
        expect(Math.abs(known - unknown)).toBeLessThan(Math.max(10, 0.5 * Math.max(known, unknown)));
      });

      it("limits a registered and an unknown address at the same count, with the same answer", async () => {
        await verifiedUser(ctx.t, "known");
        for (const email of ["known@example.com", "nobody@example.com"]) {
          const statuses: number[] = [];
          for (let i = 0; i < CONTRACT_LIMITS.emailPerMinute + 2; i++) {
            statuses.push((await postJson(ctx.t.app, path, { email }, fromIp())).status);
          }
          expect(statuses, email).toEqual([...Array(CONTRACT_LIMITS.emailPerMinute).fill(200), 429, 429]);
        }
      });

      it("mails one mailbox at most so many times an hour, over both calls, the same for every address", async () => {
        await verifiedUser(ctx.t, "known");
        const other =
          path === "/v1/user/password-reset-request"
            ? "/v1/user/resend-email-verification"
            : "/v1/user/password-reset-request";
        const hour = CONTRACT_LIMITS.emailRecipientPerHour;
        for (const email of ["known@example.com", "nobody@example.com"]) {
          // A fresh app for each minute's worth: the per-minute count of one call is not what stops it.
          const t = createTestApp(ctx.database.db, { limits: { emailPerMinute: 1000 } });
          const statuses: number[] = [];
          for (let i = 0; i < hour + 1; i++) {
            const res = await postJson(t.app, i % 2 ? other : path, { email }, fromIp());
            statuses.push(res.status);
            if (res.status === 429) {
              expect(await res.json()).toEqual({ detail: DETAIL.tooManyRequests });
              const wait = Number(res.headers.get("retry-after"));
              expect(wait).toBeGreaterThan(60);
              expect(wait).toBeLessThanOrEqual(3_600);
            }
          }
          expect(statuses, email).toEqual([...Array(hour).fill(200), 429]);
          await t.tasks.idle();
        }
      });

      it("mails one mailbox at most so many times a day", async () => {
        const day = CONTRACT_LIMITS.emailRecipientPerDay;
        const t = createTestApp(ctx.database.db, {
          limits: { emailPerMinute: 1000, emailRecipientPerHour: 1000 },
        });
        const statuses: number[] = [];
        for (let i = 0; i < day + 1; i++) {
          statuses.push((await postJson(t.app, path, { email: "nobody@example.com" }, fromIp())).status);
        }
        expect(statuses).toEqual([...Array(day).fill(200), 429]);
        await t.tasks.idle();
      });
    },
  );
});
