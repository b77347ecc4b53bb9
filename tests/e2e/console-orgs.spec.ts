// The console's organisations (ORGANISATIONS.md, "The operator console"): an admin opens a
// customer, sees the organisations they are in, opens their team's page with its members and
// balance, grants it credits with a reason, and makes a member an owner after an identity check.
// Checked with axe.

import { ADMIN_ORG_PAGE_TEXT } from "../../src/lib/admin-org-text.ts";
import { ADMIN_PAGE_TEXT } from "../../src/lib/admin-text.ts";
import {
  createOrgViaApi,
  createVerifiedUser,
  openSignedIn,
  readMail,
  tokenViaApi,
} from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { expect, test } from "../fixtures/test.ts";
import { staffViaCli } from "../fixtures/two-factor.ts";

const O = ADMIN_ORG_PAGE_TEXT;
const A = ADMIN_PAGE_TEXT.actions;

test("an admin finds a customer's team, grants it credits and makes a member an owner", async ({
  page,
  request,
}) => {
  const owner = await createVerifiedUser(request, "own");
  const dev = await createVerifiedUser(request, "dev");
  const ownerToken = await tokenViaApi(request, owner);
  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const org = { id: await createOrgViaApi(request, ownerToken, "Pixel Foundry") };
  const invited = await request.post(`/v1/orgs/${org.id}/invitations`, {
    headers: auth(ownerToken),
    data: { email: dev.email, role: "developer" },
  });
  expect(invited.status()).toBe(201);
  const mail = await readMail(request, dev.email, /invited you to Pixel Foundry/);
  const link = mail.links.find((l) => new URL(l).pathname.startsWith("/invitations/")) ?? "";
  const invitation = new URL(link).pathname.split("/").at(-1);
  const devToken = await tokenViaApi(request, dev);
  const accepted = await request.post(`/v1/invitations/${invitation}/accept`, { headers: auth(devToken) });
  expect(accepted.status()).toBe(200);
  const devId = (
    (await (await request.get("/v1/users/me", { headers: auth(devToken) })).json()) as { id: string }
  ).id;

  // The developer's key of the team, quoted to support by its start.
  const made = await request.post("/v1/api-keys", {
    headers: { ...auth(devToken), "X-Organization": org.id },
    data: { name: "Foundry renders" },
  });
  expect(made.status(), await made.text()).toBe(201);
  const { prefix } = (await made.json()) as { prefix: string };

  const admin = await createVerifiedUser(request, "adm");
  await openSignedIn(
    page,
    await staffViaCli(request, admin, "admin"),
    `/admin/customers?q=${encodeURIComponent(`${prefix.slice(0, 10)}…`)}`,
  );
  // The customer search finds the member who made the organisation's key, and names the organisation.
  const found = page.locator("[data-customer-row]");
  await expect(found).toHaveCount(1);
  await expect(found.getByRole("link", { name: dev.username })).toBeVisible();
  const orgKey = found.locator(`[data-org-key="${org.id}"]`);
  await expect(orgKey).toContainText(ADMIN_PAGE_TEXT.customers.orgKey(prefix));
  await expect(orgKey.getByRole("link", { name: "Pixel Foundry" })).toHaveAttribute(
    "href",
    `/admin/orgs/${org.id}`,
  );
  expect(await axeViolations(page)).toEqual([]);
  await found.getByRole("link", { name: dev.username }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/customers/${devId}$`));
  const orgs = page.locator("[data-section=customer-orgs]");
  await expect(orgs.getByRole("link")).toHaveText([O.personal, "Pixel Foundry"]);
  await expect(orgs.locator("[data-customer-org='Pixel Foundry']")).toContainText("developer");
  expect(await axeViolations(page)).toEqual([]);
  await orgs.getByRole("link", { name: "Pixel Foundry" }).click();

  await expect(page).toHaveURL(new RegExp(`/admin/orgs/${org.id}$`));
  await expect(page.locator("[data-org-name]")).toHaveText("Pixel Foundry");
  await expect(page.locator("[data-org-balance]")).toHaveText("0");
  await expect(page.locator("[data-org-member]")).toHaveCount(2);
  await expect(page.locator("[data-action]")).toHaveText([
    O.actions.grant,
    O.actions.takeBack,
    O.actions.disable,
  ]);
  expect(await axeViolations(page)).toEqual([]);

  await page.getByRole("button", { name: O.actions.grant }).click();
  const grant = page.getByRole("dialog", { name: `${O.actions.grant}: Pixel Foundry` });
  await grant.getByLabel(A.amount).fill("250");
  await grant.getByLabel(A.reason).fill("Pilot agreed with their CTO");
  await grant.getByRole("button", { name: A.confirm }).click();
  await expect(grant).toBeHidden();
  await expect(page.locator("[data-org-balance]")).toHaveText("250");

  await page.getByRole("button", { name: `${O.actions.makeOwner}: ${dev.username}` }).click();
  const promote = page.getByRole("dialog", { name: `${O.actions.makeOwner}: ${dev.username}` });
  await promote.getByLabel(A.reason).fill("Identity checked by video call");
  expect(await axeViolations(page)).toEqual([]);
  await promote.getByRole("button", { name: A.confirm }).click();
  await expect(promote).toBeHidden();
  await expect(page.locator(`[data-org-member='${dev.username}'] [data-member-role]`)).toHaveText("owner");
  await expect(page.locator("[data-make-owner]")).toHaveCount(0);
  await page.getByRole("tab", { name: O.sections.audit }).click();
  await expect(page.locator('[data-audit-entry="member.role_change"]')).toContainText("Identity checked");

  // The console's menu finds the team by the start of its name, now with two owners.
  await page.getByRole("link", { name: O.nav, exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/orgs$/);
  await page.getByLabel(O.search.label).fill("pixel f");
  await page.getByRole("button", { name: O.search.submit }).click();
  const row = page.locator(`[data-org-row="${org.id}"]`);
  await expect(row).toHaveCount(1);
  await expect(page.locator("[data-org-row]")).toHaveCount(1);
  await expect(row).toContainText(dev.username);
  await expect(row).toContainText(owner.username);
  expect(await axeViolations(page)).toEqual([]);
  await row.getByRole("link", { name: "Pixel Foundry" }).click();
  await expect(page.locator("[data-org-name]")).toHaveText("Pixel Foundry");
});
