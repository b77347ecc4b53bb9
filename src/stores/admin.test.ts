// The console's customer page against a stubbed API: a refund the provider has answered is shown as
// requested in its row at once, though the API records it only when the provider's charge.refunded
// comes back (server/operations/refunds.ts), and the page is read again until the API has it; reads
// answering out of order, or about a customer no longer asked for, never put an older page back.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { AdminLedgerEntry, AdminPayment, Customer } from "../../contract/admin.ts";
import { adminCustomer } from "../lib/admin-customer-fixture.ts";
import { loadSchemas } from "../lib/api-client.ts";
import { memoryStorage } from "../lib/memory-storage.ts";

/** The store, loaded afresh for each test: the refunds it waits for are its own module's. */
let store: typeof import("./admin.ts");

const CUSTOMER: Customer = adminCustomer();

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

const line = (description: string): AdminLedgerEntry => ({
  at: "2026-11-02T10:00:00.000Z",
  kind: "grant",
  credits: 10,
  description,
  count: 1,
});

/** What the stubbed API lists as the customer's payments now (the provider's event changes it). */
let listed: AdminPayment[];
/** The customer's credit balance now (a grant changes it). */
let balance: number;
/** The ledger, newest first, in pages of two; a page's cursor names its last line. */
let ledger: AdminLedgerEntry[];
/** While true, every read of the page answers 503. */
let unavailable: boolean;
/** The refund call's answer (a body is read once: made for each call). */
let refundAnswer: () => Response;
/** Each request's method and path, in order. */
let calls: string[];
/** Answers held until released: the next request whose path ends so waits for its gate. */
let holds: Array<{ ending: string; gate: Promise<void> }>;

/** Holds the answer of the next request whose path ends with `ending`; returns its release. */
function hold(ending: string): () => void {
  let release = () => {};
  holds.push({ ending, gate: new Promise<void>((resolve) => (release = resolve)) });
  return release;
}

function ledgerPage(cursor: string | null) {
  const from = cursor === null ? 0 : ledger.findIndex((l) => `after-${l.description}` === cursor) + 1;
  const data = ledger.slice(from, from + 2);
  const last = data[data.length - 1];
  return { data, next_cursor: last && from + 2 < ledger.length ? `after-${last.description}` : null };
}

function answer(method: string, path: string): Response {
  if (method === "POST" && path.endsWith("/refund")) return refundAnswer();
  const [, id = "", rest = ""] = /^\/v1\/admin\/customers\/(c1|c2)(.*)$/.exec(path) ?? [];
  if (!id) return json(404, { detail: "Not found" });
  if (unavailable) return json(503, { detail: "Unavailable" });
  if (rest === "") return json(200, { ...CUSTOMER, id, credit_balance: balance });
  if (rest === "/payments") return json(200, { data: id === "c1" ? listed : [] });
  if (rest === "/ledger") return json(200, ledgerPage(null));
  if (rest.startsWith("/ledger?cursor=")) return json(200, ledgerPage(decodeURIComponent(rest.slice(15))));
  if (rest === "/audit") return json(200, { data: [], next_cursor: null });
  if (rest.startsWith("/usage"))
    return json(200, { from: "2026-10-05", to: "2026-11-03", data: [], total: { uses: 0, credits: 0 } });
  if (rest === "/organizations") return json(200, { data: [] });
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
  balance = 50;
  ledger = [line("l2"), line("l1"), line("l0")];
  unavailable = false;
  refundAnswer = () => json(200, { refund_id: "re_1", status: "succeeded", audit_id: "a1" });
  calls = [];
  holds = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const method = (input instanceof Request ? input.method : init?.method) ?? "GET";
      const url = new URL(input instanceof Request ? input.url : String(input), "http://portal.test");
      const path = `${url.pathname}${url.search}`;
      calls.push(`${method} ${path}`);
      // Read now: a later change to `listed` (the provider's event) is not in this answer.
      const response = answer(method, path);
      const held = holds.findIndex((h) => path.endsWith(h.ending));
      if (held >= 0) {
        const [{ gate } = { gate: Promise.resolve() }] = holds.splice(held, 1);
        await gate;
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
const pending = () => store.$customer.get().pendingRefunds;
const paymentReads = (id = "c1") =>
  calls.filter((c) => c === `GET /v1/admin/customers/${id}/payments`).length;
const ASK = { reason: "Bought twice by mistake", idempotency_key: "k1" };
/**
 * Lets the stub's answers run (not the fake clock: vi.waitFor would move it) until `check` holds.
 */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}
const ALL_FOLLOW_UPS = () => store.REFUND_FOLLOW_UP_MS.reduce((a, b) => a + b, 0);

describe("a refund from the customer page", () => {
  it("shows the refund as requested at once, the row as the API lists it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const before = row("p1") as AdminPayment;
    await store.refundPayment("c1", before, { ...ASK, amount: 1190 });
    expect(calls.slice(0, 2)).toEqual(["POST /v1/admin/payments/p1/refund", "GET /v1/admin/customers/c1"]);
    // The page was read again after the refund: the list still has the payment as paid, and so
    // does the row; the refund is beside it, asked, not done.
    expect(paymentReads()).toBe(1);
    expect(row("p1")).toEqual(before);
    expect(pending()).toEqual({ p1: 1190 });
    expect(row("p2")).toEqual(payment("p2"));
  });

  it("shows the refund as requested before the page's read answers", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const release = hold("/payments");
    const refund = store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    await until(() => paymentReads() === 1);
    expect(pending()).toEqual({ p1: 1190 });
    expect(store.$customer.get().status).toBe("loading");
    release();
    await refund;
    expect(pending()).toEqual({ p1: 1190 });
  });

  it("asks a part, then a second part on top of it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 190 });
    expect(pending()).toEqual({ p1: 190 });
    await store.refundPayment("c1", row("p1") as AdminPayment, {
      ...ASK,
      idempotency_key: "k2",
      amount: 1000,
    });
    expect(pending()).toEqual({ p1: 1190 });
    expect(row("p1")).toEqual(payment("p1"));
  });

  it("asks all that is left when no amount is given", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    listed = [payment("p1", { refunded: 190 })];
    await store.loadCustomer("c1");
    await store.refundPayment("c1", row("p1") as AdminPayment, ASK);
    expect(pending()).toEqual({ p1: 1190 });
    expect(row("p1")).toMatchObject({ status: "paid", refunded: 190 });
  });

  it("reads the page again until the API records the refund, then shows the list's row with its credit note", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    expect(paymentReads()).toBe(1);
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(paymentReads()).toBe(2);
    // Still not recorded: the refund is still requested.
    expect(pending()).toEqual({ p1: 1190 });
    // The provider's charge.refunded arrives.
    listed = [
      payment("p1", { status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] }),
      payment("p2"),
    ];
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[1] ?? 0);
    expect(paymentReads()).toBe(3);
    expect(row("p1")).toMatchObject({ status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] });
    expect(pending()).toEqual({});
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
    expect(pending()).toEqual({});
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads()).toBe(1);
  });

  it("after the last follow-up stops reading and shows what the API says", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    await vi.advanceTimersByTimeAsync(ALL_FOLLOW_UPS() - 1);
    expect(pending()).toEqual({ p1: 1190 });
    await vi.advanceTimersByTimeAsync(1);
    expect(paymentReads()).toBe(1 + store.REFUND_FOLLOW_UP_MS.length);
    // A refund never recorded (a pending one that failed): the payment as listed, offered again.
    expect(pending()).toEqual({});
    expect(row("p1")).toEqual(payment("p1"));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads()).toBe(1 + store.REFUND_FOLLOW_UP_MS.length);
    await store.loadCustomer("c1");
    expect(pending()).toEqual({});
  });

  it("drops the assumption after the last follow-up though that read failed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    unavailable = true;
    await vi.advanceTimersByTimeAsync(ALL_FOLLOW_UPS());
    expect(paymentReads()).toBe(1 + store.REFUND_FOLLOW_UP_MS.length);
    expect(pending()).toEqual({});
    expect(store.$customer.get().status).toBe("ready");
  });

  it("keeps the page as it is when a follow-up read fails", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    const shown = store.$customer.get();
    unavailable = true;
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(store.$customer.get()).toBe(shown);
  });

  it("a failed follow-up does not throw away an action's read already under way", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    // Credits granted meanwhile: the action's read of the page answers late ...
    balance = 150;
    const release = hold("/payments");
    const granted = store.loadCustomer("c1");
    await until(() => paymentReads() === 2);
    // ... after the first follow-up, asked later, failed.
    unavailable = true;
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(paymentReads()).toBe(3);
    unavailable = false;
    release();
    await granted;
    expect(store.$customer.get().status).toBe("ready");
    expect(store.$customer.get().customer?.credit_balance).toBe(150);
    expect(pending()).toEqual({ p1: 1190 });
    // And the follow-ups go on.
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[1] ?? 0);
    expect(paymentReads()).toBe(4);
  });

  it("forgets a refund only with an answer it shows, so the follow-ups go on after one it does not", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    // A read that lists the refund answers only after a newer one that does not (a replica
    // behind), so it is not shown ...
    listed = [payment("p1", { status: "refunded", refunded: 1190 })];
    const release = hold("/payments");
    const older = store.loadCustomer("c1");
    await until(() => paymentReads() === 2);
    listed = [payment("p1")];
    await store.loadCustomer("c1");
    release();
    await older;
    expect(row("p1")).toEqual(payment("p1"));
    expect(pending()).toEqual({ p1: 1190 });
    // ... and the page keeps reading until one it shows lists it.
    listed = [payment("p1", { status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] })];
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(paymentReads()).toBe(4);
    expect(row("p1")?.credit_notes).toEqual([CREDIT_NOTE]);
    expect(pending()).toEqual({});
  });

  it("follows a customer's refunds with one schedule, started again by each refund", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    await vi.advanceTimersByTimeAsync(500);
    await store.refundPayment("c1", row("p2") as AdminPayment, { ...ASK, idempotency_key: "k2" });
    expect(pending()).toEqual({ p1: 1190, p2: 1190 });
    await vi.advanceTimersByTimeAsync(500);
    // The first refund's schedule would read now: started again, it waits a whole first step.
    expect(paymentReads()).toBe(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(paymentReads()).toBe(3);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads()).toBe(2 + store.REFUND_FOLLOW_UP_MS.length);
    expect(pending()).toEqual({});
  });

  it("keeps a refund answered while an earlier one's last follow-up is due", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    await vi.advanceTimersByTimeAsync(ALL_FOLLOW_UPS() - 1);
    expect(paymentReads()).toBe(store.REFUND_FOLLOW_UP_MS.length);
    // A second refund, its read of the page under way when the first one's last step is due.
    const release = hold("/payments");
    const second = store.refundPayment("c1", row("p2") as AdminPayment, { ...ASK, idempotency_key: "k2" });
    await until(() => paymentReads() === 1 + store.REFUND_FOLLOW_UP_MS.length);
    await vi.advanceTimersByTimeAsync(1);
    release();
    await second;
    expect(pending()).toEqual({ p1: 1190, p2: 1190 });
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(paymentReads()).toBe(2 + store.REFUND_FOLLOW_UP_MS.length);
  });

  it("stops following when another customer is asked for", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    await store.loadCustomer("c2");
    expect(store.$customer.get().customer?.id).toBe("c2");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads("c1")).toBe(1);
    // Back on the first customer: the payment as the API lists it.
    await store.loadCustomer("c1");
    expect(pending()).toEqual({});
  });

  it("reads the customer no more while another one's page is loading", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    // Staff open c2; the page still shows c1 while c2's read is under way ...
    const release = hold("/c2/payments");
    const other = store.loadCustomer("c2");
    await until(() => paymentReads("c2") === 1);
    expect(store.$customer.get().customer?.id).toBe("c1");
    // ... when the follow-up's time comes: it does not read c1, nor hold back c2's answer.
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(paymentReads("c1")).toBe(1);
    release();
    await other;
    expect(store.$customer.get()).toMatchObject({ status: "ready", customer: { id: "c2" } });
  });

  it("does not show an answer about the customer shown before once another is asked for", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    // The first follow-up's read of c1 is under way ...
    const releaseC1 = hold("/c1/payments");
    await vi.advanceTimersByTimeAsync(store.REFUND_FOLLOW_UP_MS[0] ?? 0);
    expect(paymentReads("c1")).toBe(2);
    // ... when staff open c2, whose read answers last.
    const releaseC2 = hold("/c2/payments");
    const other = store.loadCustomer("c2");
    await until(() => paymentReads("c2") === 1);
    releaseC1();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.$customer.get().status).toBe("loading");
    releaseC2();
    await other;
    expect(store.$customer.get()).toMatchObject({ status: "ready", customer: { id: "c2" }, payments: [] });
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
    expect(pending()).toEqual({});
  });

  it.each(["failed", "canceled"])("does not show a refund the provider answered %s", async (status) => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    refundAnswer = () => json(200, { refund_id: "re_1", status, audit_id: "a1" });
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    expect(row("p1")).toEqual(payment("p1"));
    expect(pending()).toEqual({});
    await vi.advanceTimersByTimeAsync(60_000);
    expect(paymentReads()).toBe(1);
  });

  it("is not undone by a read that started before it and answers after it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const release = hold("/payments");
    // A read of the page under way (its list has the payment as paid) when the refund is made ...
    const earlier = store.loadCustomer("c1");
    await until(() => paymentReads() === 1);
    await store.refundPayment("c1", row("p1") as AdminPayment, { ...ASK, amount: 1190 });
    // ... and the provider's event recorded meanwhile.
    listed = [payment("p1", { status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] })];
    await store.loadCustomer("c1");
    expect(row("p1")?.credit_notes).toEqual([CREDIT_NOTE]);
    release();
    await earlier;
    expect(row("p1")).toMatchObject({ status: "refunded", refunded: 1190, credit_notes: [CREDIT_NOTE] });
    expect(store.$customer.get().status).toBe("ready");
  });
});

describe("the next page of the ledger", () => {
  const descriptions = () => store.$customer.get().ledger.map((l) => l.description);

  it("adds the next page", async () => {
    expect(descriptions()).toEqual(["l2", "l1"]);
    await store.loadMore("ledger");
    expect(descriptions()).toEqual(["l2", "l1", "l0"]);
    expect(store.$customer.get().ledgerCursor).toBeNull();
  });

  it("is asked again after a read shown meanwhile, so no line is lost or shown twice", async () => {
    const release = hold("?cursor=after-l1");
    const more = store.loadMore("ledger");
    await until(() => calls.includes("GET /v1/admin/customers/c1/ledger?cursor=after-l1"));
    // A refund's ledger line, shown by a read that answers before the next page does.
    ledger = [line("l3"), ...ledger];
    await store.loadCustomer("c1");
    expect(descriptions()).toEqual(["l3", "l2"]);
    release();
    await more;
    expect(descriptions()).toEqual(["l3", "l2", "l1", "l0"]);
  });

  it("adds a page once when asked twice at once", async () => {
    ledger = [line("l4"), line("l3"), line("l2"), line("l1"), line("l0")];
    await store.loadCustomer("c1");
    await Promise.all([store.loadMore("ledger"), store.loadMore("ledger")]);
    expect(descriptions()).toEqual(["l4", "l3", "l2", "l1"]);
  });

  it("adds nothing to another customer's page", async () => {
    const release = hold("?cursor=after-l1");
    const more = store.loadMore("ledger");
    await until(() => calls.includes("GET /v1/admin/customers/c1/ledger?cursor=after-l1"));
    await store.loadCustomer("c2");
    release();
    await more;
    expect(store.$customer.get().customer?.id).toBe("c2");
    expect(descriptions()).toEqual(["l2", "l1"]);
  });
});
