// Alert senders for the lease endings' latch checks (billing/lease-sweep.ts's LatchAlerts) that
// record what they would mail: the low-balance crossings as [orgId, threshold, balance], the
// member-cap warnings as their events.
import type { LatchAlerts } from "../billing/lease-sweep.ts";
import type { Clock } from "../clock.ts";

export function recordingAlerts(clock: Clock): { alerts: LatchAlerts; mails: unknown[] } {
  const mails: unknown[] = [];
  return {
    mails,
    alerts: {
      clock,
      lowBalance: { crossed: (...args) => mails.push(args) },
      memberCaps: { nearing: (event) => mails.push(event) },
    },
  };
}
