// /profile/security's e-mail address: the current one, and a new one that takes over only when
// the link mailed to it is followed (the server says so, and tells the old address).
import { asApiError } from "../../lib/api-client.ts";
import { accountActionErrorMessage, detailText } from "../../lib/error-messages.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { requestEmailChange } from "../../stores/security.ts";
import { notify } from "../../stores/toast.ts";
import { Field, SubmitButton } from "../forms/Field.tsx";
import { useForm } from "../forms/use-form.ts";

const T = SECURITY_TEXT.email;
const FIELDS = ["email"] as const;

/** What a refused address is called next to the field: the server's own words (409, 400, 422). */
function refusal(error: unknown): string | undefined {
  const failed = asApiError(error);
  if (failed.status === 400 || failed.status === 409) return detailText(failed.detail);
  if (failed.status === 422 && Array.isArray(failed.detail)) {
    const first = failed.detail[0] as { msg?: unknown } | undefined;
    return typeof first?.msg === "string" ? first.msg : undefined;
  }
  return undefined;
}

export function EmailSection({ email }: { email: string }) {
  const form = useForm("emailRequestSchema", FIELDS);
  const submit = form.handleSubmit(async (values) => {
    try {
      notify("success", await requestEmailChange(values.email.trim()));
      form.ref.current?.reset();
    } catch (error) {
      if (error instanceof ReauthCancelled) return;
      const atField = refusal(error);
      if (atField) {
        form.setErrors({ email: atField });
        document.getElementById("field-email")?.focus();
      } else notify("error", accountActionErrorMessage(asApiError(error)));
    }
  });
  return (
    <section
      aria-labelledby="email-title"
      className="card border border-base-300 bg-base-100"
      data-email-change
    >
      <form ref={form.ref} className="card-body gap-4 p-5" method="post" noValidate onSubmit={submit}>
        <h2 id="email-title" className="text-lg font-semibold">
          {T.title}
        </h2>
        <p className="text-sm">
          {T.current}:{" "}
          <span className="font-medium" data-current-email>
            {email}
          </span>
        </p>
        <p className="text-sm">{T.body}</p>
        <Field
          name="email"
          label={T.label}
          type="email"
          autoComplete="email"
          error={form.errors.email}
          onChange={form.onChange}
        />
        <div>
          <SubmitButton label={T.submit} busy={form.busy} />
        </div>
      </form>
    </section>
  );
}
