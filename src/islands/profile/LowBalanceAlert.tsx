// /profile: "E-mail me when my balance falls below N credits", off by default. The form is checked
// with the contract's schema before it is sent; the API's answer is what the form shows afterwards.
import { useStore } from "@nanostores/react";
import { type FormEvent, useEffect, useId, useState } from "react";
import { loadSchemas } from "../../lib/api-client.ts";
import { PROFILE_TEXT } from "../../lib/profile-text.ts";
import {
  $lowBalanceAlert,
  loadLowBalanceAlert,
  saveLowBalanceAlert,
} from "../../stores/low-balance-alert.ts";
import { notify } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";

const T = PROFILE_TEXT.lowBalance;

/** The number typed, as the API takes it: an empty field is no number at all. */
const typed = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));

function AlertForm({ threshold, loading }: { threshold: number | null; loading: boolean }) {
  const id = useId();
  const [enabled, setEnabled] = useState(threshold !== null);
  const [amount, setAmount] = useState(threshold === null ? "" : String(threshold));
  const [error, setError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const setting = { threshold: enabled ? typed(amount) : null };
    const parsed = (await loadSchemas()).lowBalanceAlertSchema.safeParse(setting);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setSaving(true);
    try {
      const saved = await saveLowBalanceAlert(parsed.data);
      notify("success", saved === null ? T.off : T.saved(saved));
    } catch {
      notify("error", T.saveFailed);
    } finally {
      setSaving(false);
    }
  };

  const errorId = `${id}-error`;
  return (
    <form className="flex flex-col gap-3" onSubmit={(e) => void submit(e)} noValidate data-low-balance-alert>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <label className="flex cursor-pointer items-center gap-2 text-sm">
          <input
            type="checkbox"
            className="checkbox checkbox-sm"
            disabled={loading}
            checked={enabled}
            onChange={(e) => {
              setEnabled(e.target.checked);
              setError(undefined);
            }}
          />
          {T.enable}
        </label>
        <div className="flex items-center gap-2">
          <input
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            className={error ? "input input-sm input-error w-32" : "input input-sm w-32"}
            aria-label={T.amount}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : `${id}-help`}
            // Open to typing whether the alert is on or not: a greyed-out field read as broken.
            // Typing an amount turns the alert on; the box alone turns it off.
            disabled={loading}
            value={amount}
            onChange={(e) => {
              setAmount(e.target.value);
              if (e.target.value.trim() !== "") setEnabled(true);
              setError(undefined);
            }}
          />
          <span className="text-sm">credits</span>
        </div>
      </div>
      {error ? (
        <FieldError id={errorId} name="threshold" message={error} />
      ) : (
        <p id={`${id}-help`} className="text-xs text-base-content/70">
          {T.helper}
        </p>
      )}
      <div>
        <button type="submit" className="btn btn-sm btn-outline" disabled={saving || loading}>
          {saving ? T.saving : T.save}
        </button>
      </div>
    </form>
  );
}

export function LowBalanceAlert() {
  const state = useStore($lowBalanceAlert);
  useEffect(() => {
    void loadLowBalanceAlert();
  }, []);
  return (
    <section aria-labelledby="low-balance-heading" className="flex min-h-40 flex-col gap-3">
      <h2 id="low-balance-heading" className="text-lg font-semibold">
        {T.title}
      </h2>
      {state.status === "failed" && (
        <p role="alert" className="alert alert-error text-sm">
          {T.loadFailed}
        </p>
      )}
      {/* While the setting loads, the same form stands disabled in its place (nothing moves when it
          comes); it starts again from the loaded setting. */}
      {state.status !== "failed" && (
        <AlertForm key={state.status} threshold={state.threshold} loading={state.status === "loading"} />
      )}
    </section>
  );
}
