// The operator console's dashboard's words (/admin): apart from admin-text.ts, so that the
// console's other pages do not load them.
export const DASHBOARD_TEXT = {
  title: "Dashboard",
  intro: "The last 30 days of the business, on Berlin's calendar, and where it stands now.",
  loading: "Adding up the last 30 days…",
  failed: "The figures could not be loaded. Reload the page or try again.",
  now: "Now",
  payingCustomers: "Paying customers",
  mrr: "Monthly recurring revenue (net)",
  failedRenewals: "Open failed renewals",
  disputes: "Open disputes",
  perTier: "Paying customers per plan",
  noPayers: "No paying customers yet.",
  daily: "Sign-ups and customers per day",
  dailyTable: "Show the days as a table",
  series: {
    signups: "Sign-ups",
    verified_signups: "Verified",
    new_paying_customers: "New paying customers",
    churned: "Plans ended",
  },
  day: "Day",
  credits: "Credits consumed per feature",
  noCredits: "No credits were consumed in these 30 days.",
  revenue: "Revenue per month",
  columns: { month: "Month", net: "Net", vat: "VAT", gross: "Gross", refunds: "Refunds" },
  noRevenue: "No payments in these months.",
} as const;
