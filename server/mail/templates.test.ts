import { describe, expect, it } from "vitest";
import { lowBalanceMail, PRODUCT_NAME } from "./templates.ts";

describe("lowBalanceMail", () => {
  const mail = lowBalanceMail({
    to: "ann@example.com",
    username: "<ann>",
    portalUrl: "https://portal.example",
    threshold: 1000,
    balance: 999.9,
  });

  it("says the threshold and what is left, in text and HTML", () => {
    expect(mail.subject).toBe(`Your ${PRODUCT_NAME} balance is below 1,000 credits`);
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain("fallen below 1,000 credits: 999.9 credits are left.");
      expect(body).toContain("https://portal.example/profile");
    }
  });

  it("escapes the username in the HTML part", () => {
    expect(mail.text).toContain("Hi <ann>,");
    expect(mail.html).toContain("Hi &lt;ann&gt;,");
    expect(mail.html).not.toContain("<ann>");
  });
});
