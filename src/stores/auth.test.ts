// The session store against a stubbed fetch and an in-memory localStorage: the spec's keys, the
// expiry rule on load, one user fetch per page, login's redirect target and sign-out.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { memoryStorage } from "../lib/memory-storage.ts";
import { USER_FETCH_TIMEOUT_MS } from "../lib/retry-policy.ts";
import { ERROR_TEXT } from "../lib/ui-text.ts";
import {
  $auth,
  $user,
  initSession,
  logIn,
  logInWithCode,
  refreshUser,
  resetAuthForTests,
  signOut,
} from "./auth.ts";
import { drainToasts } from "./toast.ts";

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jwt = (exp: number) => `${b64url({ alg: "HS256" })}.${b64url({ sub: "u1", exp })}.sig`;
const inAnHour = () => jwt(Math.floor(Date.now() / 1000) + 3600);

const USER = {
  id: "u1",
  username: "ada",
  email: "ada@example.com",
  role: "user",
  email_verified: true,
  credit_balance: 100,
  subscription: null,
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

let fetchMock: ReturnType<typeof vi.fn>;

beforeEach(() => {
  resetAuthForTests();
  drainToasts();
  vi.stubGlobal("localStorage", memoryStorage());
  fetchMock = vi.fn(async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith("/v1/users/me")) return json(200, USER);
    if (url.endsWith("/v1/token"))
      return json(200, { access_token: inAnHour(), token_type: "bearer", expires_in: 3600 });
    return json(404, { detail: "Not Found" });
  });
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const userCalls = () =>
  fetchMock.mock.calls.filter(([input]) => String(input).endsWith("/v1/users/me")).length;

describe("initSession", () => {
  it("with no token: logged out, the user known to be nobody, no request", async () => {
    await initSession();
    expect($auth.get()).toEqual({ token: null, isAuthenticated: false });
    expect($user.get()).toEqual({ status: "ready", user: null });
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("with an expired token: clears the token and the flag without asking the server", async () => {
    localStorage.setItem("x-access-token", jwt(Math.floor(Date.now() / 1000) - 10));
    localStorage.setItem("isAuthenticated", "true");
    await initSession();
    expect(localStorage.getItem("x-access-token")).toBeNull();
    expect(localStorage.getItem("isAuthenticated")).toBeNull();
    expect($user.get().user).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("with a valid token: loads the user once, however many islands ask, with the Bearer header", async () => {
    const token = inAnHour();
    localStorage.setItem("x-access-token", token);
    await Promise.all([initSession(), initSession(), initSession()]);
    expect(userCalls()).toBe(1);
    expect($auth.get()).toEqual({ token, isAuthenticated: true });
    expect($user.get()).toEqual({ status: "ready", user: USER });
    const [, init] = fetchMock.mock.calls[0] as [unknown, RequestInit];
    expect(new Headers(init.headers).get("authorization")).toBe(`Bearer ${token}`);
  });

  it("never retries the user fetch, and a 401 logs out", async () => {
    localStorage.setItem("x-access-token", inAnHour());
    fetchMock.mockImplementation(async () => json(401, { detail: "Could not validate credentials" }));
    await initSession();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect($auth.get().isAuthenticated).toBe(false);
    expect(localStorage.getItem("x-access-token")).toBeNull();
  });

  it("keeps the token when the server cannot be reached, without a user", async () => {
    const token = inAnHour();
    localStorage.setItem("x-access-token", token);
    fetchMock.mockImplementation(async () => {
      throw new TypeError("fetch failed");
    });
    await initSession();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect($user.get()).toEqual({ status: "ready", user: null, loadFailed: true });
    expect(localStorage.getItem("x-access-token")).toBe(token);
  });

  it.each([
    ["a 500", async () => json(500, { detail: "Internal Server Error" })],
    [
      "a captive portal's HTML page",
      async () => new Response("<html><body>Sign in to the Wi-Fi</body></html>", { status: 200 }),
    ],
    ["a JSON answer that is not a user", async () => json(200, { username: "<b>x</b>" })],
  ])("after %s keeps the token, marks the load failed and shows one error toast", async (_, answer) => {
    const token = inAnHour();
    localStorage.setItem("x-access-token", token);
    fetchMock.mockImplementation(answer);
    await Promise.all([initSession(), initSession()]);
    expect($user.get()).toEqual({ status: "ready", user: null, loadFailed: true });
    expect($auth.get()).toEqual({ token, isAuthenticated: true });
    expect(drainToasts().map(({ kind, message }) => ({ kind, message }))).toEqual([
      { kind: "error", message: ERROR_TEXT.accountLoadFailed },
    ]);
  });

  it("gives up on a user fetch that never answers after USER_FETCH_TIMEOUT_MS", async () => {
    vi.useFakeTimers();
    try {
      localStorage.setItem("x-access-token", inAnHour());
      fetchMock.mockImplementation(
        (_input: unknown, init?: RequestInit) =>
          new Promise((_resolve, reject) => {
            init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
          }),
      );
      const done = initSession();
      await vi.advanceTimersByTimeAsync(USER_FETCH_TIMEOUT_MS - 100);
      expect($user.get().status).toBe("unknown");
      await vi.advanceTimersByTimeAsync(200);
      await done;
      expect($user.get()).toEqual({ status: "ready", user: null, loadFailed: true });
      expect(drainToasts()).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a 401 shows no error toast: the visitor is simply logged out", async () => {
    localStorage.setItem("x-access-token", inAnHour());
    fetchMock.mockImplementation(async () => json(401, { detail: "Could not validate credentials" }));
    await initSession();
    expect($user.get()).toEqual({ status: "ready", user: null });
    expect(drainToasts()).toEqual([]);
  });
});

describe("logIn", () => {
  it("posts the form, stores the token and the 'true' flag, loads the user and returns /", async () => {
    const next = await logIn("ada", "Secret1!");
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toMatch(/\/v1\/token$/);
    expect(String(init.body)).toBe("username=ada&password=Secret1%21");
    expect(localStorage.getItem("x-access-token")).toBe($auth.get().token);
    expect(localStorage.getItem("isAuthenticated")).toBe("true");
    expect($user.get().user?.username).toBe("ada");
    expect(next).toBe("/");
  });

  it("returns a saved same-site originalPath once, and ignores another origin", async () => {
    localStorage.setItem("originalPath", "/plans");
    expect(await logIn("ada", "Secret1!")).toBe("/plans");
    expect(localStorage.getItem("originalPath")).toBeNull();
    localStorage.setItem("originalPath", "https://evil.example/");
    expect(await logIn("ada", "Secret1!")).toBe("/");
  });

  it("throws the answer's status and detail on failure", async () => {
    fetchMock.mockImplementation(async () => json(400, { detail: "Incorrect username or password" }));
    await expect(logIn("ada", "nope")).rejects.toMatchObject({
      status: 400,
      detail: "Incorrect username or password",
    });
    expect(localStorage.getItem("x-access-token")).toBeNull();
  });
});

describe("logIn with two-factor sign-in", () => {
  const MFA_ANSWER = {
    detail: "Two-factor code required",
    mfa_token: "step-1",
    methods: ["totp", "recovery_code"],
  };

  it("throws the code step's mfa_token and stores nothing; logInWithCode then signs in", async () => {
    fetchMock.mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (url.endsWith("/v1/token")) return json(403, MFA_ANSWER);
      if (url.endsWith("/v1/token/mfa")) {
        expect(JSON.parse(String(init?.body))).toEqual({ mfa_token: "step-1", code: "123456" });
        return json(200, { access_token: inAnHour(), token_type: "bearer", expires_in: 3600 });
      }
      if (url.endsWith("/v1/users/me")) return json(200, USER);
      return json(404, { detail: "Not Found" });
    });
    await expect(logIn("ada", "Secret1!")).rejects.toMatchObject({ status: 403, mfaToken: "step-1" });
    expect(localStorage.getItem("x-access-token")).toBeNull();
    expect($auth.get().isAuthenticated).toBe(false);
    expect(await logInWithCode("step-1", "123456")).toBe("/");
    expect(localStorage.getItem("x-access-token")).toBe($auth.get().token);
    expect($user.get().user?.username).toBe("ada");
  });

  it("reads a wrong code's tries left, and an mfa_token only from a 403", async () => {
    fetchMock.mockImplementation(async () =>
      json(400, { detail: "Incorrect code", tries_left: 3, mfa_token: "x" }),
    );
    await expect(logInWithCode("step-1", "000000")).rejects.toMatchObject({
      status: 400,
      triesLeft: 3,
      mfaToken: undefined,
    });
  });
});

describe("signOut and refreshUser", () => {
  it("sign-out ends the token on the server, then clears the token, the flag and the user", async () => {
    await logIn("ada", "Secret1!");
    const token = localStorage.getItem("x-access-token");
    await signOut();
    const logout = fetchMock.mock.calls.find(([input]) => String(input).endsWith("/v1/logout"));
    expect(logout).toBeDefined();
    const init = logout?.[1] as RequestInit;
    expect(init.method).toBe("POST");
    expect(new Headers(init.headers).get("authorization")).toBe(`Bearer ${token}`);
    expect(localStorage.getItem("x-access-token")).toBeNull();
    expect(localStorage.getItem("isAuthenticated")).toBeNull();
    expect($user.get().user).toBeNull();
    expect($auth.get().isAuthenticated).toBe(false);
  });

  it("sign-out lets a signed-in call under way finish before the token stops working", async () => {
    await logIn("ada", "Secret1!");
    const order: string[] = [];
    let answer: (value: Response) => void = () => {};
    fetchMock.mockImplementation(async (input: RequestInfo | URL) => {
      const url = String(input);
      order.push(url.replace(/^.*\/v1/, "/v1"));
      if (url.endsWith("/v1/orgs")) return new Promise<Response>((resolve) => (answer = resolve));
      return json(200, { detail: "Logged out" });
    });
    const { apiRequest } = await import("../lib/api-client.ts");
    const list = apiRequest("/v1/orgs", "anyAnswerSchema", { auth: true });
    const out = signOut();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(["/v1/orgs"]);
    // A call asked for once Sign Out began is not sent with the dying token.
    await expect(apiRequest("/v1/credits/ledger", "anyAnswerSchema", { auth: true })).rejects.toMatchObject({
      status: 401,
    });
    expect(order).toEqual(["/v1/orgs"]);
    answer(json(200, { data: [] }));
    await list;
    await out;
    expect(order).toEqual(["/v1/orgs", "/v1/logout"]);
    expect($auth.get().isAuthenticated).toBe(false);
  });

  it("sign-out signs the browser out even when the server cannot be reached", async () => {
    await logIn("ada", "Secret1!");
    fetchMock.mockImplementation(async () => {
      throw new TypeError("Failed to fetch");
    });
    await signOut();
    expect(localStorage.getItem("x-access-token")).toBeNull();
    expect($auth.get().isAuthenticated).toBe(false);
  });

  it("refreshUser asks the server again", async () => {
    localStorage.setItem("x-access-token", inAnHour());
    await initSession();
    await refreshUser();
    expect(userCalls()).toBe(2);
  });
});

describe("the chosen organisation (x-organization)", () => {
  const ORG = "0b6f3c4e-1111-4000-8000-00000000000a";
  const tokenOf = (sub: string) =>
    `${b64url({ alg: "HS256" })}.${b64url({ sub, exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
  const orgOf = (id: string, personal: boolean) => ({
    id,
    name: personal ? null : "Acme",
    personal,
    role: personal ? "owner" : "developer",
  });
  /** /v1/users/me answers for the organisation of the header when the caller is a member of it. */
  /** `/v1/users/me` answers for an organisation of `memberOf`, else the personal one, with `said`. */
  const answerMe = (memberOf: readonly string[], said: object = {}) =>
    fetchMock.mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (url.endsWith("/v1/users/me")) {
        const asked = new Headers(init?.headers).get("x-organization");
        const org = asked && memberOf.includes(asked) ? orgOf(asked, false) : orgOf("u1", true);
        return json(200, { ...USER, organization: org, ...said });
      }
      if (url.endsWith("/v1/token"))
        return json(200, { access_token: tokenOf("u1"), token_type: "bearer", expires_in: 3600 });
      if (url.endsWith("/v1/logout")) return json(200, { detail: "Logged out" });
      return json(404, { detail: "Not Found" });
    });
  const headerOf = (path: string) => {
    const call = fetchMock.mock.calls.find(([input]) => String(input).endsWith(path));
    return new Headers((call?.[1] as RequestInit | undefined)?.headers).get("x-organization");
  };

  it("is sent as X-Organization with every call of the page, and kept while the user is a member", async () => {
    answerMe([ORG]);
    localStorage.setItem("x-access-token", tokenOf("u1"));
    localStorage.setItem("x-organization", ORG);
    await initSession();
    expect(headerOf("/v1/users/me")).toBe(ORG);
    expect($user.get().user?.organization).toEqual(orgOf(ORG, false));
    expect(localStorage.getItem("x-organization")).toBe(ORG);
    expect(drainToasts()).toEqual([]);
  });

  it("without a choice no header is sent", async () => {
    answerMe([ORG]);
    localStorage.setItem("x-access-token", tokenOf("u1"));
    await initSession();
    expect(headerOf("/v1/users/me")).toBeNull();
  });

  it.each([
    ["no longer a member", {}, ORG_DETAIL.noLongerMember],
    ["deleted while a member", { chosen_organization_deleted: true }, ORG_DETAIL.orgDeleted],
  ])(
    "is forgotten, with a toast, when the answer is for another organisation (%s)",
    async (_, said, message) => {
      answerMe([], said);
      localStorage.setItem("x-access-token", tokenOf("u1"));
      localStorage.setItem("x-organization", ORG);
      await initSession();
      expect(localStorage.getItem("x-organization")).toBeNull();
      await vi.waitFor(() =>
        expect(drainToasts().map(({ kind, message }) => ({ kind, message }))).toEqual([
          { kind: "info", message },
        ]),
      );
      // The page's later calls act on the personal organisation.
      fetchMock.mockClear();
      await refreshUser();
      expect(headerOf("/v1/users/me")).toBeNull();
    },
  );

  it("an answer without an organisation (an older server) leaves the choice alone", async () => {
    localStorage.setItem("x-access-token", tokenOf("u1"));
    localStorage.setItem("x-organization", ORG);
    await initSession();
    expect(localStorage.getItem("x-organization")).toBe(ORG);
  });

  it("Sign Out forgets it", async () => {
    answerMe([ORG]);
    localStorage.setItem("x-access-token", tokenOf("u1"));
    localStorage.setItem("x-organization", ORG);
    await initSession();
    await signOut();
    expect(localStorage.getItem("x-organization")).toBeNull();
  });

  it("signing in as another user forgets the last user's choice, without a toast", async () => {
    answerMe([ORG]);
    localStorage.setItem("x-access-token", tokenOf("someone-else"));
    localStorage.setItem("x-organization", ORG);
    await logIn("ada", "Secret1!");
    expect(localStorage.getItem("x-organization")).toBeNull();
    expect(headerOf("/v1/users/me")).toBeNull();
    expect(drainToasts().filter((t) => t.kind !== "success")).toEqual([]);
  });

  it("signing in again as the same user keeps the choice", async () => {
    answerMe([ORG]);
    localStorage.setItem("x-access-token", tokenOf("u1"));
    localStorage.setItem("x-organization", ORG);
    await logIn("ada", "Secret1!");
    expect(localStorage.getItem("x-organization")).toBe(ORG);
    expect(headerOf("/v1/users/me")).toBe(ORG);
  });

  it("a choice left by an ended session that the new sign-in may not use goes quietly", async () => {
    answerMe([]);
    localStorage.setItem("x-organization", ORG);
    await logIn("ada", "Secret1!");
    expect(localStorage.getItem("x-organization")).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drainToasts()).toEqual([]);
  });
});
