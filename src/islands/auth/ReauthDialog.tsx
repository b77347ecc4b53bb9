// "Confirm your password": opened by stores/reauth.ts when the API wants the password again for a
// sensitive action; confirming retries the action by itself, cancelling leaves it undone.
import { useStore } from "@nanostores/react";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { asApiError } from "../../lib/api-client.ts";
import { REAUTH_TEXT } from "../../lib/reauth-text.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { $reauth, cancelReauth, confirmPassword } from "../../stores/reauth.ts";
import { SingleFieldInput, useSingleField } from "../forms/single-field.tsx";
import { Dialog } from "../profile/Dialog.tsx";

const T = REAUTH_TEXT;

/** What the dialog says for a refused password, next to the field. */
function refusal(error: unknown): string {
  const { status } = asApiError(error);
  if (status === 400) return DETAIL.incorrectPassword;
  if (status === 429) return ERROR_TEXT.tooManyRequests;
  return ERROR_TEXT.oops;
}

export function ReauthDialog() {
  const { open } = useStore($reauth);
  const field = useSingleField({ required: VALIDATION.passwordRequired, refusal, asTyped: true });
  const formId = `${field.id}-form`;

  const close = () => {
    field.reset();
    cancelReauth();
  };

  const submit = field.onSubmit(async (password) => {
    await confirmPassword(password);
    field.reset();
  });

  return (
    <Dialog
      open={open}
      title={T.title}
      onClose={() => {
        if ($reauth.get().open) close();
      }}
      actions={
        <>
          <button type="button" className="btn" onClick={close}>
            {T.cancel}
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={field.busy}>
            {field.busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {field.busy ? T.confirming : T.confirm}
          </button>
        </>
      }
    >
      <form id={formId} className="flex flex-col gap-3" noValidate onSubmit={submit} data-reauth-form>
        <p className="text-sm">{T.body}</p>
        <SingleFieldInput
          field={field}
          name="password"
          label={T.password}
          type="password"
          autoComplete="current-password"
        />
      </form>
    </Dialog>
  );
}
