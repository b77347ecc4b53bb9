// Every console action asks first: a dialog that says what will happen, takes the reason the audit
// log keeps (3 to 500 characters, checked before sending), and runs the action on Confirm. A
// problem with one field (the dialog's own check, or the server's 422 naming it in `loc`) is said
// beside that field, which alone is marked; any other refusal is shown in the dialog and as a
// toast. Success closes it with a toast.
import { createContext, type FormEvent, type ReactNode, useContext, useEffect, useId, useState } from "react";
import { ADMIN_TEXT } from "../../../contract/admin-rules.ts";
import { type FieldProblem, refusedField } from "../../lib/admin-actions.ts";
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

/** The dialog's problem, so that the field it names shows it (DialogInput). */
const ProblemContext = createContext<FieldProblem | null>(null);

interface Props {
  open: boolean;
  title: string;
  /** What will happen, in a sentence. */
  effect: string;
  /** The action's own fields, above the reason. */
  children?: ReactNode;
  /** Checks the own fields; a problem stops the action and is shown beside the field it names. */
  validate?: () => FieldProblem | null;
  /** The names of the own fields (DialogInput's `name`): a 422 naming one is shown beside it. */
  fields?: readonly string[];
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: (reason: string) => Promise<void>;
  doneMessage: string;
  onClose: () => void;
}

export function ActionDialog(props: Props) {
  const [reason, setReason] = useState("");
  const [error, setError] = useState<FieldProblem | null>(null);
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
      own ??
      (checked.success
        ? null
        : { field: "reason", message: checked.error.issues[0]?.message ?? ADMIN_TEXT.reasonRequired });
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
      const field = refusedField(asApiError(failure).detail, ["reason", ...(props.fields ?? [])]);
      setError({ field, message });
      // A field's problem is said beside it; only a refusal of the action as a whole is a toast too.
      if (field === null) notify("error", message);
    } finally {
      setBusy(false);
    }
  };

  const formId = `${reasonId}-form`;
  const reasonError = error?.field === "reason" ? error : null;
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
        <ProblemContext.Provider value={error}>{props.children}</ProblemContext.Provider>
        <div className="flex flex-col gap-1">
          <label htmlFor={reasonId} className="text-sm font-medium">
            {T.reason}
          </label>
          <textarea
            id={reasonId}
            name="reason"
            className={`textarea w-full ${reasonError ? "textarea-error" : ""}`}
            rows={3}
            maxLength={600}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            aria-describedby={`${helpId}${reasonError ? ` ${errorId}` : ""}`}
            aria-invalid={reasonError ? true : undefined}
            required
          />
          <p id={helpId} className="text-xs text-base-content/70">
            {T.reasonHelp}
          </p>
          {reasonError && <FieldMessage id={errorId} field="reason" message={reasonError.message} />}
        </div>
        {error && error.field === null && (
          <p role="alert" className="text-sm font-medium" data-action-error>
            {error.message}
          </p>
        )}
      </form>
    </Dialog>
  );
}

/** A field's problem, under it (the field points at it with aria-describedby). */
function FieldMessage({ id, field, message }: { id: string; field: string; message: string }) {
  return (
    <p id={id} role="alert" className="text-sm font-medium" data-action-error data-field-error={field}>
      {message}
    </p>
  );
}

/**
 * A labelled input of an action dialog (an amount, an ISO day), controlled by the dialog's state;
 * marked, with the message under it, when the dialog's problem names it.
 */
export function DialogInput(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  inputMode?: "decimal";
  placeholder?: string;
}) {
  const id = useId();
  const errorId = useId();
  const problem = useContext(ProblemContext);
  const message = problem?.field === props.name ? problem.message : null;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {props.label}
      </label>
      <input
        id={id}
        name={props.name}
        type="text"
        className={`input w-full ${message ? "input-error" : ""}`}
        inputMode={props.inputMode}
        placeholder={props.placeholder}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? errorId : undefined}
      />
      {message && <FieldMessage id={errorId} field={props.name} message={message} />}
    </div>
  );
}
