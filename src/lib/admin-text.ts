// The operator console's words (/admin/customers, /admin/customers/{id}, /admin/audit): only the
// console's pages load this module.

/** What is wrong with the credits typed into a grant or take-back dialog (creditsProblem). */
export const CREDIT_PROBLEMS = {
  notANumber: "Give the credits as a number, e.g. 100 or 2.5",
  grantAboveZero: "Grant more than 0 credits: taking credits back is a separate action (admins only)",
  takeBackAboveZero: "Take back more than 0 credits",
  decimals: "Use at most 3 decimals",
} as const;

export const ADMIN_PAGE_TEXT = {
  /**
   * The API's DETAIL.staffMfaRequired, repeated: contract/messages.ts would add every message of
   * the API to every console page (1.8 KB gzip). admin-text.test.ts checks that the two agree.
   */
  staffMfaRequired: "Two-factor authentication is required for staff access",
  /** Staff whose session is from a password alone (ACCOUNT-SECURITY.md). */
  twoFactorRequired:
    "Turn on two-factor authentication on your Security page; it signs this browser in with both factors.",
  twoFactorLink: "Go to Security",
  customers: {
    title: "Customers",
    intro:
      "Find a customer by the start of their e-mail or username, their user id, an API key or its start (gpk_…), an invoice number (INV-…) or a Stripe customer id (cus_…).",
    searchLabel: "Search customers",
    searchPlaceholder: "ann@, gpk_3xT9, INV-2026-000012, cus_…",
    search: "Search",
    none: "No customer matches.",
    failed: "The search failed. Reload the page or try again.",
    more: "Show more",
    columns: {
      customer: "Customer",
      role: "Role",
      plan: "Plan",
      balance: "Credits",
      joined: "Joined",
      status: "Status",
    },
    disabled: "Disabled",
    active: "Active",
    /**
     * Under a member found by a team organisation's key: whose key it is, and that it spends the
     * organisation's credits, not the plan and credits on this row.
     */
    orgKey: (prefix: string) => `Made key ${prefix}… of the organisation`,
    orgKeySpends: "It spends the organisation's credits, not this customer's.",
    unnamedOrg: "(unnamed)",
  },
  customer: {
    title: "Customer",
    loading: "Loading the customer…",
    notFound: "There is no customer with this id.",
    backToSearch: "Back to the search",
    disabledBanner: (since: string) =>
      `This account is disabled since ${since}: login, its tokens and its API keys are refused.`,
    unverifiedBanner: "The e-mail address is not verified yet.",
    disputeHoldBanner: (since: string) =>
      `On a dispute hold since ${since}: a dispute was lost after the payment's credits were spent, and nothing is charged to this account until the hold is cleared.`,
    sections: {
      overview: "Overview",
      credits: "Credits",
      ledger: "Ledger",
      payments: "Payments",
      usage: "Usage",
      keys: "API keys",
      audit: "Audit trail",
      actions: "Actions",
    },
    /** The name of the tabs that hold the long parts of the page. */
    partsLabel: (username: string) => `${username}'s account in detail`,
    usagePeriod: "The last 30 days, per Berlin day.",
    /** Under the ledger while it shows only its newest lines. */
    ledgerNewest: (shown: number) => `The newest ${shown} entries.`,
    facts: {
      email: "E-mail",
      role: "Role",
      plan: "Plan",
      renews: "Period ends",
      balance: "Credit balance",
      joined: "Joined",
      lastLogin: "Last login",
      billing: "Billing details",
      // The payment provider's ids (cus_…, sub_…), to search for in Stripe's dashboard.
      providerCustomer: "Provider customer id",
      providerSubscription: "Provider subscription id",
      never: "never",
      none: "none",
    },
    creditColumns: {
      source: "Source",
      granted: "Granted",
      left: "Left",
      grantedOn: "Granted on",
      expires: "Expires",
    },
    /** A grant past its expiry: none of it is left, this much of it expired unspent. */
    expired: "expired",
    expiredUnspent: (credits: string) => `${credits} expired unspent`,
    /** A renewal's credits, paid for, counted from the day they are granted. */
    upcoming: "not yet granted",
    neverExpires: "never",
    ledgerColumns: { at: "When", what: "What", credits: "Credits", count: "Charges" },
    paymentColumns: {
      date: "Date",
      description: "Description",
      invoice: "Invoice",
      // The provider's invoice (in_…) and payment (pi_…) ids.
      providerIds: "Provider ids",
      total: "Total",
      refunded: "Refunded",
      status: "Status",
      creditNotes: "Credit notes",
    },
    keyColumns: {
      key: "Key",
      created: "Created",
      lastUsed: "Last used",
      usage: "This month",
      status: "Status",
    },
    auditColumns: { at: "When", who: "Who", action: "Action", reason: "Reason" },
    /** A client the parser does not know (a script, a bot), shown in place of a browser's name. */
    otherClient: "Other client",
    /** The summary's hidden words, so a screen reader says what the disclosure holds. */
    userAgent: "Browser: ",
    revoked: "Revoked",
    live: "Live",
    more: "Show more",
    emptyLedger: "No credits yet.",
    emptyPayments: "No payments.",
    emptyKeys: "No API keys.",
    emptyAudit: "Nothing recorded about this customer yet.",
    emptyUsage: "No metered use in the last 30 days.",
    usageTable: "Credits per day and feature",
    manual: "Manual charge",
    /** Beside a payment's status while a refund asked here is not recorded yet (the provider's event). */
    refundRequested: "Refund requested",
    /** Under the Refunded column's amount (ours): what the buyer's bank took back after a lost dispute. */
    chargedBack: (amount: string) => `${amount} charged back`,
    dayTotal: "day total, Berlin",
  },
  actions: {
    grant: "Grant credits",
    takeBack: "Take credits back",
    sendVerification: "Resend verification mail",
    sendReset: "Send password-reset mail",
    disable: "Disable account",
    enable: "Enable account",
    role: "Change role",
    cancelAtEnd: "Cancel at period end",
    cancelNow: "End subscription now",
    clearDisputeHold: "Clear dispute hold",
    revokeKey: "Revoke",
    refund: "Refund",
    refundAmount: (currency: string) => `Amount in ${currency} (empty: all that is left)`,
    refundAmountInvalid: (left: string) =>
      `Use an amount above 0 and at most ${left}, with at most 2 decimals`,
    refundDone: "Refund asked of the payment provider: the credit note follows",
    reason: "Reason (kept in the audit log)",
    reasonHelp: "3 to 500 characters. Say why, so the next person on shift understands.",
    amount: "Credits",
    expires: "Expires on (YYYY-MM-DD, optional)",
    newRole: "New role",
    confirm: "Confirm",
    cancel: "Cancel",
    grantLimit: (limit: number) => `Support staff can grant up to ${limit} credits at a time.`,
    effects: {
      grant: (name: string) =>
        `Adds goodwill credits to ${name}'s balance. They never expire unless you set a date.`,
      takeBack: (name: string) => `Takes unspent credits from ${name}'s balance. Spent credits stay spent.`,
      sendVerification: (email: string) => `Mails a new verification link to ${email}.`,
      sendReset: (email: string) =>
        `Mails a password-reset link to ${email}. The current password keeps working until it is used.`,
      disable: (name: string) =>
        `${name} can no longer log in; their tokens and API keys stop working at once. Billing is unchanged.`,
      enable: (name: string) =>
        `${name} can log in again; their tokens and API keys that were valid before work again.`,
      role: (name: string) => `Changes what ${name} may do. Staff roles see and change customers' accounts.`,
      cancelAtEnd: (name: string) =>
        `${name}'s plan ends at the end of the paid period; nothing is refunded.`,
      clearDisputeHold: (name: string) =>
        `${name}'s account can be charged again. Clear the hold once the disputed money is settled.`,
      cancelNow: (name: string) => `${name}'s plan ends now and falls back to FREE; nothing is refunded.`,
      refund: (name: string, left: string) =>
        `Pays ${left} or less back to ${name}'s card. Unspent credits of this payment are taken back in proportion, and a credit note is issued.`,
      revokeKey: (prefix: string) => `Programs using ${prefix}… stop working at once. This cannot be undone.`,
    },
  },
  nav: { dashboard: "Dashboard", customers: "Customers", audit: "Audit log", reports: "VAT report" },
  menu: "Operator console",
} as const;
