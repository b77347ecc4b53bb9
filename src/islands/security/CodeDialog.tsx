// A dialog that asks for a code from the authenticator app (or a recovery code) before a two-factor
// change: turning it off, making new recovery codes. A wrong code is said next to the field and the
// dialog stays open; cancelling (here or in the password confirmation) changes nothing.
import type { ReactNode } from "react";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { asApiError } from "../../lib/api-client.ts";
import { signInAgainRefusal } from "../../lib/sign-in-again-refusal.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { SingleFieldInput, useSingleField } from "../forms/single-field.tsx";
import { Dialog } from "../profile/Dialog.tsx";

interface Props {
  open: boolean;
  title: string;
  codeLabel: string;
  confirmLabel: string;
  cancelLabel: string;
  /** Red for an action that lowers the account's protection. */
  danger?: boolean;
  /** Runs the change with the code; throws ApiError when refused. */
  onConfirm: (code: string) => Promise<void>;
  onClose: () => void;
  children: ReactNode;
}

/** What a refused code is called next to the field. */
export function codeRefusal(error: unknown): string {
  const failed = asApiError(error);
  const said = typeof failed.detail === "string" ? failed.detail : undefined;
  if (failed.status === 400) return said === DETAIL.appCodeNeeded ? said : DETAIL.incorrectCode;
  // Wrong codes counted against the account close the sign-in's code step too: say which limit.
  if (failed.status === 429) return said === DETAIL.tooManyWrongCodes ? said : ERROR_TEXT.tooManyRequests;
  if (failed.status === 409 && typeof failed.detail === "string") return failed.detail;
  // An app's confirmation with a session of the password alone (decision 046): sign in again.
  return signInAgainRefusal(failed) ?? ERROR_TEXT.oops;
}

/** A code field as the security page asks for one. */
export const useCodeField = () => useSingleField({ required: VALIDATION.codeRequired, refusal: codeRefusal });

export function CodeDialog(props: Props) {
  const field = useCodeField();
  const formId = `${field.id}-form`;
  const close = () => {
    field.reset();
    props.onClose();
  };
  const submit = field.onSubmit(async (code) => {
    await props.onConfirm(code);
    close();
  });

  return (
    <Dialog
      open={props.open}
      title={props.title}
      onClose={close}
      actions={
        <>
          <button type="button" className="btn" onClick={close}>
            {props.cancelLabel}
          </button>
          <button
            type="submit"
            form={formId}
            className={props.danger ? "btn btn-error" : "btn btn-primary"}
            disabled={field.busy}
          >
            {field.busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {props.confirmLabel}
          </button>
        </>
      }
    >
      <form id={formId} className="flex flex-col gap-3" noValidate onSubmit={submit} data-code-dialog>
        {props.children}
        <SingleFieldInput field={field} name="code" label={props.codeLabel} autoComplete="one-time-code" />
      </form>
    </Dialog>
  );
}
