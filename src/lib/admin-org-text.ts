// The words of the console's organisation page (/admin/orgs/{id}) and of the customer page's list
// of organisations: only the console's pages load this module.
import { CUSTOMER_ORGS_TEXT } from "./customer-orgs-text.ts";

export const ADMIN_ORG_PAGE_TEXT = {
  /** The console's menu entry and the search page (/admin/orgs). */
  nav: "Organisations",
  search: {
    title: "Organisations",
    intro:
      "Find an organisation by the start of its name, its id (a personal organisation's is its user's), an API key or its start (gpk_…), an invoice number (INV-…) or a Stripe customer id (cus_…).",
    label: "Search organisations",
    placeholder: "Acme, gpk_3xT9, INV-2026-000012, cus_…",
    submit: "Search",
    none: "No organisation matches.",
    failed: "The search failed. Reload the page or try again.",
    columns: {
      organisation: "Organisation",
      owners: "Owners",
      plan: "Plan",
      balance: "Credits",
      members: "Members",
      status: "Status",
    },
    deleted: "Deleted",
    active: "Active",
  },
  title: "Organisation",
  loading: "Loading the organisation…",
  notFound: "There is no organisation with this id.",
  failed: "The organisation could not be loaded. Reload the page or try again.",
  backToOrgs: "Back to the organisations",
  /**
   * A personal organisation's name, as the portal shows it (ORG_DETAIL.personalName, written out:
   * contract/org-messages.ts would add its every message to the console's pages; a test holds them equal).
   */
  personal: "Personal",
  personalOf: (owner: string) => `Personal (${owner})`,
  team: "Team organisation",
  deletedBanner: (since: string) =>
    `This organisation was deleted on ${since}: it keeps its invoices, payments, ledger and audit trail, and can no longer be changed.`,
  disabledBanner: (since: string) =>
    `This organisation is disabled since ${since}: every key of it is inactive and nothing is charged to it.`,
  disputeHoldBanner: (since: string) =>
    `On a dispute hold since ${since}: nothing is charged to this organisation until the hold is cleared.`,
  memberNotice: "You are a member of this organisation: staff cannot act on it.",
  sections: {
    actions: "Actions",
    overview: "Overview",
    members: "Members",
    credits: "Credits",
    ledger: "Ledger",
    payments: "Payments",
    usage: "Usage by member",
    keys: "API keys",
    audit: "Audit trail",
  },
  partsLabel: (name: string) => `${name} in detail`,
  usagePeriod: "The last 30 days.",
  emptyUsage: "No usage in the last 30 days.",
  noMembers: "No members.",
  facts: {
    kind: "Kind",
    owners: "Owners",
    members: "Members",
    plan: "Plan",
    balance: "Credit balance",
    created: "Created",
    billing: "Billing details",
    none: "none",
  },
  memberColumns: {
    member: "Member",
    email: "E-mail",
    role: "Role",
    cap: "Monthly cap",
    spent: "This month",
    joined: "Joined",
    action: "Action",
  },
  keyColumns: { key: "Key", madeBy: "Made by", usage: "This month", status: "Status" },
  shared: "Shared key",
  noCap: "none",
  usageColumns: { member: "Member", uses: "Generations", credits: "Credits" },
  actions: {
    grant: "Grant credits",
    takeBack: "Take back credits",
    disable: "Disable organisation",
    enable: "Enable organisation",
    clearDisputeHold: "Clear dispute hold",
    cancelAtEnd: "Cancel at period end",
    cancelNow: "End subscription now",
    makeOwner: "Make owner",
  },
  effects: {
    grant: (name: string) =>
      `Adds goodwill credits to ${name}'s balance; its owners and billing members can see them.`,
    takeBack: (name: string) => `Takes unspent credits from ${name}'s balance.`,
    disable: (name: string) =>
      `Every API key of ${name} stops working and nothing is charged to it until it is enabled.`,
    enable: (name: string) => `${name}'s keys that were valid before work again.`,
    clearDisputeHold: (name: string) => `${name} can be charged again.`,
    cancelAtEnd: (name: string) => `${name}'s subscription ends at the end of its period, without a refund.`,
    cancelNow: (name: string) => `${name}'s subscription ends now, without a refund.`,
    makeOwner: (member: string, name: string) =>
      `${member} becomes an owner of ${name}: they can then manage its members, billing and keys. Do this only after checking their identity.`,
  },
  customerOrgs: CUSTOMER_ORGS_TEXT,
} as const;
