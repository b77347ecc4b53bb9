// /org/members for owners and managers: invite by e-mail with a role the viewer may give (the
// address's and the role's problems, and the organisation's limits, beside their fields; the
// inviter's own write limit in a toast), and the pending invitations with resend and revoke (a
// refusal said on its row).
import { type FormEvent, useId, useState } from "react";
import type { UserOrganization } from "../../../contract/account.ts";
import type { Invitation } from "../../../contract/orgs.ts";
import { asApiError, loadSchemas } from "../../lib/api-client.ts";
import { DANGER_OUTLINE } from "../../lib/danger-button.ts";
import { fieldErrorsFrom422 } from "../../lib/error-messages.ts";
import { type FieldErrors, firstFieldErrors } from "../../lib/form-errors.ts";
import { isoDay } from "../../lib/format-date.ts";
import { ORG_PAGE_TEXT } from "../../lib/org-text.ts";
import { type InviteRefusal, invitableRoles, inviteRefusal, orgErrorMessage } from "../../lib/org-view.ts";
import { ROLE_NAMES, ROLE_SUMMARIES } from "../../lib/role-text.ts";
import { inviteMember, resendInvitation, revokeInvitation } from "../../stores/organizations.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { notify } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";

const T = ORG_PAGE_TEXT;
/** The page's invitation news share one toast: the latest replaces the last (toast-view.tsx). */
const TOPIC = "invitations";

function InviteForm({ org }: { org: UserOrganization }) {
  const id = useId();
  const roles = invitableRoles(org.role);
  const [errors, setErrors] = useState<FieldErrors>({});
  // The server's refusal, beside the e-mail field too; kept apart from the form's own errors, as
  // the organisation's limits outlast an edit of the address (inviteRefusal).
  const [refused, setRefused] = useState<InviteRefusal | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = event.currentTarget;
    const data = new FormData(form);
    const request = { email: String(data.get("email") ?? "").trim(), role: String(data.get("role") ?? "") };
    const found = firstFieldErrors((await loadSchemas()).invitationRequestSchema, request);
    setErrors(found);
    setRefused(null);
    if (Object.keys(found).length > 0) {
      form.querySelector<HTMLElement>("[aria-invalid='true']")?.focus();
      return;
    }
    setBusy(true);
    try {
      await inviteMember(org.id, request.email, request.role as (typeof roles)[number]);
      notify("success", T.invited(request.email), TOPIC);
      form.reset();
    } catch (error) {
      // The password dialog closed without confirming: nothing was sent, nothing to say.
      if (error instanceof ReauthCancelled) return;
      const failed = asApiError(error);
      const fields = fieldErrorsFrom422(failed);
      // A member or a pending address (409), its mailbox's mails used up, or the organisation's
      // limits (429): beside the field, where it stays after the toast would have gone. The
      // inviter's own writes used up (the generic 429) are not about the address: a toast.
      const atEmail = inviteRefusal(failed);
      if (Object.keys(fields).length > 0) setErrors(fields);
      else if (atEmail) setRefused(atEmail);
      else notify("error", orgErrorMessage(failed));
    } finally {
      setBusy(false);
    }
  };

  const described = (field: string, help?: string) =>
    (errors[field] ? `${id}-${field}-error` : help) || undefined;
  const emailError = errors.email ?? refused?.message;
  const hint = !errors.email && refused?.about === "invited";
  return (
    <form className="flex flex-col gap-4" noValidate onSubmit={(e) => void submit(e)} data-invite-form>
      <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
        <div className="flex flex-col gap-1.5">
          <label htmlFor={`${id}-email`} className="text-sm font-medium">
            {T.inviteEmail}
          </label>
          <input
            id={`${id}-email`}
            name="email"
            type="email"
            autoComplete="off"
            className={emailError ? "input input-error w-full" : "input w-full"}
            aria-invalid={emailError ? true : undefined}
            aria-describedby={emailError ? `${id}-email-error${hint ? ` ${id}-email-hint` : ""}` : undefined}
            onChange={() => {
              setErrors({ ...errors, email: undefined });
              if (refused?.about !== "sending") setRefused(null);
            }}
          />
          <FieldError id={`${id}-email-error`} name="email" message={emailError} />
          {hint && (
            <p
              id={`${id}-email-hint`}
              className="pl-5.5 text-sm text-base-content/80"
              data-field-hint="email"
            >
              {T.pendingHint}
            </p>
          )}
        </div>
        <div className="flex flex-col gap-1.5">
          <label htmlFor={`${id}-role`} className="text-sm font-medium">
            {T.inviteRole}
          </label>
          <select
            id={`${id}-role`}
            name="role"
            className={errors.role ? "select select-error w-full" : "select w-full"}
            defaultValue="developer"
            aria-invalid={errors.role ? true : undefined}
            aria-describedby={described("role", `${id}-role-help`)}
          >
            {roles.map((role) => (
              <option key={role} value={role}>
                {ROLE_NAMES[role]}
              </option>
            ))}
          </select>
          {errors.role && <FieldError id={`${id}-role-error`} name="role" message={errors.role} />}
        </div>
      </div>
      <ul id={`${id}-role-help`} className="flex flex-col gap-0.5 text-xs text-base-content/70">
        {roles.map((role) => (
          <li key={role}>
            <span className="font-medium">{ROLE_NAMES[role]}</span>: {ROLE_SUMMARIES[role]}
          </li>
        ))}
      </ul>
      <div>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {busy ? T.sending : T.sendInvite}
        </button>
      </div>
    </form>
  );
}

function PendingInvitation({ org, invitation }: { org: UserOrganization; invitation: Invitation }) {
  const id = useId();
  const [busy, setBusy] = useState<"resend" | "revoke" | null>(null);
  // Why the last Resend or Revoke was refused (mailed less than an hour ago, the hour's 20 used):
  // on the row it is about, until the next attempt, not in a toast that is gone in 5 s.
  const [problem, setProblem] = useState<string | null>(null);
  const act = async (kind: "resend" | "revoke") => {
    setBusy(kind);
    setProblem(null);
    try {
      if (kind === "resend") {
        await resendInvitation(org.id, invitation.id);
        notify("success", T.resent(invitation.email), TOPIC);
      } else {
        await revokeInvitation(org.id, invitation.id);
        notify("success", T.revoked(invitation.email), TOPIC);
      }
    } catch (error) {
      if (!(error instanceof ReauthCancelled)) setProblem(orgErrorMessage(asApiError(error)));
    } finally {
      setBusy(null);
    }
  };
  const facts = [
    ROLE_NAMES[invitation.role],
    invitation.invited_by ? T.invitedBy(invitation.invited_by.username) : null,
  ].filter(Boolean);
  return (
    <li
      className="flex flex-wrap items-center justify-between gap-3 rounded-box border border-base-300 p-4"
      data-invitation={invitation.email}
    >
      <div className="min-w-0">
        <p className="break-all font-medium">{invitation.email}</p>
        <p className="text-sm text-base-content/80">
          {facts.join(" · ")} ·{" "}
          {/* A narrow row breaks a date at its hyphens ("2026-12-" / "07"): the date stays whole. */}
          <span className="whitespace-nowrap">{T.expires(isoDay(invitation.expires_at) ?? "")}</span>
        </p>
      </div>
      <div className="flex gap-2">
        <button
          type="button"
          className="btn btn-outline btn-sm"
          disabled={busy !== null}
          aria-label={`${T.resend} ${invitation.email}`}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onClick={() => void act("resend")}
        >
          {busy === "resend" && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
          {T.resend}
        </button>
        <button
          type="button"
          className={`${DANGER_OUTLINE} btn-sm`}
          disabled={busy !== null}
          aria-label={`${T.revoke} ${invitation.email}`}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onClick={() => void act("revoke")}
        >
          {busy === "revoke" && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
          {T.revoke}
        </button>
      </div>
      {/* The whole row's width, below its address and buttons; an alert, as the toast was. */}
      {problem && (
        <div className="basis-full">
          <FieldError id={`${id}-problem`} name="invitation" message={problem} alert />
        </div>
      )}
    </li>
  );
}

export function Invitations({
  org,
  invitations,
  ready,
}: {
  org: UserOrganization;
  invitations: readonly Invitation[];
  ready: boolean;
}) {
  return (
    <>
      <section aria-labelledby="invite-heading" className="flex flex-col gap-3">
        <h2 id="invite-heading" className="text-lg font-semibold">
          {T.invite}
        </h2>
        <p className="text-sm text-base-content/80">{T.inviteIntro}</p>
        <InviteForm org={org} />
      </section>
      <section aria-labelledby="pending-heading" className="flex flex-col gap-3">
        <h2 id="pending-heading" className="text-lg font-semibold">
          {T.pendingTitle}
        </h2>
        {ready && invitations.length === 0 && <p className="text-sm text-base-content/80">{T.noPending}</p>}
        {invitations.length > 0 && (
          <ul className="flex flex-col gap-2" aria-label={T.pendingTitle}>
            {invitations.map((invitation) => (
              <PendingInvitation key={invitation.id} org={org} invitation={invitation} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
