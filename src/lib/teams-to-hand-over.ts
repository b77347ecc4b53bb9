// What keeps an account from being deleted (ORGANISATIONS.md, account deletion): the teams it is the
// last owner of, which have other members. On its own, beside no other organisation view: the
// security page that shows it has no other use for them.

/** The teams named by the 409 `DELETE /v1/users/me` answers; null for any other answer. */
export function teamsToHandOver(body: unknown): { id: string; name: string | null }[] | null {
  const { organizations } = (body ?? {}) as { organizations?: unknown };
  if (!Array.isArray(organizations)) return null;
  const teams = organizations.filter(
    (org): org is { id: string; name: string | null } =>
      typeof org?.id === "string" && (typeof org.name === "string" || org.name === null),
  );
  return teams.length > 0 ? teams : null;
}
