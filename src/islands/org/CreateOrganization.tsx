// /profile's "Create organisation": a name (checked with the contract's rule before it is sent, the
// server's refusal shown beside the field too), then the portal acts on the new organisation and
// opens its members page, where the owner invites the others.
import { type FormEvent, useId, useState } from "react";
import { asApiError, loadSchemas } from "../../lib/api-client.ts";
import { accountActionErrorMessage, detailText, fieldErrorsFrom422 } from "../../lib/error-messages.ts";
import { ORG_PAGE_TEXT } from "../../lib/org-text.ts";
import { createOrganization, switchOrganization } from "../../stores/organizations.ts";
import { notifyAfterNavigation } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";

const T = ORG_PAGE_TEXT;

export function CreateOrganization() {
  const id = useId();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name") ?? "");
    const parsed = (await loadSchemas()).orgNameRequestSchema.safeParse({ name });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      form.querySelector("input")?.focus();
      return;
    }
    setBusy(true);
    try {
      const org = await createOrganization(parsed.data.name);
      notifyAfterNavigation("success", T.created(org.name ?? parsed.data.name));
      switchOrganization(org, "/org/members");
    } catch (failure) {
      const failed = asApiError(failure);
      // 422 names the field; 403 (e-mail not verified) and 409 (20 owned) are sentences about it.
      const message =
        fieldErrorsFrom422(failed).name ??
        (failed.status === 403 || failed.status === 409 ? detailText(failed.detail) : "");
      setError(message || accountActionErrorMessage(failed));
      setBusy(false);
    }
  };

  const errorId = `${id}-error`;
  return (
    <form className="flex flex-col gap-3" noValidate onSubmit={(e) => void submit(e)} data-create-org>
      <div className="flex flex-col gap-1.5">
        <label htmlFor={`${id}-name`} className="text-sm font-medium">
          {T.createName}
        </label>
        <div className="flex flex-wrap gap-2">
          <input
            id={`${id}-name`}
            name="name"
            className={error ? "input input-error w-full max-w-sm" : "input w-full max-w-sm"}
            autoComplete="organization"
            maxLength={120}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : `${id}-help`}
            onChange={() => setError(undefined)}
          />
          <button type="submit" className="btn btn-outline" disabled={busy}>
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {busy ? T.creating : T.create}
          </button>
        </div>
        {error ? (
          <FieldError id={errorId} name="name" message={error} />
        ) : (
          <p id={`${id}-help`} className="text-xs text-base-content/70">
            {T.createNameHelper}
          </p>
        )}
      </div>
    </form>
  );
}
