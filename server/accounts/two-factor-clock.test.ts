// Authenticator apps make their codes by real time, while the app's clock may run ahead of it
// (`npm run billing:advance` moves the billing clock the whole app reads): codes are checked
// against the real one, or every account with two-factor sign-in, staff's too, is locked out.
import { describe, expect, it } from "vitest";
import { PRODUCT_NAME } from "../../contract/brand.ts";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { createMfaSecrets } from "../auth/mfa-secrets.ts";
import { totpCode } from "../auth/totp.ts";
import { ManualClock } from "../clock.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { useTestApp } from "../testing/suite.ts";
import { TEST_MFA_KEY } from "../testing/test-app.ts";
import { codeAt, signInWithCode, turnOnTwoFactor } from "../testing/two-factor.ts";
import { createTwoFactor } from "./two-factor.ts";

const DAY_MS = 86_400_000;
const ORIGIN = { ip: "198.51.100.7", userAgent: null };

describe.each(TEST_DATABASES)("two-factor codes and a clock that runs ahead (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("reads codes by real time when the app's clock was moved 31 days ahead", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const { secret } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const ahead = new ManualClock(new Date(ctx.t.clock.now().getTime() + 31 * DAY_MS));
    const common = { db: ctx.t.deps.db, secrets: createMfaSecrets(TEST_MFA_KEY), issuer: PRODUCT_NAME };
    const byAppClock = createTwoFactor({ ...common, clock: ahead });
    const byRealTime = createTwoFactor({ ...common, clock: ahead, codeClock: ctx.t.clock });
    // The app's clock alone: the code the app shows now is 31 days old, refused.
    expect(await byAppClock.spendCode(ann, codeAt(ctx.t, secret, 1), ORIGIN)).toBeUndefined();
    expect(await byRealTime.spendCode(ann, codeAt(ctx.t, secret, 1), ORIGIN)).toEqual({ method: "totp" });
  });
});

describe.each(TEST_DATABASES)("two-factor sign-in after the billing clock moved (%s)", (kind) => {
  // The app as main.ts builds it: the billing clock for everything, real time for the codes.
  const real = new ManualClock();
  const ctx = useTestApp(kind, { realClock: real });

  it("takes the code the app shows now, 31 days before the app's clock", async () => {
    // Real time starts where the app's clock does (made with the app, before each test): set when
    // this file was read, it could be a step behind by now, and the sign-in's code below would be
    // the confirmation's own, refused as used.
    real.set(ctx.t.clock.now());
    const ann = await verifiedUser(ctx.t, "ann");
    const { secret } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    ctx.t.clock.advance(31 * DAY_MS);
    // The next step's code (the confirmation used this one), made by real time.
    const code = totpCode(secret, new Date(real.now().getTime() + 30_000));
    expect(await signInWithCode(ctx.t, "ann", code)).toEqual(expect.any(String));
  });
});
