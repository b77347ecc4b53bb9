// /profile/usage for a team organisation (ORGANISATIONS.md, "Usage gains group_by=member"): the
// owner stacks the chart by member and reads the totals per member; a personal organisation is not
// offered the choice. Checked with axe.
import { USAGE_TEXT } from "../../src/lib/usage-text.ts";
import {
  createOrgViaApi,
  createVerifiedUser,
  openSignedIn,
  readMail,
  tokenViaApi,
} from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { makeServiceKey } from "../fixtures/service-key.ts";
import { expect, test } from "../fixtures/test.ts";
import { staffViaCli } from "../fixtures/two-factor.ts";

const T = USAGE_TEXT;

test("a team's owner stacks usage by member and reads each member's totals; a personal page has no such choice", async ({
  page,
  request,
}) => {
  const owner = await createVerifiedUser(request, "lead");
  const dev = await createVerifiedUser(request, "coder");
  const ownerToken = await tokenViaApi(request, owner);
  const devToken = await tokenViaApi(request, dev);
  const auth = (token: string, org?: string) => ({
    Authorization: `Bearer ${token}`,
    ...(org ? { "X-Organization": org } : {}),
  });
  const org = { id: await createOrgViaApi(request, ownerToken, "Render Guild") };
  await request.post(`/v1/orgs/${org.id}/invitations`, {
    headers: auth(ownerToken),
    data: { email: dev.email, role: "developer" },
  });
  const mail = await readMail(request, dev.email, /invited you to Render Guild/);
  const link = mail.links.find((l) => new URL(l).pathname.startsWith("/invitations/")) ?? "";
  const accepted = await request.post(`/v1/invitations/${new URL(link).pathname.split("/").at(-1)}/accept`, {
    headers: auth(devToken),
  });
  expect(accepted.status()).toBe(200);

  // A new team has no credits: staff grant some, as support would for a pilot.
  const admin = await createVerifiedUser(request, "boss");
  const adminToken = await staffViaCli(request, admin, "admin");
  const grant = await request.post(`/v1/admin/orgs/${org.id}/credits`, {
    headers: auth(adminToken),
    data: { amount: 100, reason: "Pilot for the render guild", idempotency_key: "pilot-1" },
  });
  expect(grant.status()).toBe(201);

  const keyOf = async (token: string, data: Record<string, unknown>) => {
    const res = await request.post("/v1/api-keys", { headers: auth(token, org.id), data });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()) as { id: string };
  };
  const devKey = await keyOf(devToken, { name: "Coder's laptop" });
  const ownerKey = await keyOf(ownerToken, { name: "Lead's worker" });
  const service = await makeServiceKey();
  for (const [key, feature, n] of [
    [devKey.id, "comic", 1],
    [devKey.id, "comic", 2],
    [ownerKey.id, "background-remover", 3],
  ] as const) {
    const res = await request.post("/v1/credits/consume", {
      headers: { Authorization: `Bearer ${service}` },
      data: { api_key_id: key, feature, people: "one", idempotency_key: `guild-${n}` },
    });
    expect(res.status(), await res.text()).toBe(200);
  }

  await openSignedIn(page, ownerToken, "/robots.txt");
  await page.evaluate((id) => localStorage.setItem("x-organization", id), org.id);
  await page.goto("/profile/usage");
  const usage = page.locator("[data-usage]");
  await expect(usage).toHaveAttribute("data-status", "ready");
  const stack = usage.locator("[data-usage-stack]");
  await expect(stack.getByRole("radio")).toHaveCount(2);
  await stack.getByRole("radio", { name: T.stacks.member }).check();
  await expect(usage.locator("canvas[data-usage-chart]")).toHaveAttribute("aria-label", /stacked by member/);
  await expect(usage.locator("[data-usage-legend] li")).toHaveText([dev.username, owner.username]);
  const byMember = page.locator('[data-usage-totals="usage-by-member"] tbody tr');
  await expect(byMember).toHaveCount(2);
  // Members by name, each with their keys' charges.
  await expect(byMember.nth(0)).toContainText(dev.username);
  // Two comics at 5 credits each.
  await expect(byMember.nth(0).locator("td")).toHaveText(["2", "10"]);
  await expect(byMember.nth(1)).toContainText(owner.username);
  expect(await axeViolations(page)).toEqual([]);

  // A personal organisation has one member: the choice is not offered.
  await page.evaluate(() => localStorage.removeItem("x-organization"));
  await page.goto("/profile/usage");
  await expect(page.locator("[data-usage]")).toHaveAttribute("data-status", "ready");
  await expect(page.locator("[data-usage-stack]")).toHaveCount(0);
});
