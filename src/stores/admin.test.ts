// The console's customer page against a stubbed API: a refund the provider has answered is shown in
// its row at once, though the API records it only when the provider's charge.refunded comes back
// (server/operations/refunds.ts), and the page is read again until the API has it.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { AdminPayment, Customer } from "../../contract/admin.ts";
import { loadSchemas } from "../lib/api-client.ts";
import { memoryStorage } from "../lib/memory-storage.ts";

/** The store, loaded afresh for each test: the refunds it waits for are its own module's. */
let store: typeof import("./admin.ts");

const CUSTOMER: Customer = {
  id: "c1",
  username: "cora",
  email: "cora@example.com",
  role: "user",
  email_verified: true,
  created_at: "2026-11-01T00:00:00.000Z",
  last_login_at: null,
  disabled_at: null,
  dispute_hold_at: null,
  subscription: {
    plan: "FREE",
    product_id: null,
    status: "free",
    expires_at: null,
    cancel_at_period_end: false,
    scheduled_plan: null,
  },
  credit_balance: 50,
  credits: [],
  api_keys: [],
  billing_details: null,
};

const payment = (id: string, over: Partial<AdminPayment> = {}): AdminPayment => ({
  id,
  issued_at: "2026-11-02T10:00:00.000Z",
  description: "500 credit pack",
  invoice_number: `INV-${id}`,
  status: "paid",
  currency: "eur",
  net: 1000,
  tax: 190,
  total: 1190,
  refunded: 0,
  dispute: null,
  credit_notes: [],
  ...over,
});

const CREDIT_NOTE = {
  id: "cn1",
  number: "CN-2026-0001",
  issued_at: "2026-11-03T10:00:00.000Z",
  total: 1190,
  currency: "eur",
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** What the stubbed API lists as the customer's payments now (the provider's event changes it). */
let listed: AdminPayment[];
/** The refund call's answer (a body is read once: made for each call). */
let refundAnswer: () => Response;
/** Each request's method and path, in order. */
let calls: string[];
/** Holds the answer of the next payments list until released (a read the refund overtakes). */
let holdNextList: Promise<void> | null;

function answer(method: string, path: string): Response {
  const base = "/v1/admin/customers/c1";
  if (method === "POST" && path.endsWith("/refund")) return refundAnswer();
  if (path === base) return json(200, CUSTOMER);
  if (path === `${base}/payments`) return json(200, { data: listed });
  if (path === `${base}/ledger` || path === `${base}/audit`)
    return json(200, { data: [], next_cursor: null });
  if (path.startsWith(`${base}/usage`))
    return json(200, { from: "2026-10-05", to: "2026-11-03", data: [], total: { uses: 0, credits: 0 } });
  if (path === `${base}/organizations`) return json(200, { data: [] });
  return json(404, { detail: "Not found" });
}

// Loaded once before the calls, as the console loads them with its first action.
beforeAll(async () => {
  await loadSchemas();
});

beforeEach(async () => {
  vi.stubGlobal("localStorage", memoryStorage());
  vi.stubGlobal("sessionStorage", memoryStorage());
  localStorage.setItem("x-access-token", "token");
  listed = [payment("p1"), payment("p2")];
  refundAnswer = () => json(200, { refund_id: "re_1", status: "succeeded", audit_id: "a1" });
  calls = [];
  holdNextList = null;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const method = (input instanceof Request ? input.method : init?.method) ?? "GET";
      const url = new URL(input instanceof Request ? input.url : String(input), "http://portal.test");
      const path = `${url.pathname}${url.search}`;
      calls.push(`${method} ${path}`);
      // Read now: a later change to `listed` (the provider's event) is not in this answer.
      const response = answer(method, path);
      if (path.endsWith("/payments") && holdNextList) {
        const held = holdNextList;
        holdNextList = null;
        await held;
      }
      return response;
    }),
  );
  vi.resetModules();
  store = await import("./admin.ts");
  await store.loadCustomer("c1");
  expect(store.$customer.get().status).toBe("ready");
  calls = [];
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const row = (id: string) => store.$customer.get().payments.find((p) => p.id === id);
const paymentReads = () => calls.filter((c) => c === "GET /v1/admin/customers/c1/payments").length;
const ASK = { reason: "Bought twice by mistake", idempotency_key: "k1" };

describe("a refund from the customer page", () => {
  it("shows the row refunded as soon as the provider answered, though the list has it as it was", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const before = row("p1") as AdminPayment;
    await store.refundPayment("c1", before, { ...ASK, amount: 1190 });
    expect(calls.slice(0, 2)).toEqual(["POST /v1/admin/payments/p1/refund", "GET /v1/admin/customers/c1"]);
    // The page was read again after the refund: the list still has the payment as paid.
    expect(paymentReads()).toBe(1);
    expect(row("p1")).toEqual({ ...before, status: "refunded", refunded: 1190 });
    expect(row("p2")).toEqual(payment("p2"));
  });

  it("shows a part refunded, the payment still paid, and a second part on top of it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 190 });
    expect(row("p1")).toMatchObject({ status: "paid", refunded: 190 });
    await store.refundPayment("c1", row("p1") as AdminPayment, {
      ...ASK,
      idempotency_key: "k2",
      amount: 1000,
    });
    expect(row("p1")).toMatchObject({ status: "refunded", refunded: 1190 });
  });

  it("refunds all that is left when no amount is given", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    listed = [payment("p1", { refunded: 190 })];
    await store.loadCustomer("c1");
    await store.refundPayment("c1", row("p1") as AdminPayment, ASK);
    expect(row("p1")).toMatchObject({ status: "refunded", refunded: 1190 });
  });

  it("reads the page again until the API records the refund, then shows the list's row with its credit note", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    expect(paymentReads()).toBe(1);
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(paymentReads()).toBe(2);
    // Still not recorded: the row keeps the refund.
    expect(row("p1")).toMatchObject({ status: "refunded", refunded: 1190, credit_notes: [] });
    // The provider's charge.refunded arrives.
    listed = [
      payment("p1", { status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] }),
      payment("p2"),
    ];
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[1] ?? 0);
    expect(paymentReads()).toBe(3);
    expect(row("p1")).toMatchObject({ status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] });
    // Recorded: no more reads.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads()).toBe(3);
  });

  it("reads no more once the list shows the refund at the first read", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    // A provider whose event is recorded before the page reads again.
    listed = [payment("p1", { status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] })];
    await store.refundPayment("c1", payment("p1"), { ...ASK, amount: 1190 });
    expect(row("p1")?.credit_notes).toEqual([CREDIT_NOTE]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads()).toBe(1);
  });

  it("stops reading after the last follow-up, and a later read still shows the refund", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS.reduce((a, b) => a + b, 0) + 60_000);
    expect(paymentReads()).toBe(1 + store.REFUND_FOLLOW_UP_MS.length);
    await store.loadCustomer("c1");
    expect(row("p1")).toMatchObject({ status: "refunded", refunded: 1190 });
  });

  it("keeps the page as it is when a follow-up read fails", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    const shown = store.$customer.get();
    vi.mocked(fetch).mockImplementation(async () => json(503, { detail: "Unavailable" }));
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(store.$customer.get()).toBe(shown);
  });

  it("stops following when the page shows another customer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    store.$customer.set({ ...store.$customer.get(), customer: { ...CUSTOMER, id: "c2" } });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads()).toBe(1);
  });

  it("does not show a refund the server refused, and throws its answer", async () => {
    refundAnswer = () => json(409, { detail: "The payment is already refunded in full" });
    await expect(
      store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 }),
    ).rejects.toMatchObject({
      status: 409,
    });
    expect(calls).toEqual(["POST /v1/admin/payments/p1/refund"]);
    expect(row("p1")).toEqual(payment("p1"));
  });

  it("does not show a refund the provider answered failed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    refundAnswer = () => json(200, { refund_id: "re_1", status: "failed", audit_id: "a1" });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    expect(row("p1")).toEqual(payment("p1"));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads()).toBe(1);
  });

  it("is not undone by a read that started before it and answers after it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    let release = () => {};
    holdNextList = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A read of the page under way (its list has the payment as paid) when the refund is made ...
    const earlier = store.loadCustomer("c1");
    await vi.waitFor(() => expect(paymentReads()).toBe(1));
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    // ... and the provider's event recorded meanwhile, so the refund's own read forgot it.
    listed = [payment("p1", { status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] })];
    await store.loadCustomer("c1");
    expect(row("p1")?.credit_notes).toEqual([CREDIT_NOTE]);
    release();
    await earlier;
    expect(row("p1")).toMatchObject({ status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] });
    expect(store.$customer.get().status).toBe("ready");
  });
});
