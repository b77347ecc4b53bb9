import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { $toasts, drainToasts, notify, notifyAfterNavigation, takeFlashToasts } from "./toast.ts";

const session = new Map<string, string>();

beforeEach(() => {
  session.clear();
  drainToasts();
  vi.stubGlobal("sessionStorage", {
    getItem: (k: string) => session.get(k) ?? null,
    setItem: (k: string, v: string) => void session.set(k, v),
    removeItem: (k: string) => void session.delete(k),
  });
});
afterEach(() => vi.unstubAllGlobals());

describe("toasts", () => {
  it("queues toasts until the host takes them", () => {
    notify("success", "Copied to clipboard!");
    notify("error", "Login failed");
    expect($toasts.get().map((t) => [t.kind, t.message])).toEqual([
      ["success", "Copied to clipboard!"],
      ["error", "Login failed"],
    ]);
    expect(drainToasts()).toHaveLength(2);
    expect($toasts.get()).toEqual([]);
  });

  it("carries a toast's topic, which the view shows one toast of at a time", () => {
    notify("success", "Invitation sent to a@example.com", "invitations");
    notify("success", "Saved");
    expect(drainToasts().map((t) => t.topic)).toEqual(["invitations", undefined]);
  });

  it("keeps a toast across a page change, once", () => {
    notifyAfterNavigation("success", "You're logged in successfully!");
    expect($toasts.get()).toEqual([]);
    takeFlashToasts();
    expect($toasts.get().map((t) => t.message)).toEqual(["You're logged in successfully!"]);
    drainToasts();
    takeFlashToasts();
    expect($toasts.get()).toEqual([]);
  });
});
