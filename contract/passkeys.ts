// Passkeys (WebAuthn, ACCOUNT-SECURITY.md): the account's list, adding and naming one, and the
// sign-in with one. The ceremony's own messages (options, the browser's answers) are WebAuthn's
// JSON shapes, passed through as objects: @simplewebauthn checks them on both sides.
import * as z from "zod/mini";
import { notPrintable, printable } from "./free-text.ts";

export const PASSKEY_NAME_MAX = 60;

export const passkeySchema = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  last_used_at: z.nullable(z.string()),
  /** Synced across the owner's devices (true) or bound to one authenticator. */
  backed_up: z.boolean(),
});
export type Passkey = z.infer<typeof passkeySchema>;

export const passkeyListSchema = z.object({ data: z.array(passkeySchema) });

/** The browser's answer to a WebAuthn ceremony (navigator.credentials.create/get as JSON). */
export const credentialJson = z.looseObject({
  id: z.string().check(z.maxLength(1024)),
  rawId: z.string().check(z.maxLength(1024)),
  type: z.string().check(z.maxLength(32)),
  response: z.looseObject({ clientDataJSON: z.string().check(z.maxLength(4096)) }),
});

export const passkeyNameSchema = z
  .string({ error: "Give the passkey a name" })
  .check(
    z.trim(),
    z.minLength(1, "Give the passkey a name"),
    z.maxLength(PASSKEY_NAME_MAX, `A passkey's name can have at most ${PASSKEY_NAME_MAX} characters`),
    printable(notPrintable("The name")),
  );

/** `POST /v1/users/me/passkeys`. */
export const addPasskeySchema = z.object({ name: passkeyNameSchema, response: credentialJson });

/** `POST /v1/passkeys/options`: for the code step of a sign-in, its mfa_token; else a passwordless sign-in. */
export const passkeyOptionsRequestSchema = z.object({
  mfa_token: z.optional(z.string().check(z.maxLength(128))),
});

/** `POST /v1/token/passkey`, and the passkey answer of `POST /v1/token/mfa`. */
export const passkeyAssertionSchema = z.object({ response: credentialJson });

/** WebAuthn's options JSON: what the browser's passkey dialog is started with. */
export const webauthnOptionsSchema = z.looseObject({ challenge: z.string() });
