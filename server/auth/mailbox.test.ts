import { describe, expect, it } from "vitest";
import { canonicalMailbox, isDisposableAddress } from "./mailbox.ts";

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
