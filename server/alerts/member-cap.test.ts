// The member cap's warning mail: queued once per member, month and cap, so that a cap raised (which
// re-arms the warning, rearmCapWarning) mails again at the new mark, and a repeat does not.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { billingMails } from "../db/schema/index.ts";
import { useTestApp } from "../testing/suite.ts";
import { cappedMember } from "../testing/team-org.ts";
import { NO_LIMITS } from "../testing/test-app.ts";
import { createMemberCapAlerts } from "./member-cap.ts";

describe.each(TEST_DATABASES)("member cap mails (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("queues the warning once per cap: again when the cap changed, not for a repeat", async () => {
    const { member, orgId } = await cappedMember(ctx.t, 10_000);
    const alerts = createMemberCapAlerts({
      db: ctx.t.deps.db,
      clock: ctx.t.clock,
      tasks: ctx.t.tasks,
      sender: { sendPending: async () => 0, sendSoon: () => {} },
      logger: ctx.t.deps.logger,
      portalUrl: "http://localhost",
    });
    const event = { orgId, memberId: member.id, month: "2026-11-01", cap: 10_000, used: 8001 };
    alerts.nearing(event);
    alerts.nearing({ ...event, used: 9000 });
    alerts.nearing({ ...event, cap: 20_000, used: 16_001 });
    await ctx.t.tasks.idle();
    const subjects = (
      await ctx.t.deps.db.select().from(billingMails).where(eq(billingMails.kind, "member_cap_nearing"))
    )
      .filter((m) => m.to === "member@example.com")
      .map((m) => m.subject)
      .sort();
    expect(subjects).toEqual([expect.stringContaining("at 80 %"), expect.stringContaining("at 80 %")]);
  });
});
