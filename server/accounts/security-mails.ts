// The security mails of ACCOUNT-SECURITY.md that follow an API call (the password-changed mail is
// sent by the reset itself, accounts.ts). Each goes out after the change has committed, in the
// background: the answer never waits for SMTP, and a rolled-back change sends nothing.
import { and, eq, isNull } from "drizzle-orm";
import type { Logger } from "pino";
import type { BackgroundTasks } from "../background.ts";
import { type ApiKeyRow, type UserRow, users } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { berlinDateTime } from "../domain/berlin-time.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import type { Mailer } from "../mail/mailer.ts";
import {
  type AccountDeletionLoss,
  accountDeletedMail,
  emailChangedMail,
  emailChangeLinkMail,
  newBrowserSignInMail,
  passkeyChangedMail,
  recoveryCodeUsedMail,
  type StaffFactorChange,
  staffFactorChangedMail,
  twoFactorChangedMail,
} from "../mail/security-templates.ts";
import { apiKeyCreatedMail } from "../mail/templates.ts";
import { isStaff } from "../operations/permissions.ts";

type Recipient = Pick<UserRow, "email" | "username">;
/** An account whose factors changed: when it is staff's, every admin is told too. */
type FactorOwner = Recipient & Pick<UserRow, "role">;

export interface SecurityMails {
  /** `team`: the team organisation the key spends for (its name), null for the personal account. */
  apiKeyCreated(user: Recipient, key: ApiKeyRow, ip: string | null, team: string | null): void;
  twoFactorChanged(user: FactorOwner, enabled: boolean, at: Date, ip: string | null): void;
  passkeyChanged(
    user: FactorOwner,
    change: { name: string; added: boolean },
    at: Date,
    ip: string | null,
  ): void;
  /** Only staff's new recovery codes are mailed about (to the admins): the owner just saw them. */
  recoveryCodesRenewed(user: FactorOwner, at: Date, ip: string | null): void;
  recoveryCodeUsed(user: Recipient, codesLeft: number, at: Date, ip: string | null): void;
  /**
   * To the address the account had: the only word the owner gets once it is gone, with what the
   * deletion's transaction found it ended (`lost`).
   */
  accountDeleted(user: Recipient, lost: AccountDeletionLoss, at: Date, ip: string | null): void;
  newBrowserSignIn(user: Recipient, browser: string, at: Date, ip: string | null): void;
  /** To the new address, before the change: the link that confirms it. */
  emailChangeLink(user: Pick<UserRow, "username">, newEmail: string, token: string): void;
  /** To the old address, after the change: a way back. */
  emailChanged(
    user: Pick<UserRow, "username">,
    change: { oldEmail: string; newEmail: string; revertToken: string },
    at: Date,
    ip: string | null,
  ): void;
}

/** An instant as the security mails show it: "2026-11-25 22:14 CET" (berlinDateTime). */
export const mailTime = berlinDateTime;

export function createSecurityMails(deps: {
  db: Db;
  mailer: Mailer;
  tasks: BackgroundTasks;
  logger: Logger;
  portalUrl: string;
}): SecurityMails {
  return {
    apiKeyCreated(user, key, ip, team) {
      const mail = apiKeyCreatedMail({
        to: user.email,
        username: user.username,
        portalUrl: deps.portalUrl,
        at: mailTime(key.createdAt),
        ip,
        team,
        key: {
          name: key.name,
          prefix: key.prefix,
          expiresAt: key.expiresAt ? mailTime(key.expiresAt) : null,
          monthlyCreditLimit:
            key.monthlyCreditLimit === null ? null : fromMillicredits(key.monthlyCreditLimit),
          features: key.features,
        },
      });
      deps.tasks.run("API key created mail", () => deps.mailer.send(mail));
    },
    twoFactorChanged(user, enabled, at, ip) {
      const mail = twoFactorChangedMail({ ...addressed(user), at: mailTime(at), ip, enabled });
      deps.tasks.run("two-factor changed mail", () => deps.mailer.send(mail));
      tellAdmins(user, enabled ? "totp_enabled" : "totp_disabled", at, ip);
    },
    passkeyChanged(user, change, at, ip) {
      const mail = passkeyChangedMail({ ...addressed(user), at: mailTime(at), ip, ...change });
      deps.tasks.run("passkey changed mail", () => deps.mailer.send(mail));
      tellAdmins(user, change.added ? "passkey_added" : "passkey_removed", at, ip);
    },
    recoveryCodesRenewed(user, at, ip) {
      tellAdmins(user, "recovery_codes_renewed", at, ip);
    },
    recoveryCodeUsed(user, codesLeft, at, ip) {
      const mail = recoveryCodeUsedMail({ ...addressed(user), at: mailTime(at), ip, codesLeft });
      deps.tasks.run("recovery code used mail", () => deps.mailer.send(mail));
    },
    newBrowserSignIn(user, browser, at, ip) {
      const mail = newBrowserSignInMail({ ...addressed(user), at: mailTime(at), ip, browser });
      deps.tasks.run("new browser sign-in mail", () => deps.mailer.send(mail));
    },
    emailChangeLink(user, newEmail, token) {
      const mail = emailChangeLinkMail({
        to: newEmail,
        username: user.username,
        portalUrl: deps.portalUrl,
        token,
      });
      deps.tasks.run("e-mail change link mail", () => deps.mailer.send(mail));
    },
    emailChanged(user, change, at, ip) {
      const mail = emailChangedMail({
        to: change.oldEmail,
        username: user.username,
        portalUrl: deps.portalUrl,
        at: mailTime(at),
        ip,
        newEmail: change.newEmail,
        revertToken: change.revertToken,
      });
      deps.tasks.run("e-mail changed mail", () => deps.mailer.send(mail));
    },
    accountDeleted(user, lost, at, ip) {
      const mail = accountDeletedMail({ ...addressed(user), at: mailTime(at), ip, lost });
      deps.tasks.run("account deleted mail", () => deps.mailer.send(mail));
    },
  };

  /** Every admin (role admin, not deleted), each in their own mail, when staff's factors change. */
  function tellAdmins(staff: FactorOwner, change: StaffFactorChange, at: Date, ip: string | null) {
    if (!isStaff(staff.role)) return;
    deps.tasks.run("staff factor changed mail", async () => {
      const admins = await deps.db
        .select({ email: users.email, username: users.username })
        .from(users)
        .where(and(eq(users.role, "admin"), isNull(users.deletedAt)));
      for (const admin of admins) {
        await deps.mailer.send(
          staffFactorChangedMail({
            ...addressed(admin),
            at: mailTime(at),
            ip,
            staff: { username: staff.username, role: staff.role },
            change,
          }),
        );
      }
    });
  }

  function addressed(user: Recipient) {
    return { to: user.email, username: user.username, portalUrl: deps.portalUrl };
  }
}
