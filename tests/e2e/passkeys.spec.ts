// Passkeys in the browser with Chromium's virtual authenticator (CDP WebAuthn domain): added on
// /profile/security, signing in without a password on /login, answering the code step of a
// sign-in with two factors, confirming a sensitive action instead of the password, and removed;
// the only second factor of a staff account, which the password's step and re-authentication
// then ask for alone (decision 046). WebAuthn needs a domain as its relying party, so this
// spec runs a server of its own at http://localhost (an IP address cannot be one).
import { join } from "node:path";
import type { BrowserContext, Page } from "@playwright/test";
import { DETAIL } from "../../contract/messages.ts";
import { ADMIN_PAGE_TEXT } from "../../src/lib/admin-text.ts";
import { API_KEYS_TEXT } from "../../src/lib/api-keys-text.ts";
import { CODE_STEP_TEXT } from "../../src/lib/code-step-text.ts";
import { PASSKEY_SIGN_IN_TEXT } from "../../src/lib/passkey-sign-in-text.ts";
import { REAUTH_TEXT } from "../../src/lib/reauth-text.ts";
import { SECURITY_TEXT } from "../../src/lib/security-text.ts";
import { TOAST, UI_TEXT } from "../../src/lib/ui-text.ts";
import { createVerifiedUser, openSignedIn, tokenViaApi, visibleGreeting } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { runCli } from "../fixtures/cli.ts";
import {
  freePort,
  ROOT,
  type ServerProcess,
  startServer,
  stopServers,
  tempDataDir,
} from "../fixtures/server-process.ts";
import { expect, test } from "../fixtures/test.ts";
import { turnOnTwoFactorViaApi } from "../fixtures/two-factor.ts";

test.describe.configure({ timeout: 120_000 });

const P = SECURITY_TEXT.passkeys;
let server: ServerProcess;
let baseUrl: string;
const data = tempDataDir("passkeys");

test.beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://localhost:${port}`;
  server = await startServer({
    label: "passkeys",
    databaseUrl: "",
    dataDir: data.dir,
    port,
    env: { DIST_DIR: join(ROOT, "dist"), PORTAL_URL: baseUrl, CORS_ORIGINS: baseUrl },
  });
});

test.afterAll(async () => {
  await stopServers(test.info().status !== "passed");
  data.remove();
});

/** A virtual platform authenticator that verifies its user and is always touched. */
/** Chromium's virtual authenticator on the page; `forgeSignatures` makes it sign wrongly, or right again. */
async function withAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    forgeSignatures: (isBogusSignature: boolean) =>
      cdp.send("WebAuthn.setResponseOverrideBits", { authenticatorId, isBogusSignature }),
  };
}

async function signOutHere(page: Page) {
  await page.evaluate(() => localStorage.clear());
}

test("a passkey is added, signs in without a password, answers the code step, and is removed", async ({
  browser,
  playwright,
}) => {
  expect(server.port).toBeGreaterThan(0);
  const api = await playwright.request.newContext({ baseURL: baseUrl });
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  await withAuthenticator(context, page);
  const user = await createVerifiedUser(api, "pk");

  await openSignedIn(page, await tokenViaApi(api, user), "/profile/security");
  const section = page.locator("[data-passkeys]");
  await expect(section.getByText(P.none)).toBeVisible();
  await section.getByLabel(P.nameLabel).fill("Chromium");
  await section.getByRole("button", { name: P.add }).click();
  await expect(page.getByText(P.added)).toBeVisible();
  await expect(section.locator('[data-passkey="Chromium"]')).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  // The same authenticator again: the browser refuses it, and the page says why.
  await section.getByLabel(P.nameLabel).fill("Chromium again");
  await section.getByRole("button", { name: P.add }).click();
  await expect(section.getByText(P.alreadyAdded)).toBeVisible();

  // Without a password.
  await signOutHere(page);
  await page.goto("/login");
  await page.getByRole("button", { name: PASSKEY_SIGN_IN_TEXT.button }).click();
  await expect(page.getByText(TOAST.loggedIn)).toBeVisible();
  await expect(visibleGreeting(page, user.username)).toBeVisible();

  // As the second factor once two-factor sign-in is on.
  await turnOnTwoFactorViaApi(api, await tokenViaApi(api, user));
  await signOutHere(page);
  await page.goto("/login");
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: UI_TEXT.logIn }).click();
  await expect(page.getByLabel(CODE_STEP_TEXT.codeLabel)).toBeVisible();
  await page.getByRole("button", { name: CODE_STEP_TEXT.usePasskey }).click();
  await expect(page.getByText(TOAST.loggedIn)).toBeVisible();

  // Removed: the list is empty again.
  await page.goto("/profile/security");
  await section.locator('[data-passkey="Chromium"]').getByRole("button", { name: P.remove }).click();
  await page.getByRole("dialog", { name: P.removeTitle }).getByRole("button", { name: P.remove }).click();
  await expect(page.getByText(P.removed)).toBeVisible();
  await expect(section.getByText(P.none)).toBeVisible();
  await context.close();
  await api.dispose();
});

test("a passkey confirms a sensitive action instead of the password", async ({ browser, playwright }) => {
  const api = await playwright.request.newContext({ baseURL: baseUrl });
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  const authenticator = await withAuthenticator(context, page);
  const user = await createVerifiedUser(api, "pkr");
  const token = await tokenViaApi(api, user);
  await openSignedIn(page, token, "/profile/security");
  const section = page.locator("[data-passkeys]");
  await section.getByLabel(P.nameLabel).fill("Chromium");
  await section.getByRole("button", { name: P.add }).click();
  await expect(section.locator('[data-passkey="Chromium"]')).toBeVisible();
  // 11 minutes pass on the server's clock: creating an API key asks again.
  const advanced = await api.post("/_dev/billing/advance", { data: { days: 11 / 1440 } });
  expect(advanced.status(), await advanced.text()).toBe(200);

  await page.goto("/profile/api-keys");
  await page.getByRole("button", { name: API_KEYS_TEXT.create }).click();
  const form = page.getByRole("dialog", { name: API_KEYS_TEXT.createTitle });
  await form.getByLabel(API_KEYS_TEXT.name).fill("Render server");
  await form.getByRole("button", { name: API_KEYS_TEXT.create }).click();
  const confirm = page.getByRole("dialog", { name: REAUTH_TEXT.title });
  await expect(confirm.getByRole("button", { name: REAUTH_TEXT.usePasskey })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  // A signature the server cannot verify: the dialog says so, stays open, and may be tried again.
  await authenticator.forgeSignatures(true);
  await confirm.getByRole("button", { name: REAUTH_TEXT.usePasskey }).click();
  const refused = confirm.getByRole("alert");
  await expect(refused).toHaveText(DETAIL.passkeyNotConfirmed);
  await expect(confirm.getByRole("button", { name: REAUTH_TEXT.usePasskey })).toBeEnabled();
  // The message, read in both themes (in the error colour as text it measured 2.86:1).
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await axeViolations(page), colorScheme).toEqual([]);
  }
  await authenticator.forgeSignatures(false);
  await confirm.getByRole("button", { name: REAUTH_TEXT.usePasskey }).click();
  // The key is made without another click, and the page holds the new token.
  await expect(page.getByRole("dialog", { name: API_KEYS_TEXT.createdTitle })).toBeVisible();
  await expect(confirm).toBeHidden();
  expect(await page.evaluate(() => localStorage.getItem("x-access-token"))).not.toBe(token);
  await context.close();
  await api.dispose();
});

test("a staff account whose only second factor is a passkey: the password's step asks for the passkey alone", async ({
  browser,
  playwright,
}) => {
  const api = await playwright.request.newContext({ baseURL: baseUrl });
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  await withAuthenticator(context, page);
  const sam = await createVerifiedUser(api, "pks");
  await openSignedIn(page, await tokenViaApi(api, sam), "/profile/security");
  const section = page.locator("[data-passkeys]");
  await section.getByLabel(P.nameLabel).fill("Chromium");
  await section.getByRole("button", { name: P.add }).click();
  await expect(section.locator('[data-passkey="Chromium"]')).toBeVisible();
  // Support, as an operator makes it: the passkey is the second factor a staff role needs.
  const granted = await runCli("scripts/user-role.ts", [sam.username, "support"], {
    DATA_DIR: data.dir,
    LOG_LEVEL: "silent",
  });
  expect(granted.status, granted.stderr).toBe(0);

  // The password alone gives no session: the step offers the passkey, and no code field.
  await signOutHere(page);
  await page.goto("/login");
  await page.getByLabel("Username").fill(sam.username);
  await page.getByLabel("Password", { exact: true }).fill(sam.password);
  await page.getByRole("button", { name: UI_TEXT.logIn }).click();
  await expect(page.getByText(CODE_STEP_TEXT.introPasskey)).toBeVisible();
  await expect(page.getByLabel(CODE_STEP_TEXT.codeLabel)).toHaveCount(0);
  await expect(page.getByRole("button", { name: CODE_STEP_TEXT.useRecovery })).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem("x-access-token"))).toBeNull();
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole("button", { name: CODE_STEP_TEXT.usePasskeyOnly }).click();
  await expect(page.getByText(TOAST.loggedIn)).toBeVisible();

  // The token shows both factors: the console opens.
  await page.goto("/admin/customers");
  await expect(page.getByRole("heading", { level: 1, name: ADMIN_PAGE_TEXT.customers.title })).toBeVisible();

  // 11 minutes later a sensitive action asks for the passkey alone: the password would be less
  // than the sign-in asks for.
  const advanced = await api.post("/_dev/billing/advance", { data: { days: 11 / 1440 } });
  expect(advanced.status(), await advanced.text()).toBe(200);
  await page.goto("/profile/api-keys");
  await page.getByRole("button", { name: API_KEYS_TEXT.create }).click();
  const form = page.getByRole("dialog", { name: API_KEYS_TEXT.createTitle });
  await form.getByLabel(API_KEYS_TEXT.name).fill("Console tools");
  await form.getByRole("button", { name: API_KEYS_TEXT.create }).click();
  const confirm = page.getByRole("dialog", { name: REAUTH_TEXT.titlePasskey });
  await expect(confirm.getByText(REAUTH_TEXT.bodyPasskey)).toBeVisible();
  await expect(confirm.getByLabel(REAUTH_TEXT.password)).toHaveCount(0);
  await expect(confirm.getByRole("button", { name: REAUTH_TEXT.confirm, exact: true })).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);
  await confirm.getByRole("button", { name: REAUTH_TEXT.usePasskeyOnly }).click();
  await expect(page.getByRole("dialog", { name: API_KEYS_TEXT.createdTitle })).toBeVisible();
  await context.close();
  await api.dispose();
});
