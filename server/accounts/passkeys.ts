// Passkeys (WebAuthn, ACCOUNT-SECURITY.md): adding one, listing and removing them, and checking an
// assertion for a passwordless sign-in or as the second factor of a sign-in with a password. The
// ceremony is @simplewebauthn/server's; ours is the bookkeeping: every challenge is handed out
// once, lives 5 minutes and is taken back in the same statement that finds it, and a passkey's
// signature counter may only go up.
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { decodeClientDataJSON } from "@simplewebauthn/server/helpers";
import { and, desc, eq, gt, lt } from "drizzle-orm";
import { appendSecurityEvent, type RequestOrigin } from "../audit/security-events.ts";
import type { Clock } from "../clock.ts";
import { type PasskeyRow, passkeys, type UserRow, webauthnChallenges } from "../db/schema/index.ts";
import type { Db, DbOrTx } from "../db/types.ts";
import { isStaffsLastFactor } from "./staff-factors.ts";

export const WEBAUTHN_CHALLENGE_LIFETIME_MS = 5 * 60_000;
/** The most passkeys an account keeps (a phone, a laptop, two security keys... with room to spare). */
export const PASSKEYS_MAX = 10;

type Purpose = "register" | "sign_in" | "second_factor" | "reauth";

/** What an assertion is for: a sign-in without a password, or, for one account, the second factor or a re-authentication. */
type AssertionPurpose = Exclude<Purpose, "register">;

/**
 * A browser's answer as the API's schema checked it (contract/passkeys.ts): the fields this module
 * reads; @simplewebauthn checks every other part of it.
 */
export interface CredentialAnswer {
  id: string;
  response: { clientDataJSON: string };
}
type Account = Pick<UserRow, "id" | "username">;

export interface PasskeyDeps {
  db: Db;
  clock: Clock;
  /** The product's name, as the browser's passkey dialog shows it. */
  rpName: string;
  /** PORTAL_URL: its host is the relying party id, its origin the only one accepted. */
  portalUrl: string;
}

export type PasskeyRefusal = "expired" | "not_verified" | "unknown_passkey" | "limit" | "duplicate";

const fromB64 = (text: string) => new Uint8Array(Buffer.from(text, "base64url"));
const toB64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/** The challenge a browser's answer carries (in clientDataJSON), or undefined for a malformed one. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    return decodeClientDataJSON(clientDataJSON).challenge;
  } catch {
    return undefined;
  }
}

/**
 * Whether the authenticator must have checked its owner (PIN, fingerprint). A passwordless sign-in
 * and a re-authentication stand in for the password, so the passkey alone must prove who is there;
 * as a second factor after the password, having the device is the proof.
 */
function verifiesItsOwner(purpose: AssertionPurpose): boolean {
  return purpose !== "second_factor";
}

export function createPasskeys(deps: PasskeyDeps) {
  const { db, clock } = deps;
  const portal = new URL(deps.portalUrl);
  const rpID = portal.hostname;
  const expectedOrigin = portal.origin;

  async function keepChallenge(challenge: string, purpose: Purpose, userId: string | null) {
    const now = clock.now();
    await db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, now));
    await db.insert(webauthnChallenges).values({
      challenge,
      purpose,
      userId,
      expiresAt: new Date(now.getTime() + WEBAUTHN_CHALLENGE_LIFETIME_MS),
    });
  }

  /** Takes the challenge back (once): whose it was, or undefined if unknown, used or expired. */
  async function takeChallenge(clientDataJSON: string, purpose: Purpose) {
    const challenge = challengeOf(clientDataJSON);
    if (!challenge) return undefined;
    const [taken] = await db
      .delete(webauthnChallenges)
      .where(
        and(
          eq(webauthnChallenges.challenge, challenge),
          eq(webauthnChallenges.purpose, purpose),
          gt(webauthnChallenges.expiresAt, clock.now()),
        ),
      )
      .returning();
    return taken;
  }

  const listOf = (dbx: DbOrTx, userId: string) =>
    dbx.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(desc(passkeys.createdAt));

  return {
    list: (userId: string): Promise<PasskeyRow[]> => listOf(db, userId),

    async registrationOptions(user: Account): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const existing = await listOf(db, user.id);
      const options = await generateRegistrationOptions({
        rpName: deps.rpName,
        rpID,
        userName: user.username,
        userID: new TextEncoder().encode(user.id),
        attestationType: "none",
        excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
        authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
      });
      await keepChallenge(options.challenge, "register", user.id);
      return options;
    },

    /** Verifies the browser's new credential against its challenge and keeps it under `name`. */
    async add(
      user: Account,
      name: string,
      answer: CredentialAnswer,
      origin: RequestOrigin,
    ): Promise<{ ok: true; passkey: PasskeyRow } | { ok: false; reason: PasskeyRefusal }> {
      const taken = await takeChallenge(answer.response.clientDataJSON, "register");
      if (!taken || taken.userId !== user.id) return { ok: false, reason: "expired" };
      const verified = await verifyRegistrationResponse({
        response: answer as unknown as RegistrationResponseJSON,
        expectedChallenge: taken.challenge,
        expectedOrigin,
        expectedRPID: rpID,
        requireUserVerification: false,
      }).catch(() => ({ verified: false as const }));
      if (!verified.verified) return { ok: false, reason: "not_verified" };
      const { credential, credentialBackedUp } = verified.registrationInfo;
      const now = clock.now();
      return db.transaction(async (tx) => {
        if ((await listOf(tx, user.id)).length >= PASSKEYS_MAX)
          return { ok: false, reason: "limit" } as const;
        const [row] = await tx
          .insert(passkeys)
          .values({
            id: credential.id,
            userId: user.id,
            name,
            publicKey: toB64(credential.publicKey),
            counter: credential.counter,
            transports: credential.transports ?? [],
            backedUp: credentialBackedUp,
            createdAt: now,
          })
          .onConflictDoNothing()
          .returning();
        if (!row) return { ok: false, reason: "duplicate" } as const;
        await appendSecurityEvent(
          tx,
          { action: "passkey.added", userId: user.id, actorLabel: user.username, origin, details: { name } },
          now,
        );
        return { ok: true, passkey: row } as const;
      });
    },

    /**
     * Removes one of the account's passkeys: its row (for the owner's mail), undefined when there
     * is no such passkey, or "staff_last_factor" for a staff account's only second factor.
     */
    async remove(
      user: Account,
      id: string,
      origin: RequestOrigin,
    ): Promise<PasskeyRow | "staff_last_factor" | undefined> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const [mine] = await tx
          .select({ id: passkeys.id })
          .from(passkeys)
          .where(and(eq(passkeys.id, id), eq(passkeys.userId, user.id)));
        if (mine && (await isStaffsLastFactor(tx, user.id, { passkeyId: id }))) return "staff_last_factor";
        const [gone] = await tx
          .delete(passkeys)
          .where(and(eq(passkeys.id, id), eq(passkeys.userId, user.id)))
          .returning();
        if (!gone) return undefined;
        await appendSecurityEvent(
          tx,
          {
            action: "passkey.removed",
            userId: user.id,
            actorLabel: user.username,
            origin,
            details: { name: gone.name },
          },
          now,
        );
        return gone;
      });
    },

    /**
     * Options for an assertion: for a passwordless sign-in (any of the site's passkeys; the browser
     * offers them), or for `userId`'s second factor or re-authentication (only theirs).
     */
    async authenticationOptions(forUser?: {
      userId: string;
      purpose: "second_factor" | "reauth";
    }): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const allow = forUser ? await listOf(db, forUser.userId) : [];
      const options = await generateAuthenticationOptions({
        rpID,
        userVerification: verifiesItsOwner(forUser?.purpose ?? "sign_in") ? "required" : "preferred",
        ...(forUser ? { allowCredentials: allow.map((p) => ({ id: p.id, transports: p.transports })) } : {}),
      });
      await keepChallenge(options.challenge, forUser?.purpose ?? "sign_in", forUser?.userId ?? null);
      return options;
    },

    /**
     * Checks an assertion: its challenge (for `purpose`, and `userId`'s when given), the passkey's
     * signature and a counter that went up. Answers whose passkey it was.
     */
    async verify(
      answer: CredentialAnswer,
      purpose: AssertionPurpose,
      userId?: string,
    ): Promise<{ ok: true; userId: string; passkey: PasskeyRow } | { ok: false; reason: PasskeyRefusal }> {
      const taken = await takeChallenge(answer.response.clientDataJSON, purpose);
      if (!taken || (userId !== undefined && taken.userId !== userId))
        return { ok: false, reason: "expired" };
      const [passkey] = await db.select().from(passkeys).where(eq(passkeys.id, answer.id));
      if (!passkey || (userId !== undefined && passkey.userId !== userId)) {
        return { ok: false, reason: "unknown_passkey" };
      }
      const verified = await verifyAuthenticationResponse({
        response: answer as unknown as AuthenticationResponseJSON,
        expectedChallenge: taken.challenge,
        expectedOrigin,
        expectedRPID: rpID,
        credential: {
          id: passkey.id,
          publicKey: fromB64(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: verifiesItsOwner(purpose),
      }).catch(() => ({ verified: false as const, authenticationInfo: undefined }));
      if (!verified.verified || !verified.authenticationInfo) return { ok: false, reason: "not_verified" };
      await db
        .update(passkeys)
        .set({ counter: verified.authenticationInfo.newCounter, lastUsedAt: clock.now() })
        .where(eq(passkeys.id, passkey.id));
      return { ok: true, userId: passkey.userId, passkey };
    },
  };
}

export type Passkeys = ReturnType<typeof createPasskeys>;
