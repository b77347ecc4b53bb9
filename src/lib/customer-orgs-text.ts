// The customer page's list of the user's organisations, apart from the organisation page's words:
// the customer page is the console's heaviest (its chart's 150 kB budget) and needs only these.

export const CUSTOMER_ORGS_TEXT = {
  title: "Organisations",
  caption: "The organisations of this customer",
  organisation: "Organisation",
  role: "Role",
  deleted: "deleted",
  personal: "Personal",
} as const;
