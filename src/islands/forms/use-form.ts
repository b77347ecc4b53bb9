// Form state for the account forms: the first message per field, validation on submit and then on
// every change (a message appears when the user asks to submit and leaves when fixed), and the busy
// flag while the request runs. Inputs are uncontrolled and read from the form itself, so text typed
// before the island hydrated is kept. The contract's schemas load on the first keystroke or submit.
import { type FormEvent, useRef, useState } from "react";
import type * as z from "zod/mini";
import { loadSchemas } from "../../lib/api-client.ts";
import { type FieldErrors, firstFieldErrors } from "../../lib/form-errors.ts";

export type FormSchemaName =
  | "loginSchema"
  | "registerSchema"
  | "emailRequestSchema"
  | "resetPasswordFormSchema"
  | "mfaCodeBodySchema"
  | "changePasswordFormSchema";

export function useForm<F extends string>(schemaName: FormSchemaName, fields: readonly F[]) {
  const ref = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const schema = useRef<z.ZodMiniType | null>(null);

  const getSchema = async (): Promise<z.ZodMiniType> => {
    schema.current ??= (await loadSchemas())[schemaName];
    return schema.current;
  };

  const readValues = (): Record<F, string> => {
    const data = ref.current ? new FormData(ref.current) : new FormData();
    return Object.fromEntries(fields.map((f) => [f, String(data.get(f) ?? "")])) as Record<F, string>;
  };

  const onChange = () => {
    if (submitted && schema.current) setErrors(firstFieldErrors(schema.current, readValues()));
    else void getSchema();
  };

  /** Validates, then runs `action` with the values while showing the loading state. */
  const handleSubmit = (action: (values: Record<F, string>) => Promise<void>) => async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    try {
      setSubmitted(true);
      const values = readValues();
      const found = firstFieldErrors(await getSchema(), values);
      setErrors(found);
      const first = fields.find((f) => found[f]);
      if (first) {
        document.getElementById(`field-${first}`)?.focus();
        return;
      }
      await action(values);
    } finally {
      setBusy(false);
    }
  };

  return { ref, errors, setErrors, busy, onChange, handleSubmit };
}
