// The organisation page's action dialogs (ActionDialog), loaded when staff first open one: grant
// or take back credits (with an idempotency key made when the dialog opens, so a retry after a lost
// answer cannot move the credits twice), disable or enable, clear a dispute hold, cancel the
// subscription, and make a member an owner.
import { useState } from "react";
import type { AdminOrg, AdminOrgMember } from "../../../contract/admin-orgs.ts";
import { ADMIN_TEXT } from "../../../contract/admin-rules.ts";
import { creditsProblem, type FieldProblem, parseCredits, parseIsoDayEnd } from "../../lib/admin-actions.ts";
import type { OrgActionKind } from "../../lib/admin-org-actions.ts";
import { ADMIN_ORG_PAGE_TEXT } from "../../lib/admin-org-text.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import type { ActionCall } from "../../stores/admin.ts";
import { orgActionPath, runOrgAction } from "../../stores/admin-org.ts";
import { ActionDialog, DialogInput } from "./ActionDialog.tsx";

const T = ADMIN_ORG_PAGE_TEXT;
const DANGEROUS = new Set<OrgActionKind>(["takeBack", "disable", "cancelNow"]);
/** The credit dialogs' own fields, by the names the API gives them in a 422's `loc`. */
const CREDIT_FIELDS = ["amount", "expires_at", "note"] as const;

/** The name staff read: a team's name, or "Personal (owner)". */
const orgName = (org: AdminOrg) =>
  org.name ?? T.personalOf(org.owners.map((o) => o.username).join(", ") || org.id);

/** The dialog of an organisation action, with the credit fields for a grant or take-back. */
export function OrgActionDialog({
  kind,
  org,
  onClose,
}: {
  kind: OrgActionKind | null;
  org: AdminOrg;
  onClose: () => void;
}) {
  const [amount, setAmount] = useState("");
  const [expires, setExpires] = useState("");
  const [note, setNote] = useState("");
  // A new key each time the dialog opens: a retry after a lost answer cannot move the credits twice.
  const [key, setKey] = useState(() => crypto.randomUUID());
  const close = () => {
    setAmount("");
    setExpires("");
    setNote("");
    setKey(crypto.randomUUID());
    onClose();
  };
  const name = orgName(org);
  if (kind === null) {
    return (
      <ActionDialog
        open={false}
        title=""
        effect=""
        onConfirm={async () => {}}
        doneMessage=""
        onClose={close}
      />
    );
  }
  const credits = kind === "grant" || kind === "takeBack";
  const validate = (): FieldProblem | null => {
    if (!credits) return null;
    const problem = creditsProblem(amount, kind === "grant" ? "grant" : "takeBack");
    if (problem) return { field: "amount", message: problem };
    return kind === "grant" && expires.trim() && parseIsoDayEnd(expires) === null
      ? { field: "expires_at", message: ADMIN_TEXT.dayInvalid }
      : null;
  };
  const call = (reason: string): ActionCall => {
    switch (kind) {
      case "grant":
      case "takeBack": {
        const value = parseCredits(amount) ?? 0;
        return {
          path: orgActionPath.credits(org.id),
          body: {
            amount: kind === "grant" ? value : -value,
            reason,
            expires_at: kind === "grant" ? parseIsoDayEnd(expires) : null,
            idempotency_key: key,
            ...(kind === "grant" && note.trim() ? { note: note.trim() } : {}),
          },
        };
      }
      case "disable":
        return { path: orgActionPath.disable(org.id), body: { reason } };
      case "enable":
        return { path: orgActionPath.enable(org.id), body: { reason } };
      case "clearDisputeHold":
        return { path: orgActionPath.clearDisputeHold(org.id), body: { reason } };
      case "cancelAtEnd":
      case "cancelNow":
        return {
          path: orgActionPath.cancel(org.id),
          body: { at: kind === "cancelNow" ? "now" : "period_end", reason },
        };
    }
  };
  return (
    <ActionDialog
      open
      title={`${T.actions[kind]}: ${name}`}
      effect={T.effects[kind](name)}
      danger={DANGEROUS.has(kind)}
      validate={validate}
      fields={CREDIT_FIELDS}
      doneMessage={`${T.actions[kind]}: done`}
      onClose={close}
      onConfirm={(reason) => runOrgAction(org.id, call(reason))}
    >
      {credits && (
        <div className="grid gap-3 sm:grid-cols-2">
          <DialogInput
            label={ADMIN_PAGE_TEXT.actions.amount}
            name="amount"
            inputMode="decimal"
            value={amount}
            onChange={setAmount}
          />
          {kind === "grant" && (
            <DialogInput
              label={ADMIN_PAGE_TEXT.actions.expires}
              name="expires_at"
              value={expires}
              onChange={setExpires}
            />
          )}
        </div>
      )}
      {kind === "grant" && (
        <DialogInput label={ADMIN_TEXT.noteLabel} name="note" value={note} onChange={setNote} />
      )}
    </ActionDialog>
  );
}

export function MakeOwnerDialog({
  org,
  member,
  onClose,
}: {
  org: AdminOrg;
  member: AdminOrgMember | null;
  onClose: () => void;
}) {
  return (
    <ActionDialog
      open={member !== null}
      title={`${T.actions.makeOwner}: ${member?.username ?? ""}`}
      effect={T.effects.makeOwner(member?.username ?? "", orgName(org))}
      doneMessage={`${T.actions.makeOwner}: done`}
      onClose={onClose}
      onConfirm={(reason) =>
        runOrgAction(org.id, {
          path: orgActionPath.owner(org.id),
          body: { user_id: member?.user_id, reason },
        })
      }
    />
  );
}
