// Zod schemas of the organisation calls (ORGANISATIONS.md, "Calls"): organisations, members,
// invitations and the activity log. `zod/mini`, browser-safe: /org/members and /org/settings check
// their forms and read the answers with the same objects.

import * as z from "zod/mini";
import { emailSchema } from "./account.ts";
import { inThousandths } from "./money.ts";
import { ORG_NAME_MAX, orgNameProblem } from "./org-messages.ts";
import { INVITABLE_ROLES, ORG_ROLES } from "./org-roles.ts";

/** Words of these calls that ORG_DETAIL does not hold. */
export const ORG_TEXT = {
  memberNotFound: "Member not found",
  tooManyInvitesPerHour: "You sent 20 invitations in the last hour: try again later.",
  resentRecently: "This invitation was mailed less than an hour ago: try again later.",
  tooManyInvitesPerDay: "This organisation sent 50 invitations today: try again tomorrow.",
  transferToSelf: "Choose another member to transfer the organisation to",
  capInvalid: "Enter a number of credits from 0 with at most 3 decimals, or nothing for no limit",
  nothingToChange: "Give a role or a monthly credit cap",
} as const;

/** Most credits a member's cap may be: the API keys' largest monthly limit. */
export const MEMBER_CAP_MAX = 100_000_000;

const instant = z.iso.datetime({ offset: true });
const roleSchema = z.enum(ORG_ROLES);

/** A name as ORGANISATIONS.md allows it (orgNameProblem says why not). */
export const orgNameSchema = z.string().check(
  z.trim(),
  z.maxLength(ORG_NAME_MAX * 4),
  z.superRefine((name, ctx) => {
    const problem = orgNameProblem(name);
    if (problem) ctx.issues.push({ code: "custom", message: problem, input: name });
  }),
);

/** `POST /v1/orgs` and `PATCH /v1/orgs/{id}`. */
export const orgNameRequestSchema = z.object({ name: orgNameSchema });

/** One organisation in `GET /v1/orgs`. */
export const orgListItemSchema = z.object({
  id: z.string(),
  /** Null for the personal organisation (the portal shows "Personal"). */
  name: z.nullable(z.string()),
  personal: z.boolean(),
  role: roleSchema,
  credit_balance: z.number(),
  /** "FREE" or the tier name. */
  plan: z.string(),
});
export const orgListSchema = z.object({ data: z.array(orgListItemSchema) });
export type OrgListItem = z.infer<typeof orgListItemSchema>;

/** `GET /v1/orgs/{id}`, and the answer of the calls that create or change one. */
export const orgSchema = z.object({
  id: z.string(),
  name: z.nullable(z.string()),
  personal: z.boolean(),
  /** The caller's role. */
  role: roleSchema,
  member_count: z.number(),
  created_at: instant,
});
export type Org = z.infer<typeof orgSchema>;

/**
 * `DELETE /v1/orgs/{id}`. With `confirm_forfeit: true`, `forfeit` is what the caller was shown
 * would be lost (the 409's figures): a deletion that would now lose more is refused again with the
 * new figures. Without it, whatever there is at that moment is written off.
 */
export const deleteOrgRequestSchema = z.object({
  confirm_forfeit: z.optional(z.boolean()),
  // Credits as the 409 gave them (a debt is negative); days are whole and never negative.
  forfeit: z.optional(z.object({ credits: z.number(), subscription_days: z.int().check(z.minimum(0)) })),
});

/** The 409 of `DELETE /v1/orgs/{id}` without `confirm_forfeit: true`: what would be lost. */
export const forfeitRefusalSchema = z.object({
  detail: z.string(),
  /** Credits written off by the deletion. */
  credits: z.number(),
  /** Days of the paid period that end unused (0 without a subscription). */
  subscription_days: z.number(),
});

/** A key that a change revoked, or that it left working (a shared key). */
export const keyRefSchema = z.object({ id: z.string(), name: z.string(), prefix: z.string() });
export type KeyRef = z.infer<typeof keyRefSchema>;

export const memberSchema = z.object({
  user_id: z.string(),
  username: z.string(),
  /** Only for roles that see members' e-mail addresses; null otherwise. */
  email: z.nullable(z.string()),
  role: roleSchema,
  joined_at: instant,
  /**
   * Credits the member's keys may spend per Berlin month; null: no cap. Left out, with
   * `spent_this_month`, of other members for a role that sees only its own usage (developer).
   */
  monthly_credit_cap: z.optional(z.nullable(z.number())),
  /** Credits the member's keys spent this Berlin month (left out as `monthly_credit_cap` is). */
  spent_this_month: z.optional(z.number()),
});
export type Member = z.infer<typeof memberSchema>;
export const memberListSchema = z.object({
  data: z.array(memberSchema),
  /**
   * The server's time of the answer: `spent_this_month` counts its Berlin month, and the page says
   * when the caps reset by it (see the ledger's as_of). Optional: an older server leaves it out.
   */
  as_of: z.optional(instant),
});

/** A cap in credits: 0 or more, at most 3 decimals. */
export const memberCapSchema = z.number({ error: ORG_TEXT.capInvalid }).check(
  z.gte(0, ORG_TEXT.capInvalid),
  z.lte(MEMBER_CAP_MAX, ORG_TEXT.capInvalid),
  z.refine(inThousandths, {
    error: ORG_TEXT.capInvalid,
  }),
);

/** `PATCH /v1/orgs/{id}/members/{user_id}`. */
export const memberChangeSchema = z
  .object({
    role: z.optional(roleSchema),
    monthly_credit_cap: z.optional(z.nullable(memberCapSchema)),
  })
  .check(
    // Said beside `role`: a refusal of the whole body would read as "not an object".
    z.superRefine((body, ctx) => {
      if (body.role === undefined && body.monthly_credit_cap === undefined) {
        ctx.issues.push({ code: "custom", message: ORG_TEXT.nothingToChange, input: body, path: ["role"] });
      }
    }),
  );

/** `PATCH .../members/{user_id}` 200: the member as changed, and the keys a lost role revoked. */
export const memberChangedSchema = z.object({
  member: memberSchema,
  revoked_keys: z.array(keyRefSchema),
  /** How many invitations they had sent for a role the new one cannot give, now revoked. */
  revoked_invitations: z.number(),
});

/** `DELETE .../members/{user_id}` 200. */
export const memberRemovedSchema = z.object({
  /** The keys they made in the organisation, now revoked. */
  revoked_keys: z.array(keyRefSchema),
  /** The shared keys they made: still working; revoke them too if they should stop. */
  shared_keys: z.array(keyRefSchema),
  /** How many invitations they had sent that are now revoked. */
  revoked_invitations: z.number(),
});

/** `POST /v1/orgs/{id}/transfer-ownership`. */
export const transferRequestSchema = z.object({ user_id: z.string().check(z.maxLength(64)) });

/** `POST /v1/orgs/{id}/invitations`: `owner` is not invitable (422). */
export const invitationRequestSchema = z.object({
  email: emailSchema,
  role: z.enum(INVITABLE_ROLES),
});

const personRef = z.object({ id: z.string(), username: z.string() });

export const invitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  /** Null once the inviter's account is gone. */
  invited_by: z.nullable(personRef),
  created_at: instant,
  expires_at: instant,
});
export type Invitation = z.infer<typeof invitationSchema>;
export const invitationListSchema = z.object({ data: z.array(invitationSchema) });

/** `GET /v1/invitations/{token}` (public). */
export const publicInvitationSchema = z.object({
  organization_name: z.string(),
  role: roleSchema,
  invited_by: z.nullable(z.object({ username: z.string(), email: z.string() })),
  expires_at: instant,
});
export type PublicInvitation = z.infer<typeof publicInvitationSchema>;

/** `POST /v1/invitations/{token}/accept` 200. */
export const acceptedInvitationSchema = z.object({
  organization: z.object({ id: z.string(), name: z.nullable(z.string()), personal: z.boolean() }),
  role: roleSchema,
  joined_at: instant,
});

/** One event of `GET /v1/orgs/{id}/activity`, newest first. */
export const activityEntrySchema = z.object({
  id: z.string(),
  at: instant,
  /** org.create, member.invite, member.role_change, billing_details.change, ... */
  action: z.string(),
  actor: z.object({ id: z.nullable(z.string()), label: z.string() }),
  /** The member the event is about, if any. */
  subject_user_id: z.nullable(z.string()),
  details: z.record(z.string(), z.unknown()),
  /** Only on the caller's own events: never another member's address. */
  ip: z.nullable(z.string()),
});
export const activitySchema = z.object({
  data: z.array(activityEntrySchema),
  next_cursor: z.nullable(z.string()),
});

/** The 409 of `DELETE /v1/users/me` while the account is the last owner of a team with others. */
export const transferFirstSchema = z.object({
  detail: z.string(),
  organizations: z.array(z.object({ id: z.string(), name: z.nullable(z.string()) })),
});
