// API keys in the browser: create one, copy it, use it as the generation service would (introspect
// and a metered charge with a service key the operator made while the server runs), see the use in
// the list, revoke it with confirmation, and the key stops working.
import { API_KEYS_TEXT } from "../../src/lib/api-keys-text.ts";
import { TOKEN_TEXT } from "../../src/lib/token-text.ts";
import { createVerifiedUser, openSignedIn, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { introspect, makeServiceKey } from "../fixtures/service-key.ts";
import { expect, test } from "../fixtures/test.ts";

const T = API_KEYS_TEXT;

test("a user creates a key, copies it, a program uses it, the list shows the use, and revoking stops it", async ({
  page,
  request,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const user = await createVerifiedUser(request, "keys");
  await openSignedIn(page, await tokenViaApi(request, user), "/profile");
  await page.getByRole("link", { name: "Manage API keys" }).click();
  await expect(page).toHaveURL(/\/profile\/api-keys$/);
  await expect(page.getByRole("heading", { name: T.emptyTitle })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);

  // The dialog checks the form before sending, next to each field.
  await page.getByRole("button", { name: T.create }).click();
  const dialog = page.getByRole("dialog", { name: T.createTitle });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: T.create }).click();
  await expect(dialog.getByText("Give the key a name")).toBeVisible();
  await expect(dialog.getByLabel(T.name)).toHaveAttribute("aria-invalid", "true");
  // The message beside the field, read in both themes (in the error colour as text it measured 2.86:1).
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await axeViolations(page), colorScheme).toEqual([]);
  }
  await dialog.getByLabel(T.name).fill("Render server");
  await dialog.getByLabel(T.expiry).selectOption({ label: T.expiryDays(30) });
  // A limit takes credits to the thousandth, as a member's cap does; finer is refused beside it.
  await dialog.getByLabel(T.limit).fill("0.0005");
  await dialog.getByRole("button", { name: T.create }).click();
  await expect(
    dialog.getByText("The monthly limit must be more than 0 credits, with at most 3 decimals"),
  ).toBeVisible();
  await dialog.getByLabel(T.limit).fill("100");
  await dialog.getByRole("radio", { name: T.someFeatures }).check();
  await dialog.getByRole("checkbox", { name: "Comic" }).check();
  await dialog.getByRole("checkbox", { name: "Background remover" }).check();
  expect(await axeViolations(page)).toEqual([]);
  await dialog.getByRole("button", { name: T.create }).click();

  // Shown once, with a copy button and the warning.
  const shown = page.getByRole("dialog", { name: T.createdTitle });
  await expect(shown.getByText(T.createdWarning)).toBeVisible();
  const key = await shown.getByLabel("Render server").inputValue();
  expect(key).toMatch(/^gpk_[0-9A-Za-z]{61}$/);
  await shown.getByRole("button", { name: TOKEN_TEXT.copy, exact: true }).click();
  await expect(shown.getByRole("button", { name: TOKEN_TEXT.copied, exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await shown.getByRole("button", { name: T.done }).click();
  await expect(shown).toBeHidden();

  const card = page.locator("[data-api-key]");
  await expect(card).toHaveCount(1);
  await expect(card.locator("[data-key-name]")).toHaveText("Render server");
  await expect(card.locator("[data-key-prefix]")).toHaveText(`${key.slice(0, 16)}…`);
  await expect(card).toContainText("0 of 100 credits");
  await expect(card).toContainText("Only: Background remover, Comic");
  await expect(page.getByText(key)).toHaveCount(0);

  // The program uses it: the generation service introspects it and charges a comic.
  const service = await makeServiceKey();
  const active = await introspect(request, service, key);
  expect(active).toMatchObject({ active: true, credits_used_this_month: 0 });
  const charge = await request.post("/v1/credits/consume", {
    headers: { Authorization: `Bearer ${service}` },
    data: { api_key_id: active.key_id, feature: "comic", people: "one", idempotency_key: "e2e-1" },
  });
  expect(charge.status()).toBe(200);
  await page.reload();
  await expect(card).toContainText("5 of 100 credits");
  await expect(card).not.toContainText(`${T.columns.lastUsed}${T.never}`);

  // Revoking asks first; keeping the key changes nothing.
  await card.getByRole("button", { name: `${T.revoke} Render server` }).click();
  const confirm = page.getByRole("dialog", { name: T.revokeTitle });
  await expect(confirm).toContainText("Render server");
  await confirm.getByRole("button", { name: T.keepKey }).click();
  await expect(card).toHaveCount(1);
  await card.getByRole("button", { name: `${T.revoke} Render server` }).click();
  await page.keyboard.press("Escape");
  await expect(confirm).toBeHidden();
  await card.getByRole("button", { name: `${T.revoke} Render server` }).click();
  await confirm.getByRole("button", { name: T.confirmRevoke }).click();
  await expect(page.getByText(T.revoked)).toBeVisible();
  await expect(page.getByRole("heading", { name: T.emptyTitle })).toBeVisible();
  expect(await introspect(request, service, key)).toEqual({ active: false });
});

test("the password-changed mail's 'Revoke all API keys' link asks once and revokes every key", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "revall");
  const token = await tokenViaApi(request, user);
  const keys: string[] = [];
  for (const name of ["Render server", "Laptop"]) {
    const res = await request.post("/v1/api-keys", {
      data: { name },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status()).toBe(201);
    keys.push(((await res.json()) as { key: string }).key);
  }
  await openSignedIn(page, token, "/profile/api-keys#revoke-all");
  const dialog = page.getByRole("dialog", { name: T.revokeAllTitle });
  await expect(dialog.getByText(T.revokeAllBody)).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await dialog.getByRole("button", { name: T.confirmRevokeAll }).click();
  await expect(page.getByText(T.revokedAll(2))).toBeVisible();
  await expect(page.getByRole("heading", { name: T.emptyTitle })).toBeVisible();
  // The link's fragment is used up: a reload does not ask again.
  expect(new URL(page.url()).hash).toBe("");
  const service = await makeServiceKey();
  for (const key of keys) expect(await introspect(request, service, key)).toEqual({ active: false });
});

test("the dialogs work from the keyboard alone", async ({ page, request }) => {
  const user = await createVerifiedUser(request, "kbd");
  await openSignedIn(page, await tokenViaApi(request, user), "/profile/api-keys");
  const create = page.getByRole("button", { name: T.create });
  await create.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: T.createTitle });
  await expect(dialog.getByLabel(T.name)).toBeFocused();
  await page.keyboard.type("Keyboard key");
  await page.keyboard.press("Enter");
  const shown = page.getByRole("dialog", { name: T.createdTitle });
  await expect(shown.getByText(T.createdWarning)).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(shown).toBeHidden();
  await expect(page.locator("[data-key-name]")).toHaveText("Keyboard key");
});

test("the home page's token dialog says when the token expires, whose credits it spends, and links to API keys", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "tokexp");
  await openSignedIn(page, await tokenViaApi(request, user), "/");
  await page.getByRole("button", { name: TOKEN_TEXT.open }).click();
  const dialog = page.getByRole("dialog", { name: TOKEN_TEXT.title });
  await expect(dialog.locator("[data-token-expires]")).toHaveText(
    /^This token expires \d{4}-\d{2}-\d{2} \d{2}:\d{2} CES?T, or sooner if you sign out or confirm your password again: open this again for the current one\.$/,
  );
  await expect(dialog).toContainText(TOKEN_TEXT.personalCredits);
  await expect(dialog).toContainText(TOKEN_TEXT.forPrograms);
  await dialog.getByRole("link", { name: TOKEN_TEXT.apiKeysLink }).click();
  await expect(page).toHaveURL(/\/profile\/api-keys$/);
});
