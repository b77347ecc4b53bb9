// The billing details as a member saves them on Billing (PUT /v1/billing/details), for tests.
import { expect } from "vitest";
import type { TestApp } from "./test-app.ts";

/** Saves `details` as the caller's organisation's billing details; anything but 200 fails the test. */
export async function putBillingDetails(t: TestApp, token: string, details: Record<string, unknown>) {
  const res = await t.app.request("/v1/billing/details", {
    method: "PUT",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(details),
  });
  expect(res.status, await res.text()).toBe(200);
}
