// apiRequest loads the contract schemas while its call is under way. When both fail (the answer is
// a 404 and the schemas' chunk did not load), the call's error is the one the caller gets, and the
// unread schema failure must not surface as an unhandled rejection (a console error in the browser,
// a failed run in Vitest).
import { afterEach, expect, it, vi } from "vitest";
import { ApiError, apiRequest } from "./api-client.ts";

vi.mock("./schemas.ts", () => {
  throw new Error("the schemas chunk did not load");
});

afterEach(() => {
  vi.unstubAllGlobals();
});

it("rejects with the call's error alone when the call and the schemas' load both fail", async () => {
  vi.stubGlobal(
    "fetch",
    vi.fn(
      async () =>
        new Response(JSON.stringify({ detail: "Invoice not found" }), {
          status: 404,
          headers: { "content-type": "application/json" },
        }),
    ),
  );
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", record);
  try {
    const error = await apiRequest("/v1/billing/invoices/x", "invoiceSchema").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404 });
    // Node reports an unhandled rejection after the microtasks of the turn that made it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", record);
  }
});

it("rejects with the schemas' failure when the call succeeded", async () => {
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response("{}", { status: 200, headers: { "content-type": "application/json" } })),
  );
  // Vitest wraps the factory's error in its own ("There was an error when mocking a module").
  const error = await apiRequest("/v1/billing/invoices/x", "invoiceSchema").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(ApiError);
});
