// What keeps an account from being deleted (ORGANISATIONS.md, account deletion): the teams it is the
// last owner of, which have other members. On its own, beside no other organisation view: the
// security page that shows it has no other use for them.

export interface TeamsToHandOver {
  /** The API's words ("Transfer or delete your organisations first"). */
  detail: string;
  teams: { id: string; name: string | null }[];
}

/** The refusal in the 409 `DELETE /v1/users/me` answers, with the teams it names; null for any other answer. */
export function teamsToHandOver(body: unknown): TeamsToHandOver | null {
  const { detail, organizations } = (body ?? {}) as { detail?: unknown; organizations?: unknown };
  if (typeof detail !== "string" || !Array.isArray(organizations)) return null;
  const teams = organizations.filter(
    (org): org is { id: string; name: string | null } =>
      typeof org?.id === "string" && (typeof org.name === "string" || org.name === null),
  );
  return teams.length > 0 ? { detail, teams } : null;
}
