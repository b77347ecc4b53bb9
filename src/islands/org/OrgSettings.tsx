// /org/settings (guarded like /profile): the chosen team organisation's name (owners and managers
// rename it), transfer of ownership and deletion (owners; both confirm the password when it is
// older than 10 minutes, and deletion first says what would be lost: the server's 409).
import { useStore } from "@nanostores/react";
import { type FormEvent, useEffect, useId, useState } from "react";
import type { User, UserOrganization } from "../../../contract/account.ts";
import { can } from "../../../contract/org-roles.ts";
import type { Member } from "../../../contract/orgs.ts";
import { formatBalance } from "../../lib/account-view.ts";
import { asApiError, loadSchemas } from "../../lib/api-client.ts";
import { chooseOrganization } from "../../lib/auth-storage.ts";
import { DANGER_OUTLINE } from "../../lib/danger-button.ts";
import { fieldErrorsFrom422 } from "../../lib/error-messages.ts";
import { navigate } from "../../lib/navigation.ts";
import { ORG_PAGE_TEXT } from "../../lib/org-text.ts";
import { forfeitOf, orgErrorMessage, orgName, seesSettings } from "../../lib/org-view.ts";
import { ROLE_NAMES } from "../../lib/role-text.ts";
import { initSession } from "../../stores/auth.ts";
import {
  $members,
  deleteOrganization,
  loadMembers,
  renameOrganization,
  transferOwnership,
} from "../../stores/organizations.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { notifyAfterNavigation } from "../../stores/toast.ts";
import { ReauthDialog } from "../auth/ReauthDialog.tsx";
import { RouteGuard } from "../auth/RouteGuard.tsx";
import { FieldError } from "../forms/Field.tsx";
import { OrgConfirmDialog } from "./OrgDialog.tsx";
import { PersonalNotice } from "./PersonalNotice.tsx";

if (typeof document !== "undefined") void initSession();

const T = ORG_PAGE_TEXT;

function RenameForm({ org }: { org: UserOrganization }) {
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
      await renameOrganization(org.id, parsed.data.name);
      // The top bar and the menu show the name from the account answer: load the page again.
      notifyAfterNavigation("success", T.renamed);
      window.location.reload();
    } catch (failure) {
      const failed = asApiError(failure);
      setError(fieldErrorsFrom422(failed).name ?? orgErrorMessage(failed));
      setBusy(false);
    }
  };
  return (
    <form className="flex flex-col gap-1.5" noValidate onSubmit={(e) => void submit(e)} data-rename-form>
      <label htmlFor={`${id}-name`} className="text-sm font-medium">
        {T.createName}
      </label>
      <div className="flex flex-wrap gap-2">
        <input
          id={`${id}-name`}
          name="name"
          className={error ? "input input-error w-full max-w-sm" : "input w-full max-w-sm"}
          defaultValue={org.name ?? ""}
          autoComplete="organization"
          maxLength={120}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : `${id}-help`}
          onChange={() => setError(undefined)}
        />
        <button type="submit" className="btn btn-outline" disabled={busy}>
          {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {T.rename}
        </button>
      </div>
      {error ? (
        <FieldError id={`${id}-error`} name="name" message={error} />
      ) : (
        <p id={`${id}-help`} className="text-xs text-base-content/70">
          {T.createNameHelper}
        </p>
      )}
    </form>
  );
}

function TransferSection({ user, org }: { user: User; org: UserOrganization }) {
  const id = useId();
  const { status, members } = useStore($members);
  const [chosen, setChosen] = useState("");
  const [confirming, setConfirming] = useState<Member | null>(null);
  useEffect(() => {
    void loadMembers(org.id, false);
  }, [org.id]);
  const others = members.filter((m) => m.user_id !== user.id);
  const name = orgName(org);
  return (
    <section aria-labelledby="transfer-heading" className="flex flex-col gap-3" data-transfer>
      <h2 id="transfer-heading" className="text-lg font-semibold">
        {T.transferTitle}
      </h2>
      <p className="text-sm text-base-content/80">{T.transferIntro}</p>
      {status === "ready" && others.length === 0 && <p className="text-sm">{T.noOtherMembers}</p>}
      {others.length > 0 && (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            setConfirming(others.find((m) => m.user_id === chosen) ?? null);
          }}
        >
          <div className="flex flex-col gap-1.5">
            <label htmlFor={`${id}-to`} className="text-sm font-medium">
              {T.transferTo}
            </label>
            <select
              id={`${id}-to`}
              className="select w-64 max-w-full"
              value={chosen}
              onChange={(e) => setChosen(e.target.value)}
            >
              <option value="" disabled>
                {T.chooseMember}
              </option>
              {others.map((m) => (
                <option key={m.user_id} value={m.user_id}>
                  {`${m.username} (${ROLE_NAMES[m.role]})`}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="btn btn-outline" disabled={chosen === ""}>
            {T.transfer}
          </button>
        </form>
      )}
      <OrgConfirmDialog
        open={confirming !== null}
        title={confirming ? T.transferConfirmTitle(confirming.username) : ""}
        keepLabel={T.cancel}
        confirmLabel={T.transfer}
        onClose={() => setConfirming(null)}
        onConfirm={async () => {
          if (!confirming) return;
          await transferOwnership(org.id, confirming.user_id);
          notifyAfterNavigation("success", T.transferred(confirming.username));
          window.location.reload();
        }}
      >
        <p className="text-sm">{confirming ? T.transferConfirmBody(confirming.username, name) : ""}</p>
      </OrgConfirmDialog>
    </section>
  );
}

type Forfeit = { credits: number; subscriptionDays: number };

/**
 * Deletes with `agreed` as the loss the owner accepted (null: none shown yet); answers null when
 * deleted, or what would be lost when the API asks first (no `agreed`, or more to lose by now).
 */
async function tryDelete(orgId: string, agreed: Forfeit | null): Promise<Forfeit | null> {
  try {
    await deleteOrganization(orgId, agreed);
    return null;
  } catch (error) {
    const lost = error instanceof ReauthCancelled ? null : forfeitOf(asApiError(error).body);
    if (!lost || asApiError(error).status !== 409) throw error;
    return lost;
  }
}

function DeleteSection({ org }: { org: UserOrganization }) {
  const [open, setOpen] = useState(false);
  const [forfeit, setForfeit] = useState<Forfeit | null>(null);
  // The figures shown were agreed to, and more would be lost by now: the dialog says they changed.
  const [grew, setGrew] = useState(false);
  const name = orgName(org);
  const close = () => {
    setOpen(false);
    setForfeit(null);
    setGrew(false);
  };
  const confirm = async () => {
    let lost = await tryDelete(org.id, forfeit);
    // Nothing at all to lose (not even a fraction of a credit, nor a debt): the Delete already
    // clicked was the answer. Agreeing to lose nothing, it is asked again if credits landed meanwhile.
    if (lost && forfeit === null && lost.credits === 0 && lost.subscriptionDays <= 0) {
      lost = await tryDelete(org.id, lost);
    }
    // Credits or paid days (or more of them than shown): the dialog says so and asks once more.
    if (lost) {
      setGrew(forfeit !== null);
      setForfeit(lost);
      return;
    }
    chooseOrganization(null);
    notifyAfterNavigation("success", T.deleted(name));
    navigate("/profile");
  };
  return (
    <section aria-labelledby="delete-heading" className="flex flex-col items-start gap-3" data-delete-org>
      <h2 id="delete-heading" className="text-lg font-semibold">
        {T.deleteTitle}
      </h2>
      <p className="text-sm text-base-content/80">{T.deleteIntro}</p>
      <button type="button" className={DANGER_OUTLINE} onClick={() => setOpen(true)}>
        {T.delete}
      </button>
      <OrgConfirmDialog
        open={open}
        title={T.deleteConfirmTitle(name)}
        keepLabel={T.keepOrg}
        confirmLabel={forfeit ? T.confirmForfeit : T.confirmDelete}
        onClose={close}
        onConfirm={confirm}
      >
        <div className="flex flex-col gap-2 text-sm">
          <p>{T.deleteConfirmBody}</p>
          {forfeit && (
            <p role="alert" className="alert alert-warning" data-forfeit>
              {grew ? `${T.forfeitGrew} ` : ""}
              {T.forfeit(formatBalance(forfeit.credits), forfeit.subscriptionDays)}
            </p>
          )}
        </div>
      </OrgConfirmDialog>
    </section>
  );
}

function SettingsView({ user, org }: { user: User; org: UserOrganization }) {
  if (!seesSettings(org.role)) {
    return (
      <p className="text-sm" data-settings-not-allowed>
        {T.notAllowedHere}
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-10" data-org-settings>
      {can(org.role, "rename") && (
        <section aria-labelledby="name-heading" className="flex flex-col gap-3">
          <h2 id="name-heading" className="text-lg font-semibold">
            {T.nameTitle}
          </h2>
          <RenameForm org={org} />
        </section>
      )}
      {can(org.role, "transfer") && <TransferSection user={user} org={org} />}
      {can(org.role, "delete") && <DeleteSection org={org} />}
      <ReauthDialog />
    </div>
  );
}

export default function OrgSettings() {
  return (
    <RouteGuard loadingMessage={T.loading}>
      {(user) =>
        user.organization && !user.organization.personal ? (
          <SettingsView user={user} org={user.organization} />
        ) : (
          <PersonalNotice />
        )
      }
    </RouteGuard>
  );
}
