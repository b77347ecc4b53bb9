// Zod schema of the low-balance alert setting (GET and PUT /v1/users/me/low-balance-alert):
// "E-mail me when my balance falls below N credits". `zod/mini`, browser-safe: /profile's form
// checks its input with the same object.
import * as z from "zod/mini";

export const LOW_BALANCE_MAX = 1_000_000;

export const LOW_BALANCE_RULES = {
  threshold: `Enter a whole number of credits from 1 to ${LOW_BALANCE_MAX.toLocaleString("en-US")}`,
} as const;

/** `threshold`: whole credits, or null for no alert (the default). */
export const lowBalanceAlertSchema = z.object({
  threshold: z.nullable(
    z
      .int({ error: LOW_BALANCE_RULES.threshold })
      .check(z.gte(1, LOW_BALANCE_RULES.threshold), z.lte(LOW_BALANCE_MAX, LOW_BALANCE_RULES.threshold)),
  ),
});
export type LowBalanceAlert = z.infer<typeof lowBalanceAlertSchema>;
