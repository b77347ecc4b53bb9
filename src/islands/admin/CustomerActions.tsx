// The customer page's actions, each behind its dialog (ActionDialog): support staff see what the
// permission table lets them do (grant credits, send mails, revoke keys); admins see everything.
// A grant or take-back carries an idempotency key made when its dialog opens, so a retry after a
// lost answer cannot move the credits twice. A grant may carry a note the customer reads (on
// /profile and in the mail the grant sends); the reason stays with staff.
import { useId, useState } from "react";
import type { Role } from "../../../contract/account.ts";
import type { AdminPayment, Customer } from "../../../contract/admin.ts";
import { ADMIN_TEXT, NOTE_MAX } from "../../../contract/admin-rules.ts";
import { formatMoney } from "../../../contract/money.ts";
import {
  type ActionKind,
  creditsProblem,
  type FieldProblem,
  parseCredits,
  parseIsoDayEnd,
  parseMoney,
  refundable,
} from "../../lib/admin-actions.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { type ActionCall, actionPath, refundPayment, runCustomerAction } from "../../stores/admin.ts";
import { ActionDialog, DialogInput } from "./ActionDialog.tsx";
import { useLastShown } from "./use-last-shown.ts";

const T = ADMIN_PAGE_TEXT.actions;

const DANGER = new Set<ActionKind>(["takeBack", "disable", "cancelNow"]);
/** The credit dialogs' own fields, by the names the API gives them in a 422's `loc`. */
const CREDIT_FIELDS = ["amount", "expires_at", "note"] as const;

function CreditFields({
  amount,
  setAmount,
  expires,
  setExpires,
  withExpiry,
}: {
  amount: string;
  setAmount: (v: string) => void;
  expires: string;
  setExpires: (v: string) => void;
  withExpiry: boolean;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <DialogInput label={T.amount} name="amount" inputMode="decimal" value={amount} onChange={setAmount} />
      {withExpiry && (
        <DialogInput label={T.expires} name="expires_at" value={expires} onChange={setExpires} />
      )}
    </div>
  );
}

export function CustomerActionDialog({
  kind: asked,
  customer,
  onClose,
}: {
  kind: ActionKind | null;
  customer: Customer;
  onClose: () => void;
}) {
  const kind = useLastShown(asked);
  const [amount, setAmount] = useState("");
  const [expires, setExpires] = useState("");
  const [note, setNote] = useState("");
  const [role, setRole] = useState<Role>(customer.role);
  const [key, setKey] = useState(() => crypto.randomUUID());
  const roleId = useId();
  const name = customer.username;
  const close = () => {
    setAmount("");
    setExpires("");
    setNote("");
    setKey(crypto.randomUUID());
    onClose();
  };
  if (kind === null)
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

  const id = customer.id;
  const credits = kind === "grant" || kind === "takeBack";
  const validate = (): FieldProblem | null => {
    if (!credits) return null;
    const problem = creditsProblem(amount, kind === "grant" ? "grant" : "takeBack");
    if (problem) return { field: "amount", message: problem };
    if (kind === "grant" && expires.trim() && parseIsoDayEnd(expires) === null)
      return { field: "expires_at", message: ADMIN_TEXT.dayInvalid };
    return kind === "grant" && note.trim().length > NOTE_MAX
      ? { field: "note", message: ADMIN_TEXT.noteTooLong }
      : null;
  };
  const call = (reason: string): ActionCall => {
    switch (kind) {
      case "grant":
      case "takeBack": {
        const value = parseCredits(amount) ?? 0;
        const expiresAt = kind === "grant" ? parseIsoDayEnd(expires) : null;
        return {
          path: actionPath.credits(id),
          body: {
            amount: kind === "grant" ? value : -value,
            reason,
            expires_at: expiresAt,
            idempotency_key: key,
            ...(kind === "grant" && note.trim() ? { note: note.trim() } : {}),
          },
        };
      }
      case "sendVerification":
      case "sendReset":
        return {
          path: actionPath.emails(id),
          body: { kind: kind === "sendReset" ? "password_reset" : "verification", reason },
        };
      case "disable":
        return { path: actionPath.disable(id), body: { reason } };
      case "enable":
        return { path: actionPath.enable(id), body: { reason } };
      case "role":
        return { path: actionPath.role(id), body: { role, reason } };
      case "clearDisputeHold":
        return { path: actionPath.clearDisputeHold(id), body: { reason } };
      case "cancelAtEnd":
      case "cancelNow":
        return {
          path: actionPath.cancel(id),
          body: { at: kind === "cancelNow" ? "now" : "period_end", reason },
        };
    }
  };
  const effect = {
    grant: T.effects.grant(name),
    takeBack: T.effects.takeBack(name),
    sendVerification: T.effects.sendVerification(customer.email),
    sendReset: T.effects.sendReset(customer.email),
    disable: T.effects.disable(name),
    enable: T.effects.enable(name),
    role: T.effects.role(name),
    cancelAtEnd: T.effects.cancelAtEnd(name),
    cancelNow: T.effects.cancelNow(name),
    clearDisputeHold: T.effects.clearDisputeHold(name),
  }[kind];
  return (
    <ActionDialog
      open={asked !== null}
      title={`${T[kind]}: ${name}`}
      effect={effect}
      danger={DANGER.has(kind)}
      validate={validate}
      fields={CREDIT_FIELDS}
      doneMessage={`${T[kind]}: done`}
      onClose={close}
      onConfirm={(reason) => runCustomerAction(id, call(reason))}
    >
      {credits && (
        <CreditFields
          amount={amount}
          setAmount={setAmount}
          expires={expires}
          setExpires={setExpires}
          withExpiry={kind === "grant"}
        />
      )}
      {kind === "grant" && (
        <DialogInput label={ADMIN_TEXT.noteLabel} name="note" value={note} onChange={setNote} />
      )}
      {kind === "role" && (
        <div className="flex flex-col gap-1">
          <label htmlFor={roleId} className="text-sm font-medium">
            {T.newRole}
          </label>
          <select
            id={roleId}
            className="select w-full"
            value={role}
            onChange={(e) => setRole(e.target.value as Role)}
          >
            <option value="user">user</option>
            <option value="support">support</option>
            <option value="admin">admin</option>
          </select>
        </div>
      )}
    </ActionDialog>
  );
}

/** Refund a payment: the whole remaining amount unless a smaller one is typed (admins). */
export function RefundDialog({
  customer,
  payment: asked,
  onClose,
}: {
  customer: Customer;
  payment: AdminPayment | null;
  onClose: () => void;
}) {
  const payment = useLastShown(asked);
  const [amount, setAmount] = useState("");
  const [key, setKey] = useState(() => crypto.randomUUID());
  const left = payment ? refundable(payment) : 0;
  const money = (cents: number) => (payment ? formatMoney(cents, payment.currency) : "");
  const close = () => {
    setAmount("");
    setKey(crypto.randomUUID());
    onClose();
  };
  const cents = amount.trim() === "" ? left : parseMoney(amount);
  return (
    <ActionDialog
      open={asked !== null}
      title={`${T.refund}: ${payment?.invoice_number ?? payment?.description ?? ""}`}
      effect={T.effects.refund(customer.username, money(left))}
      danger
      validate={() =>
        cents === null || cents > left
          ? { field: "amount", message: T.refundAmountInvalid(money(left)) }
          : null
      }
      fields={["amount"]}
      doneMessage={T.refundDone}
      onClose={close}
      onConfirm={async (reason) => {
        // Only offered for a payment (the dialog is open for one).
        if (payment)
          await refundPayment(customer.id, payment, {
            amount: cents ?? undefined,
            reason,
            idempotency_key: key,
          });
      }}
    >
      <DialogInput
        label={T.refundAmount(payment?.currency.toUpperCase() ?? "")}
        name="amount"
        inputMode="decimal"
        placeholder={money(left)}
        value={amount}
        onChange={setAmount}
      />
    </ActionDialog>
  );
}

export function RevokeKeyDialog({
  customerId,
  apiKey,
  onClose,
}: {
  customerId: string;
  apiKey: Customer["api_keys"][number] | null;
  onClose: () => void;
}) {
  const shown = useLastShown(apiKey);
  return (
    <ActionDialog
      open={apiKey !== null}
      title={`${T.revokeKey} ${shown?.prefix ?? ""}…`}
      effect={T.effects.revokeKey(shown?.prefix ?? "")}
      danger
      doneMessage="API key revoked"
      onClose={onClose}
      onConfirm={(reason) =>
        runCustomerAction(customerId, {
          path: actionPath.revokeKey(apiKey?.id ?? ""),
          method: "DELETE",
          body: { reason },
        })
      }
    />
  );
}
