// /profile/security's notice after the old address changed the e-mail back (issue 30): the
// passkeys, authenticator and API keys added while the address was changed, each with its way to
// remove it. Shown only while something is left to review; the passkeys and two-factor sections
// below change the list too, so it is read again when they change.
import { useStore } from "@nanostores/react";
import { useEffect, useId, useState } from "react";
import { PERSONAL_ORG_NAME } from "../../../contract/personal-org.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { $passkeys } from "../../stores/passkeys.ts";
import {
  $revertReview,
  keepAllAdded,
  loadRevertReview,
  removeAddedPasskey,
  revokeAddedApiKey,
} from "../../stores/revert-review.ts";
import { $twoFactor } from "../../stores/security.ts";
import { notify } from "../../stores/toast.ts";
import { ConfirmDialog } from "../profile/ConfirmDialog.tsx";

const T = SECURITY_TEXT.revertReview;

/** `organization`: a key's, whose organisation its revocation acts in. */
type Pending = { kind: "passkey" | "key"; id: string; name: string; organization?: string };

interface Added {
  id: string;
  name: string;
  label: string;
  created_at: string;
  /** A line under the label: a key's organisation. */
  detail?: string;
}

/** One kind of thing added meanwhile (passkeys, API keys), each with its way to remove it; nothing when none. */
function Group<Item extends Added>({
  title,
  action,
  items,
  onAct,
}: {
  title: string;
  action: string;
  items: Item[];
  onAct: (item: Item) => void;
}) {
  if (items.length === 0) return null;
  return (
    <div>
      <h3 className="text-sm font-semibold">{title}</h3>
      <ul className="flex flex-col divide-y divide-base-300" aria-label={title}>
        {items.map((item) => (
          <li
            key={item.id}
            className="flex flex-wrap items-center justify-between gap-2 py-2"
            data-added={item.label}
          >
            <div className="min-w-0 text-sm">
              <p className="truncate font-medium">{item.label}</p>
              {item.detail && <p className="text-base-content/80">{item.detail}</p>}
              <p className="text-base-content/80">
                {T.added} {dayAndTime(item.created_at)}
              </p>
            </div>
            <button type="button" className="btn btn-sm" onClick={() => onAct(item)}>
              {action}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function RevertReview() {
  const review = useStore($revertReview);
  const [pending, setPending] = useState<Pending | null>(null);
  const headingId = useId();
  // Read with the e-mail state when the page opens (SecuritySettings), and again after the sections
  // below change something.
  useEffect(() => {
    const reload = () => void loadRevertReview();
    const stops = [$passkeys.listen(reload), $twoFactor.listen(reload)];
    return () => {
      for (const stop of stops) stop();
    };
  }, []);
  if (!review) return null;
  const changed = dayAndTime(review.changed_at) ?? "";
  const reverted = dayAndTime(review.reverted_at) ?? "";
  return (
    <section
      aria-labelledby={headingId}
      className="card border-2 border-warning bg-base-100"
      data-revert-review
    >
      <div className="card-body gap-4 p-5">
        <h2 id={headingId} className="text-lg font-semibold">
          {T.title}
        </h2>
        <p className="text-sm">{T.body(changed, reverted)}</p>
        <Group
          title={T.passkeys}
          action={T.removePasskey}
          items={review.passkeys.map((p) => ({ ...p, label: p.name }))}
          onAct={(p) => setPending({ kind: "passkey", id: p.id, name: p.name })}
        />
        <Group
          title={T.apiKeys}
          action={T.revokeKey}
          items={review.api_keys.map((k) => ({
            ...k,
            label: `${k.name} (${k.prefix}…)`,
            detail: T.organisation(k.organization.name ?? PERSONAL_ORG_NAME),
          }))}
          onAct={(k) => setPending({ kind: "key", id: k.id, name: k.name, organization: k.organization.id })}
        />
        {review.two_factor_on_at && (
          <p className="text-sm" data-added-two-factor>
            {T.twoFactor(dayAndTime(review.two_factor_on_at) ?? "")}
          </p>
        )}
        <button type="button" className="btn btn-sm btn-ghost self-start" onClick={keepAllAdded}>
          {T.keepAll}
        </button>
      </div>
      <ConfirmDialog
        open={pending !== null}
        title={pending?.kind === "key" ? T.revokeTitle : T.removeTitle}
        keepLabel={T.keep}
        confirmLabel={pending?.kind === "key" ? T.revokeKey : T.removePasskey}
        onConfirm={async () => {
          if (!pending) return;
          if (pending.kind === "key") await revokeAddedApiKey(pending.id, pending.organization);
          else await removeAddedPasskey(pending.id);
          notify("success", pending.kind === "key" ? T.revoked : T.removed);
        }}
        onClose={() => setPending(null)}
      >
        <p className="text-sm">
          {pending ? (pending.kind === "key" ? T.revokeBody : T.removeBody)(pending.name) : ""}
        </p>
      </ConfirmDialog>
    </section>
  );
}
