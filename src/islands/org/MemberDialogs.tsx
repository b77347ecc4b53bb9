// /org/members' dialogs: changing a member's role and monthly cap (the roles offered are those the
// viewer may give; a role without API keys warns that theirs stop), and removing a member or
// leaving (naming the keys that will stop, then the keys that did and the shared keys left).
import { type FormEvent, useEffect, useId, useState } from "react";
import type { UserOrganization } from "../../../contract/account.ts";
import { can, losesOwnKeys, type OrgRole } from "../../../contract/org-roles.ts";
import type { KeyRef, Member } from "../../../contract/orgs.ts";
import { asApiError, loadSchemas } from "../../lib/api-client.ts";
import { chooseOrganization } from "../../lib/auth-storage.ts";
import { fieldErrorsFrom422 } from "../../lib/error-messages.ts";
import { type FieldErrors, firstFieldErrors } from "../../lib/form-errors.ts";
import { navigate } from "../../lib/navigation.ts";
import { ORG_PAGE_TEXT } from "../../lib/org-text.ts";
import {
  capFromInput,
  keysStoppedByRemoval,
  type MemberOffer,
  orgErrorMessage,
  orgName,
} from "../../lib/org-view.ts";
import { ROLE_NAMES, ROLE_SUMMARIES } from "../../lib/role-text.ts";
import { changeMember, loadOrgKeys, removeMember } from "../../stores/organizations.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";
import { Dialog } from "../profile/Dialog.tsx";
import { KeyList, OrgConfirmDialog } from "./OrgDialog.tsx";

const T = ORG_PAGE_TEXT;

/** What a change did that the member list does not show: the keys a lost role revoked. */
function RevokedKeysDialog({ keys, onClose }: { keys: readonly KeyRef[] | null; onClose: () => void }) {
  return (
    <Dialog
      open={keys !== null}
      title={T.revokedKeys(keys?.length ?? 0)}
      onClose={onClose}
      actions={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          {T.close}
        </button>
      }
    >
      {keys && <KeyList keys={keys} />}
    </Dialog>
  );
}

export function EditMemberDialog({
  org,
  member,
  offer,
  withInvitations,
  onClose,
}: {
  org: UserOrganization;
  member: Member | null;
  offer: MemberOffer | null;
  withInvitations: boolean;
  onClose: () => void;
}) {
  const formId = useId();
  const [role, setRole] = useState<OrgRole | null>(null);
  const [cap, setCap] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const [revoked, setRevoked] = useState<readonly KeyRef[] | null>(null);

  // Each opening starts from the member as listed.
  useEffect(() => {
    setRole(member?.role ?? null);
    setCap(member?.monthly_credit_cap === null || !member ? "" : String(member.monthly_credit_cap));
    setErrors({});
  }, [member]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!member || !offer || busy) return;
    const change: { role?: OrgRole; monthly_credit_cap?: number | null } = {};
    if (role && role !== member.role) change.role = role;
    const newCap = capFromInput(cap);
    if (offer.cap && newCap !== member.monthly_credit_cap) change.monthly_credit_cap = newCap;
    if (Object.keys(change).length === 0) {
      onClose();
      return;
    }
    const found = firstFieldErrors((await loadSchemas()).memberChangeSchema, change);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const { keys, invitations } = await changeMember(org.id, member.user_id, change, withInvitations);
      const saved = T.saved(member.username);
      notify("success", invitations > 0 ? `${saved}. ${T.invitationsRevoked(invitations)}` : saved);
      onClose();
      if (keys.length > 0) setRevoked(keys);
    } catch (error) {
      if (error instanceof ReauthCancelled) return;
      const failed = asApiError(error);
      const fields = fieldErrorsFrom422(failed);
      if (Object.keys(fields).length > 0) setErrors(fields);
      else notify("error", orgErrorMessage(failed));
    } finally {
      setBusy(false);
    }
  };

  const capError = errors.monthly_credit_cap;
  return (
    <>
      <Dialog
        open={member !== null}
        title={member ? T.editTitle(member.username) : ""}
        onClose={onClose}
        actions={
          <>
            <button type="button" className="btn" onClick={onClose}>
              {T.cancel}
            </button>
            <button type="submit" form={formId} className="btn btn-primary" disabled={busy}>
              {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {busy ? T.saving : T.save}
            </button>
          </>
        }
      >
        {member && offer && (
          <form id={formId} className="flex flex-col gap-4" noValidate onSubmit={(e) => void submit(e)}>
            {offer.roles.length > 0 && (
              <fieldset className="flex flex-col gap-2">
                <legend className="mb-1 text-sm font-medium">{T.role}</legend>
                {offer.roles.map((option) => (
                  <label key={option} className="flex cursor-pointer items-start gap-2 text-sm">
                    <input
                      type="radio"
                      name="role"
                      className="radio radio-sm mt-0.5"
                      value={option}
                      checked={role === option}
                      onChange={() => setRole(option)}
                    />
                    <span>
                      <span className="font-medium">{ROLE_NAMES[option]}</span>
                      <span className="block text-xs text-base-content/70">{ROLE_SUMMARIES[option]}</span>
                    </span>
                  </label>
                ))}
                {errors.role && <FieldError id={`${formId}-role-error`} name="role" message={errors.role} />}
                {role && losesOwnKeys(member.role, role) && (
                  <p role="status" className="alert alert-warning text-sm" data-keys-warning>
                    {T.roleStopsKeys(ROLE_NAMES[role])}
                  </p>
                )}
              </fieldset>
            )}
            {offer.cap && (
              <div className="flex flex-col gap-1.5">
                <label htmlFor={`${formId}-cap`} className="text-sm font-medium">
                  {T.cap}
                </label>
                <input
                  id={`${formId}-cap`}
                  name="monthly_credit_cap"
                  inputMode="decimal"
                  className={capError ? "input input-error w-full" : "input w-full"}
                  value={cap}
                  placeholder={T.noCap}
                  aria-invalid={capError ? true : undefined}
                  aria-describedby={capError ? `${formId}-cap-error` : `${formId}-cap-help`}
                  onChange={(e) => {
                    setCap(e.target.value);
                    setErrors({});
                  }}
                />
                {capError ? (
                  <FieldError id={`${formId}-cap-error`} name="monthly_credit_cap" message={capError} />
                ) : (
                  <p id={`${formId}-cap-help`} className="text-xs text-base-content/70">
                    {T.capHelper}
                  </p>
                )}
              </div>
            )}
          </form>
        )}
      </Dialog>
      <RevokedKeysDialog keys={revoked} onClose={() => setRevoked(null)} />
    </>
  );
}

/** `none`: a member leaving whose role makes no keys (billing), so there are none to name. */
type KeysPreview =
  | { status: "loading" }
  | { status: "none" }
  | { status: "ready"; keys: readonly KeyRef[] | null };

const NO_KEYS_TO_NAME: KeysPreview = { status: "none" };

/** The keys a removal will stop, where the viewer may see them (every key, or their own). */
function useKeysPreview(org: UserOrganization, member: Member | null, self: boolean): KeysPreview {
  const [preview, setPreview] = useState<KeysPreview>({ status: "loading" });
  const none = self && !can(org.role, "ownKeys");
  useEffect(() => {
    if (!member || none) return;
    const seesKeys = can(org.role, "allKeys") || (self && can(org.role, "ownKeys"));
    if (!seesKeys) {
      setPreview({ status: "ready", keys: null });
      return;
    }
    let current = true;
    setPreview({ status: "loading" });
    loadOrgKeys().then(
      (keys) => current && setPreview({ status: "ready", keys: keysStoppedByRemoval(keys, member.user_id) }),
      () => current && setPreview({ status: "ready", keys: null }),
    );
    return () => {
      current = false;
    };
  }, [org, member, self, none]);
  // Known without asking, so the dialog never shows "Looking up…" first.
  return none ? NO_KEYS_TO_NAME : preview;
}

interface Removal {
  revoked: readonly KeyRef[];
  shared: readonly KeyRef[];
}

export function RemoveMemberDialog({
  org,
  member,
  self,
  withInvitations,
  onClose,
}: {
  org: UserOrganization;
  member: Member | null;
  self: boolean;
  withInvitations: boolean;
  onClose: () => void;
}) {
  const preview = useKeysPreview(org, member, self);
  const [done, setDone] = useState<Removal | null>(null);
  const name = orgName(org);

  const confirm = async () => {
    if (!member) return;
    const answer = await removeMember(org.id, member.user_id, self ? null : withInvitations);
    if (self) {
      // Their access has ended: the portal goes back to their own account.
      chooseOrganization(null);
      notifyAfterNavigation("success", T.left(name));
      navigate("/profile");
      return;
    }
    notify("success", T.removed(member.username));
    onClose();
    if (answer.revoked_keys.length > 0 || answer.shared_keys.length > 0)
      setDone({ revoked: answer.revoked_keys, shared: answer.shared_keys });
  };

  return (
    <>
      <OrgConfirmDialog
        open={member !== null}
        title={member ? (self ? T.leaveTitle(name) : T.removeTitle(member.username)) : ""}
        keepLabel={T.keepMember}
        confirmLabel={self ? T.confirmLeave : T.confirmRemove}
        onConfirm={confirm}
        onClose={onClose}
      >
        {member && (
          <div className="flex flex-col gap-2 text-sm" data-removal-keys={preview.status}>
            <p>{self ? T.leaveBody(name) : T.removeBody(member.username, name)}</p>
            {preview.status === "loading" && (
              <p className="flex items-center gap-2" role="status">
                <span className="loading loading-spinner loading-sm" aria-hidden="true" />
                {self ? T.loadingOwnKeys : T.loadingKeys}
              </p>
            )}
            {preview.status === "ready" && preview.keys === null && (
              <p>{self ? T.ownKeysUnknown : T.keysUnknown}</p>
            )}
            {preview.status === "ready" && preview.keys?.length === 0 && (
              <p>{self ? T.ownNoKeys : T.noKeys}</p>
            )}
            {preview.status === "ready" && preview.keys && preview.keys.length > 0 && (
              <div>
                <p>{self ? T.ownKeysWillStop : T.keysWillStop}</p>
                <KeyList keys={preview.keys} />
              </div>
            )}
          </div>
        )}
      </OrgConfirmDialog>
      <Dialog
        open={done !== null}
        title={T.removedTitle}
        onClose={() => setDone(null)}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setDone(null)}>
            {T.close}
          </button>
        }
      >
        {done && (
          <div className="flex flex-col gap-3 text-sm" data-removal-result>
            {done.revoked.length > 0 && (
              <div>
                <p>{T.revokedKeys(done.revoked.length)}</p>
                <KeyList keys={done.revoked} />
              </div>
            )}
            {done.shared.length > 0 && (
              <div>
                <p>{T.sharedKeysLeft}</p>
                <KeyList keys={done.shared} />
                <a href="/profile/api-keys" className="link link-primary mt-2 inline-block">
                  {T.apiKeysLink}
                </a>
              </div>
            )}
          </div>
        )}
      </Dialog>
    </>
  );
}
