// /profile/security's "Your data": download everything as JSON, and delete the account after
// typing the username (ACCOUNT-SECURITY.md). Both confirm the password first when it is older
// than 10 minutes; deletion then signs the browser out and goes to /. What deleting cannot erase
// (the audit log's entries) is said beside it.
import { useState } from "react";
import { AUDIT_LOG_KEPT } from "../../../contract/data-retention.ts";
import { ACCOUNT_DELETION_POINTS } from "../../lib/account-deletion-points.ts";
import { asApiError } from "../../lib/api-client.ts";
import { chooseOrganization } from "../../lib/auth-storage.ts";
import { accountActionErrorMessage } from "../../lib/error-messages.ts";
import { navigate } from "../../lib/navigation.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { type TeamsToHandOver, teamsToHandOver } from "../../lib/teams-to-hand-over.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { deleteAccount, downloadAccountData } from "../../stores/security.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { Dialog } from "../profile/Dialog.tsx";
import { SecurityCard } from "./SecurityCard.tsx";

const T = SECURITY_TEXT.data;
const KEPT = AUDIT_LOG_KEPT;

const failed = (error: unknown) => {
  if (!(error instanceof ReauthCancelled)) notify("error", accountActionErrorMessage(asApiError(error)));
};

/** Why the account cannot be deleted yet: the teams it is the last owner of, each a link to its settings. */
function TeamsRefusal({ refusal }: { refusal: TeamsToHandOver }) {
  return (
    <div role="alert" className="alert alert-warning flex flex-col items-start text-sm" data-teams-first>
      <p className="font-semibold">{refusal.detail}</p>
      <p>{T.teamsFirst}</p>
      <ul className="list-disc ps-5">
        {refusal.teams.map((team) => (
          <li key={team.id}>
            <a
              className="link"
              href="/org/settings"
              // The settings of the organisation the page acts on: this one, chosen first.
              onClick={() => chooseOrganization(team.id)}
            >
              {team.name ?? T.unnamedTeam}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

function DeleteDialog({ open, username, onClose }: { open: boolean; username: string; onClose: () => void }) {
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<TeamsToHandOver | null>(null);
  const close = () => {
    setTyped("");
    setRefusal(null);
    onClose();
  };
  const confirm = async () => {
    if (busy || typed !== username) return;
    setBusy(true);
    try {
      await deleteAccount(username);
      notifyAfterNavigation("success", T.deleted);
      navigate("/");
    } catch (error) {
      const blocking = error instanceof ReauthCancelled ? null : teamsToHandOver(asApiError(error).body);
      if (blocking) setRefusal(blocking);
      else failed(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={T.confirmTitle}
      onClose={close}
      actions={
        <>
          <button type="button" className="btn" onClick={close}>
            {T.keep}
          </button>
          <button
            type="button"
            className="btn btn-error"
            onClick={() => void confirm()}
            disabled={busy || typed !== username}
          >
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {T.confirm}
          </button>
        </>
      }
    >
      <div className="flex flex-col gap-3">
        {/* One point a line, to scan before typing the username; the page says it as a paragraph. */}
        <div className="text-sm" data-deletion-points>
          <p>{ACCOUNT_DELETION_POINTS.lead}</p>
          <ul className="mt-1 list-disc ps-5">
            {ACCOUNT_DELETION_POINTS.points.map((point) => (
              <li key={point}>{point}</li>
            ))}
          </ul>
        </div>
        {refusal && <TeamsRefusal refusal={refusal} />}
        <label className="flex flex-col gap-1.5 text-sm font-medium">
          {T.confirmLabel(username)}
          <input
            className="input w-full"
            name="confirm-username"
            autoComplete="off"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
          />
        </label>
      </div>
    </Dialog>
  );
}

/** What deleting leaves in the audit log, how long and why (decision 021): the deletion mail says the same. */
function AuditLogKept() {
  return (
    <details className="text-sm" data-audit-log-kept>
      <summary className="cursor-pointer font-medium">{KEPT.title}</summary>
      <div className="mt-2 flex flex-col gap-2">
        <p>{KEPT.intro}</p>
        <ul className="list-disc ps-5">
          <li>{KEPT.securityEvents}</li>
          <li>{KEPT.operatorActions}</li>
        </ul>
        <p>{KEPT.order}</p>
      </div>
    </details>
  );
}

export function DataSection({ username }: { username: string }) {
  const [downloading, setDownloading] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const download = async () => {
    setDownloading(true);
    try {
      await downloadAccountData();
    } catch (error) {
      failed(error);
    } finally {
      setDownloading(false);
    }
  };
  return (
    <SecurityCard title={T.title} marker="account-data">
      <p className="text-sm">{T.body}</p>
      <div>
        <button type="button" className="btn btn-sm" onClick={() => void download()} disabled={downloading}>
          {downloading && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {T.download}
        </button>
      </div>
      <h3 className="mt-2 font-semibold">{T.deleteTitle}</h3>
      <p className="text-sm">
        {T.deleteBody} {T.seeLogBelow}
      </p>
      <AuditLogKept />
      <div>
        <button type="button" className="btn btn-error btn-sm" onClick={() => setDeleting(true)}>
          {T.deleteAction}
        </button>
      </div>
      <DeleteDialog open={deleting} username={username} onClose={() => setDeleting(false)} />
    </SecurityCard>
  );
}
