// A labelled input (id "field-{name}", its name and label), plus the field's
// first validation message, tied to the input with aria-invalid and aria-describedby.
import type { FormEventHandler, ReactNode, Ref } from "react";
import { useHydrated } from "../auth/use-hydrated.ts";

interface Props {
  name: string;
  label: string;
  type?: "text" | "email" | "password";
  autoComplete: string;
  placeholder?: string | undefined;
  helper?: string | undefined;
  labelLink?: { href: string; text: string } | undefined;
  /** The keyboard a phone shows ("numeric" for a six-digit code). */
  inputMode?: "text" | "numeric" | undefined;
  error: string | undefined;
  onChange: () => void;
}

export function Field({
  name,
  label,
  type = "text",
  autoComplete,
  placeholder,
  helper,
  labelLink,
  inputMode,
  error,
  onChange,
}: Props) {
  const id = `field-${name}`;
  const helperId = helper ? `${id}-help` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, helperId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex items-baseline justify-between gap-2">
        <label htmlFor={id} className="text-sm font-medium">
          {label}
        </label>
        {labelLink && (
          <a href={labelLink.href} className="link link-primary text-sm">
            {labelLink.text}
          </a>
        )}
      </div>
      <input
        id={id}
        name={name}
        type={type}
        className={error ? "input input-error w-full" : "input w-full"}
        placeholder={placeholder}
        autoComplete={autoComplete}
        inputMode={inputMode}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
        required
        onChange={onChange}
      />
      {error && <FieldError id={errorId} name={name} message={error} />}
      {helper && (
        <p id={helperId} className="text-sm text-base-content/80">
          {helper}
        </p>
      )}
    </div>
  );
}

/**
 * A field's message, tied to its input by `id` (aria-describedby); the icon carries the colour:
 * daisyUI's error colour as text on the light theme's page is 2.9:1, under WCAG AA's 4.5:1.
 * `alert`: a message no input describes, read out when it appears. No message, nothing drawn.
 */
export function FieldError({
  id,
  name,
  message,
  alert = false,
}: {
  id: string | undefined;
  name: string;
  message: string | undefined;
  alert?: boolean;
}) {
  if (!message) return null;
  return (
    <p
      id={id}
      className="flex items-start gap-1.5 text-sm"
      data-field-error={name}
      role={alert ? "alert" : undefined}
    >
      <svg
        className="mt-0.5 size-4 shrink-0 text-error"
        viewBox="0 0 16 16"
        aria-hidden="true"
        focusable="false"
      >
        <circle cx="8" cy="8" r="7" fill="currentColor" />
        <path d="M8 4.5v4M8 11v.5" stroke="white" strokeWidth="1.75" strokeLinecap="round" />
      </svg>
      {message}
    </p>
  );
}

export function SubmitButton({ label, busy }: { label: string; busy: boolean }) {
  const hydrated = useHydrated();
  return (
    <button
      type="submit"
      className="btn btn-primary btn-block"
      disabled={busy || !hydrated}
      aria-busy={busy || undefined}
    >
      {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
      {label}
    </button>
  );
}

/**
 * The form element every account form renders: posts nowhere by itself (the static shell's
 * method="post" keeps credentials out of URLs before hydration), lets the island validate
 * (noValidate), and takes its accessible name from the page's heading.
 */
export function IslandForm({
  formRef,
  onSubmit,
  children,
}: {
  formRef: Ref<HTMLFormElement>;
  onSubmit: FormEventHandler<HTMLFormElement>;
  children: ReactNode;
}) {
  return (
    <form
      ref={formRef}
      method="post"
      className="flex flex-col gap-5"
      aria-labelledby="page-title"
      noValidate
      onSubmit={onSubmit}
    >
      {children}
    </form>
  );
}
