// Zod schemas of the account calls: the portal validates its forms with them and the server
// validates requests and generates its OpenAPI document from them. Written with `zod/mini`
// because the portal ships this module to the browser: the classic `zod` entry point would add
// tens of kilobytes to every page with a form (see docs/decisions/006-contract-in-zod-mini.md).
// Browser-safe: no Node APIs here.
import * as z from "zod/mini";
import { BODY_ERRORS, VALIDATION } from "./messages.ts";
import { ORG_ROLES } from "./org-roles.ts";
import { credentialJson } from "./passkeys.ts";
import { mfaCodeSchema } from "./two-factor.ts";

const isMissing = (input: unknown) => input === undefined || input === null;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 30;

/**
 * Whether a field's further rules apply: only to a string that is filled in, so an empty field
 * reports its "required" message alone. Written as `when`, not as `abort: true` on the "required"
 * check: in zod 4 an explicit abort in any field also stops the object's own checks, so with it
 * "Passwords must match" vanished whenever another field (say, the username) was empty.
 */
const filledIn = (payload: { value: unknown }) => typeof payload.value === "string" && payload.value !== "";

/**
 * `error` as a rule that applies only once the field is filled in (see `filledIn`) and `also` holds.
 * zod runs `when` on every check, though the string-format checks' parameter types do not list it.
 */
const onceFilledIn = (error: string, also: (value: string) => boolean = () => true) => ({
  error,
  when: (payload: { value: unknown }) => filledIn(payload) && also(payload.value as string),
});

/**
 * Password rules in the spec's order. An empty password reports only "Password is required";
 * otherwise every broken rule is reported, in that order, so a form can show the first one.
 */
export const passwordSchema = z
  .string({ error: VALIDATION.passwordRequired })
  .check(
    z.minLength(1, VALIDATION.passwordRequired),
    z.minLength(PASSWORD_MIN, onceFilledIn(VALIDATION.passwordTooShort)),
    z.maxLength(PASSWORD_MAX, onceFilledIn(VALIDATION.passwordTooLong)),
    z.regex(/[A-Z]/, onceFilledIn(VALIDATION.passwordUppercase)),
    z.regex(/[a-z]/, onceFilledIn(VALIDATION.passwordLowercase)),
    z.regex(/[0-9]/, onceFilledIn(VALIDATION.passwordNumber)),
    z.regex(/[@$!%*?&#]/, onceFilledIn(VALIDATION.passwordSpecial)),
  );

/** Longest address SMTP can carry (RFC 5321 path limit minus the angle brackets). */
export const EMAIL_MAX = 254;

/** An e-mail address, trimmed. The server further lower-cases the domain before storing it. */
export const emailSchema = z
  .string({ error: (issue) => (isMissing(issue.input) ? VALIDATION.emailRequired : VALIDATION.emailInvalid) })
  .check(
    z.trim(),
    z.minLength(1, VALIDATION.emailRequired),
    // One message for an address that is too long or malformed, and no regex over a huge input.
    z.maxLength(EMAIL_MAX, onceFilledIn(VALIDATION.emailInvalid)),
    z.regex(
      z.regexes.email,
      onceFilledIn(VALIDATION.emailInvalid, (value) => value.length <= EMAIL_MAX),
    ),
  );

/**
 * Usernames: 3 to 30 letters, digits, dots, dashes or underscores. The spec only says "required"
 * and "Invalid username"; this is what "valid" means. ASCII only, so that case-insensitive
 * uniqueness (lower-case comparison) is the same in JavaScript and in PostgreSQL.
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9._-]{3,30}$/;
const USERNAME_MAX = 30;

export const usernameSchema = z
  .string({
    error: (issue) => (isMissing(issue.input) ? VALIDATION.usernameRequired : VALIDATION.usernameInvalid),
  })
  .check(
    z.trim(),
    z.minLength(1, VALIDATION.usernameRequired),
    // Says the pattern's upper bound where a schema reader looks for it. The pattern is checked
    // only within it, so a long name gets one message; not with `abort`, which would also stop the
    // object's "Passwords must match" (see `filledIn`).
    z.maxLength(USERNAME_MAX, VALIDATION.usernameInvalid),
    z.regex(
      USERNAME_PATTERN,
      onceFilledIn(VALIDATION.usernameInvalid, (value) => value.length <= USERNAME_MAX),
    ),
  );

/** Longer than any password the rules allow, and far below what would cost the server work to read. */
const SUBMITTED_PASSWORD_MAX = 256;

const confirmPasswordSchema = z
  .string({ error: VALIDATION.confirmPasswordRequired })
  .check(
    z.minLength(1, VALIDATION.confirmPasswordRequired),
    z.maxLength(SUBMITTED_PASSWORD_MAX, onceFilledIn(VALIDATION.passwordsMustMatch)),
  );

/** A verification or reset token as it arrives from a link. */
export const tokenSchema = z
  .string({ error: VALIDATION.tokenRequired })
  .check(z.minLength(1, VALIDATION.tokenRequired), z.maxLength(256, VALIDATION.tokenTooLong));

/**
 * "Passwords must match", checked whenever both fields are filled in, even when other fields are
 * invalid or empty, so a form shows it next to the other messages (see `filledIn`).
 */
function passwordsMatch<T extends { password: string; confirmPassword: string }>() {
  return z.refine<T>((v) => v.password === v.confirmPassword, {
    path: ["confirmPassword"],
    error: VALIDATION.passwordsMustMatch,
    when: (payload) => {
      const v = payload.value as Partial<Record<"password" | "confirmPassword", unknown>> | undefined;
      return (
        typeof v?.password === "string" &&
        typeof v.confirmPassword === "string" &&
        v.password !== "" &&
        v.confirmPassword !== ""
      );
    },
  });
}

// ---- Requests ----

/** A password as typed to prove who one is: only presence (and a sane length) is checked. */
const submittedPasswordSchema = z
  .string({ error: VALIDATION.passwordRequired })
  .check(
    z.minLength(1, VALIDATION.passwordRequired),
    z.maxLength(SUBMITTED_PASSWORD_MAX, VALIDATION.passwordTooLong),
  );

/** `POST /v1/token` (form-urlencoded, OAuth2 password grant). Only presence is checked for the password. */
export const loginSchema = z.object({
  username: usernameSchema,
  password: submittedPasswordSchema,
  grant_type: z.optional(z.literal("password", { error: BODY_ERRORS.grantType })),
});

/**
 * `POST /v1/reauth`: the password (with a `code` from the authenticator app or a recovery code
 * when the account has two-factor sign-in on), or a passkey's answer (after POST
 * /v1/reauth/passkey-options).
 */
/**
 * The 403 of a sensitive action whose password was entered more than 10 minutes ago: what may
 * answer POST /v1/reauth, and whether the password needs a code beside it.
 */
export const reauthRequiredSchema = z.object({
  detail: z.string(),
  reauth_required: z.literal(true),
  methods: z.array(z.enum(["password", "webauthn"])),
  code_required: z.boolean(),
});

/** POST /v1/reauth's 400 for a password without the code its account's two-factor sign-in needs. */
export const codeRequiredSchema = z.object({ detail: z.string(), code_required: z.literal(true) });

export const reauthSchema = z
  .object({
    password: z.optional(submittedPasswordSchema),
    code: z.optional(mfaCodeSchema),
    webauthn: z.optional(credentialJson),
  })
  .check(
    z.refine((v) => v.password !== undefined || v.webauthn !== undefined, {
      path: ["password"],
      error: VALIDATION.passwordRequired,
    }),
    z.refine((v) => v.password === undefined || v.webauthn === undefined, {
      path: ["webauthn"],
      error: "Give the password or a passkey, not both",
    }),
  );

/**
 * The new password must not be the current one: the change would sign the other browsers out and
 * mail "password changed" while nothing changed. Checked only once both are filled in, so an empty
 * field reports its own message alone.
 */
function differsFromCurrent<T extends Record<K | N, string>, K extends string, N extends string>(
  current: K,
  next: N,
) {
  return z.refine<T>((v) => (v[current] as string) !== (v[next] as string), {
    path: [next],
    error: VALIDATION.passwordUnchanged,
    when: (payload) => {
      const v = payload.value as Partial<Record<K | N, unknown>> | undefined;
      return typeof v?.[current] === "string" && typeof v[next] === "string" && v[next] !== "";
    },
  });
}

/** `POST /v1/users/me/password`: the current password proves who asks; the new one follows the rules. */
export const changePasswordSchema = z
  .object({
    current_password: submittedPasswordSchema,
    new_password: passwordSchema,
  })
  .check(differsFromCurrent("current_password", "new_password"));

/** The change-password form of /profile/security: the current password, the new one twice. */
export const changePasswordFormSchema = z
  .object({
    currentPassword: submittedPasswordSchema,
    password: passwordSchema,
    confirmPassword: confirmPasswordSchema,
  })
  .check(passwordsMatch(), differsFromCurrent("currentPassword", "password"));

/** How long after entering the password a sensitive action is allowed (ACCOUNT-SECURITY.md). */
export const REAUTH_WINDOW_SECONDS = 600;

/** `POST /v1/register` and the register form. */
export const registerSchema = z
  .object({
    email: emailSchema,
    username: usernameSchema,
    password: passwordSchema,
    confirmPassword: confirmPasswordSchema,
  })
  .check(passwordsMatch());
export type RegisterInput = z.infer<typeof registerSchema>;

/** The forgot-password and resend-verification calls and forms: `{email}`. */
export const emailRequestSchema = z.object({ email: emailSchema });
export type EmailRequestInput = z.infer<typeof emailRequestSchema>;

/** The reset-password form (password and its confirmation). */
export const resetPasswordFormSchema = z
  .object({ password: passwordSchema, confirmPassword: confirmPasswordSchema })
  .check(passwordsMatch());

/** `POST /v1/user/password-reset`: the new password and the token from the link. */
export const passwordResetSchema = z.object({ password: passwordSchema, token: tokenSchema });
export type PasswordResetInput = z.infer<typeof passwordResetSchema>;

/** `POST /v1/user/verify-email`. */
export const verifyEmailSchema = z.object({ token: tokenSchema });

/**
 * `POST /v1/user/confirm-email`: the token from either link; `revert: true` when the owner asked on
 * the page to follow the old address's way back (without it, a way back does nothing: 409; with it,
 * the new address's link does nothing: 400).
 */
export const confirmEmailChangeSchema = z.object({ token: tokenSchema, revert: z.optional(z.boolean()) });

/** Its 409 for a way back followed without `revert: true`: the page asks the owner, then sends it. */
export const revertUnconfirmedSchema = z.object({ detail: z.string(), revert_required: z.literal(true) });

// ---- Responses ----

export const roleSchema = z.enum(["user", "support", "admin"]);
export type Role = z.infer<typeof roleSchema>;

export const tokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal("bearer"),
  /** Seconds until the token expires. */
  expires_in: z.number(),
});

/**
 * An e-mail address the server answers with. Documented as `format: email` (RFC 5321, which
 * allows quoted local parts) but read as any string: the portal shows whatever address the account
 * holds rather than refusing the whole answer over a stricter pattern than the mail system's.
 */
const emailAnswer = z.string().check(z.meta({ format: "email" }));
/** An instant the server answers with: ISO-8601 from Date.toISOString(). */
const instant = z.iso.datetime({ offset: true });

export const registeredUserSchema = z.object({ id: z.string(), username: z.string(), email: emailAnswer });

export const subscriptionSchema = z.object({
  /** "FREE" or a tier name such as "Tier A". */
  plan: z.string(),
  product_id: z.nullable(z.string()),
  /** "free" for the FREE plan; the billing states otherwise. */
  status: z.string(),
  /** ISO-8601 date-time: end of the current period of a paid plan. */
  expires_at: z.nullable(instant),
  cancel_at_period_end: z.boolean(),
  /** Name of the plan that takes over at the period end, if a change is scheduled. */
  scheduled_plan: z.nullable(z.string()),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

/** What a user on no paid plan has; the portal also treats a missing or null subscription as this. */
export const FREE_SUBSCRIPTION: Subscription = Object.freeze({
  plan: "FREE",
  product_id: null,
  status: "free",
  expires_at: null,
  cancel_at_period_end: false,
  scheduled_plan: null,
});

/**
 * The organisation `GET /v1/users/me` answers for (ORGANISATIONS.md): the one of `X-Organization`,
 * or the personal one (id = the user's id, no stored name) without it or for a non-member.
 */
export const userOrganizationSchema = z.object({
  id: z.string(),
  /** null for a personal organisation: the portal shows "Personal". */
  name: z.nullable(z.string()),
  personal: z.boolean(),
  role: z.enum(ORG_ROLES),
});
export type UserOrganization = z.infer<typeof userOrganizationSchema>;

/**
 * `GET /v1/users/me`. `subscription` may be missing or null from other providers: read it as FREE.
 * `credit_balance` and `subscription` are the organisation's (`organization`).
 */
export const userSchema = z.object({
  id: z.string(),
  username: z.string(),
  email: emailAnswer,
  role: roleSchema,
  email_verified: z.boolean(),
  credit_balance: z.number(),
  subscription: z.optional(z.nullable(subscriptionSchema)),
  organization: z.optional(userOrganizationSchema),
  /**
   * Whether the organisation (`organization`) is on a dispute hold (ACCOUNT-SECURITY.md): a dispute
   * was lost after its credits were spent, and its keys' API calls answer 402 "Payment disputed.
   * Contact support." until support clears the hold. Sent by `GET /v1/users/me`.
   */
  dispute_hold: z.optional(
    z.boolean().check(
      z.meta({
        description:
          'Whether `organization` is on a dispute hold: its API keys are refused 402 "Payment disputed. Contact support." until support clears it.',
      }),
    ),
  ),
  /**
   * True when X-Organization named a team organisation that was deleted while the caller was a
   * member of it: the answer is the personal organisation's, and the portal says the organisation
   * was deleted rather than that the caller is no longer a member. Absent otherwise.
   */
  chosen_organization_deleted: z.optional(
    z.boolean().check(
      z.meta({
        description:
          "Present (true) only when X-Organization named a team organisation deleted while the caller was a member: the answer is the personal organisation's.",
      }),
    ),
  ),
  /**
   * On a dispute hold, the invoice of the disputed payment, for an owner or billing member (who can
   * open it): its id (the portal's invoice page), number and Stripe's hosted page (null for the
   * local checkout's). Absent without a hold, for other roles, or when the invoice is not known.
   */
  dispute_hold_invoice: z.optional(
    z
      .object({
        id: z.string(),
        number: z.nullable(z.string()),
        invoice_url: z.nullable(z.string()),
      })
      .check(
        z.meta({
          description:
            "On a dispute hold, for an owner or billing member: the invoice of the disputed payment (id, number, Stripe's hosted page or null).",
        }),
      ),
  ),
});
export type User = z.infer<typeof userSchema>;

export const detailSchema = z.object({ detail: z.string() });

export const validationErrorSchema = z.object({
  detail: z.array(
    z.object({
      loc: z.array(z.union([z.string(), z.number()])),
      msg: z.string(),
      type: z.string(),
    }),
  ),
});

export const resetCheckResponseSchema = z.object({ valid: z.literal(true) });
