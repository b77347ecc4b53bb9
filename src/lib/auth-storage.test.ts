// The saved page a login returns to: followed once, and only within its lifetime, so that a path
// left on a shared computer does not take the next person's login somewhere days later.
import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  choiceChangedElsewhere,
  chooseOrganization,
  ORIGINAL_PATH_LIFETIME_MS,
  rereadOrganizationForTests,
  saveOriginalPath,
  takeOriginalPath,
} from "./auth-storage.ts";
import { memoryStorage } from "./memory-storage.ts";

const SAVED = 1_800_000_000_000;

beforeEach(() => {
  vi.stubGlobal("localStorage", memoryStorage());
  return () => vi.unstubAllGlobals();
});

describe("the saved original path", () => {
  it("is taken once, and keeps the spec's key holding the path itself", () => {
    saveOriginalPath("/profile/billing/invoice?id=in_1&org=o#pdf", SAVED);
    expect(localStorage.getItem("originalPath")).toBe("/profile/billing/invoice?id=in_1&org=o#pdf");
    expect(takeOriginalPath(SAVED + 1000)).toBe("/profile/billing/invoice?id=in_1&org=o#pdf");
    expect(takeOriginalPath(SAVED + 2000)).toBeNull();
    expect(localStorage.length).toBe(0);
  });

  it("is followed up to its lifetime, and forgotten after it", () => {
    saveOriginalPath("/profile", SAVED);
    expect(takeOriginalPath(SAVED + ORIGINAL_PATH_LIFETIME_MS)).toBe("/profile");
    saveOriginalPath("/profile", SAVED);
    expect(takeOriginalPath(SAVED + ORIGINAL_PATH_LIFETIME_MS + 1)).toBeNull();
    expect(localStorage.length).toBe(0);
  });

  it("lasts an hour", () => {
    expect(ORIGINAL_PATH_LIFETIME_MS).toBe(3_600_000);
  });

  it("is followed when the spec's key was set without a time, as the spec describes", () => {
    localStorage.setItem("originalPath", "/plans");
    expect(takeOriginalPath(SAVED)).toBe("/plans");
  });

  it("is not followed when its time is ahead of the clock", () => {
    saveOriginalPath("/profile", SAVED + 1);
    expect(takeOriginalPath(SAVED)).toBeNull();
    saveOriginalPath("/profile", SAVED);
    expect(takeOriginalPath(SAVED)).toBe("/profile");
  });

  it("is not followed when its time is not a number", () => {
    saveOriginalPath("/profile", SAVED);
    localStorage.setItem("originalPathSavedAt", "yesterday");
    expect(takeOriginalPath(SAVED)).toBeNull();
  });

  it("takes a later save's time: a path saved again is fresh again", () => {
    saveOriginalPath("/profile", SAVED);
    saveOriginalPath("/org/settings", SAVED + ORIGINAL_PATH_LIFETIME_MS);
    expect(takeOriginalPath(SAVED + ORIGINAL_PATH_LIFETIME_MS + 10)).toBe("/org/settings");
  });

  it("uses the clock when no time is given", () => {
    saveOriginalPath("/profile");
    expect(takeOriginalPath()).toBe("/profile");
  });
});

describe("another tab's choice of organisation", () => {
  const ORG = "0b6f3c4e-1111-4000-8000-00000000000a";
  beforeEach(() => rereadOrganizationForTests());

  it("reloads a page acting on another organisation, or on the personal one", () => {
    localStorage.setItem("x-organization", ORG);
    expect(choiceChangedElsewhere({ key: "x-organization", newValue: null })).toBe(true);
    expect(choiceChangedElsewhere({ key: "x-organization", newValue: "another" })).toBe(true);
    rereadOrganizationForTests();
    localStorage.removeItem("x-organization");
    expect(choiceChangedElsewhere({ key: "x-organization", newValue: ORG })).toBe(true);
  });

  it("leaves a page alone that already acts on the choice (the previous page's own change)", () => {
    // The page before chose the personal organisation (leaving a team), then opened this one.
    chooseOrganization(null);
    expect(choiceChangedElsewhere({ key: "x-organization", newValue: null })).toBe(false);
    chooseOrganization(ORG);
    expect(choiceChangedElsewhere({ key: "x-organization", newValue: ORG })).toBe(false);
  });

  it("ignores every other key", () => {
    expect(choiceChangedElsewhere({ key: "x-access-token", newValue: "t" })).toBe(false);
    expect(choiceChangedElsewhere({ key: null, newValue: null })).toBe(false);
  });
});
