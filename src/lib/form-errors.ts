// Form validation against the contract's zod/mini schemas: the FIRST broken rule per field, which
// is the message the spec lists first (the schemas check rules in the spec's order).
import type * as z from "zod/mini";

export type FieldErrors = Partial<Record<string, string>>;

/** The first message per field for `values`, or an empty object when they are valid. */
export function firstFieldErrors(schema: z.ZodMiniType, values: Record<string, unknown>): FieldErrors {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if (typeof field === "string" && errors[field] === undefined) errors[field] = issue.message;
  }
  return errors;
}
