// /profile/security's recent security events: when, what, from which address and browser, newest
// first. A table; on a phone the browser goes under what happened instead of a fourth column, which
// would not fit beside the other three.
import { useStore } from "@nanostores/react";
import { useEffect } from "react";
import { dayAndTime } from "../../lib/format-date.ts";
import { SECURITY_EVENT_NAMES, SECURITY_TEXT } from "../../lib/security-text.ts";
import { $securityEvents, loadSecurityEvents } from "../../stores/security.ts";
import { LoadStatus } from "./LoadStatus.tsx";
import { SecurityCard } from "./SecurityCard.tsx";

const T = SECURITY_TEXT.events;

export function SecurityEvents() {
  const state = useStore($securityEvents);
  useEffect(() => {
    void loadSecurityEvents();
  }, []);
  const listed = state.status === "ready" && state.events.length > 0;
  return (
    <SecurityCard title={T.title} marker="security-events">
      <LoadStatus status={state.status} loading={T.loading} failed={T.loadFailed} />
      {state.status === "ready" && state.events.length === 0 && <p className="text-sm">{T.empty}</p>}
      {listed && (
        <p className="text-sm text-base-content/70" data-events-zone>
          {T.zoneNote}
        </p>
      )}
      {listed && (
        <div className="overflow-x-auto">
          <table className="table table-sm">
            <thead>
              <tr>
                <th scope="col">{T.when}</th>
                <th scope="col">{T.what}</th>
                <th scope="col">{T.where}</th>
                <th scope="col" className="hidden sm:table-cell">
                  {T.browser}
                </th>
              </tr>
            </thead>
            <tbody>
              {state.events.map((event) => (
                <tr key={event.id} data-security-event={event.action}>
                  <td className="whitespace-nowrap tabular-nums">{dayAndTime(event.at)}</td>
                  <td>
                    {SECURITY_EVENT_NAMES[event.action] ?? event.action}
                    <span className="block text-xs text-base-content/70 sm:hidden" data-event-browser>
                      {T.browser}: {event.browser ?? T.unknown}
                    </span>
                  </td>
                  <td className="font-mono text-xs">{event.ip ?? T.unknown}</td>
                  <td className="hidden sm:table-cell">{event.browser ?? T.unknown}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {state.status === "ready" && state.wrongPasswordsNotListed > 0 && (
        <p className="text-sm text-base-content/70" data-wrong-passwords-not-listed>
          {T.wrongPasswordsNotListed(state.wrongPasswordsNotListed)}
        </p>
      )}
    </SecurityCard>
  );
}
