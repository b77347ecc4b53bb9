import { describe, expect, it } from "vitest";
import { billingRecipients } from "./billing-recipients.ts";

const ann = { email: "ann@example.com", username: "ann" };
const bob = { email: "bob@example.com", username: "bob" };

describe("who an organisation's billing mails go to", () => {
  it.each([
    ["no billing e-mail: the owners and billing members as listed", null, [ann, bob], [ann, bob]],
    [
      "a billing e-mail first, greeted by the organisation's name",
      "books@acme.test",
      [ann, bob],
      [{ email: "books@acme.test", username: "Acme" }, ann, bob],
    ],
    [
      "a billing e-mail that is a member's is mailed once, greeting the member",
      "BOB@example.com",
      [ann, bob],
      [{ email: "BOB@example.com", username: "bob" }, ann],
    ],
    [
      "an address twice among the members, whatever its case",
      null,
      [ann, { ...ann, email: "Ann@Example.com" }],
      [ann],
    ],
    [
      "addresses that only upper-casing would make equal stay two",
      null,
      [
        { email: "straße@example.com", username: "a" },
        { email: "strasse@example.com", username: "b" },
      ],
      [
        { email: "straße@example.com", username: "a" },
        { email: "strasse@example.com", username: "b" },
      ],
    ],
    ["nobody", null, [], []],
    ["only a billing e-mail", "books@acme.test", [], [{ email: "books@acme.test", username: "Acme" }]],
  ])("%s", (_case, billingEmail, members, expected) => {
    expect(billingRecipients(billingEmail, "Acme", members)).toEqual(expected);
  });
});
