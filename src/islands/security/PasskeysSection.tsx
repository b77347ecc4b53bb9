// /profile/security's passkeys: the list (name, when added, when last used), adding one under a
// name (the browser's own passkey dialog does the rest), and removing one after a confirmation.
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import type { Passkey } from "../../../contract/passkeys.ts";
import { ApiError, asApiError } from "../../lib/api-client.ts";
import { accountActionErrorMessage } from "../../lib/error-messages.ts";
import { dayAndTime, localDay } from "../../lib/format-date.ts";
import { passkeyFailure } from "../../lib/passkey-failure.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { signInAgainRefusal } from "../../lib/sign-in-again-refusal.ts";
import { $passkeys, addPasskey, loadPasskeys, removePasskey } from "../../stores/passkeys.ts";
import { notify } from "../../stores/toast.ts";
import { SingleFieldInput, useSingleField } from "../forms/single-field.tsx";
import { ConfirmDialog } from "../profile/ConfirmDialog.tsx";
import { LoadStatus } from "./LoadStatus.tsx";
import { SecurityCard } from "./SecurityCard.tsx";

const T = SECURITY_TEXT.passkeys;

/** Why a passkey was not added: the server's reason, or what the browser's dialog said. */
function passkeyRefusal(error: unknown): string {
  if (!(error instanceof ApiError)) return T[passkeyFailure(error)];
  const failed = asApiError(error);
  if ((failed.status === 400 || failed.status === 409) && typeof failed.detail === "string")
    return failed.detail;
  return signInAgainRefusal(failed) ?? accountActionErrorMessage(failed);
}

function AddForm() {
  const field = useSingleField({ required: "Give the passkey a name", refusal: passkeyRefusal });
  const submit = field.onSubmit(async (name) => {
    await addPasskey(name);
    field.reset();
    notify("success", T.added);
  });
  return (
    <form
      className="flex flex-col gap-3 sm:flex-row sm:items-end"
      noValidate
      onSubmit={submit}
      data-add-passkey
    >
      <div className="grow">
        <SingleFieldInput field={field} name="passkey-name" label={T.nameLabel} autoComplete="off" />
      </div>
      <button type="submit" className="btn btn-primary" disabled={field.busy}>
        {field.busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
        {T.add}
      </button>
    </form>
  );
}

export function PasskeysSection() {
  const state = useStore($passkeys);
  const [removing, setRemoving] = useState<Passkey | null>(null);
  useEffect(() => {
    void loadPasskeys();
  }, []);
  return (
    <SecurityCard title={T.title} marker="passkeys">
      <p className="text-sm">{T.body}</p>
      <LoadStatus status={state.status} loading={T.loading} failed={T.loadFailed} />
      {state.status === "ready" && state.passkeys.length === 0 && <p className="text-sm">{T.none}</p>}
      {state.status === "ready" && state.passkeys.length > 0 && (
        <ul className="flex flex-col divide-y divide-base-300" aria-label={T.title}>
          {state.passkeys.map((passkey) => (
            <li
              key={passkey.id}
              className="flex flex-wrap items-center justify-between gap-2 py-2"
              data-passkey={passkey.name}
            >
              <div className="min-w-0 text-sm">
                <p className="truncate font-medium">
                  {passkey.name}
                  {passkey.backed_up && <span className="badge badge-ghost badge-sm ms-2">{T.synced}</span>}
                </p>
                <p className="text-base-content/80">
                  {T.created} {localDay(passkey.created_at)} · {T.lastUsed}{" "}
                  {dayAndTime(passkey.last_used_at) ?? T.never}
                </p>
              </div>
              <button type="button" className="btn btn-sm" onClick={() => setRemoving(passkey)}>
                {T.remove}
              </button>
            </li>
          ))}
        </ul>
      )}
      <AddForm />
      <ConfirmDialog
        open={removing !== null}
        title={T.removeTitle}
        keepLabel={T.keep}
        confirmLabel={T.remove}
        onConfirm={async () => {
          if (removing) await removePasskey(removing.id);
          notify("success", T.removed);
        }}
        onClose={() => setRemoving(null)}
      >
        <p className="text-sm">{removing ? T.removeBody(removing.name) : ""}</p>
      </ConfirmDialog>
    </SecurityCard>
  );
}
