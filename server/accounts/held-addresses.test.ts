// The periods an account had each address, from its followed links (held-addresses.ts).
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { billingMails } from "../db/schema/index.ts";
import { createLogger } from "../logger.ts";
import { type AddressLink, addressedWhileHeld, heldAddresses } from "./held-addresses.ts";

const at = (minute: number) => new Date(Date.UTC(2030, 0, 15, 10, minute));
const account = {
  id: "0b6f3c1e-5d4a-4e2b-9c8d-7a6b5c4d3e2f",
  email: "Ann.Now@example.com",
  createdAt: at(0),
};
const link = (kind: AddressLink["kind"], email: string, createdAt: number, usedAt: number | null) => ({
  kind,
  email,
  createdAt: at(createdAt),
  usedAt: usedAt === null ? null : at(usedAt),
});

/** heldAddresses with a logger whose JSON lines are kept. */
function held(links: readonly AddressLink[]) {
  const lines: string[] = [];
  const logger = createLogger({ level: "info" }, { write: (line: string) => void lines.push(line) });
  const periods = heldAddresses(account, links, logger);
  const logs = lines.map((line) => JSON.parse(line) as { level: number; msg: string; userId?: string });
  return { periods, logs };
}

const INCOMPLETE = `Erasure: address history incomplete for account ${account.id}`;

describe("heldAddresses", () => {
  it("is the current address since the account's creation when it never changed", () => {
    // A change asked for and never followed: that address was never the account's.
    const { periods, logs } = held([link("change", "never@example.com", 5, null)]);
    expect(periods).toEqual([{ email: "ann.now@example.com", from: at(0), until: null }]);
    expect(logs).toEqual([]);
  });

  it("follows each link in the order they were followed, the first way back naming the first address", () => {
    // first → second (minute 10) → now (minute 20) → first again by the way back (minute 30) → now
    // (minute 40). The way back of minute 20 was deleted by the one followed at minute 30.
    const links = [
      link("change", "ann.now@example.com", 35, 40),
      link("revert", "First@example.com", 10, 30),
      link("change", "second@example.com", 9, 10),
      link("change", "ann.now@example.com", 19, 20),
      link("revert", "first@example.com", 40, null),
      link("change", "expired@example.com", 50, null),
    ];
    const { periods, logs } = held(links);
    expect(logs).toEqual([]);
    expect(periods).toEqual([
      { email: "first@example.com", from: at(0), until: at(10) },
      { email: "second@example.com", from: at(10), until: at(20) },
      { email: "ann.now@example.com", from: at(20), until: at(30) },
      { email: "first@example.com", from: at(30), until: at(40) },
      { email: "ann.now@example.com", from: at(40), until: null },
    ]);
  });

  it("leaves out the first address when no way back names it, keeps the rest and warns", () => {
    const { periods, logs } = held([link("change", "ann.now@example.com", 9, 10)]);
    expect(periods).toEqual([{ email: "ann.now@example.com", from: at(10), until: null }]);
    // Level 40: a warning, naming the account (never an address) for the operator to look into.
    expect(logs).toEqual([expect.objectContaining({ level: 40, msg: INCOMPLETE, userId: account.id })]);
  });

  it("does not take a later change's way back for the first address, whose period stays out", () => {
    // first → second (minute 10, its way back missing) → now (minute 20, way back to second):
    // second was the account's from minute 10 only, so it gets no earlier period.
    const { periods, logs } = held([
      link("change", "second@example.com", 9, 10),
      link("change", "ann.now@example.com", 19, 20),
      link("revert", "second@example.com", 20, null),
    ]);
    expect(periods).toEqual([
      { email: "second@example.com", from: at(10), until: at(20) },
      { email: "ann.now@example.com", from: at(20), until: null },
    ]);
    expect(logs).toEqual([expect.objectContaining({ level: 40, msg: INCOMPLETE })]);
  });
});

describe("addressedWhileHeld", () => {
  const dialect = new PgDialect();
  it("matches nothing without an address, rather than every row", () => {
    const query = dialect.sqlToQuery(addressedWhileHeld([], billingMails.to, billingMails.createdAt));
    expect(query.sql).toBe("false");
  });

  it("bounds each address by its period, the current one from its start only", () => {
    const query = dialect.sqlToQuery(
      addressedWhileHeld(
        [
          { email: "first@example.com", from: at(0), until: at(10) },
          { email: "ann.now@example.com", from: at(10), until: null },
        ],
        billingMails.to,
        billingMails.createdAt,
      ),
    );
    expect(query.sql).toBe(
      '((lower("billing_mails"."to") = $1 and "billing_mails"."created_at" >= $2 and "billing_mails"."created_at" < $3) or (lower("billing_mails"."to") = $4 and "billing_mails"."created_at" >= $5))',
    );
    expect(query.params).toEqual([
      "first@example.com",
      at(0).toISOString(),
      at(10).toISOString(),
      "ann.now@example.com",
      at(10).toISOString(),
    ]);
  });
});
