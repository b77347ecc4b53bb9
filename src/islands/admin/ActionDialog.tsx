// Every console action asks first: a dialog that says what will happen, takes the reason the audit
// log keeps (3 to 500 characters, checked before sending), and runs the action on Confirm. The
// server's refusal is shown in the dialog and as a toast; success closes it with a toast.
import { type FormEvent, type ReactNode, useEffect, useId, useState } from "react";
import { ADMIN_TEXT } from "../../../contract/admin-rules.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { asApiError, loadSchemas } from "../../lib/api-client.ts";
import { notify } from "../../stores/toast.ts";
import { Dialog } from "../profile/Dialog.tsx";

const T = ADMIN_PAGE_TEXT.actions;

/** The server's words for a refused action: its detail, or the first field error of a 422. */
export function refusalMessage(error: unknown): string {
  const failed = asApiError(error);
  if (typeof failed.detail === "string") return failed.detail;
  if (Array.isArray(failed.detail)) {
    const first = failed.detail[0] as { msg?: unknown } | undefined;
    if (typeof first?.msg === "string") return first.msg;
  }
  if (failed.status === 429) return "Too many requests, please try again later.";
  return failed.status === undefined
    ? "No answer from the server. Try again."
    : "The action failed. Try again.";
}

interface Props {
  open: boolean;
  title: string;
  /** What will happen, in a sentence. */
  effect: string;
  /** The action's own fields, above the reason. */
  children?: ReactNode;
  /** Checks the own fields; a message stops the action. */
  validate?: () => string | null;
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: (reason: string) => Promise<void>;
  doneMessage: string;
  onClose: () => void;
}

export function ActionDialog(props: Props) {
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reasonId = useId();
  const helpId = useId();
  const errorId = useId();

  useEffect(() => {
    if (props.open) {
      setReason("");
      setError(null);
    }
  }, [props.open]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const own = props.validate?.() ?? null;
    // The schemas load on the first action, as a form's do on its first submit.
    const checked = (await loadSchemas()).reasonRequestSchema.safeParse({ reason });
    const problem =
      own ?? (checked.success ? null : (checked.error.issues[0]?.message ?? ADMIN_TEXT.reasonRequired));
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm(reason.trim());
      notify("success", props.doneMessage);
      props.onClose();
    } catch (failure) {
      const message = refusalMessage(failure);
      setError(message);
      notify("error", message);
    } finally {
      setBusy(false);
    }
  };

  const formId = `${reasonId}-form`;
  return (
    <Dialog
      open={props.open}
      title={props.title}
      onClose={props.onClose}
      actions={
        <>
          <button type="button" className="btn" onClick={props.onClose}>
            {T.cancel}
          </button>
          <button
            type="submit"
            form={formId}
            className={`btn ${props.danger ? "btn-error" : "btn-primary"}`}
            disabled={busy}
            data-confirm-action
          >
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {props.confirmLabel ?? T.confirm}
          </button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} noValidate className="flex flex-col gap-4">
        <p className="text-sm">{props.effect}</p>
        {props.children}
        <div className="flex flex-col gap-1">
          <label htmlFor={reasonId} className="text-sm font-medium">
            {T.reason}
          </label>
          <textarea
            id={reasonId}
            name="reason"
            className={`textarea w-full ${error ? "textarea-error" : ""}`}
            rows={3}
            maxLength={600}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            aria-describedby={`${helpId}${error ? ` ${errorId}` : ""}`}
            aria-invalid={error ? true : undefined}
            required
          />
          <p id={helpId} className="text-xs text-base-content/70">
            {T.reasonHelp}
          </p>
        </div>
        {error && (
          <p id={errorId} role="alert" className="text-sm font-medium" data-action-error>
            {error}
          </p>
        )}
      </form>
    </Dialog>
  );
}

/** A labelled input of an action dialog (an amount, an ISO day), controlled by the dialog's state. */
export function DialogInput(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  inputMode?: "decimal";
  placeholder?: string;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {props.label}
      </label>
      <input
        id={id}
        name={props.name}
        type="text"
        className="input w-full"
        inputMode={props.inputMode}
        placeholder={props.placeholder}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </div>
  );
}
