// /profile/billing's "Auto top-up" section (AUTO-TOP-UP.md "Pages"), loaded by BillingHistory once
// the billing details show the caller may see billing: the status with its reason, the saved card
// (add, replace, remove), this month's charges against the limit, the settings with their consent,
// and the latest attempts. Coming back from the card page (`?card=saved|cancelled`) says what
// happened and, when saved, reads again until the card is there.
import { useStore } from "@nanostores/react";
import { useEffect, useRef, useState } from "react";
import {
  AUTO_TOP_UP_TEXT,
  type AutoTopUp as AutoTopUpData,
  CARD_RETURN_TEXT,
} from "../../../contract/auto-top-up.ts";
import { asApiError } from "../../lib/api-client.ts";
import { canResume, errorsFrom422, packsFrom } from "../../lib/auto-top-up-form.ts";
import { AUTO_TOP_UP_PAGE_TEXT } from "../../lib/auto-top-up-text.ts";
import { detailText } from "../../lib/error-messages.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import {
  $autoTopUp,
  $termsToAgree,
  loadAutoTopUp,
  openCardSetup,
  removeCard,
  saveAutoTopUp,
  waitForCard,
} from "../../stores/auto-top-up.ts";
import { $topUpProducts } from "../../stores/catalogue.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { notify } from "../../stores/toast.ts";
import { ReauthDialog } from "../auth/ReauthDialog.tsx";
import { ConfirmDialog } from "../profile/ConfirmDialog.tsx";
import {
  Attempts,
  billingStatusSentence,
  CardSummary,
  ChargesMeter,
  focusStatus,
  pendingPayment,
  STATUS_ID,
  StatusBadge,
} from "./AutoTopUpParts.tsx";
import { AutoTopUpSettings } from "./AutoTopUpSettings.tsx";
import { CatalogueStatus } from "./CatalogueStatus.tsx";
import { useCatalogue } from "./use-catalogue.ts";

const T = AUTO_TOP_UP_PAGE_TEXT;

type CardReturn = "saved" | "waiting" | "arrived" | "late" | "cancelled" | null;

/** `?card=` as the card page sent the customer back, read once and taken out of the address. */
function takeCardReturn(): "saved" | "cancelled" | null {
  const url = new URL(window.location.href);
  const value = url.searchParams.get("card");
  if (value !== "saved" && value !== "cancelled") return null;
  url.searchParams.delete("card");
  history.replaceState(history.state, "", url);
  return value;
}

function CardReturnNotice({ state }: { state: CardReturn }) {
  if (state === null) return null;
  const text =
    state === "cancelled"
      ? CARD_RETURN_TEXT.cancelled
      : state === "arrived"
        ? T.card.arrived
        : state === "late"
          ? T.card.notYet
          : CARD_RETURN_TEXT.saved;
  const tone = state === "arrived" ? "alert-success" : state === "late" ? "alert-warning" : "alert-info";
  return (
    <div className={`alert ${tone} text-sm`} data-card-return={state}>
      {(state === "saved" || state === "waiting") && (
        <span className="loading loading-spinner loading-sm" aria-hidden="true" />
      )}
      <span>{text}</span>
    </div>
  );
}

/** The dispute hold's note: what the disabled settings say they are off for (aria-describedby). */
const HELD_NOTE_ID = "auto-top-up-held";

/**
 * The status with its sentence. `held`: on a dispute hold the sentence is the hold's note, the one
 * place the section says it (the page's alert above says why): the reason it is off, whatever it
 * was, and that it cannot be turned on until the hold ends.
 */
function StatusPanel({ data, held }: { data: AutoTopUpData; held: boolean }) {
  const [busy, setBusy] = useState(false);
  const pending = pendingPayment(data);
  const resume = async () => {
    if (!data.threshold || !data.product_id || !data.monthly_limit) return;
    setBusy(true);
    const request = {
      enabled: true,
      threshold: data.threshold,
      product_id: data.product_id,
      monthly_limit: data.monthly_limit,
    };
    try {
      await saveAutoTopUp(request);
      notify("success", T.resumed);
      focusStatus();
    } catch (error) {
      if (error instanceof ReauthCancelled) return;
      const failed = asApiError(error);
      // A new card number, or other VAT, since the terms were agreed to: the form below shows
      // the new text at once, and agreeing to it resumes.
      const consent = failed.status === 422 ? errorsFrom422(failed.detail).consent : undefined;
      if (consent) {
        // The API's sentence is for a Save without consent; beside "I agree", say why instead.
        $termsToAgree.set({ request, reason: AUTO_TOP_UP_TEXT.consentChanged });
        notify("info", T.resumeNeedsConsent);
        return;
      }
      notify("error", detailText(failed.detail) || T.form.saveFailed);
    } finally {
      setBusy(false);
    }
  };
  const until = data.status === "paused" && data.paused_until ? dayAndTime(data.paused_until) : null;
  return (
    <div className="flex flex-col gap-2">
      {/* Announced when it changes (a save, a resume, a removed card). */}
      <div
        id={STATUS_ID}
        tabIndex={-1}
        role="status"
        className="flex flex-wrap items-center gap-x-3 gap-y-1"
        data-auto-top-up-status={data.status}
      >
        <span className="text-sm font-medium">{T.status}:</span>
        <StatusBadge status={data.status} />
        {held ? (
          <span id={HELD_NOTE_ID} className="text-sm font-medium" data-auto-top-up-held>
            {T.heldNote}
          </span>
        ) : (
          <span className="text-sm">
            {billingStatusSentence(data)}
            {until && ` ${T.pausedUntil(until)}`}
          </span>
        )}
      </div>
      {(pending?.pay_url || canResume(data)) && (
        <div className="flex flex-wrap items-center gap-3">
          {pending?.pay_url && (
            <>
              {/* The reason already says it when the API gives one. */}
              {!data.reason_text && <span className="text-sm">{T.completePaymentNote}</span>}
              <a href={pending.pay_url} className="btn btn-warning btn-sm" data-complete-payment>
                {T.completePayment}
              </a>
            </>
          )}
          {canResume(data) && (
            <button
              type="button"
              className="btn btn-outline btn-sm"
              onClick={() => void resume()}
              disabled={busy}
            >
              {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {T.resume}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function CardPanel({ data }: { data: AutoTopUpData }) {
  const [opening, setOpening] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const open = async () => {
    setOpening(true);
    try {
      await openCardSetup();
    } catch (error) {
      setOpening(false);
      if (!(error instanceof ReauthCancelled))
        notify("error", detailText(asApiError(error).detail) || T.card.setupFailed);
    }
  };
  return (
    <div className="flex flex-col gap-2 rounded-box border border-base-300 p-4" data-auto-top-up-card>
      <h3 className="text-base font-semibold">{T.card.title}</h3>
      <CardSummary card={data.card} />
      <p className="text-xs text-base-content/80">{T.card.note}</p>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={`btn btn-sm ${data.card ? "btn-outline" : "btn-primary"}`}
          onClick={() => void open()}
          disabled={opening}
          data-card-setup
        >
          {opening && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {opening ? T.card.opening : data.card ? T.card.replace : T.card.add}
        </button>
        {data.card && (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => setConfirming(true)}
            data-card-remove
          >
            {T.card.remove}
          </button>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={T.card.removeTitle}
        keepLabel={T.card.keep}
        confirmLabel={T.card.remove}
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          await removeCard();
          notify("success", T.card.removed);
          focusStatus();
        }}
      >
        <p className="text-sm">{T.card.removeBody}</p>
      </ConfirmDialog>
    </div>
  );
}

const settingsKey = (d: AutoTopUpData) =>
  [d.enabled, d.status, d.threshold, d.product_id, d.monthly_limit?.amount, d.card?.last4].join(":");

/** `held`: on a dispute hold, the settings cannot turn it on (every field and Save are disabled). */
function Loaded({ data, held }: { data: AutoTopUpData; held: boolean }) {
  const { data: products, failed } = useCatalogue($topUpProducts);
  return (
    <>
      <StatusPanel data={data} held={held} />
      <div className="grid gap-4 md:grid-cols-2">
        <CardPanel data={data} />
        <div className="flex flex-col gap-2 rounded-box border border-base-300 p-4">
          <h3 className="text-base font-semibold">{T.charges.title}</h3>
          <ChargesMeter data={data} />
        </div>
      </div>
      {products ? (
        // A new answer with other values (a removed card, a resume) starts the form from it.
        <AutoTopUpSettings
          key={settingsKey(data)}
          data={data}
          packs={packsFrom(products)}
          heldNoteId={held ? HELD_NOTE_ID : undefined}
        />
      ) : (
        <CatalogueStatus failed={failed} loading={T.form.packsLoading} />
      )}
      <Attempts attempts={data.attempts} linkInvoices />
    </>
  );
}

/** `held`: the organisation is on a dispute hold (the page's alert), during which it stays off. */
export default function AutoTopUp({ held = false }: { held?: boolean }) {
  const state = useStore($autoTopUp);
  const [cardReturn, setCardReturn] = useState<CardReturn>(null);
  const section = useRef<HTMLElement>(null);

  useEffect(() => {
    const back = takeCardReturn();
    setCardReturn(back);
    // Back from the card page: this section is what the customer came for.
    if (back) section.current?.scrollIntoView({ block: "start" });
    void loadAutoTopUp().then(async (first) => {
      if (back !== "saved" || first === null) return;
      setCardReturn("waiting");
      setCardReturn((await waitForCard()) ? "arrived" : "late");
    });
  }, []);

  const { data } = state;
  // The role does not include billing: BillingHistory already says so for the whole page.
  if (state.status === "forbidden") return null;
  return (
    <section
      ref={section}
      aria-labelledby="auto-top-up"
      className="card scroll-mt-4 border border-base-300 bg-base-100"
      data-auto-top-up
      data-status={state.status}
    >
      <div className="card-body gap-5">
        <h2 id="auto-top-up" className="card-title text-lg">
          {T.title}
        </h2>
        {/* Only what changes is announced: the notice after the card page. */}
        <div className="flex flex-col gap-3" aria-live="polite">
          <p className="text-sm">{T.intro}</p>
          <CardReturnNotice state={cardReturn} />
        </div>
        {state.status === "failed" && (
          <div role="alert" className="alert alert-error text-sm">
            <span>{T.loadFailed}</span>
            <button type="button" className="btn btn-sm" onClick={() => void loadAutoTopUp()}>
              {T.retry}
            </button>
          </div>
        )}
        {state.status === "loading" && !data && (
          <p role="status" className="flex items-center gap-2 text-sm">
            <span className="loading loading-spinner" aria-hidden="true" />
            {T.loading}
          </p>
        )}
        {data && <Loaded data={data} held={held} />}
      </div>
      <ReauthDialog />
    </section>
  );
}
