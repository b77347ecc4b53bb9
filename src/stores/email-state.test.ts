// /profile/security's e-mail state against a stubbed fetch: the pending change follows the server
// after a request and a cancellation (refused or not), a read overtaken by a later one is dropped,
// and the review after a way back comes with the same read unless this browser kept it.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EmailState } from "../../contract/email-state.ts";
import { memoryStorage } from "../lib/memory-storage.ts";
import { resetAuthForTests } from "./auth.ts";
import { $revertReview, keepAllAdded } from "./revert-review.ts";
import { $emailState, cancelEmailChange, loadEmailState, requestEmailChange } from "./security.ts";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const PENDING = { email: "new@example.com", expires_at: "2026-12-02T10:00:00.000Z" };
const REVIEW = {
  since: "2026-11-20T10:00:00.000Z",
  changed_at: "2026-11-21T10:00:00.000Z",
  reverted_at: "2026-11-22T10:00:00.000Z",
  passkeys: [],
  two_factor_on_at: "2026-11-21T10:00:00.000Z",
  api_keys: [],
};

/** What GET /v1/users/me/email answers next; each answer may be held back until released. */
let server: EmailState;
let cancelStatus: number;

beforeEach(() => {
  resetAuthForTests();
  vi.stubGlobal("localStorage", memoryStorage());
  localStorage.setItem("x-access-token", "token");
  $emailState.set(undefined);
  server = { pending_change: null, revert_review: null };
  cancelStatus = 200;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      const method = init?.method ?? "GET";
      if (url.endsWith("/v1/users/me/email") && method === "POST") {
        server = { ...server, pending_change: PENDING };
        return json(202, { detail: "Check the new address" });
      }
      if (url.endsWith("/v1/users/me/email")) return json(200, server);
      if (url.endsWith("/v1/users/me/email/pending")) {
        server = { ...server, pending_change: null };
        return cancelStatus === 200 ? json(200, { detail: "Cancelled" }) : json(404, { detail: "None" });
      }
      if (url.endsWith("/v1/users/me/security-events"))
        return json(200, { data: [], wrong_passwords_not_listed: 0 });
      return json(404, { detail: "Not Found" });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the pending e-mail change", () => {
  it("shows at once after a request, and is gone after a cancellation", async () => {
    await loadEmailState();
    expect($emailState.get()?.pending_change).toBeNull();
    expect(await requestEmailChange("new@example.com")).toBe("Check the new address");
    expect($emailState.get()?.pending_change).toEqual(PENDING);
    expect(await cancelEmailChange()).toBe("Cancelled");
    expect($emailState.get()?.pending_change).toBeNull();
  });

  it("a refused cancellation (it had ended already) still shows what the server has", async () => {
    server = { pending_change: PENDING, revert_review: null };
    await loadEmailState();
    cancelStatus = 404;
    await expect(cancelEmailChange()).rejects.toMatchObject({ status: 404 });
    expect($emailState.get()?.pending_change).toBeNull();
  });

  it("drops a read that answers after a later one", async () => {
    let release: (response: Response) => void = () => {};
    const fetchMock = vi.mocked(fetch);
    fetchMock.mockImplementationOnce(() => new Promise<Response>((resolve) => (release = resolve)));
    const early = loadEmailState();
    server = { pending_change: PENDING, revert_review: null };
    await loadEmailState();
    release(json(200, { pending_change: null, revert_review: null }));
    await early;
    expect($emailState.get()?.pending_change).toEqual(PENDING);
  });

  it("keeps the state it had when a read fails", async () => {
    server = { pending_change: PENDING, revert_review: null };
    await loadEmailState();
    vi.mocked(fetch).mockImplementationOnce(async () => json(500, { detail: "Internal Server Error" }));
    await loadEmailState();
    expect($emailState.get()?.pending_change).toEqual(PENDING);
  });
});

describe("the review after a way back", () => {
  it("comes with the e-mail state, until this browser keeps it", async () => {
    server = { pending_change: null, revert_review: REVIEW };
    await loadEmailState();
    expect($revertReview.get()).toEqual(REVIEW);
    keepAllAdded();
    expect($revertReview.get()).toBeNull();
    await loadEmailState();
    expect($revertReview.get()).toBeNull();
    // A later way back is shown again.
    server = { pending_change: null, revert_review: { ...REVIEW, reverted_at: "2026-11-25T10:00:00.000Z" } };
    await loadEmailState();
    expect($revertReview.get()?.reverted_at).toBe("2026-11-25T10:00:00.000Z");
  });
});
