// The operator console's audit log page's words (/admin/audit): apart from admin-text.ts, so that the
// console's other pages do not load them.
export const AUDIT_PAGE_TEXT = {
  title: "Audit log",
  intro:
    "Every operator action and security event, newest first. Each entry is chained to the one before it: npm run audit:verify checks the chain.",
  filters: "Filters",
  actor: "Actor (username or e-mail)",
  subject: "Subject (username or e-mail)",
  /** A user id, copied from a customer page's address, works too. */
  namePlaceholder: "ana, ana@example.com or an id",
  action: "Action",
  actionHelp: "An action (credits.grant) or a family (credits.)",
  from: "From (YYYY-MM-DD)",
  to: "Before (YYYY-MM-DD)",
  apply: "Apply filters",
  reset: "Clear",
  download: "Download CSV",
  none: "No entries match.",
  more: "Show more",
  columns: {
    at: "When",
    actor: "Actor",
    action: "Action",
    subject: "Subject",
    reason: "Reason",
    details: "Details",
  },
} as const;
