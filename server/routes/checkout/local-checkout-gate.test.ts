// The local checkout on a public HOST (issue 30): its pages take test cards, so anyone who reached
// them could "pay" with 4242. Off, /_checkout answers 404 and a checkout call answers 503 with a
// sentence, rather than handing out a URL that leads to a 404.
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { postJson, verifiedUser } from "../../testing/api-client.ts";
import { openSubscriptionCheckout, TIER, TOP_UP } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { createTestApp } from "../../testing/test-app.ts";

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

describe.each(TEST_DATABASES)("the local checkout turned off (%s)", (kind) => {
  const ctx = useTestApp(kind, { localCheckout: false });

  it("answers 503 for every checkout call, and serves no /_checkout page", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    for (const [path, body] of [
      ["/v1/create-checkout-session", { product: TIER("A").product, price: TIER("A").price }],
      ["/v1/create-top-up-checkout", { product_id: TOP_UP("500").product }],
    ] as const) {
      const res = await postJson(ctx.t.app, path, body, auth(user.accessToken));
      // A top-up on the free plan is refused first, as everywhere (403); a checkout that would start: 503.
      if (path === "/v1/create-top-up-checkout") expect(res.status).toBe(403);
      else {
        expect(res.status).toBe(503);
        expect(await res.json()).toEqual({ detail: DETAIL.checkoutUnavailable });
      }
    }
    expect((await ctx.t.app.request("/_checkout/cs_test_anything")).status).toBe(404);
  });

  it("is on where the test app is on (a loopback HOST)", async () => {
    const user = await verifiedUser(ctx.t, "bob");
    const on = createTestApp(ctx.database.db);
    const path = await openSubscriptionCheckout(on, user.accessToken, "A");
    expect((await on.app.request(path)).status).toBe(200);
    await on.tasks.idle();
  });
});
