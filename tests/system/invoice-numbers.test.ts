// Invoice numbers stay consecutive, with no gap and no repeat, when payments are made at the same
// moment through two server processes on one PostgreSQL database (each process fulfils the events
// it delivers; the counter row is taken in each payment's transaction).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRODUCT_IDS } from "../../contract/product-ids.ts";
import {
  createScratchDatabase,
  giveCheckoutDetails,
  postJson,
  type ScratchDatabase,
  type ServerProcess,
  skipReason,
  startServer,
  stopServers,
  tempDataDir,
  uniqueName,
  verifiedAccount,
  waitFor,
} from "../fixtures/server-process.ts";

const PAYMENTS = 16;
const reason = skipReason();

describe.skipIf(reason !== "")(`invoice numbers under concurrent payments on two instances${reason}`, () => {
  let db: ScratchDatabase;
  let servers: ServerProcess[] = [];
  const dataDirs = [tempDataDir("inv-a"), tempDataDir("inv-b")];
  let failed = false;

  beforeAll(async () => {
    db = await createScratchDatabase("invoices");
    servers = await Promise.all(
      dataDirs.map((d, i) =>
        startServer({ label: `instance ${i === 0 ? "A" : "B"}`, databaseUrl: db.url, dataDir: d.dir }),
      ),
    );
  }, 120_000);

  afterAll(async () => {
    await stopServers(failed);
    await db?.drop();
    for (const d of dataDirs) d.remove();
  });

  it("numbers every paid invoice once, consecutively, whichever instance fulfils it", {
    timeout: 240_000,
  }, async () => {
    try {
      const tier = PRODUCT_IDS.test.tiers.A;
      const server = (i: number) => servers[i % 2] as ServerProcess;
      // Accounts and their open checkouts first, so that the payments themselves start together.
      const checkouts = await Promise.all(
        Array.from({ length: PAYMENTS }, async (_, i) => {
          const account = await verifiedAccount(server(i), uniqueName(`inv${i}`));
          const created = await postJson(
            server(i),
            "/v1/create-checkout-session",
            { product: tier.product, price: tier.price },
            { Authorization: `Bearer ${account.accessToken}` },
          );
          expect(created.status).toBe(200);
          const path = new URL(((await created.json()) as { url: string }).url).pathname;
          await giveCheckoutDetails(server(i), path);
          return { account, path, i };
        }),
      );
      const paid = await Promise.all(
        checkouts.map(({ path, i }) =>
          fetch(`${server(i + 1).baseUrl}${path}`, {
            method: "POST",
            headers: { "Content-Type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ card_number: "4242 4242 4242 4242" }).toString(),
            redirect: "manual",
          }).then((r) => r.status),
        ),
      );
      expect(paid).toEqual(Array(PAYMENTS).fill(303));

      const rows = await waitFor("every payment's invoice", async () => {
        const found = await db.sql<{ series: string; sequence: number; number: string; user_id: string }[]>`
          select series, sequence, number, user_id from invoices where status = 'paid' order by sequence`;
        return found.length === PAYMENTS ? found : undefined;
      });
      expect(rows.map((r) => r.sequence)).toEqual(Array.from({ length: PAYMENTS }, (_, i) => i + 1));
      expect(new Set(rows.map((r) => r.number)).size).toBe(PAYMENTS);
      expect(new Set(rows.map((r) => r.user_id)).size).toBe(PAYMENTS);
      const [counter] = await db.sql<{ last: number }[]>`select last from invoice_sequences`;
      expect(counter?.last).toBe(PAYMENTS);
      // Each payment mailed one receipt (the outboxes of both instances together).
      const [mails] = await db.sql<
        { n: string }[]
      >`select count(*) as n from billing_mails where kind = 'receipt'`;
      expect(Number(mails?.n)).toBe(PAYMENTS);
    } catch (error) {
      failed = true;
      throw error;
    }
  });
});
