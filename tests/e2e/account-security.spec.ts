import { DETAIL } from "../../contract/messages.ts";
import { API_KEYS_TEXT } from "../../src/lib/api-keys-text.ts";
import { REAUTH_TEXT } from "../../src/lib/reauth-text.ts";
import { createVerifiedUser, openSignedIn, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { ownServer } from "../fixtures/own-server.ts";
import { expect, test } from "../fixtures/test.ts";

test.describe.configure({ timeout: 120_000 });

const T = API_KEYS_TEXT;
const server = ownServer("account-security");

test("creating an API key 11 minutes after signing in asks for the password, then goes on by itself", async ({
  browser,
  playwright,
}) => {
  const api = await playwright.request.newContext({ baseURL: server().baseUrl });
  const context = await browser.newContext({ baseURL: server().baseUrl });
  const page = await context.newPage();
  const user = await createVerifiedUser(api, "reauth");
  const token = await tokenViaApi(api, user);
  // 11 minutes pass on the server's clock.
  const advanced = await api.post("/_dev/billing/advance", { data: { days: 11 / 1440 } });
  expect(advanced.status(), await advanced.text()).toBe(200);
  await openSignedIn(page, token, "/profile/api-keys");
  await expect(page.getByRole("heading", { name: T.emptyTitle })).toBeVisible();

  const create = async () => {
    await page.getByRole("button", { name: T.create }).click();
    const dialog = page.getByRole("dialog", { name: T.createTitle });
    await dialog.getByLabel(T.name).fill("Render server");
    await dialog.getByRole("button", { name: T.create }).click();
    return dialog;
  };
  const form = await create();
  const confirm = page.getByRole("dialog", { name: REAUTH_TEXT.title });
  await expect(confirm).toBeVisible();
  await expect(confirm.getByLabel(REAUTH_TEXT.password)).toBeFocused();
  expect(await axeViolations(page)).toEqual([]);

  // Cancelling: no key, the form still filled in.
  await confirm.getByRole("button", { name: REAUTH_TEXT.cancel }).click();
  await expect(confirm).toBeHidden();
  await expect(form.getByLabel(T.name)).toHaveValue("Render server");
  await form.getByRole("button", { name: T.create }).click();

  // A wrong password is said next to the field; the right one creates the key without another click.
  await expect(confirm).toBeVisible();
  await confirm.getByLabel(REAUTH_TEXT.password).fill("Not-the-password1!");
  await confirm.getByLabel(REAUTH_TEXT.password).press("Enter");
  await expect(confirm.getByText(DETAIL.incorrectPassword)).toBeVisible();
  await expect(confirm.getByLabel(REAUTH_TEXT.password)).toHaveAttribute("aria-invalid", "true");
  await confirm.getByLabel(REAUTH_TEXT.password).fill(user.password);
  await confirm.getByRole("button", { name: REAUTH_TEXT.confirm }).click();
  const shown = page.getByRole("dialog", { name: T.createdTitle });
  await expect(shown.getByText(T.createdWarning)).toBeVisible();
  await shown.getByRole("button", { name: T.done }).click();

  // The page holds the new token now: a second key within the 10 minutes is not asked for again.
  const newToken = await page.evaluate(() => localStorage.getItem("x-access-token"));
  expect(newToken).not.toBe(token);
  const second = await create();
  await expect(page.getByRole("dialog", { name: T.createdTitle })).toBeVisible();
  await expect(confirm).toBeHidden();
  await expect(second).toBeHidden();
  // The token it replaced was signed out.
  const old = await api.get("/v1/users/me", { headers: { Authorization: `Bearer ${token}` } });
  expect(old.status()).toBe(401);
  await context.close();
  await api.dispose();
});
