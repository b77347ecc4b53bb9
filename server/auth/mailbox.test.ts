import { describe, expect, it } from "vitest";
import { VALIDATION } from "../../contract/messages.ts";
import { addressRefusal, canonicalMailbox, isDisposableAddress, isReservedAddress } from "./mailbox.ts";

describe("canonicalMailbox", () => {
  it.each([
    ["Ann@Example.com", "ann@example.com"],
    [" ann+1@example.com ", "ann@example.com"],
    ["ann+work+x@example.com", "ann@example.com"],
    ["a.n.n@example.com", "a.n.n@example.com"],
    ["A.n.N+promo@Gmail.com", "ann@gmail.com"],
    ["a.nn@googlemail.com", "ann@gmail.com"],
    ["a.nn@gmail.com", "ann@gmail.com"],
    ["+only@example.com", "@example.com"],
    ["no-at-sign", "no-at-sign"],
    ["odd@name@example.com", "odd@name@example.com"],
  ])("%s is the mailbox %s", (address, mailbox) => {
    expect(canonicalMailbox(address)).toBe(mailbox);
  });

  it("keeps dots for other domains, and apart mailboxes apart", () => {
    expect(canonicalMailbox("a.nn@example.com")).not.toBe(canonicalMailbox("ann@example.com"));
    expect(canonicalMailbox("ann@gmail.com.evil.test")).toBe("ann@gmail.com.evil.test");
  });
});

describe("isDisposableAddress", () => {
  it("finds listed domains and their subdomains, in any case", () => {
    expect(isDisposableAddress("x@mailinator.com")).toBe(true);
    expect(isDisposableAddress("x@MAILINATOR.com")).toBe(true);
    expect(isDisposableAddress(" x@mailinator.com ")).toBe(true);
    expect(isDisposableAddress("x@eu.mailinator.com")).toBe(true);
    expect(isDisposableAddress("x@yopmail.com")).toBe(true);
  });

  it("passes ordinary providers and company domains", () => {
    for (const address of [
      "ann@gmail.com",
      "ann@outlook.com",
      "ann@example.de",
      "ann@mailinator.com.example.org",
    ]) {
      expect(isDisposableAddress(address)).toBe(false);
    }
  });
});

describe("isReservedAddress", () => {
  it.each([
    "0b5c7a3e-2f7d-4c1e-9a55-3f1f0d6b8c21@deleted.invalid",
    "ann@Example.INVALID",
    " ann@example.invalid ",
    "ann@invalid",
    "ann@mail.localhost",
    "ann@LocalHost",
  ])("%s is in a domain that never receives mail", (address) => {
    expect(isReservedAddress(address)).toBe(true);
  });

  it.each([
    "ann@example.com",
    "invalid@example.com",
    "ann@invalid.example.com",
    "ann@localhost.example.org",
    "ann@example.invalidx",
    "ann@acme.test",
    "ann@site.example",
    "ann@localhost.",
  ])("%s may receive mail", (address) => {
    expect(isReservedAddress(address)).toBe(false);
  });
});

describe("addressRefusal", () => {
  it("says which rule refuses the address, and passes the rest", () => {
    expect(addressRefusal("ann@deleted.invalid")).toBe(VALIDATION.emailReserved);
    expect(addressRefusal("ann@mail.localhost")).toBe(VALIDATION.emailReserved);
    expect(addressRefusal("ann@mailinator.com")).toBe(VALIDATION.emailDisposable);
    expect(addressRefusal("ann@example.com")).toBeNull();
  });
});
