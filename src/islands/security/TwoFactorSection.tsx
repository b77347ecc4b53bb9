// /profile/security's two-factor block: the state (on, with the recovery codes left; or off), the
// setup (QR code and key, then a code from the app, then the recovery codes shown once), turning it
// off, and new recovery codes. The sensitive steps confirm the password first when needed.
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import { isAppCodeShaped } from "../../../contract/totp-code.ts";
import type { TotpSetup } from "../../../contract/two-factor.ts";
import { asApiError } from "../../lib/api-client.ts";
import { accountActionErrorMessage } from "../../lib/error-messages.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { signInAgainRefusal } from "../../lib/sign-in-again-refusal.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import {
  $twoFactor,
  confirmTotpSetup,
  loadTwoFactor,
  renewRecoveryCodes,
  startTotpSetup,
  turnOffTwoFactor,
} from "../../stores/security.ts";
import { notify } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";
import { SingleFieldInput } from "../forms/single-field.tsx";
import { CodeDialog, useCodeField } from "./CodeDialog.tsx";
import { LoadStatus } from "./LoadStatus.tsx";
import { RecoveryCodes } from "./RecoveryCodes.tsx";
import { SecurityCard } from "./SecurityCard.tsx";

const T = SECURITY_TEXT.twoFactor;

/** The QR code of the otpauth:// URL, drawn by `qrcode` (loaded with the setup, not the page). */
function QrCode({ url }: { url: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void import("qrcode").then(async (qr) => {
      const drawn = await qr.toString(url, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
      if (live) setSvg(drawn);
    });
    return () => {
      live = false;
    };
  }, [url]);
  if (!svg) return <div className="size-44 animate-pulse rounded-box bg-base-300" aria-hidden="true" />;
  return (
    <img
      src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`}
      alt={T.qrAlt}
      className="size-44 rounded-box bg-white p-2"
      data-totp-qr
    />
  );
}

function SetupForm({
  setup,
  onCancel,
  onDone,
}: {
  setup: TotpSetup;
  onCancel: () => void;
  onDone: (codes: string[]) => void;
}) {
  const field = useCodeField();
  const submit = field.onSubmit(async (code) => {
    if (!isAppCodeShaped(code)) {
      field.setError(T.codeShape);
      field.inputRef.current?.select();
      return;
    }
    onDone(await confirmTotpSetup(code));
    notify("success", T.turnedOn);
  });

  return (
    <form className="flex flex-col gap-4" noValidate onSubmit={submit} data-totp-setup>
      <p className="text-sm">{T.scan}</p>
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
        <QrCode url={setup.otpauth_url} />
        <div className="min-w-0 text-sm">
          <p>{T.manual}</p>
          <code className="mt-1 block break-all rounded bg-base-200 p-2 font-mono" data-totp-secret>
            {setup.secret.replace(/(.{4})/g, "$1 ").trim()}
          </code>
        </div>
      </div>
      <SingleFieldInput
        field={field}
        name="code"
        label={T.confirmLabel}
        autoComplete="one-time-code"
        inputMode="numeric"
        short
      />
      <div className="flex flex-wrap gap-2">
        <button type="submit" className="btn btn-primary" disabled={field.busy}>
          {field.busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {T.confirm}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          {T.cancelSetup}
        </button>
      </div>
    </form>
  );
}

export function TwoFactorSection() {
  const state = useStore($twoFactor);
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [dialog, setDialog] = useState<"off" | "renew" | null>(null);
  const [starting, setStarting] = useState(false);
  /** Why the setup did not start, when the page can say what to do (sign in again). */
  const [startRefused, setStartRefused] = useState<string | undefined>();

  useEffect(() => {
    void loadTwoFactor();
  }, []);

  const start = async () => {
    setStarting(true);
    setStartRefused(undefined);
    try {
      setSetup(await startTotpSetup());
    } catch (failure) {
      const said = signInAgainRefusal(failure);
      if (said) setStartRefused(said);
      else if (!(failure instanceof ReauthCancelled))
        notify("error", accountActionErrorMessage(asApiError(failure)));
    } finally {
      setStarting(false);
    }
  };

  const on = state.status === "ready" && state.on;
  return (
    <SecurityCard
      title={T.title}
      marker="two-factor"
      badge={
        state.status === "ready" && (
          <span className={on ? "badge badge-success" : "badge badge-ghost"} data-two-factor-state>
            {on ? T.on : T.off}
          </span>
        )
      }
    >
      <LoadStatus status={state.status} loading={T.loading} failed={T.loadFailed} />
      {codes && (
        <RecoveryCodes
          codes={codes}
          onDone={() => {
            setCodes(null);
          }}
        />
      )}
      {state.status === "ready" && !on && !setup && (
        <>
          <p className="text-sm">{T.offBody}</p>
          <div>
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => void start()}
              disabled={starting}
            >
              {starting && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {T.start}
            </button>
          </div>
          <FieldError id={undefined} name="totp-start" message={startRefused} alert />
        </>
      )}
      {state.status === "ready" && !on && setup && (
        <SetupForm
          setup={setup}
          onCancel={() => setSetup(null)}
          onDone={(recovery) => {
            setSetup(null);
            setCodes(recovery);
          }}
        />
      )}
      {on && !codes && (
        <>
          <p className="text-sm" data-codes-left>
            {T.onBody(state.recoveryCodesLeft)}
          </p>
          <div className="flex flex-wrap gap-2">
            <button type="button" className="btn btn-sm" onClick={() => setDialog("renew")}>
              {T.newCodes}
            </button>
            <button type="button" className="btn btn-error btn-sm" onClick={() => setDialog("off")}>
              {T.turnOff}
            </button>
          </div>
        </>
      )}
      <CodeDialog
        open={dialog === "off"}
        title={T.turnOffTitle}
        codeLabel={T.codeLabel}
        confirmLabel={T.turnOff}
        cancelLabel={T.cancelSetup}
        danger
        onConfirm={async (code) => {
          await turnOffTwoFactor(code);
          notify("success", T.turnedOff);
        }}
        onClose={() => setDialog(null)}
      >
        <p className="text-sm">{T.turnOffBody}</p>
      </CodeDialog>
      <CodeDialog
        open={dialog === "renew"}
        title={T.newCodesTitle}
        codeLabel={T.codeLabel}
        confirmLabel={T.newCodes}
        cancelLabel={T.cancelSetup}
        onConfirm={async (code) => setCodes(await renewRecoveryCodes(code))}
        onClose={() => setDialog(null)}
      >
        <p className="text-sm">{T.newCodesBody}</p>
      </CodeDialog>
    </SecurityCard>
  );
}
