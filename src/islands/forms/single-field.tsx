// One secret typed into a small form (a dialog's password, an authenticator code): the input with
// its label and its message, and the submit logic every such form shares: empty is said at the
// field, the action runs once at a time, a refusal is said at the field with the text selected
// for retyping, and a cancelled password confirmation (ReauthCancelled) leaves things as they were.
import { type FormEvent, useId, useRef, useState } from "react";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { FieldError } from "./Field.tsx";

interface FieldOptions {
  /** The message for an empty field. */
  required: string;
  /** What a refused attempt is called next to the field. */
  refusal: (error: unknown) => string;
  /** A password is taken as typed; a code loses the spaces around it. */
  asTyped?: boolean;
}

export function useSingleField({ required, refusal, asTyped = false }: FieldOptions) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const reset = () => {
    setError(null);
    if (inputRef.current) inputRef.current.value = "";
  };

  /** A submit handler that runs `action` with the value (trimmed unless `asTyped`). */
  const onSubmit = (action: (value: string) => Promise<void>) => async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const typed = inputRef.current?.value ?? "";
    const value = asTyped ? typed : typed.trim();
    if (value === "") {
      setError(required);
      inputRef.current?.focus();
      return;
    }
    setBusy(true);
    try {
      await action(value);
    } catch (failure) {
      if (failure instanceof ReauthCancelled) return;
      setError(refusal(failure));
      inputRef.current?.select();
    } finally {
      setBusy(false);
    }
  };

  return { id: `${id}-field`, inputRef, error, setError, busy, reset, onSubmit };
}

type SingleField = ReturnType<typeof useSingleField>;

interface InputProps {
  field: SingleField;
  name: string;
  label: string;
  type?: "text" | "password";
  autoComplete: string;
  inputMode?: "text" | "numeric";
  /** Narrower than the form (a six-digit code). */
  short?: boolean;
}

export function SingleFieldInput({
  field,
  name,
  label,
  type = "text",
  autoComplete,
  inputMode,
  short,
}: InputProps) {
  const errorId = `${field.id}-error`;
  const width = short ? "w-full max-w-xs" : "w-full";
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={field.id} className="text-sm font-medium">
        {label}
      </label>
      <input
        ref={field.inputRef}
        id={field.id}
        name={name}
        type={type}
        autoComplete={autoComplete}
        inputMode={inputMode}
        className={`input ${width} ${field.error ? "input-error" : ""}`}
        aria-invalid={field.error ? true : undefined}
        aria-describedby={field.error ? errorId : undefined}
        onChange={() => field.setError(null)}
      />
      {field.error && <FieldError id={errorId} name={name} message={field.error} />}
    </div>
  );
}
