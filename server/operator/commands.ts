// What the operator commands do, as plain functions over the database: `npm run user:role` and
// `npm run service-key`. The same functions run in the CLI's own process (no server running, or a
// PostgreSQL the CLI can reach) and inside the running server, reached through its operator socket
// (operator/socket.ts) when the embedded PGlite, which one process at a time can open, is in use.
// What changes something is written to the audit log in the change's own transaction, with the
// command line as its actor; `audit-verify` checks the log's chain.
import { eq } from "drizzle-orm";
import { ADMIN_TEXT } from "../../contract/admin-rules.ts";
import { hasSecondFactor } from "../accounts/staff-factors.ts";
import { findUserByUsername, setUserRole } from "../accounts/users.ts";
import { isUsableApiKey, listApiKeys } from "../api-access/api-keys.ts";
import {
  createServiceKey,
  isServiceScope,
  listServiceKeys,
  revokeServiceKey,
  SERVICE_SCOPES,
} from "../api-access/service-keys.ts";
import { type AuditEntry, appendAudit, verifyAuditChain } from "../audit/audit-log.ts";
import { pruneAuditLog } from "../audit/audit-prune.ts";
import { userGrants } from "../billing/ledger-store.ts";
import { userRole, users } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { balance } from "../domain/ledger.ts";
import { isStaff } from "../operations/permissions.ts";

/** A command's answer: lines for stdout, or an error message and exit code. */
export type CommandResult = { ok: true; lines: string[] } | { ok: false; message: string; code: number };

export const OPERATOR_COMMANDS = [
  "user-role",
  "service-key",
  "user-info",
  "audit-verify",
  "audit-prune",
] as const;

export interface OperatorRequest {
  command: (typeof OPERATOR_COMMANDS)[number];
  args: string[];
}

const ROLES = userRole.enumValues;
export const USER_ROLE_USAGE = `Usage: npm run user:role -- <username> <${ROLES.join("|")}>`;
export const SERVICE_KEY_USAGE = [
  "Usage: npm run service-key -- create <name> --scopes introspect,credits:consume",
  "       npm run service-key -- list",
  "       npm run service-key -- revoke <id>",
].join("\n");

const usage = (text: string, why?: string): CommandResult => ({
  ok: false,
  message: why ? `${why}\n${text}` : text,
  code: 2,
});

export const AUDIT_VERIFY_USAGE = "Usage: npm run audit:verify";
export const AUDIT_PRUNE_USAGE = "Usage: npm run audit:prune";

/** The audit entry of a change made from the command line. */
const byCommandLine = (entry: Pick<AuditEntry, "action" | "subjectUserId" | "details">): AuditEntry => ({
  actorId: null,
  actorLabel: "command line",
  reason: null,
  ip: null,
  ...entry,
});

/** `user-info <username>`: the account a development tool acts for (npm run usage:simulate). */
export const USER_INFO_USAGE = "Usage: user-info <username>";

/** What `user-info` prints, as one JSON line. */
export interface UserInfo {
  id: string;
  username: string;
  /** Milli-credits spendable now. */
  balance: number;
  /** The user's usable API keys. */
  apiKeyIds: string[];
}

/** Checks the arguments before anything opens the database or the socket. */
export function checkArguments(request: OperatorRequest): CommandResult | undefined {
  const { args } = request;
  if (request.command === "user-info")
    return args.length === 1 && args[0] ? undefined : usage(USER_INFO_USAGE);
  if (request.command === "audit-verify") return args.length === 0 ? undefined : usage(AUDIT_VERIFY_USAGE);
  if (request.command === "audit-prune") return args.length === 0 ? undefined : usage(AUDIT_PRUNE_USAGE);
  if (request.command === "user-role") {
    const [username, role, ...extra] = args;
    if (!username || !role || extra.length > 0) return usage(USER_ROLE_USAGE);
    if (!(ROLES as readonly string[]).includes(role)) {
      return usage(USER_ROLE_USAGE, `Unknown role "${role}". Roles: ${ROLES.join(", ")}.`);
    }
    return undefined;
  }
  const [verb, ...rest] = args;
  if (verb === "list") return rest.length === 0 ? undefined : usage(SERVICE_KEY_USAGE);
  if (verb === "revoke") return rest.length === 1 && rest[0] ? undefined : usage(SERVICE_KEY_USAGE);
  if (verb === "create") {
    const parsed = parseCreate(rest);
    return typeof parsed === "string" ? usage(SERVICE_KEY_USAGE, parsed) : undefined;
  }
  return usage(SERVICE_KEY_USAGE);
}

/** `<name> --scopes a,b` (or `--scopes=a,b`): the name and scopes, or why not. */
function parseCreate(args: string[]): { name: string; scopes: string[] } | string {
  let name: string | undefined;
  let scopes: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--scopes") scopes = args[++i];
    else if (arg.startsWith("--scopes=")) scopes = arg.slice("--scopes=".length);
    else if (arg.startsWith("--")) return `Unknown option ${arg}.`;
    else if (name === undefined) name = arg;
    else return `One name only (quote a name with spaces).`;
  }
  if (!name?.trim()) return "Give the key a name.";
  if (name.length > 100) return "Use a name of at most 100 characters.";
  const list = (scopes ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) return `Give --scopes: ${SERVICE_SCOPES.join(", ")}.`;
  const unknown = list.filter((s) => !isServiceScope(s));
  if (unknown.length > 0) return `Unknown scope ${unknown.join(", ")}. Scopes: ${SERVICE_SCOPES.join(", ")}.`;
  return { name: name.trim(), scopes: list };
}

async function userInfo(db: Db, username: string, now: Date): Promise<CommandResult> {
  const user = await findUserByUsername(db, username);
  if (!user) return { ok: false, message: `No user named "${username}".`, code: 1 };
  const keys = await listApiKeys(db, user.id, now);
  const info: UserInfo = {
    id: user.id,
    username: user.username,
    balance: balance(await userGrants(db, user.id), now),
    apiKeyIds: keys.filter(({ row }) => isUsableApiKey(row, now)).map(({ row }) => row.id),
  };
  return { ok: true, lines: [JSON.stringify(info)] };
}

/** Runs a command whose arguments checkArguments accepted. */
export async function runCommand(db: Db, request: OperatorRequest, now: Date): Promise<CommandResult> {
  const invalid = checkArguments(request);
  if (invalid) return invalid;
  const { args } = request;
  if (request.command === "user-info") return userInfo(db, args[0] as string, now);
  if (request.command === "audit-verify") return auditVerify(db);
  if (request.command === "audit-prune") return auditPrune(db, now);
  if (request.command === "user-role") {
    const [username, role] = args as [string, (typeof ROLES)[number]];
    const user = await db.transaction(async (tx) => {
      const before = await findUserByUsername(tx, username);
      if (!before) return undefined;
      if (before.deletedAt) return "deleted" as const;
      // Locked first: a factor removed at the same time is decided before or after, never between.
      await tx.select({ id: users.id }).from(users).where(eq(users.id, before.id)).for("update");
      if (isStaff(role) && before.role !== role && !(await hasSecondFactor(tx, before.id))) {
        return "no second factor" as const;
      }
      const after = await setUserRole(tx, username, role, now);
      if (after && after.role !== before.role) {
        await appendAudit(
          tx,
          byCommandLine({
            action: "role.change",
            subjectUserId: after.id,
            details: { from: before.role, to: after.role },
          }),
          now,
        );
      }
      return after;
    });
    if (!user) return { ok: false, message: `No user named "${username}".`, code: 1 };
    if (user === "deleted") return { ok: false, message: ADMIN_TEXT.accountDeleted, code: 1 };
    if (user === "no second factor") {
      return { ok: false, message: `${username}: ${ADMIN_TEXT.staffNeedsSecondFactor}.`, code: 1 };
    }
    return { ok: true, lines: [`${user.username} now has the role ${user.role}.`] };
  }
  const [verb, ...rest] = args;
  if (verb === "list") {
    const keys = await listServiceKeys(db);
    if (keys.length === 0) return { ok: true, lines: ["No service keys."] };
    return {
      ok: true,
      lines: keys.map(
        (k) =>
          `${k.id}  ${k.prefix}…  ${k.name}  [${k.scopes.join(",")}]  created ${k.created_at}  last used ${k.last_used_at ?? "never"}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ""}`,
      ),
    };
  }
  if (verb === "revoke") {
    const id = rest[0] as string;
    const revoked = await db.transaction(async (tx) => {
      const key = await revokeServiceKey(tx, id, now);
      if (key) {
        const details = { id: key.id, name: key.name };
        await appendAudit(
          tx,
          byCommandLine({ action: "service_key.revoke", subjectUserId: null, details }),
          now,
        );
      }
      return key;
    });
    if (!revoked) return { ok: false, message: `No service key with the id "${id}".`, code: 1 };
    return {
      ok: true,
      lines: [`Service key ${revoked.id} (${revoked.name}) is revoked since ${revoked.revoked_at}.`],
    };
  }
  const { name, scopes } = parseCreate(rest) as { name: string; scopes: string[] };
  const created = await db.transaction(async (tx) => {
    const key = await createServiceKey(tx, name, scopes.filter(isServiceScope), now);
    const details = { id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes };
    await appendAudit(tx, byCommandLine({ action: "service_key.create", subjectUserId: null, details }), now);
    return key;
  });
  return {
    ok: true,
    lines: [
      `Service key ${created.id} (${created.name}) with scopes ${created.scopes.join(", ")}:`,
      "",
      `  ${created.key}`,
      "",
      "It is shown this once and stored only as a hash: put it in the generation service's configuration now.",
    ],
  };
}

/** `audit-prune`: removes the expired prefix of the log (audit/audit-prune.ts) and says what it did. */
async function auditPrune(db: Db, now: Date): Promise<CommandResult> {
  const result = await db.transaction((tx) => pruneAuditLog(tx, now));
  if (!result.pruned) {
    return { ok: true, lines: ["Nothing to prune: the oldest entry is within its retention."] };
  }
  return {
    ok: true,
    lines: [
      `Pruned ${result.rows} entries, through row ${result.throughSeq}; the chain now starts after hash ${result.lastHash}.`,
      "The pruning is itself in the log (audit.prune).",
    ],
  };
}

/** `audit-verify`: walks the audit log's chain; a broken one fails, naming the first row that does not hold. */
async function auditVerify(db: Db): Promise<CommandResult> {
  const check = await verifyAuditChain(db);
  if (!check.ok) {
    return {
      ok: false,
      message: `The audit log is broken at row ${check.seq} (id ${check.id}): ${check.problem}. The ${check.rows} rows before it hold.`,
      code: 1,
    };
  }
  return {
    ok: true,
    lines: [
      `The audit log holds: ${check.rows} rows, each chained to the one before.`,
      `Head: ${check.head}`,
    ],
  };
}
