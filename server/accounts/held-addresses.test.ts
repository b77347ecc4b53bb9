// The periods an account had each address, from its followed links (held-addresses.ts).
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { billingMails } from "../db/schema/index.ts";
import { type AddressLink, addressedWhileHeld, heldAddresses } from "./held-addresses.ts";

const at = (minute: number) => new Date(Date.UTC(2030, 0, 15, 10, minute));
const account = { email: "Ann.Now@example.com", createdAt: at(0) };
const link = (kind: AddressLink["kind"], email: string, createdAt: number, usedAt: number | null) => ({
  kind,
  email,
  createdAt: at(createdAt),
  usedAt: usedAt === null ? null : at(usedAt),
});

describe("heldAddresses", () => {
  it("is the current address since the account's creation when it never changed", () => {
    // A change asked for and never followed: that address was never the account's.
    expect(heldAddresses(account, [link("change", "never@example.com", 5, null)])).toEqual([
      { email: "ann.now@example.com", from: at(0), until: null },
    ]);
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
    expect(heldAddresses(account, links)).toEqual([
      { email: "first@example.com", from: at(0), until: at(10) },
      { email: "second@example.com", from: at(10), until: at(20) },
      { email: "ann.now@example.com", from: at(20), until: at(30) },
      { email: "first@example.com", from: at(30), until: at(40) },
      { email: "ann.now@example.com", from: at(40), until: null },
    ]);
  });

  it("leaves out the first address when no way back names it, and keeps the rest", () => {
    expect(heldAddresses(account, [link("change", "ann.now@example.com", 9, 10)])).toEqual([
      { email: "ann.now@example.com", from: at(10), until: null },
    ]);
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
