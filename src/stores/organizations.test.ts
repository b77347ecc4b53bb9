// Inviting and resending take a recent sign-in for the billing role (ORGANISATIONS.md): a 403
// reauth_required opens the password dialog, and the call runs again with the new token.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../lib/memory-storage.ts";
import { resetAuthForTests } from "./auth.ts";
import { inviteMember, resendInvitation } from "./organizations.ts";
import { $reauth, cancelReauth, confirmPassword, ReauthCancelled } from "./reauth.ts";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const ORG = "0b6f5a3e-6c3b-4a53-9d1e-4f3c2b1a0e9d";
let writes: { url: string; auth: string | null; body: string }[];

beforeEach(() => {
  resetAuthForTests();
  writes = [];
  vi.stubGlobal("localStorage", memoryStorage());
  localStorage.setItem("x-access-token", "old-token");
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      const auth = new Headers(init?.headers).get("authorization");
      if (url.endsWith("/v1/reauth")) {
        const { password } = JSON.parse(String(init?.body)) as { password: string };
        return password === "Right#123"
          ? json(200, { access_token: "new-token", token_type: "bearer", expires_in: 86400 })
          : json(400, { detail: "Incorrect password" });
      }
      if (init?.method === "POST" && url.includes(`/v1/orgs/${ORG}/invitations`)) {
        writes.push({ url, auth, body: String(init.body ?? "") });
        return auth === "Bearer new-token"
          ? json(201, { id: "inv-1" })
          : json(403, {
              detail: "Confirm your password to continue",
              reauth_required: true,
              methods: ["password"],
              code_required: false,
            });
      }
      // The member list reloaded after the change: not what these tests look at.
      return json(404, { detail: "Not Found" });
    }),
  );
});

afterEach(() => {
  cancelReauth();
  vi.unstubAllGlobals();
});

describe("inviting a billing member", () => {
  it("asks for the password and sends the invitation again with the new token", async () => {
    const done = inviteMember(ORG, "bill@example.com", "billing");
    await vi.waitFor(() => expect($reauth.get().open).toBe(true));
    await confirmPassword("Right#123");
    await done;
    expect(writes.map((w) => w.auth)).toEqual(["Bearer old-token", "Bearer new-token"]);
    expect(JSON.parse(writes[1]?.body ?? "")).toEqual({ email: "bill@example.com", role: "billing" });
  });

  it("sends nothing more when the dialog is cancelled", async () => {
    const done = inviteMember(ORG, "bill@example.com", "billing");
    await vi.waitFor(() => expect($reauth.get().open).toBe(true));
    cancelReauth();
    await expect(done).rejects.toBeInstanceOf(ReauthCancelled);
    expect(writes).toHaveLength(1);
  });

  it("asks the same when resending a billing member's invitation", async () => {
    const done = resendInvitation(ORG, "inv-1");
    await vi.waitFor(() => expect($reauth.get().open).toBe(true));
    await confirmPassword("Right#123");
    await done;
    expect(writes.map((w) => [w.url.endsWith("/invitations/inv-1/resend"), w.auth])).toEqual([
      [true, "Bearer old-token"],
      [true, "Bearer new-token"],
    ]);
  });
});
