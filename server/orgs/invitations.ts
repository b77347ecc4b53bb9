// Invitations to an organisation (ORGANISATIONS.md): a mailed link with a 256-bit token, stored as
// its SHA-256 (auth/secret-tokens.ts), single use, 7 days. Limits: 20 an hour per inviter, 50 a day
// and 100 pending per organisation. Each change runs under the organisation's row lock, so the
// counts it checks stay true until it commits.
import { randomUUID } from "node:crypto";
import { and, asc, eq, gt, isNull, min, sql } from "drizzle-orm";
import { INVITES_PER_INVITER_HOUR, ORG_DETAIL } from "../../contract/org-messages.ts";
import type { OrgRole } from "../../contract/org-roles.ts";
import { ORG_TEXT } from "../../contract/orgs.ts";
import { generateSecretToken, hashSecretToken } from "../auth/secret-tokens.ts";
import {
  type OrganizationInvitationRow,
  organizationInvitations,
  organizationMembers,
  organizations,
  users,
} from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";
import { ApiError } from "../http/errors.ts";
import {
  invitationExpiry,
  invitationLimit,
  resendWaitSeconds,
  retryAfterSeconds,
  windowStart,
} from "./org-rules.ts";
import { auditOrg, type OrgActor } from "./orgs.ts";

const pending = (now: Date) =>
  and(
    isNull(organizationInvitations.acceptedAt),
    isNull(organizationInvitations.revokedAt),
    gt(organizationInvitations.expiresAt, now),
  );

const sameEmail = (column: typeof users.email | typeof organizationInvitations.email, email: string) =>
  sql`lower(${column}) = lower(${email})`;

export interface InvitationView {
  row: OrganizationInvitationRow;
  inviter: { id: string; username: string; email: string } | null;
}

const VIEW_COLUMNS = {
  row: organizationInvitations,
  inviterId: users.id,
  inviterName: users.username,
  inviterEmail: users.email,
};

function toView(r: {
  row: OrganizationInvitationRow;
  inviterId: string | null;
  inviterName: string | null;
  inviterEmail: string | null;
}): InvitationView {
  return {
    row: r.row,
    inviter:
      r.inviterId === null
        ? null
        : { id: r.inviterId, username: r.inviterName ?? "", email: r.inviterEmail ?? "" },
  };
}

/** The organisation's pending invitations, oldest first. */
export async function pendingInvitations(db: DbOrTx, orgId: string, now: Date): Promise<InvitationView[]> {
  const rows = await db
    .select(VIEW_COLUMNS)
    .from(organizationInvitations)
    .leftJoin(users, eq(users.id, organizationInvitations.invitedBy))
    .where(and(eq(organizationInvitations.orgId, orgId), pending(now)))
    .orderBy(asc(organizationInvitations.createdAt));
  return rows.map(toView);
}

async function countSince(tx: Tx, where: ReturnType<typeof and>) {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int`, oldest: min(organizationInvitations.createdAt) })
    .from(organizationInvitations)
    .where(where);
  return { n: row?.n ?? 0, oldest: row?.oldest ?? null };
}

/**
 * Invites `email` with `role` (the caller checked the role and the organisation's kind, and holds
 * its lock): 409 for a member's or a pending address and for 100 pending, 429 past a rate. The
 * token is in the answer only, for the mail.
 */
export async function createInvitation(
  tx: Tx,
  actor: OrgActor,
  orgId: string,
  input: { email: string; role: OrgRole },
  now: Date,
): Promise<{ view: InvitationView; token: string }> {
  const [member] = await tx
    .select({ id: users.id })
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.orgId, orgId), sameEmail(users.email, input.email)));
  if (member) throw new ApiError(409, ORG_DETAIL.alreadyMember);
  const [invited] = await tx
    .select({ id: organizationInvitations.id })
    .from(organizationInvitations)
    .where(
      and(
        eq(organizationInvitations.orgId, orgId),
        sameEmail(organizationInvitations.email, input.email),
        pending(now),
      ),
    );
  if (invited) throw new ApiError(409, ORG_DETAIL.alreadyInvited);

  const [pendingCount, byInviter, byOrg] = [
    await countSince(tx, and(eq(organizationInvitations.orgId, orgId), pending(now))),
    await countSince(
      tx,
      and(
        eq(organizationInvitations.invitedBy, actor.id),
        gt(organizationInvitations.createdAt, windowStart("per_hour", now)),
      ),
    ),
    await countSince(
      tx,
      and(
        eq(organizationInvitations.orgId, orgId),
        gt(organizationInvitations.createdAt, windowStart("per_day", now)),
      ),
    ),
  ];
  const limit = invitationLimit({
    pending: pendingCount.n,
    byInviterLastHour: byInviter.n,
    byOrgLastDay: byOrg.n,
  });
  if (limit === "pending") throw new ApiError(409, ORG_DETAIL.tooManyPending);
  if (limit !== null) {
    const counted = limit === "per_hour" ? byInviter : byOrg;
    const wait = retryAfterSeconds(limit, counted.oldest ?? now, now);
    throw new ApiError(
      429,
      limit === "per_hour" ? ORG_TEXT.tooManyInvitesPerHour : ORG_TEXT.tooManyInvitesPerDay,
      { "Retry-After": String(wait) },
    );
  }

  const token = generateSecretToken();
  const [row] = await tx
    .insert(organizationInvitations)
    .values({
      id: randomUUID(),
      orgId,
      email: input.email,
      role: input.role,
      tokenHash: hashSecretToken(token),
      invitedBy: actor.id,
      createdAt: now,
      expiresAt: invitationExpiry(now),
    })
    .returning();
  if (!row) throw new Error("The invitation was not written");
  await auditOrg(
    tx,
    actor,
    orgId,
    "member.invite",
    null,
    { invitation_id: row.id, email: row.email, role: row.role },
    now,
  );
  const [inviter] = await tx.select().from(users).where(eq(users.id, actor.id));
  return {
    view: {
      row,
      inviter: inviter ? { id: inviter.id, username: inviter.username, email: inviter.email } : null,
    },
    token,
  };
}

/** A pending invitation of the organisation by id, or a 404 (an id of another one too). */
async function pendingById(tx: Tx, orgId: string, invitationId: string, now: Date) {
  const [found] = await tx
    .select(VIEW_COLUMNS)
    .from(organizationInvitations)
    .leftJoin(users, eq(users.id, organizationInvitations.invitedBy))
    .where(
      and(
        eq(organizationInvitations.id, invitationId),
        eq(organizationInvitations.orgId, orgId),
        pending(now),
      ),
    );
  if (!found) throw new ApiError(404, ORG_DETAIL.invitationNotFound);
  return toView(found);
}

export async function revokeInvitation(
  tx: Tx,
  actor: OrgActor,
  orgId: string,
  invitationId: string,
  now: Date,
) {
  const { row } = await pendingById(tx, orgId, invitationId, now);
  await tx
    .update(organizationInvitations)
    .set({ revokedAt: now })
    .where(eq(organizationInvitations.id, row.id));
  await auditOrg(
    tx,
    actor,
    orgId,
    "member.invite_revoke",
    null,
    { invitation_id: row.id, email: row.email, role: row.role },
    now,
  );
  return row;
}

/** A new token (the old link stops working) and seven more days. */
export async function renewInvitation(tx: Tx, orgId: string, invitationId: string, now: Date) {
  const view = await pendingById(tx, orgId, invitationId, now);
  // A resend is a mail: each invitation at most once an hour, and the organisation's invitations
  // mailed in the last hour (created or resent) count against the hourly limit of 20.
  const wait = resendWaitSeconds(view.row.expiresAt, now);
  if (wait > 0) {
    throw new ApiError(429, ORG_TEXT.resentRecently, { "Retry-After": String(wait) });
  }
  const mailed = await countSince(
    tx,
    and(
      eq(organizationInvitations.orgId, orgId),
      gt(organizationInvitations.expiresAt, invitationExpiry(windowStart("per_hour", now))),
    ),
  );
  if (mailed.n >= INVITES_PER_INVITER_HOUR) {
    throw new ApiError(429, ORG_TEXT.tooManyInvitesPerHour, { "Retry-After": "3600" });
  }
  const token = generateSecretToken();
  const [row] = await tx
    .update(organizationInvitations)
    .set({ tokenHash: hashSecretToken(token), expiresAt: invitationExpiry(now) })
    .where(eq(organizationInvitations.id, view.row.id))
    .returning();
  if (!row) throw new Error("The invitation was not renewed");
  return { view: { ...view, row }, token };
}

/** The pending invitation a link's token names, with its organisation (not deleted), or undefined. */
export async function invitationByToken(db: DbOrTx, token: string, now: Date) {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const [found] = await db
    .select({ ...VIEW_COLUMNS, orgName: organizations.name, orgPersonal: organizations.personal })
    .from(organizationInvitations)
    .innerJoin(organizations, eq(organizations.id, organizationInvitations.orgId))
    .leftJoin(users, eq(users.id, organizationInvitations.invitedBy))
    .where(
      and(
        eq(organizationInvitations.tokenHash, hashSecretToken(token)),
        pending(now),
        isNull(organizations.deletedAt),
      ),
    );
  if (!found) return undefined;
  return { ...toView(found), orgName: found.orgName, orgPersonal: found.orgPersonal };
}

/**
 * Uses the invitation once: true when this call took it (a second accept, or one racing this one,
 * finds it used).
 */
export async function takeInvitation(tx: Tx, invitationId: string, userId: string, now: Date) {
  const taken = await tx
    .update(organizationInvitations)
    .set({ acceptedAt: now, acceptedBy: userId })
    .where(and(eq(organizationInvitations.id, invitationId), pending(now)))
    .returning({ id: organizationInvitations.id });
  return taken.length > 0;
}
