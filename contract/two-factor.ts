// Two-factor sign-in (ACCOUNT-SECURITY.md): the code step of login, the TOTP setup and the
// recovery codes. Browser-safe (zod/mini), like account.ts: the portal's forms use these too.
import * as z from "zod/mini";
import { VALIDATION } from "./messages.ts";
import { credentialJson } from "./passkeys.ts";

/** What a second factor may be answered with: an app's code, a recovery code, a passkey. */
export const MFA_METHODS = ["totp", "recovery_code", "webauthn"] as const;

/** A code as typed: six digits from the app ("123 456" too) or a recovery code ("abcde-fghjk"). */
export const mfaCodeSchema = z
  .string({ error: VALIDATION.codeRequired })
  .check(z.trim(), z.minLength(1, VALIDATION.codeRequired), z.maxLength(32, VALIDATION.codeTooLong));

/** The longest mfa_token accepted (they are 43 characters). */
const MFA_TOKEN_MAX = 128;

const mfaTokenSchema = z
  .string({ error: "mfa_token is required" })
  .check(z.minLength(1, "mfa_token is required"), z.maxLength(MFA_TOKEN_MAX, "mfa_token is too long"));

/** `POST /v1/token/mfa`: the code, or the passkey's answer (`webauthn`, after POST /v1/passkeys/options). */
export const mfaLoginSchema = z
  .object({
    mfa_token: mfaTokenSchema,
    code: z.optional(mfaCodeSchema),
    webauthn: z.optional(credentialJson),
  })
  .check(
    z.refine((v) => v.code !== undefined || v.webauthn !== undefined, {
      path: ["code"],
      error: VALIDATION.codeRequired,
    }),
  );

/** `POST /v1/users/me/mfa/totp/confirm`, `DELETE /v1/users/me/mfa/totp`, new recovery codes. */
export const mfaCodeBodySchema = z.object({ code: mfaCodeSchema });

/** POST /v1/token's 403 for an account with two-factor sign-in on. */
export const mfaRequiredSchema = z.object({
  detail: z.string(),
  /** Give it to POST /v1/token/mfa with the code: 5 minutes, 5 tries, once. */
  mfa_token: z.string(),
  methods: z.array(z.enum(MFA_METHODS)),
});

/** POST /v1/token/mfa's 400 for a wrong code or passkey: how many tries the mfa_token has left. */
export const codeRefusedSchema = z.object({
  detail: z.string(),
  tries_left: z.int().check(z.nonnegative()),
});

/** `POST /v1/users/me/mfa/totp`: the secret, to be confirmed with a code before it counts. */
export const totpSetupSchema = z.object({
  /** Base32, for typing into an app that cannot scan. */
  secret: z.string(),
  /** The otpauth:// URL the QR code holds. */
  otpauth_url: z.string(),
});
export type TotpSetup = z.infer<typeof totpSetupSchema>;

/** New recovery codes: shown once, never again. */
export const recoveryCodesSchema = z.object({ recovery_codes: z.array(z.string()) });

/** `POST /v1/users/me/mfa/totp/confirm`: the codes, and a token that counts the second factor. */
export const totpConfirmedSchema = z.object({
  recovery_codes: z.array(z.string()),
  access_token: z.string(),
  token_type: z.literal("bearer"),
  expires_in: z.number(),
});

/** `GET /v1/users/me/mfa`. */
export const mfaStatusSchema = z.object({
  totp: z.boolean(),
  recovery_codes_left: z.number(),
});
