// The words of the billing details form (PUT /v1/billing/details): the API answers with them and
// /profile/billing shows them beside the fields. Without zod, so the page loads them with its code
// and zod only when a schema is needed.
export const BILLING_DETAILS_MESSAGES = {
  nameMissing: "Enter the name for the invoice (yours or your company's).",
  line1Missing: "Enter the street and number.",
  postalCodeMissing: "Enter the postal code.",
  cityMissing: "Enter the city.",
  countryMissing: "Choose your country.",
  /** The country list's empty choice, in the form and on the local checkout alike. */
  countryPlaceholder: "Choose your country",
  tooLong: (max: number) => `At most ${max} characters.`,
  saved: "Billing details saved",
} as const;
