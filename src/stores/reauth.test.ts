// The re-authentication flow against a stubbed fetch: a 403 reauth_required opens the dialog, the
// password buys a new token, and the action runs again with it; cancelling ends the action.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiRequest } from "../lib/api-client.ts";
import { memoryStorage } from "../lib/memory-storage.ts";
import { $auth, resetAuthForTests } from "./auth.ts";
import {
  $reauth,
  cancelReauth,
  confirmPassword,
  confirmWithPasskey,
  ReauthCancelled,
  withReauth,
} from "./reauth.ts";

// The browser's passkey dialog, answered at once.
vi.mock("@simplewebauthn/browser", () => ({
  startAuthentication: vi.fn(async () => ({ id: "cred-1", response: { clientDataJSON: "e30" } })),
}));

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const authOf = (call: unknown[]) => new Headers((call[1] as RequestInit).headers).get("authorization");
let fetchMock: ReturnType<typeof vi.fn>;

beforeEach(() => {
  resetAuthForTests();
  vi.stubGlobal("localStorage", memoryStorage());
  localStorage.setItem("x-access-token", "old-token");
  fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const auth = new Headers(init?.headers).get("authorization");
    if (url.endsWith("/v1/reauth/passkey-options")) return json(200, { challenge: "c-1" });
    if (url.endsWith("/v1/reauth")) {
      const { password, code, webauthn } = JSON.parse(String(init?.body)) as {
        password?: string;
        code?: string;
        webauthn?: { id: string };
      };
      if (localStorage.getItem("has-2fa") && password !== undefined && code !== "123456") {
        return json(400, { detail: "Incorrect code" });
      }
      return password === "Right#123" || webauthn?.id === "cred-1"
        ? json(200, { access_token: "new-token", token_type: "bearer", expires_in: 86400 })
        : json(400, { detail: "Incorrect password" });
    }
    if (url.endsWith("/v1/thing")) {
      return auth === "Bearer new-token"
        ? json(200, { detail: "done" })
        : json(403, {
            detail: "Confirm your password to continue",
            reauth_required: true,
            methods: localStorage.getItem("passkey-only")
              ? ["webauthn"]
              : localStorage.getItem("has-passkey")
                ? ["password", "webauthn"]
                : ["password"],
            code_required: localStorage.getItem("has-2fa") !== null,
          });
    }
    return json(404, { detail: "Not Found" });
  });
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  cancelReauth();
  vi.unstubAllGlobals();
});

const action = () => apiRequest("/v1/thing", "detailSchema", { method: "POST", auth: true });

describe("withReauth", () => {
  it("asks for the password, keeps the new token and runs the action again with it", async () => {
    const done = withReauth(action);
    await vi.waitFor(() => expect($reauth.get().open).toBe(true));
    await expect(confirmPassword("Wrong#123")).rejects.toMatchObject({
      status: 400,
      detail: "Incorrect password",
    });
    expect($reauth.get().open).toBe(true);
    await confirmPassword("Right#123");
    expect(await done).toEqual({ detail: "done" });
    expect($reauth.get().open).toBe(false);
    expect(localStorage.getItem("x-access-token")).toBe("new-token");
    expect($auth.get()).toEqual({ token: "new-token", isAuthenticated: true });
    const calls = fetchMock.mock.calls.filter(([input]) => String(input).endsWith("/v1/thing"));
    expect(calls.map(authOf)).toEqual(["Bearer old-token", "Bearer new-token"]);
  });

  it("offers a passkey when the 403 lists one, and goes on after the passkey's answer", async () => {
    localStorage.setItem("has-passkey", "yes");
    const done = withReauth(action);
    await vi.waitFor(() =>
      expect($reauth.get()).toEqual({ open: true, passkey: true, code: false, password: true }),
    );
    await confirmWithPasskey();
    expect(await done).toEqual({ detail: "done" });
    expect($reauth.get()).toEqual({ open: false, passkey: false, code: false, password: true });
    const reauth = fetchMock.mock.calls.find(([input]) => String(input).endsWith("/v1/reauth")) ?? [];
    expect(JSON.parse(String((reauth[1] as RequestInit).body))).toEqual({
      webauthn: { id: "cred-1", response: { clientDataJSON: "e30" } },
    });
  });

  it("asks a staff account whose only second factor is a passkey for the passkey alone", async () => {
    localStorage.setItem("passkey-only", "yes");
    const done = withReauth(action);
    await vi.waitFor(() =>
      expect($reauth.get()).toEqual({ open: true, passkey: true, code: false, password: false }),
    );
    await confirmWithPasskey();
    expect(await done).toEqual({ detail: "done" });
    expect($reauth.get()).toEqual({ open: false, passkey: false, code: false, password: true });
  });

  it("does not offer a passkey to an account without one", async () => {
    const done = withReauth(action);
    await vi.waitFor(() =>
      expect($reauth.get()).toEqual({ open: true, passkey: false, code: false, password: true }),
    );
    await confirmPassword("Right#123");
    expect(await done).toEqual({ detail: "done" });
  });

  it("asks for a code beside the password when the 403 says code_required, and sends both", async () => {
    localStorage.setItem("has-2fa", "yes");
    const done = withReauth(action);
    await vi.waitFor(() =>
      expect($reauth.get()).toEqual({ open: true, passkey: false, code: true, password: true }),
    );
    await expect(confirmPassword("Right#123", "000000")).rejects.toMatchObject({
      status: 400,
      detail: "Incorrect code",
    });
    expect($reauth.get().open).toBe(true);
    await confirmPassword("Right#123", "123456");
    expect(await done).toEqual({ detail: "done" });
    expect($reauth.get()).toEqual({ open: false, passkey: false, code: false, password: true });
    const bodies = fetchMock.mock.calls
      .filter(([input]) => String(input).endsWith("/v1/reauth"))
      .map((call) => JSON.parse(String((call[1] as RequestInit).body)));
    expect(bodies).toEqual([
      { password: "Right#123", code: "000000" },
      { password: "Right#123", code: "123456" },
    ]);
  });

  it("ends the action with ReauthCancelled when the dialog is closed", async () => {
    const done = withReauth(action);
    await vi.waitFor(() => expect($reauth.get().open).toBe(true));
    cancelReauth();
    await expect(done).rejects.toBeInstanceOf(ReauthCancelled);
    expect(localStorage.getItem("x-access-token")).toBe("old-token");
  });

  it("passes any other failure through without asking", async () => {
    await expect(withReauth(() => apiRequest("/v1/missing", "detailSchema"))).rejects.toMatchObject({
      status: 404,
    });
    expect($reauth.get().open).toBe(false);
  });
});
