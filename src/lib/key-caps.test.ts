import { describe, expect, it } from "vitest";
import type { ApiKey } from "../../contract/api-keys.ts";
import type { Member } from "../../contract/orgs.ts";
import { capOfKey, capText } from "./key-caps.ts";

const key = (makerId: string, shared = false): ApiKey => ({
  id: "k1",
  name: "Renderer",
  prefix: "gpk_k1",
  created_at: "2026-11-01T10:00:00Z",
  expires_at: null,
  last_used_at: null,
  monthly_credit_limit: null,
  features: null,
  credits_used_this_month: 4,
  shared,
  created_by: { user_id: makerId, username: null },
});

const member = (userId: string, username: string, cap: number | null, spent: number): Member => ({
  user_id: userId,
  username,
  email: null,
  role: "developer",
  joined_at: "2026-11-01T10:00:00Z",
  monthly_credit_cap: cap,
  spent_this_month: spent,
});

const MEMBERS = [
  member("u-dev", "dev", 12, 10),
  member("u-own", "owner", null, 0),
  member("u-me", "me", 1500, 1250),
];

describe("capOfKey", () => {
  it("is the maker's cap and what all their keys spent, naming them", () => {
    expect(capOfKey(key("u-dev"), MEMBERS, "u-me")).toEqual({
      cap: 12,
      spent: 10,
      own: false,
      username: "dev",
    });
  });

  it("knows the viewer's own cap", () => {
    expect(capOfKey(key("u-me"), MEMBERS, "u-me")).toEqual({
      cap: 1500,
      spent: 1250,
      own: true,
      username: "me",
    });
  });

  it("is null for a maker without a cap, a maker no longer listed, and a shared key", () => {
    expect(capOfKey(key("u-own"), MEMBERS, "u-me")).toBeNull();
    expect(capOfKey(key("u-gone"), MEMBERS, "u-me")).toBeNull();
    expect(capOfKey(key("u-dev", true), MEMBERS, "u-me")).toBeNull();
  });

  it("is null for a maker whose cap the viewer may not see (another member's, to a developer)", () => {
    const { monthly_credit_cap: _cap, spent_this_month: _spent, ...hidden } = member("u-dev", "dev", 12, 10);
    expect(capOfKey(key("u-dev"), [hidden], "u-me")).toBeNull();
  });

  it("counts nothing spent where the answer gives a cap without spending", () => {
    const { spent_this_month: _spent, ...capOnly } = member("u-dev", "dev", 12, 10);
    expect(capOfKey(key("u-dev"), [capOnly], "u-me")).toEqual({
      cap: 12,
      spent: 0,
      own: false,
      username: "dev",
    });
  });

  it("counts a cap of 0 (the member may not spend at all)", () => {
    expect(capOfKey(key("u-zero"), [member("u-zero", "zero", 0, 0)], "u-me")).toEqual({
      cap: 0,
      spent: 0,
      own: false,
      username: "zero",
    });
  });
});

describe("capText", () => {
  it("says whose keys the cap counts, with grouped figures", () => {
    expect(capText({ cap: 1500, spent: 1250, own: true, username: "me" })).toBe(
      "1,250 of 1,500 credits (all your keys)",
    );
    expect(capText({ cap: 12, spent: 10, own: false, username: "dev" })).toBe(
      "10 of 12 credits (all of dev's keys)",
    );
  });
});
