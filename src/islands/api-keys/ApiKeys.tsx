// /profile/api-keys (guarded like /profile): the user's API keys, a dialog that creates one and
// shows it once, and a confirmation before revoking. The list lives in the $apiKeys store.
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import type { User } from "../../../contract/account.ts";
import { makesKeys } from "../../../contract/account-area.ts";
import type { ApiKey, CreatedApiKey } from "../../../contract/api-keys.ts";
import { featureName } from "../../../contract/credit-costs.ts";
import { formatBalance } from "../../lib/account-view.ts";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { DANGER_OUTLINE } from "../../lib/danger-button.ts";
import { dayAndTime, localDay } from "../../lib/format-date.ts";
import { capOfKey, capText, type KeyCap } from "../../lib/key-caps.ts";
import { $apiKeys, loadApiKeys } from "../../stores/api-keys.ts";
import { initSession } from "../../stores/auth.ts";
import { $members, loadMembers } from "../../stores/organizations.ts";
import { ReauthDialog } from "../auth/ReauthDialog.tsx";
import { RouteGuard } from "../auth/RouteGuard.tsx";
import { CreateKeyDialog } from "./CreateKeyDialog.tsx";
import { NewKeyDialog } from "./NewKeyDialog.tsx";
import { RevokeAllDialog } from "./RevokeAllDialog.tsx";
import { RevokeKeyDialog } from "./RevokeKeyDialog.tsx";

// The keys are this page's content: ask for the session as soon as the module runs (see Profile).
if (typeof document !== "undefined") void initSession();

const T = API_KEYS_TEXT;

function usage(key: ApiKey, team: boolean): string {
  const used = formatBalance(key.credits_used_this_month);
  return key.monthly_credit_limit === null
    ? `${used} credits (${team ? T.noKeyLimit : T.noLimit})`
    : `${used} of ${formatBalance(key.monthly_credit_limit)} credits`;
}

function expiry(key: ApiKey, now: number): string {
  if (!key.expires_at) return T.never;
  const day = localDay(key.expires_at) ?? T.never;
  return Date.parse(key.expires_at) <= now ? `${day} (${T.expired})` : day;
}

interface KeyCardProps {
  apiKey: ApiKey;
  /** The server's now (ms): a key has expired by its clock, not the visitor's. */
  now: number;
  /** Whether the key is a team organisation's (whose members' caps may bound it). */
  team: boolean;
  /** The signed-in user: their own keys read "You". */
  viewerId: string;
  cap: KeyCap | null;
  onRevoke: (key: ApiKey) => void;
}

/** Who made a team key, as the viewer reads it. */
function maker(key: ApiKey, viewerId: string): string {
  const name =
    key.created_by.user_id === viewerId ? T.madeByYou : (key.created_by.username ?? T.formerMember);
  return key.shared ? T.sharedBy(name) : name;
}

function KeyCard({ apiKey, now, team, viewerId, cap, onRevoke }: KeyCardProps) {
  const C = T.columns;
  const facts: Array<[string, string]> = [
    ...(team ? [[C.madeBy, maker(apiKey, viewerId)] as [string, string]] : []),
    [C.created, localDay(apiKey.created_at) ?? ""],
    [C.lastUsed, dayAndTime(apiKey.last_used_at) ?? T.never],
    [C.expires, expiry(apiKey, now)],
    [C.usage, usage(apiKey, team)],
    ...(cap ? [[C.memberCap, capText(cap)] as [string, string]] : []),
  ];
  return (
    <li className="card border border-base-300 bg-base-100" data-api-key={apiKey.id}>
      <div className="card-body gap-3 p-4 sm:p-5">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <div className="min-w-0">
            <h3 className="truncate font-semibold" data-key-name>
              {apiKey.name}
            </h3>
            <p className="font-mono text-xs text-base-content/80" data-key-prefix>
              {apiKey.prefix}…
            </p>
          </div>
          <button
            type="button"
            className={`${DANGER_OUTLINE} btn-sm`}
            onClick={() => onRevoke(apiKey)}
            aria-label={`${T.revoke} ${apiKey.name}`}
          >
            {T.revoke}
          </button>
        </div>
        <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
          {facts.map(([label, value]) => (
            <div key={label} className="flex flex-col">
              <dt className="text-xs text-base-content/70">{label}</dt>
              <dd className="tabular-nums">{value}</dd>
            </div>
          ))}
        </dl>
        <p className="text-xs text-base-content/80">
          {apiKey.features
            ? `${T.restrictedTo}: ${apiKey.features.map(featureName).join(", ")}`
            : T.allFeatures}
        </p>
      </div>
    </li>
  );
}

function EmptyState({ onCreate }: { onCreate: () => void }) {
  return (
    <div
      className="flex flex-col items-start gap-3 rounded-box border border-dashed border-base-300 p-6"
      data-empty
    >
      <h2 className="text-lg font-semibold">{T.emptyTitle}</h2>
      <p className="text-sm text-base-content/80">{T.emptyBody}</p>
      <button type="button" className="btn btn-primary" onClick={onCreate}>
        {T.create}
      </button>
    </div>
  );
}

/**
 * The mail after a password reset links to #revoke-all (the page's slot around this island, so the
 * anchor is in the built HTML): opens the dialog once `ready`, and uses the fragment up so that a
 * reload does not ask again.
 */
function useAskedByLink(ready: boolean, ask: () => void) {
  const asked = ready && window.location.hash === "#revoke-all";
  // biome-ignore lint/correctness/useExhaustiveDependencies: asked once, when the page is ready.
  useEffect(() => {
    if (!asked) return;
    ask();
    history.replaceState(null, "", window.location.pathname);
  }, [asked]);
}

/**
 * A billing member (who reached this page by its address, or by the password-changed mail): no keys
 * here, the way to the organisation's usage, and "Revoke all API keys", which still covers the keys
 * the account made in its personal account and other organisations.
 */
function KeysNotForRole() {
  const [revokingAll, setRevokingAll] = useState(false);
  useAskedByLink(true, () => setRevokingAll(true));
  return (
    <div className="flex flex-col items-start gap-4" data-keys-not-for-role>
      <p role="status" className="alert alert-info">
        <span>{T.notForRole}</span>
      </p>
      <a href="/profile/usage" className="btn btn-outline btn-sm">
        {T.usageLink}
      </a>
      <p className="text-sm text-base-content/80">{T.revokeAllElsewhere}</p>
      <button type="button" className={`${DANGER_OUTLINE} btn-sm`} onClick={() => setRevokingAll(true)}>
        {T.revokeAll}
      </button>
      <RevokeAllDialog open={revokingAll} onClose={() => setRevokingAll(false)} reloadList={false} />
    </div>
  );
}

function KeyManager({ user }: { user: User }) {
  const state = useStore($apiKeys);
  const members = useStore($members).members;
  const org = user.organization;
  const teamId = org && !org.personal ? org.id : null;
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revokingAll, setRevokingAll] = useState(false);

  useEffect(() => {
    void loadApiKeys();
    // Every member may read the members' caps and spend (ORGANISATIONS.md): without them a card
    // says only that the key has no limit of its own.
    if (teamId) void loadMembers(teamId, false);
  }, [teamId]);

  const { keys, status } = state;
  // Asked by the password-changed mail's link: once the list is there, whether or not it holds keys
  // (the call covers the keys the account made in other organisations too).
  useAskedByLink(status === "ready", () => setRevokingAll(true));
  return (
    <div className="flex flex-col gap-4" data-api-keys>
      {keys.length > 0 && (
        <div className="flex items-center justify-between gap-2">
          <h2 className="text-lg font-semibold">{T.listTitle(teamId !== null)}</h2>
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" className={`${DANGER_OUTLINE} btn-sm`} onClick={() => setRevokingAll(true)}>
              {T.revokeAll}
            </button>
            <button type="button" className="btn btn-primary btn-sm" onClick={() => setCreating(true)}>
              {T.create}
            </button>
          </div>
        </div>
      )}
      {status === "failed" && (
        <div role="alert" className="alert alert-error">
          <span>{T.loadFailed}</span>
          <button type="button" className="btn btn-sm" onClick={() => void loadApiKeys()}>
            {T.retry}
          </button>
        </div>
      )}
      {status === "loading" && keys.length === 0 && (
        <p className="flex items-center gap-2 text-sm" role="status">
          <span className="loading loading-spinner loading-sm" aria-hidden="true" />
          {T.loading}
        </p>
      )}
      {status === "ready" && keys.length === 0 && <EmptyState onCreate={() => setCreating(true)} />}
      {keys.length > 0 && (
        <ul className="flex flex-col gap-3" aria-label={T.title}>
          {keys.map((key) => (
            <KeyCard
              key={key.id}
              apiKey={key}
              now={Date.now() + (state.clockOffsetMs ?? 0)}
              team={teamId !== null}
              viewerId={user.id}
              cap={teamId ? capOfKey(key, members, user.id) : null}
              onRevoke={setRevoking}
            />
          ))}
        </ul>
      )}
      <CreateKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setCreated(key);
        }}
      />
      <NewKeyDialog created={created} onClose={() => setCreated(null)} />
      <RevokeKeyDialog apiKey={revoking} onClose={() => setRevoking(null)} />
      <RevokeAllDialog open={revokingAll} onClose={() => setRevokingAll(false)} />
      <ReauthDialog />
    </div>
  );
}

export default function ApiKeys() {
  return (
    <RouteGuard loadingMessage={T.loading}>
      {(user) => (makesKeys(user.organization) ? <KeyManager user={user} /> : <KeysNotForRole />)}
    </RouteGuard>
  );
}
