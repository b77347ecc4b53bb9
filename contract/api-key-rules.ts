// The limits of a customer's API keys and the messages of their rules, without zod: the
// /profile/api-keys page's create form needs them when it draws, and importing the schemas module
// for them put zod (10 KB gzip) into the page's first load. contract/api-keys.ts builds its
// schemas from them.

export const API_KEY_LIMIT_PER_USER = 20;
export const API_KEY_NAME_MAX = 60;
/** The expiry choices the portal offers (the API takes any whole number of days from 1 to 365). */
export const API_KEY_EXPIRY_CHOICES = [null, 30, 90, 365] as const;

export const API_KEY_RULES = {
  nameRequired: "Give the key a name",
  nameTooLong: `Use at most ${API_KEY_NAME_MAX} characters`,
  expiryRange: "Expiry must be a whole number of days from 1 to 365",
  limitPositive: "The monthly limit must be more than 0 credits, with at most 3 decimals",
  limitTooLarge: "The monthly limit can be at most 100,000,000 credits",
  featuresEmpty: "Choose at least one feature, or allow every feature",
  featureUnknown: "Unknown feature",
} as const;
