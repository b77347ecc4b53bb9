// The customer page's organisations (ORGANISATIONS.md, "The operator console"): each one the
// customer is a member of, with their role there, linking to the organisation's console page.
import type { CustomerOrg } from "../../../contract/admin-orgs.ts";
import { CUSTOMER_ORGS_TEXT as T } from "../../lib/customer-orgs-text.ts";
import { Section, Table } from "./ConsoleTable.tsx";

export function CustomerOrgs({ orgs }: { orgs: readonly CustomerOrg[] }) {
  if (orgs.length === 0) return null;
  return (
    <Section id="customer-orgs" title={T.title}>
      <Table caption={T.caption} head={[T.organisation, T.role]}>
        {orgs.map((org) => (
          <tr key={org.id} data-customer-org={org.personal ? "personal" : org.name}>
            <td>
              <a className="link" href={`/admin/orgs/${org.id}`}>
                {org.name ?? T.personal}
              </a>
              {org.deleted && <span className="badge badge-ghost badge-sm ml-2">{T.deleted}</span>}
            </td>
            <td>{org.role}</td>
          </tr>
        ))}
      </Table>
    </Section>
  );
}
