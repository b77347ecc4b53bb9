// /reset-password/{token}: first checks the token (spinner), then either says it is invalid, with a
// link to request a new one, or shows the new-password form. Success: toast, then /.
import { useEffect, useState } from "react";
import { asApiError } from "../../lib/api-client.ts";
import { accountActionErrorMessage, fieldErrorsFrom422, isInvalidToken } from "../../lib/error-messages.ts";
import { navigate } from "../../lib/navigation.ts";
import { routeParam } from "../../lib/route-param.ts";
import { TOAST, UI_TEXT } from "../../lib/ui-text.ts";
import { checkResetToken, resetPassword } from "../../stores/account.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { LoadingState } from "../auth/LoadingState.tsx";
import { Field, IslandForm, SubmitButton } from "./Field.tsx";
import { InvalidToken } from "./InvalidToken.tsx";
import { useForm } from "./use-form.ts";

const FIELDS = ["password", "confirmPassword"] as const;

type Check = "checking" | "valid" | "invalid";

export default function ResetPassword() {
  const [check, setCheck] = useState<Check>("checking");
  const [token, setToken] = useState("");
  const form = useForm("resetPasswordFormSchema", FIELDS);

  useEffect(() => {
    const found = routeParam(window.location.pathname, "/reset-password/");
    setToken(found);
    if (!found) {
      setCheck("invalid");
      return;
    }
    checkResetToken(found).then(
      () => setCheck("valid"),
      () => setCheck("invalid"),
    );
  }, []);

  const submit = form.handleSubmit(async ({ password }) => {
    try {
      await resetPassword({ password, token });
      notifyAfterNavigation("success", TOAST.passwordReset);
      navigate("/");
    } catch (error) {
      const failed = asApiError(error);
      if (isInvalidToken(failed)) {
        setCheck("invalid");
        return;
      }
      notify("error", accountActionErrorMessage(failed));
      form.setErrors(fieldErrorsFrom422(failed));
    }
  });

  if (check === "checking") return <LoadingState message={UI_TEXT.resetPassword.checking} />;
  if (check === "invalid")
    return <InvalidToken linkHref="/forgot-password" linkText={UI_TEXT.resetPassword.resendLink} />;
  return (
    <IslandForm formRef={form.ref} onSubmit={submit}>
      <Field
        name="password"
        label="New password"
        type="password"
        autoComplete="new-password"
        helper={UI_TEXT.passwordHelper}
        error={form.errors.password}
        onChange={form.onChange}
      />
      <Field
        name="confirmPassword"
        label="Confirm password"
        type="password"
        autoComplete="new-password"
        error={form.errors.confirmPassword}
        onChange={form.onChange}
      />
      <SubmitButton label={UI_TEXT.submit} busy={form.busy} />
    </IslandForm>
  );
}
